// lstsq on MPI ranks: linalg/solve.hpp's steps with the distributed TSQR (linalg/tsqr_mpi.hpp)
// and the ranks' eager product (linalg/matmul_mpi.hpp). The other dense solvers (solve, inv,
// cholesky, solve_triangular, lu) take any policy: under ts::mpi every rank evaluates the
// operand with the ranks and factors the same matrix.
#pragma once
#include "matmul_mpi.hpp"
#include "solve.hpp"
#include "tsqr_mpi.hpp"

namespace tessera::linalg {

/// Least squares for a tall a (m >= n) on MPI ranks: q stays distributed by rows, q' b is summed
/// by the ranks, the n x n solve is done on every rank; the result is on every rank.
template <expression_type A, expression_type B, class L>
lstsq_result<detail::real_of<A>> lstsq(const A& a, const B& b, const mpi<L>& pol) {
  return detail::lstsq_with(
      a, b, pol, [&](const auto& x) { return qr(x, pol); },
      [&](const auto& x, const auto& y) { return matmul(x, y, pol); });
}

}  // namespace tessera::linalg
