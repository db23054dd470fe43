// ts::linalg on MPI ranks (docs/distributed.md): tsqr, qr, svd and svd_compressed with
// ts::mpi<ts::host>, Q and U distributed by rows, bitwise identical to one process. Link
// tessera::mpi and tessera::linalg.
#pragma once
#include "linalg.hpp"
#include "mpi.hpp"
#include "linalg/svd_compressed_mpi.hpp"
#include "linalg/tsqr_mpi.hpp"
