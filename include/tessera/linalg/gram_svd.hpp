// The SVD of a well-conditioned tall matrix from its Gram matrix (svd on ts::host and ts::mpi).
// CholeskyQR2's pass 1 (cholesky_qr2.hpp) has made G = A' A, kept A's row blocks and factored
// G = R1' R1; for an SVD this header goes on from there instead of its second pass:
//   a lower bound on cond(A) from R1 (a few power and inverse iterations, O(n^2) each) turns
//   away a matrix clearly above the limit without the O(n^3) step below;
//   G = V L V' (syevd on one BLAS thread, so the result does not depend on the thread count),
//   accepted when every eigenvalue is finite, l_min > 0 and l_max <= 64 l_min, i.e.
//   cond(A) <= gram_svd_condition_limit = 8; then S = L^(1/2) (descending) and vt = V';
//   pass 2: U = A (V S^-1), one gemm per row block over the kept blocks (cholesky_qr2_apply
//   with R2 = I).
// Declined (non-finite G, syevd not converging, cond(A) above the limit), CholeskyQR2 goes on
// from R1, and Householder TSQR after it when it declines too.
// Accuracy: the Gram route's errors grow as eps cond(A)^2 (U' U - I, and the singular values'
// relative error), LAPACK's QR-based ones as eps cond(A); below the limit both stay at a few
// eps (docs/linalg.md, "The Gram route", has the measurements). Arithmetic: about 3 m n^2 flops
// (syrk m n^2, gemm 2 m n^2) and n^3-order steps, against about 5 m n^2 and the SVD of R for
// CholeskyQR2.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "common.hpp"

namespace tessera::linalg::detail {

/// The largest cond(A) = s_max / s_min for which svd takes the Gram route.
constexpr double gram_svd_condition_limit = 8.0;

/// A lower bound on cond_2(A) = cond_2(R) from the upper-triangular Cholesky factor r (n x n,
/// column-major) of A' A = R' R, in O(n^2) per step: a power iteration for s_max (|R x| for unit
/// x never exceeds it) and an inverse iteration for s_min (|R v| for unit v is never below it),
/// `steps` each, from fixed start vectors. Lets the Gram route decline a matrix far above its
/// limit (seed 000's uniform [0, 1) values: cond about 80) without the eigen-decomposition.
template <class T>
double condition_lower_bound(const T* r, index_t n, int steps = 8) {
  if (n == 0) return 1;
  const std::size_t N = static_cast<std::size_t>(n);
  std::vector<double> x(N), y(N);
  auto norm = [](const std::vector<double>& v) {
    double q = 0;
    for (double e : v) q += e * e;
    return std::sqrt(q);
  };
  auto times_r = [&](const std::vector<double>& in, std::vector<double>& out) {  // out = R in
    std::fill(out.begin(), out.end(), 0.0);
    for (index_t j = 0; j < n; ++j)
      for (index_t i = 0; i <= j; ++i) out[std::size_t(i)] += double(r[i + j * n]) * in[std::size_t(j)];
  };
  auto scale_to_unit = [&](std::vector<double>& v) {
    const double q = norm(v);
    if (!(q > 0) || !std::isfinite(q)) return false;
    for (double& e : v) e /= q;
    return true;
  };
  // s_max >= |R x| for unit x; x := R' R x
  double smax = 0;
  std::fill(x.begin(), x.end(), 1.0);  // the direction of a common offset, as in seed 000
  scale_to_unit(x);
  for (int it = 0; it < steps; ++it) {
    times_r(x, y);
    smax = std::max(smax, norm(y));
    for (index_t j = 0; j < n; ++j) {  // x = R' y
      double d = 0;
      for (index_t i = 0; i <= j; ++i) d += double(r[i + j * n]) * y[std::size_t(i)];
      x[std::size_t(j)] = d;
    }
    if (!scale_to_unit(x)) break;
  }
  // s_min <= |R v| for unit v; v := (R' R)^-1 v: R' z = v forward, then R w = z backward
  double smin = std::numeric_limits<double>::infinity();
  for (index_t i = 0; i < n; ++i) x[std::size_t(i)] = double((i * 7919) % 2003) / 2003.0 - 0.5;
  scale_to_unit(x);
  for (int it = 0; it < steps; ++it) {
    times_r(x, y);
    smin = std::min(smin, norm(y));
    for (index_t j = 0; j < n; ++j) {  // R' z = x
      double d = x[std::size_t(j)];
      for (index_t i = 0; i < j; ++i) d -= double(r[i + j * n]) * y[std::size_t(i)];
      y[std::size_t(j)] = d / double(r[j + j * n]);
    }
    for (index_t j = n - 1; j >= 0; --j) {  // R w = z, in place
      y[std::size_t(j)] /= double(r[j + j * n]);
      for (index_t i = 0; i < j; ++i) y[std::size_t(i)] -= double(r[i + j * n]) * y[std::size_t(j)];
    }
    x.swap(y);
    if (!scale_to_unit(x)) break;
  }
  if (!(smin > 0)) return std::numeric_limits<double>::infinity();
  return smax / smin;
}

/// The SVD of A from its Gram matrix e (n x n, column-major, upper triangle read; taken by
/// value: syevd overwrites it with the eigenvectors): s (n, descending) and vt (n x n,
/// column-major, rows = right singular vectors, signs as syevd leaves them). false (s and vt
/// untouched) when e holds a non-finite value, syevd does not converge or cond(A) exceeds
/// gram_svd_condition_limit.
template <class T, class P>
bool gram_svd_of(const P&, index_t n, std::vector<T> e, std::vector<T>& s, std::vector<T>& vt) {
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i <= j; ++i)
      if (!std::isfinite(e[std::size_t(i + j * n)])) return false;
  std::vector<T> w(static_cast<std::size_t>(n));
  {
    typename dense<P>::threads_guard guard(1);  // the same bits for any thread count
    if (dense<P>::syevd(n, e.data(), n, w.data()) != 0) return false;
  }
  const double lo = double(w.front()), hi = double(w.back());
  const double limit = gram_svd_condition_limit * gram_svd_condition_limit;
  if (!(lo > 0) || !std::isfinite(hi) || !(hi <= limit * lo)) return false;
  s.resize(static_cast<std::size_t>(n));
  vt.resize(std::size_t(n * n));
  for (index_t i = 0; i < n; ++i) {
    const index_t from = n - 1 - i;  // ascending eigenvalues -> descending singular values
    s[std::size_t(i)] = std::sqrt(w[std::size_t(from)]);
    for (index_t j = 0; j < n; ++j) vt[std::size_t(i + j * n)] = e[std::size_t(j + from * n)];
  }
  return true;
}

/// The Gram route's right factor W = V S^-1 (n x n, column-major) from s and vt (after the
/// sign flip), so that pass 2's A W is U.
template <class T>
std::vector<T> gram_svd_right_factor(const std::vector<T>& s, const std::vector<T>& vt, index_t n) {
  std::vector<T> w(std::size_t(n * n));
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) w[std::size_t(j + i * n)] = vt[std::size_t(i + j * n)] / s[std::size_t(i)];
  return w;
}

}  // namespace tessera::linalg::detail
