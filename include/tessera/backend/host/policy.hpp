// The host backend: ts::host policy, a oneTBB task per output chunk.
#pragma once
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <functional>
#include <optional>
#include <string>
#include <tbb/info.h>

#include "../../config.hpp"

namespace tessera {

/// Host execution policy.
///   threads        worker threads; 0 uses every hardware thread (ts::host{2} is two)
///   progress       a progress bar on stderr covering the call's chunk tasks (also on while a
///                  ts::progress_bar is alive in the calling thread; diagnostics/progress.hpp)
///   trace          non-empty: write a Chrome trace of the call's tasks to this file, with a
///                  one-line summary on stderr (diagnostics/trace.hpp)
///   on_chunk_done  called with (done, total) as each chunk task completes: done = 1..total in
///                  order, one call at a time, from the worker threads (keep it short)
/// ts::host{.threads = 2, .progress = true}. Observing costs nothing when none is set.
struct host {
  int threads = 0;
  bool progress = false;
  std::string trace{};
  std::function<void(index_t done, index_t total)> on_chunk_done{};
  int concurrency() const {
    if (threads > 0) return threads;
    return std::max(1, tbb::this_task_arena::max_concurrency());
  }
};

namespace detail {

/// Runs f(b) for every block b in [0, n), one task per block, on the policy's threads.
template <class F>
void for_each_block(const host& pol, index_t n, F&& f) {
  if (n <= 0) return;
  const int c = pol.concurrency();
  if (c == 1 || n == 1) {
    for (index_t b = 0; b < n; ++b) f(b);
    return;
  }
  // Asking for more threads than cores is allowed (results do not depend on it); lift TBB's
  // worker limit for the call so it does not warn and cap the arena.
  std::optional<tbb::global_control> lift;
  if (c > tbb::info::default_concurrency())
    lift.emplace(tbb::global_control::max_allowed_parallelism, std::size_t(c));
  tbb::task_arena arena(c);
  arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<index_t>(0, n, 1),
        [&](const tbb::blocked_range<index_t>& r) {
          for (index_t b = r.begin(); b != r.end(); ++b) f(b);
        },
        tbb::simple_partitioner{});
  });
}

}  // namespace detail
}  // namespace tessera
