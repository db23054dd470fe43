// Thin SVD of a chunked matrix through TSQR: A = Q R (tsqr.hpp), R = U_R S V' (dense
// dense<P>::thin_svd of the k x k factor), U = Q U_R written block by block with a's row
// chunks. On the host and ts::mpi, a well-conditioned tall A (cond(A) <= 8) takes the Gram
// route instead (gram_svd.hpp): S and V from the eigen-decomposition of A' A, U = A V S^-1.
// Short-fat matrices are factored through their transpose (ts::transpose, lazy).
//
// Sign convention: each singular pair is flipped so that, in the square k x k factor (vt when
// m >= n, u when m < n), the largest-magnitude entry of the pair's vector (the first on ties)
// is positive (Dask's svd_flip with the decision taken on that factor).
#pragma once
#include "tsqr.hpp"

namespace tessera::linalg {
namespace detail {

/// The k x k step of the SVD of a tall a (m >= n, so k == n) from its factors f: s (k,
/// descending), U_R (k x k) and vt (k x n), column-major, signs flipped (svd_flip_v); pass 2
/// then stores Q U_R. The QR routes: the SVD of R. The Gram route (f.gram, gram_svd.hpp): s and
/// vt from the eigen-decomposition pass 1 made, U_R := V S^-1 (Q1 is A there, so Q1 U_R = U).
template <class T, class P, class F>
void svd_of_factors(const P& pol, F& f, index_t n, std::vector<T>& s, std::vector<T>& ur, std::vector<T>& vt) {
  const index_t k = f.k;
  if constexpr (requires { f.gram; }) {
    if (f.gram) {
      s = std::move(f.s);
      vt = std::move(f.vt);
      svd_flip_v(vt.data(), k, n, static_cast<T*>(nullptr), 0, 0);
      ur = gram_svd_right_factor(s, vt, n);
      return;
    }
  }
  check_finite_factor(f.r.data(), f.r.size(), "svd");  // before pass 2 and the dense SVD
  s.assign(static_cast<std::size_t>(k), T(0));
  ur.assign(std::size_t(k * k), T(0));
  vt.assign(std::size_t(k * n), T(0));
  {
    typename dense<P>::threads_guard g(dense<P>::concurrency(pol));
    dense<P>::single(pol, [&] {
      dense<P>::thin_svd(k, n, f.r.data(), k, s.data(), ur.data(), k, vt.data(), k);
    });
  }
  svd_flip_v(vt.data(), k, n, ur.data(), k, k);
}

/// SVD of a tall (m >= n) matrix expression from a TSQR: `factor(src)` runs pass 1 over the
/// row source (factors with `k` and the host k x n `r`), `apply(f, x, kx)` stores Q x (the
/// backend decides where). vt gets column chunks `vcols`.
template <class T, class X, class P, class Factor, class Apply>
auto svd_tall_with(const X& a, const P& pol, const tsqr_options& opt,
                   const std::vector<index_t>& vcols, Factor&& factor, Apply&& apply) {
  const index_t n = a.shape()[1];
  auto rows = pass_row_chunks(a.chunks()[0], n, sizeof(T), opt.max_dense_bytes);
  auto src = make_row_source(a, rows, pol);
  auto f = factor(src);
  const index_t k = f.k;  // == n for m >= n
  std::vector<T> s, ur, vt;
  svd_of_factors<T>(pol, f, n, s, ur, vt);
  svd_result<T, decltype(apply(f, ur.data(), k))> res;
  res.s = array_from_vector(s.data(), k);
  res.vt = array_from_col_major(vt.data(), k, n, {k}, vcols);
  res.u = apply(f, ur.data(), k);
  return res;
}

/// SVD of a tall (m >= n) matrix expression, factors in host memory.
template <class T, class X, class P>
svd_result<T> svd_tall(const X& a, const P& pol, const tsqr_options& opt,
                       const std::vector<index_t>& vcols) {
  return svd_tall_with<T>(
      a, pol, opt, vcols, [&](const auto& src) { return tsqr_factor_source<T>(pol, src, opt, /*gram_svd=*/true); },
      [&](auto& f, const T* x, index_t kx) { return tsqr_apply_array<T>(pol, f, x, kx); });
}

}  // namespace detail

/// Thin SVD of a 2-D value expression a (m x n): u (m x k, a's row chunks), s (k, descending),
/// vt (k x n, a's column chunks), k = min(m, n). Tall-skinny inputs with several column chunks
/// are combined per row block; short-fat ones go through the transpose. Throws
/// std::invalid_argument when the k x k factors do not fit (`opt.max_dense_bytes`): use
/// svd_compressed then.
template <expression_type X, linalg_policy P = host>
svd_result<detail::real_of<X>> svd(const X& a, const P& pol = {}, const tsqr_options& opt = {}) {
  using T = detail::real_of<X>;
  detail::check_real_type<T>();
  detail::check_matrix(a, "svd");
  const index_t m = a.shape()[0], n = a.shape()[1], k = std::min(m, n);
  detail::check_dense_fits(a, k, k, sizeof(T), opt, "the SVD");
  if (m >= n) return detail::svd_tall<T>(a, pol, opt, a.chunks()[1]);
  return detail::transposed(detail::svd_tall<T>(transpose(a), pol, opt, a.chunks()[0]), pol);
}

}  // namespace tessera::linalg
