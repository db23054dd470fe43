// The factors a host TSQR keeps between its two passes (tsqr.hpp, cholesky_qr2.hpp,
// gram_svd.hpp, tsqr_mpi.hpp): per row block the block's Q factor, the reduction's R and how pass 2
// combines them.
#pragma once
#include <vector>

#include "../config.hpp"
#include "../nodes/stored.hpp"

namespace tessera::linalg::detail {

/// The factors of a TSQR before the final product.
template <class T>
struct tsqr_factors {
  index_t n = 0, k = 0;                 // columns; k = min(m, n)
  std::vector<index_t> rows, kb;        // rows of block b; kb = min(rows, n)
  std::vector<std::vector<T>> q;        // Q_b, column-major rows x kb
  std::vector<std::vector<T>> p;        // P_b, column-major kb x k
  std::vector<T> r;                     // R, column-major k x n (upper trapezoidal)
  // Tree path (every row block has at least n rows): q[b] keeps geqrf's Householder form
  // (rows x n) with tau[b]; the R factors are merged pairwise by tpqrt (triangle on triangle)
  // in a binary tree whose reflectors are applied back down by tpmqrt.
  struct merge {
    index_t top, bot;
    std::vector<T> v, t;  // reflectors (n x n upper triangular), block factors (nb x n)
  };
  bool tree = false;
  index_t nb = 0;
  struct leaf {
    index_t block, off, rows;  // rows [off, off + rows) of row block `block`
  };
  std::vector<leaf> leaves;
  std::vector<index_t> first_leaf;     // leaves of block b: [first_leaf[b], first_leaf[b + 1])
  std::vector<std::vector<T>> tau;     // per leaf
  std::vector<std::vector<merge>> levels;
  // CholeskyQR2 (cholesky_qr2.hpp): Q1_b = A_b R1^-1 row-major (rows x n, i.e. the
  // column-major n x rows Q1_b') in q[b] (ts::mpi) or in block b of q1 (the host: an m x n array
  // with the row chunks, which pass 2 overwrites with the result and hands over); p is empty
  // and every block's Q is Q1_b R2^-1, R2 (n x n, column-major, upper triangular) kept here;
  // r = R2 R1.
  bool cholesky = false;
  std::vector<T> r2;
  array<T> q1;
  bool in_array = false;  // Q1 in q1 (else in q)
  // The Gram route of svd (gram_svd.hpp; cholesky is set too): Q1 holds A itself (R2 = I, r
  // and r2 empty), s (n) and vt (n x n, column-major) the SVD from A' A's eigen-decomposition.
  bool gram = false;
  std::vector<T> s, vt;
};

}  // namespace tessera::linalg::detail
