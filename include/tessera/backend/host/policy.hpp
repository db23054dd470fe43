// The host backend: ts::host policy, a oneTBB task per output chunk.
#pragma once
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <optional>
#include <tbb/info.h>

#include "../../config.hpp"

namespace tessera {

/// Host execution policy. threads == 0 uses every hardware thread.
struct host {
  int threads = 0;
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
