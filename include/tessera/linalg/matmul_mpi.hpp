// The eager matrix product on MPI ranks, ts::linalg::matmul(a, b, ts::mpi{...}): the lazy
// product ts::matmul(a, b) (linalg/matrix_product.hpp: per output block, the sum over the
// contraction chunks of dense gemms) persisted by the ranks, each output block computed on its
// owner from the boxes of a and b it reads (fetched when they are on other ranks). The result is
// a ts::distributed_array with a's row chunks and b's column chunks, bitwise identical to
// ts::matmul(a, b) evaluated by one process.
#pragma once
#include "../backend/mpi/compute.hpp"
#include "../backend/mpi/distributed_array.hpp"
#include "matrix_product.hpp"

namespace tessera::linalg {

/// a b computed at the call by the ranks of `pol` (NumPy's matmul rules), kept distributed.
template <expression_type A, expression_type B, class L>
auto matmul(const A& a, const B& b, const mpi<L>& pol) {
  return persist(tessera::matmul(a, b), pol);
}

}  // namespace tessera::linalg

namespace tessera {
/// ts::matmul(a, b, ts::mpi{...}) too (linalg.hpp's using-declaration names the overloads
/// declared before it); linalg code calling matmul(x, y, pol) finds it by argument lookup.
using linalg::matmul;
}  // namespace tessera
