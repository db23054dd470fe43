// Dense solvers for small and square chunked matrices (Dask's da.linalg.solve, inv, cholesky,
// solve_triangular, lu, and lstsq): the square operand is evaluated with the policy (any
// backend) into host memory and factored by LAPACK (LAPACKE, row-major), and the result is a
// host ts::array chunked like the inputs. A square operand must fit in memory, as in Dask,
// whose versions of these gather it too (lstsq excepted: it runs TSQR on the tall operand,
// chunk by chunk, and solves only the small triangle densely).
#pragma once
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include <lapacke.h>

#include "../exec/drivers.hpp"
#include "../ops/arith.hpp"
#include "../reduce.hpp"
#include "../reshape.hpp"
#include "../view.hpp"
#include "common.hpp"
#include "matmul.hpp"
#include "tsqr.hpp"

namespace tessera::linalg {

/// lu's result (scipy.linalg.lu / Dask's): a = p l u.
template <class T>
struct lu_result {
  array<T> p, l, u;
};
/// lstsq's result (NumPy's / Dask's): x minimizing |a x - b|, the squared residual norm per
/// column of b (empty when a has fewer rows than columns or is rank deficient, as NumPy), the
/// rank of a and its singular values.
template <class T>
struct lstsq_result {
  array<T> x;
  array<T> residuals;
  index_t rank = 0;
  array<T> s;
};

namespace detail {

/// The operand as a dense row-major host matrix (any policy evaluates it).
template <class X, class P>
std::vector<real_of<X>> dense_rows(const X& a, const P& pol) {
  const auto v = tessera::compute(a, pol);
  return std::vector<real_of<X>>(v.data(), v.data() + v.size());
}

template <class X>
void check_square(const X& a, const char* what) {
  if (a.dimension() != 2 || a.shape()[0] != a.shape()[1])
    throw_invalid(what, " needs a square 2-D matrix, got shape ", a.shape());
}

/// Rows x cols row-major values as a host array with the given chunks.
template <class T>
array<T> host_array(const std::vector<T>& v, const shape_t& shape, const chunks_t& chunks) {
  array<T> out(chunk_grid(shape, chunks));
  const chunk_grid& g = out.grid();
  const ivec st = tessera::detail::row_major_strides(shape);
  for (index_t b = 0; b < g.block_count(); ++b) {
    const box bx = g.block_box(b);
    if (bx.count() == 0) continue;
    T* dst = out.block_data(b);
    index_t k = 0;
    for_each_row(bx, row_major_strides(bx), [&](const ivec& start, index_t) {
      index_t off = 0;
      for (int d = 0; d < bx.rank(); ++d) off += start[d] * st[d];
      const index_t n = bx.extent(bx.rank() - 1);
      std::copy(v.data() + off, v.data() + off + n, dst + k);
      k += n;
    });
  }
  return out;
}

inline void lapack_check(lapack_int info, const char* what, const char* routine) {
  if (info < 0) throw_invalid(what, ": LAPACK ", routine, " rejected argument ", -info);
}

// Row-major LAPACKE entry points for float and double.
template <class T>
lapack_int getrf(lapack_int n, T* a, lapack_int* ipiv) {
  if constexpr (std::is_same_v<T, double>) return LAPACKE_dgetrf(LAPACK_ROW_MAJOR, n, n, a, n, ipiv);
  else return LAPACKE_sgetrf(LAPACK_ROW_MAJOR, n, n, a, n, ipiv);
}
template <class T>
lapack_int getrs(lapack_int n, lapack_int k, const T* a, const lapack_int* ipiv, T* b) {
  if constexpr (std::is_same_v<T, double>) return LAPACKE_dgetrs(LAPACK_ROW_MAJOR, 'N', n, k, a, n, ipiv, b, k);
  else return LAPACKE_sgetrs(LAPACK_ROW_MAJOR, 'N', n, k, a, n, ipiv, b, k);
}
template <class T>
lapack_int getri(lapack_int n, T* a, const lapack_int* ipiv) {
  if constexpr (std::is_same_v<T, double>) return LAPACKE_dgetri(LAPACK_ROW_MAJOR, n, a, n, ipiv);
  else return LAPACKE_sgetri(LAPACK_ROW_MAJOR, n, a, n, ipiv);
}
template <class T>
lapack_int potrf(char uplo, lapack_int n, T* a) {
  if constexpr (std::is_same_v<T, double>) return LAPACKE_dpotrf(LAPACK_ROW_MAJOR, uplo, n, a, n);
  else return LAPACKE_spotrf(LAPACK_ROW_MAJOR, uplo, n, a, n);
}
template <class T>
lapack_int trtrs(char uplo, lapack_int n, lapack_int k, const T* a, T* b) {
  if constexpr (std::is_same_v<T, double>) return LAPACKE_dtrtrs(LAPACK_ROW_MAJOR, uplo, 'N', 'N', n, k, a, n, b, k);
  else return LAPACKE_strtrs(LAPACK_ROW_MAJOR, uplo, 'N', 'N', n, k, a, n, b, k);
}
template <class T>
lapack_int singular_values(lapack_int m, lapack_int n, T* a, T* s) {
  if constexpr (std::is_same_v<T, double>)
    return LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'N', n, m, a, n, s, nullptr, 1, nullptr, 1);  // of a' (same values)
  else return LAPACKE_sgesdd(LAPACK_COL_MAJOR, 'N', n, m, a, n, s, nullptr, 1, nullptr, 1);
}

/// b's row count checked against n; its column count (1 for a 1-d b).
template <class B>
index_t rhs_columns(const B& b, index_t n, const char* what) {
  if ((b.dimension() != 1 && b.dimension() != 2) || b.shape()[0] != n)
    throw_invalid(what, ": b of shape ", b.shape(), " does not match a ", n, " x ", n,
                  " matrix (give n or n x k)");
  return b.dimension() == 1 ? 1 : b.shape()[1];
}
template <class B>
chunks_t rhs_chunks(const B& b, const std::vector<index_t>& rows) {
  chunks_t c{rows};
  if (b.dimension() == 2) c.push_back(b.chunks()[1]);
  return c;
}

}  // namespace detail

/// x with a x = b (NumPy's / Dask's solve: LU with partial pivoting, LAPACK getrf + getrs);
/// b is n or n x k. A singular a throws naming the zero pivot.
template <expression_type A, expression_type B, class P = host>
array<detail::real_of<A>> solve(const A& a, const B& b, const P& pol = {}) {
  using T = detail::real_of<A>;
  detail::check_real_type<T>();
  static_assert(std::is_same_v<T, detail::real_of<B>>, "solve needs a and b of one value type");
  detail::check_square(a, "solve");
  const index_t n = a.shape()[0], k = detail::rhs_columns(b, n, "solve");
  auto m = detail::dense_rows(a, pol);
  auto x = detail::dense_rows(b, pol);
  std::vector<lapack_int> ipiv(std::size_t(std::max<index_t>(n, 1)));
  if (n > 0) {
    const lapack_int info = detail::getrf<T>(lapack_int(n), m.data(), ipiv.data());
    detail::lapack_check(info, "solve", "getrf");
    if (info > 0) throw_invalid("solve: the matrix is singular (U[", info - 1, ", ", info - 1, "] is 0)");
    if (k > 0) detail::lapack_check(detail::getrs<T>(lapack_int(n), lapack_int(k), m.data(), ipiv.data(), x.data()), "solve", "getrs");
  }
  return detail::host_array(x, b.shape(), detail::rhs_chunks(b, a.chunks()[0]));
}

/// The inverse of a square a (LAPACK getrf + getri), chunked like a. Singular a throws.
template <expression_type A, class P = host>
array<detail::real_of<A>> inv(const A& a, const P& pol = {}) {
  using T = detail::real_of<A>;
  detail::check_real_type<T>();
  detail::check_square(a, "inv");
  const index_t n = a.shape()[0];
  auto m = detail::dense_rows(a, pol);
  std::vector<lapack_int> ipiv(std::size_t(std::max<index_t>(n, 1)));
  if (n > 0) {
    const lapack_int info = detail::getrf<T>(lapack_int(n), m.data(), ipiv.data());
    detail::lapack_check(info, "inv", "getrf");
    if (info > 0) throw_invalid("inv: the matrix is singular (U[", info - 1, ", ", info - 1, "] is 0)");
    detail::lapack_check(detail::getri<T>(lapack_int(n), m.data(), ipiv.data()), "inv", "getri");
  }
  return detail::host_array(m, a.shape(), a.chunks());
}

/// The Cholesky factor of a symmetric positive definite a: upper u with a = u' u (Dask's
/// default), or lower l with a = l l' (NumPy's) when `lower`. Only that triangle of a is read.
template <expression_type A, class P = host>
array<detail::real_of<A>> cholesky(const A& a, bool lower = false, const P& pol = {}) {
  using T = detail::real_of<A>;
  detail::check_real_type<T>();
  detail::check_square(a, "cholesky");
  const index_t n = a.shape()[0];
  auto m = detail::dense_rows(a, pol);
  if (n > 0) {
    const lapack_int info = detail::potrf<T>(lower ? 'L' : 'U', lapack_int(n), m.data());
    detail::lapack_check(info, "cholesky", "potrf");
    if (info > 0)
      throw_invalid("cholesky: the matrix is not positive definite (the leading minor of order ", info, " is not)");
  }
  for (index_t i = 0; i < n; ++i)  // zero the other triangle
    for (index_t j = 0; j < n; ++j)
      if (lower ? j > i : j < i) m[std::size_t(i * n + j)] = T(0);
  return detail::host_array(m, a.shape(), a.chunks());
}

/// x with a x = b for triangular a (upper unless `lower`; scipy's / Dask's solve_triangular:
/// LAPACK trtrs). A zero on the diagonal throws.
template <expression_type A, expression_type B, class P = host>
array<detail::real_of<A>> solve_triangular(const A& a, const B& b, bool lower = false, const P& pol = {}) {
  using T = detail::real_of<A>;
  detail::check_real_type<T>();
  static_assert(std::is_same_v<T, detail::real_of<B>>, "solve_triangular needs a and b of one value type");
  detail::check_square(a, "solve_triangular");
  const index_t n = a.shape()[0], k = detail::rhs_columns(b, n, "solve_triangular");
  auto m = detail::dense_rows(a, pol);
  auto x = detail::dense_rows(b, pol);
  if (n > 0 && k > 0) {
    const lapack_int info = detail::trtrs<T>(lower ? 'L' : 'U', lapack_int(n), lapack_int(k), m.data(), x.data());
    detail::lapack_check(info, "solve_triangular", "trtrs");
    if (info > 0) throw_invalid("solve_triangular: the matrix is singular (a[", info - 1, ", ", info - 1, "] is 0)");
  }
  return detail::host_array(x, b.shape(), detail::rhs_chunks(b, a.chunks()[0]));
}

/// LU with partial pivoting: a = p l u (scipy's / Dask's lu), l unit lower, u upper, p a
/// permutation matrix; each chunked like a.
template <expression_type A, class P = host>
lu_result<detail::real_of<A>> lu(const A& a, const P& pol = {}) {
  using T = detail::real_of<A>;
  detail::check_real_type<T>();
  detail::check_square(a, "lu");
  const index_t n = a.shape()[0];
  auto m = detail::dense_rows(a, pol);
  std::vector<lapack_int> ipiv(std::size_t(std::max<index_t>(n, 1)));
  if (n > 0) detail::lapack_check(detail::getrf<T>(lapack_int(n), m.data(), ipiv.data()), "lu", "getrf");
  // row i of p a is row perm[i] of a; a = p' (p a) = p' l u, so p_out[perm[i], i] = 1
  std::vector<index_t> perm(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) perm[std::size_t(i)] = i;
  for (index_t i = 0; i < n; ++i) std::swap(perm[std::size_t(i)], perm[std::size_t(ipiv[std::size_t(i)] - 1)]);
  std::vector<T> p(std::size_t(n * n), T(0)), l(std::size_t(n * n), T(0)), u(std::size_t(n * n), T(0));
  for (index_t i = 0; i < n; ++i) {
    p[std::size_t(perm[std::size_t(i)] * n + i)] = T(1);
    for (index_t j = 0; j < n; ++j) {
      const T v = m[std::size_t(i * n + j)];
      if (j < i) l[std::size_t(i * n + j)] = v;
      else u[std::size_t(i * n + j)] = v;
    }
    l[std::size_t(i * n + i)] = T(1);
  }
  return {detail::host_array(p, a.shape(), a.chunks()), detail::host_array(l, a.shape(), a.chunks()),
          detail::host_array(u, a.shape(), a.chunks())};
}

namespace detail {
/// lstsq's steps with the policy's QR (qr_of(a)) and eager product (product(x, y)): the host and
/// CUDA overload below and the one for MPI ranks (linalg/solve_mpi.hpp) pass their own.
template <class A, class B, class P, class Qr, class Product>
lstsq_result<real_of<A>> lstsq_with(const A& a, const B& b, const P& pol, Qr&& qr_of, Product&& product) {
  using T = real_of<A>;
  check_real_type<T>();
  static_assert(std::is_same_v<T, real_of<B>>, "lstsq needs a and b of one value type");
  check_matrix(a, "lstsq");
  const index_t m = a.shape()[0], n = a.shape()[1];
  if (m < n) throw_invalid("lstsq: a of shape ", a.shape(), " has fewer rows than columns (TSQR needs m >= n)");
  if ((b.dimension() != 1 && b.dimension() != 2) || b.shape()[0] != m)
    throw_invalid("lstsq: b of shape ", b.shape(), " does not match a of shape ", a.shape());
  const bool vec = b.dimension() == 1;
  const index_t k = vec ? 1 : b.shape()[1];
  auto [q, r] = qr_of(a);
  auto b2 = reshape(b, shape_t{m, k});
  auto qtb = dense_rows(product(transpose(q), rechunk(b2, chunks_t{q.chunks()[0], {k}})), pol);
  auto rd = dense_rows(r, pol);
  // rank and singular values from r (NumPy's default rcond: eps * max(m, n) * s_max)
  std::vector<T> rs(rd), s(static_cast<std::size_t>(n));
  lapack_check(singular_values<T>(lapack_int(n), lapack_int(n), rs.data(), s.data()), "lstsq", "gesdd");
  const T tol = s.empty() ? T(0) : s[0] * T(std::max(m, n)) * std::numeric_limits<T>::epsilon();
  index_t rank = 0;
  for (T v : s) rank += v > tol;
  if (rank < n) throw_invalid("lstsq: a is rank deficient (rank ", rank, " of ", n, "); the TSQR path needs full column rank");
  std::vector<T> x(qtb);
  lapack_check(trtrs<T>('U', lapack_int(n), lapack_int(k), rd.data(), x.data()), "lstsq", "trtrs");
  // residuals: |a x - b|^2 per column (NumPy returns them when m > n and a has full rank)
  auto xa = host_array(x, shape_t{n, k}, chunks_t{a.chunks()[1], {k}});
  auto ax = product(a, xa);
  const auto d = tessera::compute(ax - b2, pol);
  std::vector<T> res;
  if (m > n)
    for (index_t j = 0; j < k; ++j) {
      T acc = 0;
      for (index_t i = 0; i < m; ++i) acc += d(std::size_t(i), std::size_t(j)) * d(std::size_t(i), std::size_t(j));
      res.push_back(acc);
    }
  lstsq_result<T> out;
  out.x = vec ? host_array(x, shape_t{n}, chunks_t{a.chunks()[1]}) : std::move(xa);
  out.residuals = host_array(res, shape_t{index_t(res.size())}, chunks_t{{index_t(res.size())}});
  out.rank = rank;
  out.s = host_array(s, shape_t{n}, chunks_t{{n}});
  return out;
}
}  // namespace detail

/// Least squares (NumPy's / Dask's lstsq) for a tall a (m >= n): TSQR a = q r chunk by chunk,
/// then r x = q' b densely (n x n). b is m or m x k.
template <expression_type A, expression_type B, linalg_policy P = host>
lstsq_result<detail::real_of<A>> lstsq(const A& a, const B& b, const P& pol = {}) {
  return detail::lstsq_with(
      a, b, pol, [&](const auto& x) { return qr(x, pol); },
      [&](const auto& x, const auto& y) { return matmul(x, y, pol); });
}

}  // namespace tessera::linalg
