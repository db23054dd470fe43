// ts::linalg on MPI ranks (docs/distributed.md): tsqr, qr, svd, svd_compressed, the eager
// matmul and lstsq with ts::mpi<ts::host>, Q, U and products distributed by rows, bitwise
// identical to one process; the other dense solvers, norm and cov take any policy. Link
// tessera::mpi and tessera::linalg.
#pragma once
#include "linalg.hpp"
#include "mpi.hpp"
#include "linalg/matmul_mpi.hpp"
#include "linalg/solve_mpi.hpp"
#include "linalg/svd_compressed_mpi.hpp"
#include "linalg/tsqr_mpi.hpp"
