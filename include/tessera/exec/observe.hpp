// Observing a computation: progress (diagnostics/progress.hpp), the on_chunk_done callback and
// per-task traces (diagnostics/trace.hpp), hooked once into the task driver so that every driver
// (compute, persist, item, reductions, ts::store and so to_zarr / to_npy) and every backend gets
// them with no code of its own.
//
//   observation obs(policy, [&] { return task_count(x); });   // a top-level call's scope
//   ...                                                         // lowering: the reductions'
//                                                               // stages run here
//   detail::run_tasks(policy, tasks, "compute", out_bytes, body);  // instead of B::run_tasks
//   obs.finish();                                               // final line, trace file
//
// * One observer per top-level call (compute, persist, store), made by its observation when
//   the policy asks for something (`.progress`, `.trace`, `.on_chunk_done`, or a
//   ts::progress_bar alive in the calling thread) and current in the calling thread while the
//   call runs. Every detail::run_tasks on that thread (each stage: a reduction's fold tasks,
//   then the call's own chunks) reports to it, so a call has one bar and one trace whose total
//   is task_count(x) (diagnostics/graph.hpp). A nested top-level call on the same thread adds
//   its tasks to the current observer; evaluations started inside a chunk task are not
//   observed. run_tasks outside any top-level call observes its one stage on its own when the
//   policy asks. Linear algebra's row-block loads (linalg::dense<P>) do not go through
//   run_tasks and are not observed.
// * The per-task hook wraps the body handed to backend<P>::run_tasks: the task counts as done
//   when its work is complete, i.e. in a then() callback registered after the body's own (at
//   once on the host; on CUDA after the stream completed and the body's callbacks ran).
// * Nothing enabled: one branch per stage, the body is handed to the backend unwrapped.
// * The done count, the callback, the bar and the trace are updated under one mutex, so
//   on_chunk_done sees done = 1, 2, ..., total in order, one call at a time (other workers
//   wait meanwhile: keep it short). It runs in a TBB isolated region, so a parallel loop
//   inside it does not run the call's own chunk tasks on that thread. On ts::cuda it runs on
//   the device's worker thread and must not start a ts::cuda evaluation.
// * The bar's closing line and the trace file are written when the call ends, also when a task
//   threw (the exception propagates unchanged). A trace that cannot be written is reported on
//   stderr with the reason and the path; the call's result is kept (a diagnostic never costs
//   the user a finished computation).
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

#include <tbb/task_arena.h>

#include "../diagnostics/graph.hpp"
#include "../diagnostics/progress.hpp"
#include "../diagnostics/trace.hpp"
#include "../store/file.hpp"
#include "backend.hpp"

namespace tessera::detail {

/// The policies' on_chunk_done type.
using chunk_callback = std::function<void(index_t done, index_t total)>;

/// What a policy asks to observe. Policies without the members (a user's backend) ask nothing
/// themselves; a ts::progress_bar alive in this thread asks for progress on every policy.
struct observe_request {
  bool progress = false;
  const std::string* trace = nullptr;
  const chunk_callback* on_chunk_done = nullptr;
  bool any() const { return progress || trace != nullptr || on_chunk_done != nullptr; }
};

template <class P>
observe_request observe_request_of(const P& pol) {
  observe_request r;
  if constexpr (requires { bool(pol.progress); }) r.progress = bool(pol.progress);
  if constexpr (requires { pol.trace.empty(); })
    if (!pol.trace.empty()) r.trace = &pol.trace;
  if constexpr (requires {
                  requires std::is_same_v<std::remove_cvref_t<decltype(pol.on_chunk_done)>, chunk_callback>;
                })
    if (pol.on_chunk_done) r.on_chunk_done = &pol.on_chunk_done;
  if (progress_bars_alive() > 0) r.progress = true;
  return r;
}

/// > 0 while this thread runs an observed chunk task's body or the observer's callback:
/// evaluations started there are not observed (they are part of the task).
inline int& observed_task_depth() {
  thread_local int depth = 0;
  return depth;
}

/// Marks the running thread as inside an observed task's body.
struct observed_task_scope {
  observed_task_scope() { ++observed_task_depth(); }
  ~observed_task_scope() { --observed_task_depth(); }
  observed_task_scope(const observed_task_scope&) = delete;
  observed_task_scope& operator=(const observed_task_scope&) = delete;
};

/// The shared state of one observed top-level call.
class observer {
 public:
  using clock = std::chrono::steady_clock;

  observer(const observe_request& r, index_t total) : total_(total), t0_(clock::now()) {
    if (r.progress) bar_.emplace();
    if (r.trace) {
      path_ = *r.trace;
      trace_.emplace();
      trace_->reserve(std::size_t(std::max<index_t>(total, 0)));
    }
    if (r.on_chunk_done) callback_ = *r.on_chunk_done;
  }

  bool tracing() const { return trace_.has_value(); }
  clock::time_point start() const { return t0_; }

  void add_total(index_t n) {
    std::lock_guard lock(m_);
    total_ += n;
  }

  /// A new stage of `tasks` chunk tasks; returns its number (0, 1, ... in the order run).
  int begin_stage(std::string name, std::string node, index_t tasks) {
    std::lock_guard lock(m_);
    if (trace_) return trace_->add_stage(std::move(name), std::move(node), tasks);
    return stages_++;
  }

  /// A task's work is complete (any thread). `e`: its trace record when tracing, with the
  /// host thread that ran it for lane -1.
  void task_done(trace_event* e = nullptr, std::thread::id thread = {}) {
    std::lock_guard lock(m_);
    ++done_;
    if (done_ > total_) total_ = done_;  // a stage the task count did not know of
    if (e && trace_) {
      if (e->lane < 0) e->lane = trace_->thread_lane(thread);
      trace_->add(*e);
    }
    if (bar_) bar_->update(done_, total_, seconds());
    if (callback_) {
      observed_task_scope in_callback;  // an evaluation it starts must not wait for this lock
      // Isolated: while the callback waits in a parallel loop of its own, this worker must not
      // pick up another chunk task of the call (its task_done would wait for this lock).
      tbb::this_task_arena::isolate([&] { callback_(done_, total_); });
    }
  }

  /// The call ended (failed: by an exception): the bar's last line, the trace file and its
  /// summary. Never throws: a trace that cannot be written is reported on stderr.
  void finish(bool failed) noexcept {
    {
      std::lock_guard lock(m_);
      const double wall = seconds();
      try {
        if (bar_) bar_->finish(done_, total_, wall, failed);
      } catch (...) {
      }
      if (!trace_) return;
      std::string where = "written to " + path_;
      try {
        write_file_atomic(path_, trace_->json());
      } catch (const std::exception& ex) {
        where = std::string("NOT written: ") + ex.what();
      } catch (...) {
        where = "NOT written to " + path_;
      }
      try {
        std::fprintf(stderr, "tessera trace: %s; %s\n", trace_->summary(wall, failed).c_str(),
                     where.c_str());
      } catch (...) {  // no memory for the summary
        std::fprintf(stderr, "tessera trace: %s\n", where.c_str());
      }
      std::fflush(stderr);
    }
  }

 private:
  double seconds() const { return std::chrono::duration<double>(clock::now() - t0_).count(); }

  std::mutex m_;
  index_t done_ = 0, total_ = 0;
  int stages_ = 0;
  clock::time_point t0_;
  std::optional<progress_printer> bar_;
  std::optional<trace_recorder> trace_;
  std::string path_;
  chunk_callback callback_;
};

/// The observer of the top-level call running on this thread (nullptr: none).
inline observer*& current_observer() {
  thread_local observer* o = nullptr;
  return o;
}

/// The scope of one top-level call (compute, persist, store): makes the call's observer when
/// its policy asks for one, joins the current one when the call is nested. `total()` (the
/// call's chunk tasks, task_count(x)) is evaluated only then. Call finish() when the call
/// succeeded; the destructor ends an observation left by an exception.
class observation {
 public:
  template <class P, class Total>
  observation(const P& pol, Total&& total) {
    if (observed_task_depth() > 0) return;
    if (observer* cur = current_observer()) {
      cur->add_total(index_t(total()));
      return;
    }
    const observe_request r = observe_request_of(pol);
    if (!r.any()) return;
    own_ = std::make_unique<observer>(r, index_t(total()));
    current_observer() = own_.get();
    exceptions_ = std::uncaught_exceptions();
  }
  observation(const observation&) = delete;
  observation& operator=(const observation&) = delete;

  /// The call succeeded: closing line and trace file.
  void finish() {
    if (!own_) return;
    std::unique_ptr<observer> o = std::move(own_);
    current_observer() = nullptr;
    o->finish(false);
  }

  /// Ends the observation finish() did not: failed when an exception is unwinding this
  /// scope.
  ~observation() {
    if (!own_) return;
    current_observer() = nullptr;
    own_->finish(std::uncaught_exceptions() > exceptions_);
  }

 private:
  std::unique_ptr<observer> own_;
  int exceptions_ = 0;
};


/// The root node a stage evaluates, by its NumPy / Dask name (trace only).
template <class Tasks>
std::string stage_node(const Tasks& tasks) {
  if constexpr (requires { tasks.expr; }) return node_name(tasks.expr);
  else return "";
}
/// A stage's kind: a string, or a callable giving it (evaluated only when tracing).
template <class K>
std::string stage_kind(const K& k) {
  if constexpr (std::is_invocable_v<const K&>) return std::string(k());
  else return std::string(k);
}

/// backend<P>::run_tasks(pol, tasks, body), observed by `o`. `kind` names the stage in the
/// trace (a string, or a callable giving one); out_bytes(t): the bytes task t writes.
template <class P, class Tasks, class Kind, class OutBytes, class Body>
void observed_run(observer& o, const P& pol, const Tasks& tasks, const Kind& kind,
                  const OutBytes& out_bytes, Body& body) {
  const bool tracing = o.tracing();
  const int stage = tracing ? o.begin_stage(stage_kind(kind), stage_node(tasks), tasks.count())
                            : o.begin_stage(std::string(), std::string(), tasks.count());
  backend<P>::run_tasks(pol, tasks, [&](auto& env, index_t t) {
    if (!tracing) {
      {
        observed_task_scope in_task;
        body(env, t);
      }
      env.then([&o] { o.task_done(); });
      return;
    }
    const auto start = observer::clock::now();
    const std::thread::id thread = std::this_thread::get_id();
    {
      observed_task_scope in_task;
      body(env, t);
    }
    int lane = -1;  // host: the thread, numbered by the recorder
    if constexpr (requires { env.lane(); }) lane = int(env.lane());
    const memory_space space = env.context().space();
    env.then([&o, &tasks, &out_bytes, stage, t, start, thread, lane, space] {
      const auto end = observer::clock::now();
      trace_event e;
      e.stage = stage;
      e.task = t;
      e.start_us = std::chrono::duration<double, std::micro>(start - o.start()).count();
      e.end_us = std::chrono::duration<double, std::micro>(end - o.start()).count();
      e.space = space;
      e.lane = lane;
      e.region = tasks.task_box(t);
      e.bytes_out = std::int64_t(out_bytes(t));
      if constexpr (requires { tasks.where(t).bytes(); }) {
        const auto probe = tasks.where(t);
        for (const auto& sb : probe.bytes()) e.bytes_in += sb.second;
      }
      o.task_done(&e, thread);
    });
  });
}

/// The drivers' way to run chunk tasks (instead of backend<P>::run_tasks): the same, observed
/// when the calling thread has an observer or the policy asks for one (see the header comment).
template <class P, class Tasks, class Kind, class OutBytes, class Body>
void run_tasks(const P& pol, const Tasks& tasks, const Kind& kind, const OutBytes& out_bytes,
               Body&& body) {
  if (observed_task_depth() == 0) {
    if (observer* o = current_observer()) {
      observed_run(*o, pol, tasks, kind, out_bytes, body);
      return;
    }
    if (observe_request_of(pol).any()) {  // a stage outside compute/persist/store
      observation scope(pol, [&] { return tasks.count(); });
      observed_run(*current_observer(), pol, tasks, kind, out_bytes, body);
      scope.finish();
      return;
    }
  }
  backend<P>::run_tasks(pol, tasks, std::forward<Body>(body));
}

}  // namespace tessera::detail
