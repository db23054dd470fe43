// Per-task profiles: the chunk tasks of one top-level call (compute, persist, item, store / to_zarr
// / to_npy) with their start and end times, worker, device, bytes and stage, written as a Chrome
// trace event file (chrome://tracing, https://ui.perfetto.dev) and summarized in one line.
//
//   ts::compute(x, ts::host{.trace = "trace.json"});     // ts::cuda{.trace = ...} too
//   // stderr: tessera trace: 101 tasks in 2 stages, 0.412 s wall; busy host[0] 97%, ...
//
// The file holds one complete event ("ph": "X") per chunk task:
//   name   the stage's kind: "compute", "persist", "store" or "fold <reduction>"
//   cat    "stage N" (N counts the call's stages from 0 in the order they ran: the reductions
//          inside first, the call's own chunks last)
//   ts/dur microseconds since the call started (steady clock) / the task's duration: on the
//          host the task's body; on CUDA from enqueueing its work to the host seeing its stream
//          complete (its then() callbacks run)
//   pid    0 for the host, 1 + N for CUDA device N; tid: the host worker (in order of first
//          use) or the device's stream slot
//   args   stage, task, node (the root node of what the stage evaluates), box (the elements
//          it evaluated, folded or wrote), device ("host", "cuda:N"), elements,
//          bytes_out (what it wrote: chunk bytes, a reduction's partials), bytes_in (stored
//          input it read, per the placement probe; 0 for generated inputs)
// plus metadata events ("ph": "M") naming the processes and threads. The recorder is used under
// the observer's lock (exec/observe.hpp); it is not thread-safe itself.
#pragma once
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "../config.hpp"
#include "../core/ivec.hpp"
#include "../core/memory_space.hpp"

namespace tessera::detail {

/// s as a JSON string literal (quotes included): ", \ and control characters escaped; other
/// bytes (UTF-8) as they are.
inline std::string json_quote(std::string_view s) {
  std::string o = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') o += '\\', o += c;
    else if (c == '\n') o += "\\n";
    else if (c == '\t') o += "\\t";
    else if (c == '\r') o += "\\r";
    else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(u));
      o += buf;
    } else o += c;
  }
  return o + "\"";
}

/// "host", "cuda:N", "other:N".
inline std::string device_name(memory_space m) {
  switch (m.where) {
    case memory_space::kind::host: return "host";
    case memory_space::kind::device: return "cuda:" + std::to_string(m.id);
    default: return "other:" + std::to_string(m.id);
  }
}

/// "[0:100, 200:300]".
inline std::string box_text(const box& b) {
  std::string s = "[";
  for (int d = 0; d < b.rank(); ++d)
    s += (d ? ", " : "") + std::to_string(b.lo[d]) + ":" + std::to_string(b.hi[d]);
  return s + "]";
}

/// One chunk task as recorded.
struct trace_event {
  int stage = 0;
  index_t task = 0;
  double start_us = 0, end_us = 0;  // since the call started
  memory_space space{};             // where it ran
  int lane = 0;                     // host worker or stream slot
  std::int64_t bytes_out = 0, bytes_in = 0;
  box region{};                     // the elements it evaluated (or folded, or wrote)
};

class trace_recorder {
 public:
  /// A new stage: its event name ("compute", "fold mean", ...) and the root node it evaluates.
  int add_stage(std::string name, std::string node, index_t tasks) {
    stages_.push_back({std::move(name), std::move(node), tasks});
    return int(stages_.size()) - 1;
  }
  /// The lane of a host thread: 0, 1, ... in order of first use in this call.
  int thread_lane(std::thread::id id) {
    for (std::size_t k = 0; k < threads_.size(); ++k)
      if (threads_[k] == id) return int(k);
    threads_.push_back(id);
    return int(threads_.size()) - 1;
  }
  void reserve(std::size_t n) { events_.reserve(n); }
  void add(const trace_event& e) { events_.push_back(e); }
  const std::vector<trace_event>& events() const { return events_; }
  std::size_t stages() const { return stages_.size(); }

  /// The Chrome trace event JSON (events in order of start time).
  std::string json() const {
    std::vector<const trace_event*> ev;
    for (const auto& e : events_) ev.push_back(&e);
    std::stable_sort(ev.begin(), ev.end(),
                     [](const trace_event* a, const trace_event* b) { return a->start_us < b->start_us; });
    std::string o = "{\"traceEvents\": [\n";
    bool first = true;
    auto sep = [&] {
      if (!first) o += ",\n";
      first = false;
    };
    // Metadata: a process per device, a thread per lane.
    std::vector<std::pair<memory_space, int>> lanes;
    std::vector<memory_space> spaces;
    for (const trace_event* e : ev) {
      if (std::find(spaces.begin(), spaces.end(), e->space) == spaces.end()) spaces.push_back(e->space);
      const std::pair<memory_space, int> l{e->space, e->lane};
      if (std::find(lanes.begin(), lanes.end(), l) == lanes.end()) lanes.push_back(l);
    }
    for (memory_space m : spaces) {
      sep();
      o += "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " + std::to_string(pid(m)) +
           ", \"tid\": 0, \"args\": {\"name\": " + json_quote(device_name(m)) + "}}";
    }
    for (const auto& l : lanes) {
      sep();
      o += "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": " + std::to_string(pid(l.first)) +
           ", \"tid\": " + std::to_string(l.second) + ", \"args\": {\"name\": " +
           json_quote(lane_kind(l.first) + " " + std::to_string(l.second)) + "}}";
    }
    // The stages' quoted strings once; each event is then a few snprintf calls.
    std::vector<std::string> names, nodes;
    for (const trace_stage& st : stages_) names.push_back(json_quote(st.name)), nodes.push_back(json_quote(st.node));
    o.reserve(o.size() + ev.size() * 320);
    for (const trace_event* e : ev) {
      sep();
      const std::size_t k = std::size_t(e->stage);
      o += "{\"name\": ";
      o += names[k];
      o += ", \"cat\": \"stage ";
      append_int(o, e->stage);
      o += "\", \"ph\": \"X\", \"ts\": ";
      append_us(o, e->start_us);
      o += ", \"dur\": ";
      append_us(o, e->end_us - e->start_us);
      o += ", \"pid\": ";
      append_int(o, pid(e->space));
      o += ", \"tid\": ";
      append_int(o, e->lane);
      o += ", \"args\": {\"stage\": ";
      append_int(o, e->stage);
      o += ", \"task\": ";
      append_int(o, e->task);
      o += ", \"node\": ";
      o += nodes[k];
      o += ", \"box\": \"[";
      for (int d = 0; d < e->region.rank(); ++d) {
        if (d) o += ", ";
        append_int(o, e->region.lo[d]);
        o += ':';
        append_int(o, e->region.hi[d]);
      }
      o += "]\", \"device\": \"";
      o += device_name(e->space);
      o += "\", \"elements\": ";
      append_int(o, e->region.count());
      o += ", \"bytes_out\": ";
      append_int(o, e->bytes_out);
      o += ", \"bytes_in\": ";
      append_int(o, e->bytes_in);
      o += "}}";
    }
    o += "\n], \"displayTimeUnit\": \"ms\"}\n";
    return o;
  }

  /// One line: tasks, stages, wall time, busy fraction per lane (min/mean/max beyond 8 lanes),
  /// the slowest task.
  std::string summary(double wall_s, bool failed) const {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%zu tasks in %zu stage%s, %.3f s wall%s", events_.size(),
                  stages_.size(), stages_.size() == 1 ? "" : "s", wall_s,
                  failed ? " (stopped by an exception)" : "");
    std::string s = buf;
    std::vector<std::pair<std::pair<memory_space, int>, double>> busy;
    const trace_event* slowest = nullptr;
    for (const auto& e : events_) {
      const double d = e.end_us - e.start_us;
      if (!slowest || d > slowest->end_us - slowest->start_us) slowest = &e;
      const std::pair<memory_space, int> l{e.space, e.lane};
      auto it = std::find_if(busy.begin(), busy.end(), [&](const auto& b) { return b.first == l; });
      if (it == busy.end()) busy.push_back({l, d});
      else it->second += d;
    }
    std::sort(busy.begin(), busy.end(), [](const auto& a, const auto& b) {
      if (pid(a.first.first) != pid(b.first.first)) return pid(a.first.first) < pid(b.first.first);
      return a.first.second < b.first.second;
    });
    const double wall_us = std::max(wall_s * 1e6, 1e-9);
    if (!busy.empty()) {
      s += "; busy";
      if (busy.size() <= 8) {
        for (std::size_t k = 0; k < busy.size(); ++k) {
          std::snprintf(buf, sizeof buf, "%s %s[%d] %.0f%%", k ? "," : "",
                        device_name(busy[k].first.first).c_str(), busy[k].first.second,
                        100 * busy[k].second / wall_us);
          s += buf;
        }
      } else {
        double lo = 1e300, hi = 0, sum = 0;
        for (const auto& b : busy) lo = std::min(lo, b.second), hi = std::max(hi, b.second), sum += b.second;
        std::snprintf(buf, sizeof buf, " %zu workers: min %.0f%%, mean %.0f%%, max %.0f%%",
                      busy.size(), 100 * lo / wall_us, 100 * sum / double(busy.size()) / wall_us,
                      100 * hi / wall_us);
        s += buf;
      }
    }
    if (slowest) {
      std::snprintf(buf, sizeof buf, "; slowest %s (stage %d, task %lld) %.3f ms",
                    stages_[std::size_t(slowest->stage)].name.c_str(), slowest->stage,
                    (long long)slowest->task, (slowest->end_us - slowest->start_us) / 1e3);
      s += buf;
    }
    return s;
  }

 private:
  struct trace_stage {
    std::string name, node;
    index_t tasks = 0;
  };
  static int pid(memory_space m) {
    switch (m.where) {
      case memory_space::kind::host: return 0;
      case memory_space::kind::device: return 1 + m.id;
      default: return 1000 + m.id;
    }
  }
  // The JSON numbers, without printf (a trace of 10^4 tasks is formatted in about a millisecond).
  static void append_int(std::string& o, long long v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    o.append(buf, r.ptr);
  }
  /// Microseconds with three decimals (nanoseconds), never negative.
  static void append_us(std::string& o, double us) {
    const long long ns = us > 0 ? (long long)(us * 1000.0 + 0.5) : 0;
    append_int(o, ns / 1000);
    const int frac = int(ns % 1000);
    o += '.';
    o += char('0' + frac / 100);
    o += char('0' + frac / 10 % 10);
    o += char('0' + frac % 10);
  }
  static std::string lane_kind(memory_space m) {
    return m.where == memory_space::kind::device ? "stream" : "worker";
  }

  std::vector<trace_stage> stages_;
  std::vector<trace_event> events_;
  std::vector<std::thread::id> threads_;
};

}  // namespace tessera::detail
