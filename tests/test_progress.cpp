// Seeing the work (exec/observe.hpp, diagnostics/progress.hpp, diagnostics/trace.hpp): the
// policies' on_chunk_done, progress and trace members and ts::progress_bar, on every backend:
// the callback sees done = 1..total once each, in order, with total = ts::task_count(x), for
// compute, item, persist, ts::store and to_npy of multi-stage expressions; the trace has one
// complete event per task (parsed here with nlohmann and by Python's json); the bar as a
// terminal shows it (tests/progress_helper run under `script`, a pseudo-terminal) and as a file
// does; a failing chunk task still ends the bar and writes the trace, and its exception
// propagates; ts::progress_bar covers its own thread only; the recipe backend gets all of it
// without code of its own.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <typeinfo>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <xtensor/xarray.hpp>
#include <tessera/npy.hpp>

#include "support/backends.hpp"
#include "support/cases.hpp"
#include "support/files.hpp"

namespace ts = tessera;
namespace fs = std::filesystem;
using namespace testing;
using ts::placeholders::_;

namespace {

/// on_chunk_done's calls, and whether two ever overlapped.
struct chunk_log {
  std::vector<std::pair<index_t, index_t>> calls;
  std::atomic<int> inside{0};
  std::atomic<bool> overlapped{false};

  std::function<void(index_t, index_t)> callback() {
    return [this](index_t done, index_t total) {
      if (inside.fetch_add(1) != 0) overlapped = true;
      calls.emplace_back(done, total);
      std::this_thread::yield();  // widen the window for an overlap
      inside.fetch_sub(1);
    };
  }
};

/// The calls were (1, total), (2, total), ..., (total, total).
void check_sequence(const chunk_log& log, index_t total) {
  CHECK_FALSE(log.overlapped.load());
  std::vector<std::pair<index_t, index_t>> want;
  for (index_t k = 1; k <= total; ++k) want.emplace_back(k, total);
  CHECK(log.calls == want);
}

/// What the process writes to stderr (file descriptor 2) while the object lives.
class stderr_capture {
 public:
  stderr_capture() : dir_("tessera_stderr") {
    std::fflush(stderr);
    path_ = dir_ / "stderr.txt";
    saved_ = ::dup(2);
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(fd >= 0);
    ::dup2(fd, 2);
    ::close(fd);
  }
  stderr_capture(const stderr_capture&) = delete;
  stderr_capture& operator=(const stderr_capture&) = delete;
  ~stderr_capture() { restore(); }
  /// Everything written so far.
  std::string text() {
    std::fflush(stderr);
    return slurp(path_);
  }
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, 2);
    ::close(saved_);
    saved_ = -1;
  }

 private:
  temp_dir dir_;
  std::string path_;
  int saved_ = -1;
};

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string l;
  while (std::getline(ss, l)) out.push_back(l);
  return out;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

template <class T>
bool same(const xt::xarray<T>& a, const xt::xarray<T>& b) {
  return a.shape() == b.shape() && std::equal(a.begin(), a.end(), b.begin());
}

/// A writable store (exec/store.hpp) with write blocks of its own, holding the array densely.
template <class T>
struct block_sink {
  using value_type = T;
  ts::chunk_grid g;
  std::vector<T> data;
  explicit block_sink(ts::chunk_grid grid) : g(std::move(grid)), data(std::size_t(g.size())) {}
  const ts::chunk_grid& write_grid() const { return g; }
  template <class F>
  void each(ts::index_t b, F&& f) const {  // 2-d: f(flat index) over block b, row-major
    const ts::box bx = g.block_box(b);
    for (ts::index_t i = bx.lo[0]; i < bx.hi[0]; ++i)
      for (ts::index_t j = bx.lo[1]; j < bx.hi[1]; ++j) f(std::size_t(i * g.shape()[1] + j));
  }
  void write_block(ts::index_t b, const T* in) {
    each(b, [&](std::size_t k) { data[k] = *in++; });
  }
  void load_write_block(ts::index_t b, T* out) const {
    each(b, [&](std::size_t k) { *out++ = data[k]; });
  }
};

/// Chunks made by a callback when a task reads them (a file's stand-in); `fail_block` throws.
struct callback_store {
  using value_type = double;
  ts::chunk_grid g;
  ts::index_t fail_block = -1;
  const ts::chunk_grid& grid() const { return g; }
  ts::memory_space block_space(ts::index_t) const { return ts::memory_space::elsewhere(1); }
  const double* block_pointer(ts::index_t) const { return nullptr; }
  void read_block(ts::index_t b, double* out) const {
    if (b == fail_block) throw std::runtime_error("chunk " + std::to_string(b) + " is unreadable");
    const ts::box bx = g.block_box(b);
    for (ts::index_t k = 0; k < bx.count(); ++k) out[k] = double(b) + 0.001 * double(k);
  }
};

/// The "X" events of a parsed trace, checked for the fields every event has.
std::vector<nlohmann::json> complete_events(const nlohmann::json& doc) {
  std::vector<nlohmann::json> out;
  REQUIRE(doc.contains("traceEvents"));
  CHECK(doc.at("displayTimeUnit") == "ms");
  for (const auto& e : doc.at("traceEvents")) {
    REQUIRE(e.contains("ph"));
    if (e.at("ph") != "X") {
      CHECK(e.at("ph") == "M");
      continue;
    }
    REQUIRE(e.at("name").is_string());
    REQUIRE(e.at("cat").is_string());
    REQUIRE(e.at("ts").is_number());
    REQUIRE(e.at("dur").is_number());
    REQUIRE(e.at("pid").is_number_integer());
    REQUIRE(e.at("tid").is_number_integer());
    CHECK(e.at("ts").get<double>() >= 0);
    CHECK(e.at("dur").get<double>() >= 0);
    CHECK(e.at("tid").get<int>() >= 0);
    const auto& a = e.at("args");
    CHECK(e.at("cat") == "stage " + std::to_string(a.at("stage").get<int>()));
    const std::string dev = a.at("device");
    CHECK((dev == "host" || dev.rfind("cuda:", 0) == 0));
    CHECK(e.at("pid").get<int>() == (dev == "host" ? 0 : 1 + std::stoi(dev.substr(5))));
    CHECK(a.at("elements").get<long long>() >= 0);
    CHECK(a.at("bytes_out").get<long long>() >= 0);
    CHECK(a.at("bytes_in").get<long long>() >= 0);
    CHECK(a.at("box").get<std::string>().front() == '[');
    out.push_back(e);
  }
  return out;
}

/// Stage -> the task numbers its events have (each task once).
std::map<int, std::multiset<long long>> tasks_by_stage(const std::vector<nlohmann::json>& ev) {
  std::map<int, std::multiset<long long>> out;
  for (const auto& e : ev) out[e["args"]["stage"].get<int>()].insert(e["args"]["task"].get<long long>());
  return out;
}

/// 0, 1, ..., n - 1.
std::multiset<long long> iota_set(long long n) {
  std::multiset<long long> s;
  for (long long k = 0; k < n; ++k) s.insert(k);
  return s;
}

}  // namespace

TEMPLATE_TEST_CASE("on_chunk_done sees every task of every stage once, in order", "[progress]",
                   TESSERA_TEST_BACKENDS) {
  auto g = ts::random::default_rng(7);
  auto x = g.normal<double>(10, 1, {90, 70}, {20, 15});
  const TestType plain = make_policy<TestType>(2);
  TestType pol = make_policy<TestType>(2);
  chunk_log log;
  pol.on_chunk_done = log.callback();

  SECTION("(x + 1)[::2, ::2].mean(): the fold stage alone (it writes the result), through item") {
    auto e = ts::mean(ts::view(x + 1, ts::range(_, _, 2), ts::range(_, _, 2)));
    CHECK(ts::task_count(e) == 5 * 5);
    CHECK(ts::item(e, pol) == ts::item(e, plain));
    check_sequence(log, ts::task_count(e));
  }
  SECTION("a mean over an axis") {
    auto e = ts::mean(x, {1});
    CHECK(ts::task_count(e) == 5 * 5);
    CHECK(same(ts::compute(e, pol), ts::compute(e, plain)));
    check_sequence(log, ts::task_count(e));
  }
  SECTION("a reduction of a reduction: two stages, one sequence") {
    auto e = ts::mean(x - ts::mean(x, {0}), {1});
    CHECK(ts::stage_count(e) == 2);
    CHECK(ts::task_count(e) == 5 * 5 + 5 * 5);
    CHECK(same(ts::compute(e, pol), ts::compute(e, plain)));
    check_sequence(log, ts::task_count(e));
  }
  SECTION("persist") {
    auto e = x * 2.0 + ts::mean(x);
    auto p = ts::persist(e, pol);
    check_sequence(log, ts::task_count(e));
    CHECK(same(ts::compute(p, plain), ts::compute(e, plain)));
  }
  SECTION("ts::store into write blocks of another chunking") {
    auto e = x + ts::mean(x, {0});
    block_sink<double> sink(ts::chunk_grid::make({90, 70}, {45, 35}, 8));
    ts::store(e, sink, pol);
    // the 25 fold tasks of mean(x, {0}), then one task per write block (4)
    check_sequence(log, ts::task_count(e) - e.grid().block_count() + 4);
    const auto want = ts::compute(e, plain);
    CHECK(std::equal(sink.data.begin(), sink.data.end(), want.data()));
  }
  SECTION("ts::store of several sources into their targets (Dask's store(sources, targets))") {
    auto e = x + ts::mean(x, {0});
    auto f = x * 2.0;
    block_sink<double> se(ts::chunk_grid::make({90, 70}, {45, 35}, 8));
    block_sink<double> sf(ts::chunk_grid::make({90, 70}, {30, 70}, 8));
    ts::store(std::tie(e, f), std::tie(se, sf), plain);
    const auto we = ts::compute(e, plain), wf = ts::compute(f, plain);
    CHECK(std::equal(se.data.begin(), se.data.end(), we.data()));
    CHECK(std::equal(sf.data.begin(), sf.data.end(), wf.data()));
  }
  SECTION("to_npy") {
    temp_dir dir("tessera_progress");
    auto e = ts::sum(x, {0}) / 90.0;
    ts::to_npy(e, dir / "m.npy", pol);
    check_sequence(log, ts::task_count(e));
    CHECK(same(ts::compute(ts::from_npy<double>(dir / "m.npy"), plain), ts::compute(e, plain)));
  }
  SECTION("empty arrays: the empty chunks count, an empty reduction runs no folds") {
    auto z = ts::zeros<double>({0, 7}, {4, 3});
    CHECK(ts::task_count(z * 2.0) >= 1);
    CHECK(ts::task_count(ts::sum(z, {1})) == 0);  // an empty result: nothing to fold or write
    CHECK(ts::task_count(ts::sum(z, {0})) >= 1);
    CHECK(ts::compute(z * 2.0, pol).size() == 0);
    check_sequence(log, ts::task_count(z * 2.0));
    log.calls.clear();
    CHECK(ts::compute(ts::sum(z, {1}), pol).size() == 0);
    check_sequence(log, ts::task_count(ts::sum(z, {1})));
    log.calls.clear();
    CHECK(ts::compute(ts::sum(z, {0}), pol)(6) == 0.0);
    check_sequence(log, ts::task_count(ts::sum(z, {0})));
  }
  SECTION("nothing observed: no call") {
    auto e = ts::mean(x, {1});
    (void)ts::compute(e, plain);
    CHECK(log.calls.empty());
  }
}

TEMPLATE_TEST_CASE("a trace has one complete event per chunk task", "[progress][trace]",
                   TESSERA_TEST_BACKENDS) {
  temp_dir dir("tessera_trace");
  auto g = ts::random::default_rng(11);
  auto x = g.normal<double>(10, 1, {90, 70}, {20, 15});
  // a reduction below the result: its fold stage, then the result's chunks
  auto e = ts::mean(ts::view(x + 1, ts::range(_, _, 2), ts::range(_, _, 2)), {0}) * 2.0;
  TestType pol = make_policy<TestType>(2);
  pol.trace = dir / "sub/trace.json";  // the directory is made
  stderr_capture err;
  const auto got = ts::compute(e, pol);
  const std::string said = err.text();
  err.restore();
  CHECK(same(got, ts::compute(e, make_policy<TestType>(2))));

  const auto ev = complete_events(nlohmann::json::parse(slurp(dir / "sub/trace.json")));
  CHECK(index_t(ev.size()) == ts::task_count(e));
  const auto stages = tasks_by_stage(ev);
  REQUIRE(stages.size() == 2);  // the fold of the mean, then its output chunks
  CHECK(stages.at(0) == iota_set(5 * 5));
  CHECK(stages.at(1) == iota_set(5));
  for (const auto& ev1 : ev) {
    const int stage = ev1["args"]["stage"];
    const long long elements = ev1["args"]["elements"], bytes_out = ev1["args"]["bytes_out"];
    CHECK(ev1["name"] == (stage == 0 ? "fold mean" : "compute"));
    if (stage == 0) CHECK(ev1["args"]["node"] == "getitem");  // the view being folded
    // a fold task writes its partials, a compute task its chunk of doubles
    CHECK(elements > 0);
    CHECK(bytes_out > 0);
    if (stage == 1) CHECK(bytes_out == 8 * elements);
  }
  // One summary line on stderr naming the file.
  INFO(said);
  CHECK(contains(said, "tessera trace: " + std::to_string(ts::task_count(e)) + " tasks in 2 stages"));
  CHECK(contains(said, "slowest "));
  CHECK(contains(said, "written to " + (dir / "sub/trace.json")));

  // The reduction at the top: its fold stage writes compute's result, no stage of chunks after it.
  auto top = ts::mean(ts::view(x + 1, ts::range(_, _, 2), ts::range(_, _, 2)), {0});
  pol.trace = dir / "top.json";
  {
    stderr_capture quiet;
    CHECK(same(xt::xarray<double>(ts::compute(top, pol) * 2.0), got));
  }
  const auto top_ev = complete_events(nlohmann::json::parse(slurp(dir / "top.json")));
  CHECK(ts::task_count(top) == 5 * 5);
  CHECK(ts::stage_count(top) == 1);
  CHECK(index_t(top_ev.size()) == ts::task_count(top));
  for (const auto& ev1 : top_ev) CHECK(ev1["name"] == "fold mean");
}

TEMPLATE_TEST_CASE("a failing chunk task ends the bar, writes the trace and propagates",
                   "[progress][fault]", TESSERA_TEST_BACKENDS) {
  temp_dir dir("tessera_trace_fail");
  auto s = std::make_shared<callback_store>();
  s->g = ts::chunk_grid::make({60, 40}, {10, 10}, 8);  // 6 x 4 chunks
  s->fail_block = 13;
  auto a = ts::from_store(s);
  auto e = ts::mean(a + 1.0, {1});
  TestType pol = make_policy<TestType>(2);
  chunk_log log;
  pol.on_chunk_done = log.callback();
  pol.progress = true;
  pol.trace = dir / "trace.json";
  {
    stderr_capture err;
    // Once (CHECK_THROWS_* would evaluate it twice): the chunk's own exception, unchanged.
    std::string what;
    bool same_type = false;
    try {
      (void)ts::compute(e, pol);
    } catch (const std::exception& ex) {
      what = ex.what();
      same_type = typeid(ex) == typeid(std::runtime_error);
    }
    CHECK(what == "chunk 13 is unreadable");
    CHECK(same_type);
    const std::string said = err.text();
    INFO(said);
    const auto lines = lines_of(said);
    REQUIRE(lines.size() >= 2);
    // The bar's closing line, then the trace summary.
    CHECK(contains(lines[lines.size() - 2], "failed after"));
    CHECK(contains(lines[lines.size() - 2], "/" + std::to_string(ts::task_count(e)) + " chunks"));
    CHECK(contains(lines.back(), "stopped by an exception"));
    CHECK(contains(lines.back(), "written to "));
  }
  CHECK(!log.calls.empty());
  CHECK(index_t(log.calls.size()) < ts::task_count(e));
  const auto ev = complete_events(nlohmann::json::parse(slurp(dir / "trace.json")));
  CHECK(ev.size() == log.calls.size());

  // Nothing is left observing this thread: the next computation, unobserved, prints nothing.
  s->fail_block = -1;
  stderr_capture err;
  (void)ts::compute(e, make_policy<TestType>(2));
  CHECK(err.text().empty());
}

TEMPLATE_TEST_CASE("ts::progress_bar shows progress for the computations of its thread",
                   "[progress]", TESSERA_TEST_BACKENDS) {
  auto x = ts::full<double>({90, 70}, 1.5, {20, 15});
  auto e = ts::sum(x + 1.0, {0});
  const TestType pol = make_policy<TestType>(2);
  const std::string total = std::to_string(ts::task_count(e));
  const std::string final_bar = "[####################] 100% | " + total + "/" + total + " chunks | ";

  SECTION("while alive, in its thread") {
    stderr_capture err;
    {
      ts::progress_bar bar;
      (void)ts::compute(e, pol);
      {
        ts::progress_bar nested;
        (void)ts::persist(x, pol);
      }
    }
    (void)ts::compute(e, pol);  // the bar is gone
    const auto lines = lines_of(err.text());
    REQUIRE(lines.size() == 2);  // stderr is a file: plain lines, a quick computation only its last
    CHECK(lines[0].rfind(final_bar, 0) == 0);
    CHECK(contains(lines[1], "] 100% | 25/25 chunks | "));  // persist of 5 x 5 chunks
    CHECK(!contains(err.text(), "\r"));
  }
  SECTION("not in other threads") {
    std::mutex m;
    std::condition_variable cv;
    int phase = 0;
    std::thread other([&] {
      ts::progress_bar bar;
      std::unique_lock l(m);
      phase = 1;
      cv.notify_all();
      cv.wait(l, [&] { return phase == 2; });
    });
    {
      std::unique_lock l(m);
      cv.wait(l, [&] { return phase == 1; });
    }
    stderr_capture err;
    (void)ts::compute(e, pol);
    const std::string said = err.text();
    {
      std::lock_guard l(m);
      phase = 2;
    }
    cv.notify_all();
    other.join();
    CHECK(said.empty());
  }
}

// ------------------------------------------------------------------------- host-only pieces
#if !defined(__CUDACC__)
#include "support/recipe_backend.hpp"

TEST_CASE("the bar's text", "[progress]") {
  using ts::detail::progress_text;
  CHECK(progress_text(42, 100, 1.5) == "[########------------]  42% | 42/100 chunks | 28 chunks/s | ETA 2.1s");
  CHECK(progress_text(0, 48, 0.0) == "[--------------------]   0% | 0/48 chunks | -- chunks/s | ETA --");
  CHECK(progress_text(100, 100, 3.5, true) == "[####################] 100% | 100/100 chunks | 28.6 chunks/s | 3.5s");
  CHECK(progress_text(17, 48, 2.0, true, true) == "[#######-------------]  35% | 17/48 chunks | failed after 2.0s");
  CHECK(progress_text(5000, 10000, 2.0) ==
        "[##########----------]  50% | 5000/10000 chunks | 2500 chunks/s | ETA 2.0s");
  CHECK(progress_text(123456, 1000000, 4000.0).size() < 80);
  CHECK(ts::detail::progress_duration(125) == "2m05s");
  CHECK(ts::detail::progress_duration(7322) == "2h02m");
  CHECK(ts::detail::json_quote("a\"b\\c\n\x01") == "\"a\\\"b\\\\c\\n\\u0001\"");
}

TEST_CASE("policies keep their aggregate forms", "[progress]") {
  ts::host a{2};
  CHECK(a.threads == 2);
  CHECK(!a.progress);
  ts::host b{.threads = 2, .progress = true};
  CHECK(b.threads == 2);
  CHECK(b.progress);
  CHECK(b.trace.empty());
  CHECK(!b.on_chunk_done);
}

TEST_CASE("a new backend is observed with no code of its own (recipe::staged)", "[progress]") {
  auto x = ts::full<double>({30, 30}, 2.0, {10, 10});
  auto e = ts::mean(x * 3.0, {1});
  const std::string total = std::to_string(ts::task_count(e));
  stderr_capture err;
  {
    ts::progress_bar bar;
    CHECK(ts::compute(e, recipe::staged{})(0) == 6.0);
  }
  const auto lines = lines_of(err.text());
  REQUIRE(lines.size() == 1);
  CHECK(contains(lines[0], "] 100% | " + total + "/" + total + " chunks | "));
}

TEST_CASE("a trace that cannot be written is reported naming the path; the result is kept",
          "[progress][trace][fault]") {
  auto e = ts::mean(ts::full<double>({40, 40}, 1.0, {10, 10}));
  const std::string bad = "/dev/null/sub/trace.json";  // a file is no directory
  stderr_capture err;
  CHECK(ts::compute(e, ts::host{.trace = bad})() == 1.0);
  CHECK(contains(err.text(), "NOT written"));
  CHECK(contains(err.text(), "/dev/null/sub"));
  // nothing stays observing: a plain call prints nothing
  const auto before = err.text();
  (void)ts::compute(e, ts::host{});
  CHECK(err.text() == before);
}

TEST_CASE("evaluations inside a chunk task or the callback are part of the task", "[progress]") {
  // One thread: the tasks and the callback run on the calling thread, where the call's
  // observer is current; what they evaluate is neither counted nor drawn (nor a deadlock).
  auto inner = [] { return ts::item(ts::sum(ts::full<double>({10}, 1.0, {5}))); };
  struct nesting_store : callback_store {
    std::function<double()> f;
    void read_block(ts::index_t b, double* out) const {
      (void)f();
      callback_store::read_block(b, out);
    }
  };
  auto s = std::make_shared<nesting_store>();
  s->g = ts::chunk_grid::make({40, 40}, {10, 10}, 8);
  s->f = inner;
  auto e = ts::mean(ts::from_store(s), {0});
  chunk_log log;
  double from_callback = 0;
  ts::host pol{.threads = 1};
  auto record = log.callback();
  pol.on_chunk_done = [&](index_t done, index_t total) {
    from_callback += inner();
    record(done, total);
  };
  stderr_capture err;
  {
    ts::progress_bar bar;
    (void)ts::compute(e, pol);
  }
  check_sequence(log, ts::task_count(e));
  CHECK(from_callback == 10.0 * double(ts::task_count(e)));
  const auto lines = lines_of(err.text());
  REQUIRE(lines.size() == 1);  // one bar: the inner evaluations drew none
  CHECK(contains(lines[0], "] 100% | 16/16 chunks | "));  // the 16 folds write the result
}

namespace {

/// Runs a shell command; its exit status.
int shell(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/// The bar's drawings in a terminal's output: the segments between '\r's of the line that holds
/// the bar (a pty turns "\n" into "\r\n").
std::vector<std::string> redraws(const std::string& tty) {
  std::vector<std::string> best;
  for (std::string l : lines_of(tty)) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    if (!contains(l, " chunks | ")) continue;
    std::vector<std::string> seg;
    std::size_t p = 0;
    while (p <= l.size()) {
      const std::size_t q = std::min(l.find('\r', p), l.size());
      std::string s = l.substr(p, q - p);
      while (!s.empty() && s.back() == ' ') s.pop_back();
      if (!s.empty()) seg.push_back(s);
      p = q + 1;
    }
    if (seg.size() > best.size()) best = seg;
  }
  return best;
}

int percent_of(const std::string& bar) { return std::stoi(bar.substr(bar.find(']') + 1)); }

/// Checks a trace file with Python's json module: `tasks` "X" events, each stage's tasks
/// 0..n-1 once, sane fields. Returns the script's exit status (0: good).
int python_check_trace(const std::string& trace, long long tasks, const temp_dir& dir) {
  const std::string script = dir / "check_trace.py";
  spit(script, R"(import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["displayTimeUnit"] == "ms", doc.get("displayTimeUnit")
ev = [e for e in doc["traceEvents"] if e["ph"] == "X"]
assert all(e["ph"] in ("X", "M") for e in doc["traceEvents"])
assert len(ev) == int(sys.argv[2]), (len(ev), sys.argv[2])
stages = {}
for e in ev:
    for k in ("name", "cat", "ts", "dur", "pid", "tid", "args"):
        assert k in e, (k, e)
    assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
    assert isinstance(e["dur"], (int, float)) and e["dur"] >= 0, e
    assert isinstance(e["pid"], int) and isinstance(e["tid"], int), e
    a = e["args"]
    assert e["cat"] == "stage %d" % a["stage"], e
    assert a["device"] == "host", e
    assert a["elements"] > 0 and a["bytes_out"] > 0 and a["bytes_in"] >= 0, e
    stages.setdefault(a["stage"], []).append(a["task"])
for s, t in stages.items():
    assert sorted(t) == list(range(len(t))), (s, sorted(t))
names = {e["args"]["name"] for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"}
assert names, "no thread names"
print("trace ok:", len(ev), "events,", len(stages), "stages")
)");
  return shell("/usr/bin/python3 " + script + " " + trace + " " + std::to_string(tasks));
}

}  // namespace

TEST_CASE("Python's json reads the trace", "[progress][trace]") {
  temp_dir dir("tessera_trace_py");
  auto g = ts::random::default_rng(3);
  auto x = g.normal<double>(0, 1, {100, 80}, {25, 20});
  auto e = ts::stddev(x * 2.0 - ts::mean(x, {0}), {1}) * 2.0;  // three stages
  ts::host pol{.threads = 2};
  pol.trace = dir / "trace.json";
  {
    stderr_capture err;
    (void)ts::compute(e, pol);
  }
  CHECK(ts::stage_count(e) == 3);
  CHECK(python_check_trace(pol.trace, ts::task_count(e), dir) == 0);
  // scripts/trace_svg.py draws it: one box (with its tooltip) per task.
  const fs::path script = fs::path(__FILE__).parent_path().parent_path() / "scripts" / "trace_svg.py";
  if (fs::exists(script)) {
    REQUIRE(shell("/usr/bin/python3 " + script.string() + " " + pol.trace + " " + (dir / "trace.svg")) == 0);
    const std::string svg = slurp(dir / "trace.svg");
    std::size_t boxes = 0;
    for (std::size_t p = svg.find("<title>"); p != std::string::npos; p = svg.find("<title>", p + 1)) ++boxes;
    CHECK(boxes == std::size_t(ts::task_count(e)));
    CHECK(contains(svg, "stage 2: compute"));
  }
}

#if defined(TESSERA_PROGRESS_HELPER)
TEST_CASE("on a terminal the bar is redrawn in place", "[progress][tty]") {
  temp_dir dir("tessera_tty");
  REQUIRE(shell("command -v script >/dev/null") == 0);
  const std::string out = dir / "tty.txt";
  // script(1) runs the helper on a pseudo-terminal and copies what it shows to stdout.
  const int rc = shell("script -qfec '" TESSERA_PROGRESS_HELPER " ok 25' /dev/null </dev/null >" + out +
                       " 2>&1");
  const std::string tty = slurp(out);
  INFO(tty);
  CHECK(rc == 0);
  const auto bars = redraws(tty);
  REQUIRE(bars.size() >= 3);  // 48 tasks over ~0.6 s: redrawn several times, at most 10 a second
  const double seconds = std::stod(bars.back().substr(bars.back().rfind("| ") + 2));
  CHECK(double(bars.size()) <= 2 + 10 * seconds + 1);
  for (std::size_t k = 0; k + 1 < bars.size(); ++k) {
    CHECK(contains(bars[k], " chunks/s | ETA "));
    CHECK(percent_of(bars[k]) <= percent_of(bars[k + 1]));
  }
  CHECK(bars.back().rfind("[####################] 100% | 48/48 chunks | ", 0) == 0);
  CHECK(!contains(bars.back(), "ETA"));
  CHECK(contains(tty, "result 4\r\n"));  // row 23 lies in chunk 2: all 2, times 2
}

TEST_CASE("without a terminal the bar prints plain lines", "[progress][tty]") {
  temp_dir dir("tessera_notty");
  const std::string err = dir / "err.txt";
  // 24 reads of 100 ms on one thread: 2.4 s, so a line at about 1 s and 2 s, then the last.
  CHECK(shell(TESSERA_PROGRESS_HELPER " ok 100 >" + (dir / "out.txt") + " 2>" + err) == 0);
  const std::string text = slurp(err);
  INFO(text);
  CHECK(!contains(text, "\r"));
  const auto lines = lines_of(text);
  REQUIRE(lines.size() >= 2);
  REQUIRE(lines.size() <= 6);
  for (std::size_t k = 0; k + 1 < lines.size(); ++k) {
    CHECK(contains(lines[k], " chunks/s | ETA "));
    CHECK(percent_of(lines[k]) < percent_of(lines[k + 1]));
  }
  CHECK(lines.back().rfind("[####################] 100% | 48/48 chunks | ", 0) == 0);
  CHECK(slurp(dir / "out.txt") == "result 4\n");
}

TEST_CASE("a failing task ends the bar on the terminal and the trace is written", "[progress][tty][fault]") {
  temp_dir dir("tessera_tty_fail");
  const std::string out = dir / "tty.txt", trace = dir / "trace.json";
  const int rc = shell("script -qfec '" TESSERA_PROGRESS_HELPER " fail 5 " + trace + "' /dev/null </dev/null >" +
                       out + " 2>&1");
  const std::string tty = slurp(out);
  INFO(tty);
  CHECK(rc == 3);  // the helper caught the chunk's exception
  const auto bars = redraws(tty);
  REQUIRE(!bars.empty());
  CHECK(contains(bars.back(), "]  35% | 17/48 chunks | failed after "));
  CHECK(contains(tty, "error: chunk 17 is unreadable"));
  CHECK(contains(tty, "tessera trace: 17 tasks in 1 stage, "));
  // Tasks 0..16 of the fold completed (one thread, in order) before chunk 17 threw.
  CHECK(python_check_trace(trace, 17, dir) == 0);
}
#endif  // TESSERA_PROGRESS_HELPER
#endif  // !__CUDACC__
