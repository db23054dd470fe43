// Randomized truncated SVD (Halko, Martinsson & Tropp 2011, algorithm 4.4 with re-orthogonal-
// ization between power iterations), evaluated row block by row block:
//
//   Omega  n x l Gaussian test matrix, l = min(k + oversampling, n): the counter-based
//          generator, ts::random::default_rng(seed).standard_normal<T>({n, l}) (Philox)
//   Y = A Omega;  repeat n_power_iter times: Q = tsqr(Y), Z = orth(A' Q), Y = A Z
//   (tsqr(Y): CholeskyQR2 on the host when Y passes its test, as tsqr() does, else Householder)
//   Q = tsqr(Y);  B' = A' Q (n x l);  B = U_B S V';  U = Q U_B[:, :k]
//
// Each pass evaluates every input row block once: 2 + 2 * n_power_iter passes in all. Y, Q
// and U live in row blocks (a's row chunks); only n x l and l x l matrices are dense.
#pragma once
#include <cstdint>

#include "../random.hpp"
#include "tsqr.hpp"

namespace tessera::linalg {

struct svd_compressed_options {
  index_t n_power_iter = 0;  // power (subspace) iterations; 1-2 sharpen a slow spectral decay
  std::uint64_t seed = 0;    // seed of the Gaussian test matrix
  index_t oversampling = 10; // extra test vectors beyond k
  tsqr_options tsqr{};
};

namespace detail {

/// The dense SVD of the projected matrix B = Z' (z: B' = A' Q, column-major n x l) truncated
/// to rank k with the sign convention: s (l values, the first k kept), ub (l x l column-major;
/// its first k columns flipped with vt), vtk (k x n column-major).
template <class P, class T>
void projected_svd(const P& pol, const std::vector<T>& z, index_t n, index_t l, index_t k,
                   std::vector<T>& s, std::vector<T>& ub, std::vector<T>& vtk) {
  // B = Z' (l x n): column-major copy, then the dense SVD.
  std::vector<T> bm(std::size_t(l * n));
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < l; ++i) bm[std::size_t(j * l + i)] = z[std::size_t(i * n + j)];
  check_finite_factor(bm.data(), bm.size(), "svd_compressed");
  s.resize(static_cast<std::size_t>(l));
  ub.resize(std::size_t(l * l));
  std::vector<T> vt(std::size_t(l * n));
  {
    typename dense<P>::threads_guard g(dense<P>::concurrency(pol));
    dense<P>::single(pol, [&] {
      dense<P>::thin_svd(l, n, bm.data(), l, s.data(), ub.data(), l, vt.data(), l);
    });
  }
  // Truncate to k: vt rows 0..k-1 (column-major k x n), ub columns 0..k-1 (l x k).
  vtk.resize(std::size_t(k * n));
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < k; ++i) vtk[std::size_t(j * k + i)] = vt[std::size_t(j * l + i)];
  svd_flip_v(vtk.data(), k, n, ub.data(), l, l);
}

template <class T, class Src, class P>
svd_result<T> svd_compressed_tall(const Src& src, index_t k, const svd_compressed_options& opt,
                                  const P& pol, const std::vector<index_t>& vcols) {
  const index_t n = src.n, B = src.blocks();
  const index_t l = k + std::min(n - k, std::max<index_t>(0, opt.oversampling));  // (no overflow)
  std::vector<index_t> rows;
  for (index_t b = 0; b < B; ++b) rows.push_back(src.rows(b));

  // Omega, row-major n x l (== column-major l x n).
  auto omega_expr = random::default_rng(opt.seed).standard_normal<T>({n, l}, chunks_t{{n}, {l}});
  std::vector<T> omega_t(std::size_t(n * l));
  tessera::detail::evaluate_into(omega_expr.lower(dense<P>::host_side(pol)), dense<P>::host_side(pol),
                                 omega_t.data());

  // y[b]: row-major rows x l (== column-major l x rows)
  std::vector<std::vector<T>> y(static_cast<std::size_t>(B));
  const int bt = blas_threads_for(pol, B);
  // Y = A X' where xt is column-major l x n (X' row-major n x l); trans: xt is n x l col-major.
  auto pass_y = [&](const T* x, bool x_is_col_major_n_by_l) {
    typename dense<P>::threads_guard g(bt);
    dense<P>::parallel(pol, B, [&](index_t b) {
      const index_t mb = src.rows(b);
      auto& yb = y[static_cast<std::size_t>(b)];
      yb.resize(std::size_t(mb * l));
      // (a stored input's row block read in place)
      src.template with_row_major<T>(b, scratch<T, 2>(std::size_t(mb * n)), [&](const T* ab) {
        // ab: column-major n x mb == A_b'; Y_b' (l x mb) = X' (l x n) A_b' (n x mb)
        if (x_is_col_major_n_by_l)
          dense<P>::gemm(true, false, l, mb, n, T(1), x, n, ab, n, T(0), yb.data(), l);
        else
          dense<P>::gemm(false, false, l, mb, n, T(1), x, l, ab, n, T(0), yb.data(), l);
      });
    });
  };
  // Z = A' Q (column-major n x l), partial sums per block summed in block order.
  auto pass_z = [&](const std::vector<std::vector<T>>& q, std::vector<T>& z) {
    std::vector<std::vector<T>> part(static_cast<std::size_t>(B));
    {
      typename dense<P>::threads_guard g(bt);
      dense<P>::parallel(pol, B, [&](index_t b) {
        const index_t mb = src.rows(b);
        auto& pb = part[static_cast<std::size_t>(b)];
        pb.resize(std::size_t(n * l));
        src.template with_row_major<T>(b, scratch<T, 2>(std::size_t(mb * n)), [&](const T* ab) {
          // A_b' (n x mb, col-major ld n) * Q_b (mb x l) where q[b] is column-major l x mb
          dense<P>::gemm(false, true, n, l, mb, T(1), ab, n, q[static_cast<std::size_t>(b)].data(), l,
                         T(0), pb.data(), n);
        });
      });
    }
    z.assign(std::size_t(n * l), T(0));
    for (auto& pb : part)
      for (std::size_t i = 0; i < z.size(); ++i) z[i] += pb[i];
  };
  // Q = orth(Y) over the row blocks of Y (CholeskyQR2 where the backend has it and Y is well
  // enough conditioned for it, else Householder TSQR); q[b] row-major rows x l, its buffers
  // kept from one call to the next.
  auto orth_y = [&](std::vector<std::vector<T>>& q) {
    tsqr_factors<T> f;
    bool cholesky = false;
    if constexpr (host_cholesky_qr2<P>) {
      if (opt.tsqr.method == tsqr_method::automatic)
        cholesky = cholesky_qr2_factor<T>(pol, dense_row_source<T>(y, rows, l), f);
    }
    if (!cholesky)
      f = tsqr_factor<T>(pol, rows, l, [&](index_t b, T* cm) {
        row_to_col_major(y[static_cast<std::size_t>(b)].data(), src.rows(b), l, cm);
      }, opt.tsqr);
    const index_t kq = f.k;
    q.resize(static_cast<std::size_t>(B));
    for (index_t b = 0; b < B; ++b) q[static_cast<std::size_t>(b)].resize(std::size_t(src.rows(b) * kq));
    tsqr_apply(pol, f, static_cast<const T*>(nullptr), kq, [&](index_t b) { return q[static_cast<std::size_t>(b)].data(); });
    return kq;
  };

  pass_y(omega_t.data(), false);
  std::vector<std::vector<T>> q;
  std::vector<T> z;
  for (index_t it = 0; it < opt.n_power_iter; ++it) {
    orth_y(q);
    pass_z(q, z);  // n x l
    std::vector<T> rz;
    dense<P>::single(pol, [&] { qr_in_place<P>(n, l, z, rz); });  // z: orthonormal n x l (l <= n)
    pass_y(z.data(), true);
  }
  const index_t lq = orth_y(q);
  if (lq != l) throw_invalid("svd_compressed: internal rank mismatch ", lq, " != ", l);
  pass_z(q, z);  // B' = A' Q, column-major n x l
  std::vector<T> s, ub, vtk;
  projected_svd(pol, z, n, l, k, s, ub, vtk);

  svd_result<T> res;
  res.s = array_from_vector(s.data(), k);
  res.vt = array_from_col_major(vtk.data(), k, n, {k}, vcols);
  index_t m = 0;
  for (auto r : rows) m += r;
  res.u = array<T>(chunk_grid({m, k}, chunks_t{rows, {k}}));
  for (index_t b = 0; b < B; ++b) res.u.block_data(b);
  {
    typename dense<P>::threads_guard g(bt);
    dense<P>::parallel(pol, B, [&](index_t b) {
      // U_b' (k x mb) = U_B[:, :k]' (k x l) Q_b' (l x mb)
      dense<P>::gemm(true, false, k, src.rows(b), l, T(1), ub.data(), l, q[static_cast<std::size_t>(b)].data(),
                        l, T(0), res.u.block_data(b), k);
    });
  }
  return res;
}

}  // namespace detail

/// Rank-k randomized SVD of a 2-D value expression (any shape; short-fat via the transpose):
/// u (m x k, a's row chunks), s (k, descending), vt (k x n), same sign convention as svd().
/// The policy comes before the options, as in svd, qr and tsqr:
///
///   svd_compressed(a, k)                  host, default options (the overload below)
///   svd_compressed(a, k, opt)             host (the overload below)
///   svd_compressed(a, k, pol)             default options
///   svd_compressed(a, k, pol, opt)
template <expression_type X, linalg_policy P>
svd_result<detail::real_of<X>> svd_compressed(const X& a, index_t k, const P& pol,
                                              const svd_compressed_options& opt = {}) {
  using T = detail::real_of<X>;
  detail::check_real_type<T>();
  detail::check_matrix(a, "svd_compressed");
  const index_t m = a.shape()[0], n = a.shape()[1];
  if (k < 1 || k > std::min(m, n))
    throw_invalid("svd_compressed: k = ", k, " must be in [1, ", std::min(m, n), "] for shape ",
                  a.shape());
  if (opt.n_power_iter < 0)
    throw_invalid("svd_compressed: n_power_iter = ", opt.n_power_iter, " must be >= 0");
  if (m >= n) {
    auto rows = detail::pass_row_chunks(a.chunks()[0], n, sizeof(T), opt.tsqr.max_dense_bytes);
    return detail::svd_compressed_tall<T>(detail::make_row_source(a, rows, pol), k, opt, pol,
                                          a.chunks()[1]);
  }
  auto at = transpose(a);
  auto rows = detail::pass_row_chunks(at.chunks()[0], m, sizeof(T), opt.tsqr.max_dense_bytes);
  auto t = detail::svd_compressed_tall<T>(detail::make_row_source(at, rows, pol), k, opt, pol,
                                          a.chunks()[0]);
  return detail::transposed(t, pol);
}

/// svd_compressed(a, k) and svd_compressed(a, k, opt) on the host; also the options-before-
/// policy order svd_compressed(a, k, opt, pol), kept for compatibility with code written
/// before the policy-first order above (same results, bit for bit).
template <expression_type X, linalg_policy P = host>
svd_result<detail::real_of<X>> svd_compressed(const X& a, index_t k,
                                              const svd_compressed_options& opt = {},
                                              const P& pol = {}) {
  return svd_compressed(a, k, pol, opt);
}

}  // namespace tessera::linalg
