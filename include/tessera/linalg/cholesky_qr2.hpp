// CholeskyQR2 on the host: a TSQR by Gram matrices (every step a level-3 BLAS call at close to
// gemm's rate) for tall inputs with cond(A) well below eps^-1/2, declining otherwise:
//   pass 1 (parallel over row blocks): A_b evaluated row-major (column-major that is A_b', so
//           no transpose), kept; its Gram matrix A_b' A_b (syrk);
//   step 1: G = the Gram matrices summed in block order (made in waves of blocks, so that at
//           most about 256 MiB of them are held), R1 = chol(G) (potrf), R1^-1 (trtri)
//           for the acceptance test ||R1||_1 ||R1^-1||_1 <= 0.1 / sqrt(eps);
//   pass 2 (parallel): Q1_b = A_b R1^-1 in place (trsm), its Gram matrix;
//   step 2: R2 = chol(sum), accepted when ||R2||_1 ||R2^-1||_1 <= 4 (Q1 close to orthogonal);
//           R = R2 R1;
//   output (cholesky_qr2_apply): block b of Q X = Q1_b (R2^-1 X): one trsm for R2^-1 X, one
//           gemm per block (for Q itself, X = I: one trsm per block).
// For an SVD, the Gram route (gram_svd.hpp) is tried after step 1: accepted, there is no pass 2
// of the factorization; the output pass makes U = A (V S^-1).
// The same algorithm and acceptance test as the device's (tsqr_cuda.cuh). Every sum runs in
// block order and the n x n steps on one BLAS thread, so Q and R do not depend on the thread
// count for a given chunking.
// About 5 m n^2 flops for an SVD (4 for Q itself), as many as Householder TSQR's but all of
// it in syrk/trsm/gemm instead of LAPACK's panel factorizations.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "common.hpp"
#include "gram_svd.hpp"
#include "tsqr_factors.hpp"

namespace tessera::linalg::detail {

/// The 1-norm condition number ||R||_1 ||R^-1||_1 of an upper-triangular n x n R (column-major,
/// ld n) from R and its inverse; +inf when either holds a non-finite value. CholeskyQR2's
/// acceptance test (host code: tested without a device in cuda_test_cuda_logic).
template <class T>
double triangular_condition_1(const T* r, const T* rinv, index_t n) {
  double nr = 0, ni = 0;
  for (index_t j = 0; j < n; ++j) {
    double cr = 0, cinv = 0;
    for (index_t i = 0; i <= j; ++i) {
      cr += std::abs(double(r[i + j * n]));
      cinv += std::abs(double(rinv[i + j * n]));
    }
    if (!std::isfinite(cr) || !std::isfinite(cinv)) return std::numeric_limits<double>::infinity();
    nr = std::max(nr, cr);
    ni = std::max(ni, cinv);
  }
  return nr * ni;
}

/// CholeskyQR2 gives Q orthogonal to working precision when cond(A) stays well below
/// eps^-1/2 (Yamamoto, Nakatsukasa, Yanagisawa, Fukaya 2015). The first factor's 1-norm
/// condition number (an over-estimate of cond_2 by at most n) must stay below this.
template <class T>
double cholesky_qr2_first_limit() {
  return 0.1 / std::sqrt(double(std::numeric_limits<T>::epsilon()));
}
/// The second factor R2 (Q1' Q1 = R2' R2) is the identity when Q1 is orthogonal; a 1-norm
/// condition number above this means Q1 was far from orthogonal and the result is not trusted.
constexpr double cholesky_qr2_second_limit = 4.0;

/// Whether the policy's dense kernels run the host CholeskyQR2 (dense<P>::cholesky_qr2).
template <class P>
concept host_cholesky_qr2 = requires { requires dense<P>::cholesky_qr2; };

/// Row blocks whose Gram matrices (n x n each) are held at once: as many as fit in about 256
/// MiB (every block at once for narrow matrices), but at least `concurrency` (the tasks that
/// run at once; for n beyond about 5800 that is more than 256 MiB), so that many short row
/// blocks do not hold one n x n matrix each.
inline index_t gram_wave(index_t concurrency, index_t blocks, index_t n, std::size_t itemsize) {
  const double fit = double(std::size_t(256) << 20) / (double(n) * double(n) * double(itemsize));
  return std::clamp<index_t>(std::max<index_t>(concurrency, index_t(std::min(fit, 1e15))), 1,
                             std::max<index_t>(blocks, 1));
}

/// g (n x n, upper triangle) = the sum of the blocks' Gram matrices in block order, made in
/// waves of `wave` blocks: run_wave(b0, b1, grams) fills grams[b - b0] (n x n, upper triangle)
/// for the blocks b in [b0, b1). The values do not depend on the wave size.
template <class T, class RunWave>
void sum_grams_in_waves(index_t B, index_t n, index_t wave, std::vector<T>& g, RunWave&& run_wave) {
  std::vector<std::vector<T>> grams(static_cast<std::size_t>(std::min(wave, B)));
  for (index_t b0 = 0; b0 < B; b0 += wave) {
    const index_t b1 = std::min(B, b0 + wave);
    run_wave(b0, b1, grams);
    for (index_t b = b0; b < b1; ++b) {
      const T* s = grams[std::size_t(b - b0)].data();
      if (b == 0) {
        g.assign(s, s + n * n);
        continue;
      }
      for (index_t j = 0; j < n; ++j)
        for (index_t i = 0; i <= j; ++i) g[std::size_t(i + j * n)] += s[i + j * n];
    }
  }
}

/// One Cholesky step: r (in: the summed Gram matrix, upper triangle) := R with r = R' R (R
/// upper, zero below the diagonal). false when the sum is not positive definite or R's 1-norm
/// condition number exceeds `limit` (or is not finite).
template <class T, class P>
bool cholesky_of_gram(const P&, index_t n, double limit, std::vector<T>& r) {
  // One thread: OpenBLAS's own potrf takes another blocking when it may use several, and
  // the factor must not depend on the thread count (a few ms for n = 1000).
  typename dense<P>::threads_guard guard(1);
  if (dense<P>::potrf(n, r.data(), n) != 0) return false;
  for (index_t j = 0; j < n; ++j) std::fill(r.data() + j * n + j + 1, r.data() + (j + 1) * n, T(0));
  std::vector<T> inv = r;
  if (dense<P>::trtri(n, inv.data(), n) != 0) return false;
  return triangular_condition_1(r.data(), inv.data(), n) <= limit;
}

/// The step after pass 1: the first Cholesky step on g (then R1); for an SVD (`gram_svd`) then
/// the Gram route (gram_svd.hpp: f.gram, f.s and f.vt set when it accepts). false when the
/// Cholesky step declines (the Gram route, for cond(A) <= 8, would too).
template <class T, class P>
bool first_gram_step(const P& pol, index_t n, bool gram_svd, std::vector<T>& g, tsqr_factors<T>& f) {
  if (!gram_svd) return cholesky_of_gram(pol, n, cholesky_qr2_first_limit<T>(), g);
  std::vector<T> gram = g;  // G, for the eigen-decomposition (which overwrites it)
  if (!cholesky_of_gram(pol, n, cholesky_qr2_first_limit<T>(), g)) return false;
  if (condition_lower_bound(g.data(), n) <= gram_svd_condition_limit &&
      gram_svd_of(pol, n, std::move(gram), f.s, f.vt))
    f.gram = true;
  return true;
}

/// Pass 1 for one row block: the upper triangle of A_b' A_b (g, n x n) from the row-major
/// block a (mb x n).
template <class P, class T>
void gram_of_block(index_t n, index_t mb, const T* a, std::vector<T>& g) {
  g.resize(std::size_t(n * n));
  dense<P>::syrk(n, mb, a, n, g.data(), n);
}

/// Pass 2 for one row block: a (row-major mb x n) := Q1_b = A_b R1^-1, and its Gram matrix.
template <class P, class T>
void orthogonalize_block(index_t n, index_t mb, const T* r1, T* a, std::vector<T>& g) {
  dense<P>::trsm(true, n, mb, r1, n, a, n);  // column-major Q1_b' = R1^-T A_b'
  gram_of_block<P>(n, mb, a, g);
}

/// Sets f's CholeskyQR2 shape: n columns, row blocks `rows`, q (the blocks) left to the caller.
template <class T>
void start_cholesky_qr2(tsqr_factors<T>& f, const std::vector<index_t>& rows, index_t n) {
  f.n = n;
  f.k = n;
  f.cholesky = true;
  f.rows = rows;
  f.kb.assign(rows.size(), n);
}

/// R = R2 R1 into f.r (upper triangular), one BLAS thread as the Cholesky steps.
template <class T, class P>
void finish_cholesky_qr2(const P&, tsqr_factors<T>& f, std::vector<T> r1) {
  typename dense<P>::threads_guard guard(1);
  f.r = std::move(r1);
  dense<P>::trmm(f.n, f.n, f.r2.data(), f.n, f.r.data(), f.n);
}

/// CholeskyQR2 of the row source (m >= n, n > 0) into f. false (f's buffers freed) when an
/// acceptance test fails: the caller runs Householder TSQR instead. With `gram_svd` (for an
/// SVD), the Gram route after the first Cholesky step: accepted, f.gram is set and Q1 holds A
/// (no second pass).
template <class T, class P, class Src>
bool cholesky_qr2_factor(const P& pol, const Src& src, tsqr_factors<T>& f, bool gram_svd = false) {
  const index_t n = src.n, B = src.blocks();
  std::vector<index_t> rows(static_cast<std::size_t>(B));
  for (index_t b = 0; b < B; ++b) rows[std::size_t(b)] = src.rows(b);
  start_cholesky_qr2(f, rows, n);
  // Q1 lives in an array shaped like the result (m x n, the row chunks): pass 2 writes Q or U
  // over it in place, so the only large allocation is the result's
  f.in_array = true;
  f.q1 = array<T>(chunk_grid({src.off.back(), n}, chunks_t{rows, {n}}));
  for (index_t b = 0; b < B; ++b) f.q1.block_data(b);  // allocate serially
  auto decline = [&] {
    f = tsqr_factors<T>{};
    return false;
  };
  const index_t wave = gram_wave(dense<P>::concurrency(pol), B, n, sizeof(T));
  // per_block(b, gram) on the blocks of each wave in parallel (BLAS threads as for all B
  // blocks at once: the same calls whatever the wave size)
  auto pass = [&](auto&& per_block, std::vector<T>& g) {
    sum_grams_in_waves<T>(B, n, wave, g, [&](index_t b0, index_t b1, std::vector<std::vector<T>>& grams) {
      typename dense<P>::threads_guard guard(blas_threads_for(pol, B));
      dense<P>::parallel(pol, b1 - b0, [&](index_t i) { per_block(b0 + i, grams[std::size_t(i)]); });
    });
  };
  std::vector<T> r1;
  pass([&](index_t b, std::vector<T>& g) {
    T* a = f.q1.block_data(b);
    src.template load_row_major<T>(b, a);
    gram_of_block<P>(n, rows[std::size_t(b)], a, g);
  }, r1);
  if (!first_gram_step(pol, n, gram_svd, r1, f)) return decline();
  if (f.gram) return true;
  pass([&](index_t b, std::vector<T>& g) {
    orthogonalize_block<P>(n, rows[std::size_t(b)], r1.data(), f.q1.block_data(b), g);
  }, f.r2);
  if (!cholesky_of_gram(pol, n, cholesky_qr2_second_limit, f.r2)) return decline();
  finish_cholesky_qr2(pol, f, std::move(r1));
  return true;
}

/// Pass 2's right factor: W = R2^-1 X (n x kx) for x (column-major, n x kx); empty for
/// x = nullptr (Q itself). The Gram route (R2 = I): W = X, which must be given.
template <class T, class P>
std::vector<T> cholesky_qr2_right_factor(const P& pol, const tsqr_factors<T>& f, const T* x, index_t kx) {
  std::vector<T> w;
  if (f.gram && !x) throw std::logic_error("tessera: the Gram route of svd keeps A, not Q: pass 2 needs its right factor");
  if (!x) return w;
  w.assign(x, x + f.n * kx);
  if (f.gram) return w;
  typename dense<P>::threads_guard g(dense<P>::concurrency(pol));  // by columns: same values
  dense<P>::trsm(false, f.n, kx, f.r2.data(), f.n, w.data(), f.n);
  return w;
}

/// Q1_b (row-major rows[b] x n).
template <class T>
T* q1_block(tsqr_factors<T>& f, index_t b) {
  return f.in_array ? f.q1.block_data(b) : f.q[std::size_t(b)].data();
}

/// Pass 2 for row block b: Q1_b W (or Q1_b R2^-1 when w is empty; kx == n), row-major
/// rows[b] x kx, into d, which may be Q1_b itself (then kx == n: computed in place). W's
/// product runs a few hundred rows at a time, in place through per-thread scratch, so that
/// every path (in place or not, one process or ts::mpi) makes the same gemm calls. Frees a
/// Q1_b held in q.
template <class P, class T>
void cholesky_qr2_apply_block(tsqr_factors<T>& f, index_t b, const std::vector<T>& w, index_t kx, T* d) {
  const index_t n = f.n, mb = f.rows[std::size_t(b)];
  T* q = q1_block(f, b);
  if (kx == 0) {  // nothing to write
  } else if (w.empty()) {
    // row-major Q1_b R2^-1 == column-major R2^-T Q1_b'
    if (d != q) std::copy(q, q + mb * n, d);
    dense<P>::trsm(true, n, mb, f.r2.data(), n, d, n);
  } else {
    // row-major (Q1_b W) == column-major W' Q1_b', rows r0 .. r0 + rs at a time
    const index_t step = std::max<index_t>(256, (index_t(1) << 18) / std::max<index_t>(n, 1));
    T* s = d == q ? scratch<T, 3>(std::size_t(std::min(step, mb) * n)) : nullptr;
    for (index_t r0 = 0; r0 < mb; r0 += step) {
      const index_t rs = std::min(step, mb - r0);
      const T* src = q + r0 * n;
      if (s) src = std::copy(q + r0 * n, q + (r0 + rs) * n, s) - rs * n;
      dense<P>::gemm(true, false, kx, rs, n, T(1), w.data(), n, src, n, T(0), d + r0 * kx, kx);
    }
  }
  if (!f.in_array) std::vector<T>().swap(f.q[std::size_t(b)]);
}

/// Pass 2 of CholeskyQR2: block b of Q X (rows[b] x kx, row-major) into dst(b), x k x kx
/// column-major (nullptr: the identity, kx == k). Frees the Q1_b held in q as it goes (those
/// in the array q1 stay until f goes).
template <class T, class P, class Dst>
void cholesky_qr2_apply(const P& pol, tsqr_factors<T>& f, const T* x, index_t kx, Dst& dst) {
  const index_t B = index_t(f.rows.size());
  const std::vector<T> w = cholesky_qr2_right_factor(pol, f, x, kx);
  typename dense<P>::threads_guard g(blas_threads_for(pol, B));
  dense<P>::parallel(pol, B, [&](index_t b) { cholesky_qr2_apply_block<P>(f, b, w, kx, dst(b)); });
}

/// Q X as an array with the row chunks and one column chunk, written over Q1 in place (kx == n);
/// x as for cholesky_qr2_apply.
template <class T, class P>
array<T> cholesky_qr2_apply_in_place(const P& pol, tsqr_factors<T>& f, const T* x, index_t kx) {
  auto over_q1 = [&f](index_t b) { return f.q1.block_data(b); };
  cholesky_qr2_apply(pol, f, x, kx, over_q1);
  f.in_array = false;
  return std::move(f.q1);
}

}  // namespace tessera::linalg::detail
