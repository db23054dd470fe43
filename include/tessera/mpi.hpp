// ts::mpi: the same program on MPI ranks (docs/distributed.md). Link tessera::mpi (CMake) or
// MPI's C++ flags (mpicxx); start with mpirun -n N. Alone, a program is a world of one rank.
#pragma once
#include "tessera.hpp"
#include "backend/mpi/backend.hpp"
#include "backend/mpi/compute.hpp"
#include "backend/mpi/distributed_array.hpp"
#include "backend/mpi/policy.hpp"
#include "backend/mpi/session.hpp"

// In .cu files: ts::mpi{.local = ts::cuda{...}}, and ts::auto_backend runs on the ranks under
// mpirun (backend/mpi/auto_backend.cuh).
#if defined(__CUDACC__)
#include "cuda.hpp"
#include "backend/mpi/auto_backend.cuh"
#endif
