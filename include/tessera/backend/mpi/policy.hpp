// The MPI policy: the same program on every rank of a communicator, each rank running its share
// of every stage's chunk tasks with a local policy (ts::host or ts::cuda).
#pragma once
#include "../host/policy.hpp"
#include "session.hpp"

namespace tessera {

/// ts::mpi{.local = ts::host{2}}: run on every rank of `comm` (started by mpirun -n N; alone,
/// a world of one rank). Every rank must make the same Tessera calls in the same order (SPMD).
///   local  the policy each rank runs its chunk tasks with (ts::host{...}, or ts::cuda{...}
///          in a .cu file: one GPU per rank, chosen from the node-local rank, unless
///          .devices is set)
///   root   compute(): -1 (default) gives every rank the result; r >= 0 gives it to rank r only
///          (the other ranks get an empty array and hold no copy). item() and reductions'
///          results reach every rank either way.
///   comm   the communicator (MPI_COMM_WORLD by default)
template <class Local = host>
struct mpi {
  Local local{};
  int root = -1;
  MPI_Comm comm = MPI_COMM_WORLD;

  /// This process's rank and the number of ranks (initializing MPI if needed).
  int rank() const { return detail::mpi_runtime::rank(comm); }
  int size() const { return detail::mpi_runtime::size(comm); }
};

}  // namespace tessera
