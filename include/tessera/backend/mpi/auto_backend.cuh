// ts::auto_backend under mpirun: when the program was started by mpirun (launched_by_mpirun()),
// an evaluation with ts::auto_backend runs on the ranks of MPI_COMM_WORLD with
// ts::mpi{.local = policy.gpu} when every rank has a usable CUDA device, else with
// ts::mpi{.local = policy.cpu}: the same program text alone and under mpirun. compute, item
// and the reductions behave as under ts::mpi (results on every rank, bitwise identical to one
// process); persist gives every rank the whole array (a ts::device_array holds no remote chunks:
// use ts::mpi{...} directly to keep chunks on their ranks, ts::distributed_array).
//
// backend/cuda/auto_backend.cuh offers each evaluation to auto_backend_on_ranks (found by
// argument-dependent lookup when this header is in the translation unit: <tessera/mpi.hpp>
// includes it in .cu files, and <tessera/cuda.hpp> when TESSERA_WITH_MPI is defined, as the
// tessera::mpi CMake target does).
#pragma once
#include <cstdio>
#include <optional>

#include "../../nodes/stored.hpp"
#include "../cuda/auto_backend.cuh"
#include "backend.hpp"
#include "compute.hpp"
#include "policy.hpp"

namespace tessera {

namespace detail::mpi_runtime {
/// Whether ts::auto_backend runs on the GPUs of the ranks: every rank of MPI_COMM_WORLD has a
/// usable device (one collective, the first time; the same answer on every rank).
inline bool auto_ranks_use_gpu() {
  static const bool all = [] {
    int mine = cuda::available() ? 1 : 0, every = 0;
    if (size(MPI_COMM_WORLD) == 1) return mine == 1;
    MPI_Allreduce(&mine, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (mine == 1 && every == 0 && rank(MPI_COMM_WORLD) == 0)
      std::fprintf(stderr, "tessera: ts::auto_backend: not every rank has a usable CUDA device; the ranks run on their hosts\n");
    return every == 1;
  }();
  if (!all) (void)cuda_backend::auto_uses_gpu();  // the one-line notice where this rank has none
  return all;
}
}  // namespace detail::mpi_runtime

/// The ranks' evaluation `run(policy)` of an auto_backend call (run is called with
/// ts::mpi<ts::cuda> or ts::mpi<ts::host>), or nothing when not launched by mpirun.
template <expression_type X, class Run>
auto auto_backend_on_ranks(const X&, const auto_backend& policy, Run&& run)
    -> std::optional<decltype(run(mpi<host>{}))> {
  if (!launched_by_mpirun()) return std::nullopt;
  if (detail::mpi_runtime::auto_ranks_use_gpu()) return run(mpi<cuda>{.local = policy.gpu});
  return run(mpi<host>{.local = policy.cpu});
}

}  // namespace tessera
