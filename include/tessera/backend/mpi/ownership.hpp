// Which rank runs which chunk task: a pure function of the tasks, the same on every rank.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "../../config.hpp"

namespace tessera::detail::mpi_runtime {

/// owner[t] for n tasks on `ranks` ranks. work(t): the task's elements; affinity(t): bytes of
/// its input per owner rank (chunks of distributed arrays). A task with such input runs on the
/// rank that holds most of it (ties: the lower rank), so nothing moves that need not; the
/// others are cut into `ranks` contiguous runs of about equal work (by the midpoint of each
/// task's share of the cumulative work).
template <class Work, class Affinity>
std::vector<int> assign_owners(index_t n, int ranks, Work&& work, Affinity&& affinity) {
  std::vector<int> owner(std::size_t(n), 0);
  if (ranks <= 1) return owner;
  std::vector<double> w(static_cast<std::size_t>(n));
  double total = 0;
  for (index_t t = 0; t < n; ++t) total += w[std::size_t(t)] = double(work(t));
  double before = 0;
  for (index_t t = 0; t < n; ++t) {
    const double mid = total > 0 ? (before + w[std::size_t(t)] / 2) / total : (double(t) + 0.5) / double(n);
    before += w[std::size_t(t)];
    int r = int(mid * ranks);
    owner[std::size_t(t)] = r < 0 ? 0 : (r >= ranks ? ranks - 1 : r);
    std::int64_t best = 0;
    for (const auto& [rank, bytes] : affinity(t))
      if (bytes > best || (bytes == best && best > 0 && rank < owner[std::size_t(t)])) {
        best = bytes;
        owner[std::size_t(t)] = rank;
      }
  }
  return owner;
}

}  // namespace tessera::detail::mpi_runtime
