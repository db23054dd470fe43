// Dense per-block kernels of ts::linalg for the host backend: LAPACKE + CBLAS (OpenBLAS).
//
// Every chunked algorithm (tsqr.hpp, svd.hpp, matmul.hpp, svd_compressed.hpp) calls the dense
// kernels only through `dense<Policy>`, so a backend supplies one specialization with this
// interface (the CUDA backend mirrors it in linalg/dense_cuda.cuh with cuSOLVER/cuBLAS). The
// primitives are named after the operation (LAPACK's name where every backend runs that
// routine); what each backend runs is documented at its definition:
//
//   dense<P>::geqrf(m, n, a, lda, tau)          QR in place (Householder form), column-major
//   dense<P>::orgqr(m, n, k, a, lda, tau)       the first n columns of Q, in place
//   dense<P>::ormqr(m, n, k, a, lda, tau, c, ldc)
//                                               c := Q c (Q from geqrf's reflectors)
//   dense<P>::thin_svd(m, n, a, lda, s, u, ldu, vt, ldvt)
//                                               thin SVD, k = min(m, n), a destroyed (host:
//                                               gesdd, gesvd when it fails; CUDA: gesvdj,
//                                               gesvd when it fails)
//   dense<P>::gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)   column-major
//   dense<P>::syevd(n, a, lda, w)              host only: eigenvalues (ascending) and vectors
//                                               of a symmetric matrix (its upper triangle)
//   dense<P>::qr_explicit(m, n, a, r)           a (m x n, ld m) := Q (m x min(m, n)), r := R
//   dense<P>::threads_guard(n)                  RAII: the library's own thread count
//   dense<P>::tpqrt / tpmqrt                    host only, when tree_path (below) is true
//   dense<P>::syrk / potrf / trtri / trsm / trmm
//                                               host only, when cholesky_qr2 (below) is true:
//                                               the upper triangle in every one of them
//
// and the execution pieces the algorithms are written against:
//
//   dense<P>::parallel(pol, n, f)               f(0..n-1) as concurrent tasks of the policy
//   dense<P>::single(pol, f)                    f() once, outside parallel (the first device)
//   dense<P>::concurrency(pol)                  tasks parallel() runs at once
//   dense<P>::load(pol, lowered, box, out)      evaluates a lowered expression's box into a
//                                               row-major host buffer (on the backend)
//   dense<P>::with_rows(pol, lowered, box, scratch, f)
//                                               f(p), p the box row-major: in place where the
//                                               host holds it so, else loaded into scratch
//   dense<P>::host_side(pol)                    host policy for small host-side work
//   dense<P>::tree_path                         TSQR may use the tpqrt merge tree
//   dense<P>::cholesky_qr2                      TSQR may use the host CholeskyQR2
//                                               (linalg/cholesky_qr2.hpp)
//
// All matrices are column-major (LAPACK's layout), T is float or double; pointers are host
// memory for every backend.
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cblas.h>
#include <lapacke.h>

#include "../backend/host.hpp"
#include "../config.hpp"
#include "../nodes/stored.hpp"

// OpenBLAS's own thread control (declared in OpenBLAS's cblas.h; declared here too so this
// header also compiles where the alternatives system selected another cblas.h).
extern "C" {
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
}

namespace tessera::linalg {

template <class P>
struct dense;

template <>
struct dense<host> {
  // --- execution ------------------------------------------------------------------------------
  static constexpr bool tree_path = true;
  static constexpr bool cholesky_qr2 = true;
  static int concurrency(const host& pol) { return pol.concurrency(); }
  static const host& host_side(const host& pol) { return pol; }
  template <class F>
  static void parallel(const host& pol, index_t n, F&& f) {
    tessera::detail::for_each_block(pol, n, std::forward<F>(f));
  }
  /// f() on the calling thread (with the policy's first device current, on a device backend).
  template <class F>
  static void single(const host&, F&& f) {
    f();
  }
  /// Box bx of the lowered expression, row-major (last axis contiguous) into out.
  template <class T, class L>
  static void load(const host&, const L& low, const box& bx, T* out) {
    if (bx.count() == 0) return;
    backend<host>::task_env env;
    auto acc = low.bind(bx, env.context());
    backend<host>::eval_to_host(env, acc, bx, out, row_major_strides(bx));
  }

  /// f(p), p the box bx (2-D) of the lowered expression row-major (ld = bx's columns): read in
  /// place when the bound box's rows lie back to back in memory (a stored array whose chunk
  /// holds whole rows), else evaluated into `scratch` (bx.count() elements).
  template <class T, class L, class F>
  static void with_rows(const host&, const L& low, const box& bx, T* scratch, F&& f) {
    if (bx.count() == 0) return f(static_cast<const T*>(scratch));
    backend<host>::task_env env;
    auto acc = low.bind(bx, env.context());
    using line_t = decltype(acc.line(bx.lo, 1, 1));
    if constexpr (tessera::detail::contiguous_line<line_t>) {
      using element = std::remove_cvref_t<decltype(*std::declval<const line_t&>().contiguous(0))>;
      if constexpr (std::is_same_v<element, T>) {
        const T* p0 = acc.line(bx.lo, 1, 1).contiguous(0);
        bool in_place = p0 != nullptr;
        const index_t cols = bx.extent(1);
        ivec at = bx.lo;
        for (index_t i = 1; in_place && i < bx.extent(0); ++i) {
          at[0] = bx.lo[0] + i;
          in_place = acc.line(at, 1, 1).contiguous(0) == p0 + i * cols;
        }
        if (in_place) return f(p0);
      }
    }
    backend<host>::eval_to_host(env, acc, bx, scratch, row_major_strides(bx));
    f(static_cast<const T*>(scratch));
  }

  /// Sets OpenBLAS's thread count for the guard's lifetime (restored afterwards).
  class threads_guard {
   public:
    explicit threads_guard(int n) : old_(openblas_get_num_threads()) {
      openblas_set_num_threads(std::max(1, n));
    }
    ~threads_guard() { openblas_set_num_threads(old_); }
    threads_guard(const threads_guard&) = delete;
    threads_guard& operator=(const threads_guard&) = delete;

   private:
    int old_;
  };

  static void check(lapack_int info, const char* what) {
    if (info != 0)
      throw std::runtime_error(std::string("tessera::linalg: LAPACK ") + what +
                               " failed with info " + std::to_string(info));
  }
  static lapack_int li(index_t v) { return lapack_int(std::max<index_t>(v, 1)); }

  /// Per-thread LAPACK workspace, kept between calls (the _work entry points: no per-call
  /// allocation and no LAPACKE NaN scan of the inputs).
  template <class T>
  static T* work(std::size_t n) {
    thread_local std::vector<T> w;
    if (w.size() < n) w.resize(n);
    return w.data();
  }
  template <class T>
  static lapack_int query_size(T q) {
    return std::max<lapack_int>(1, lapack_int(q));
  }

  // --- QR -------------------------------------------------------------------------------------
  template <class T>
  static void geqrf(index_t m, index_t n, T* a, index_t lda, T* tau) {
    T q = 0;
    const lapack_int M = lapack_int(m), N = lapack_int(n), L = li(lda);
    if constexpr (std::is_same_v<T, double>) {
      check(LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, M, N, a, L, tau, &q, -1), "dgeqrf");
      const lapack_int lw = query_size(q);
      check(LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, M, N, a, L, tau, work<T>(std::size_t(lw)), lw), "dgeqrf");
    } else {
      check(LAPACKE_sgeqrf_work(LAPACK_COL_MAJOR, M, N, a, L, tau, &q, -1), "sgeqrf");
      const lapack_int lw = query_size(q);
      check(LAPACKE_sgeqrf_work(LAPACK_COL_MAJOR, M, N, a, L, tau, work<T>(std::size_t(lw)), lw), "sgeqrf");
    }
  }
  template <class T>
  static void orgqr(index_t m, index_t n, index_t k, T* a, index_t lda, const T* tau) {
    T q = 0;
    const lapack_int M = lapack_int(m), N = lapack_int(n), K = lapack_int(k), L = li(lda);
    if constexpr (std::is_same_v<T, double>) {
      check(LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, M, N, K, a, L, tau, &q, -1), "dorgqr");
      const lapack_int lw = query_size(q);
      check(LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, M, N, K, a, L, tau, work<T>(std::size_t(lw)), lw), "dorgqr");
    } else {
      check(LAPACKE_sorgqr_work(LAPACK_COL_MAJOR, M, N, K, a, L, tau, &q, -1), "sorgqr");
      const lapack_int lw = query_size(q);
      check(LAPACKE_sorgqr_work(LAPACK_COL_MAJOR, M, N, K, a, L, tau, work<T>(std::size_t(lw)), lw), "sorgqr");
    }
  }
  /// c (m x n) = Q c, Q from the k reflectors of geqrf in a (m x k), tau.
  template <class T>
  static void ormqr(index_t m, index_t n, index_t k, const T* a, index_t lda, const T* tau, T* c,
                    index_t ldc) {
    T q = 0;
    const lapack_int M = lapack_int(m), N = lapack_int(n), K = lapack_int(k), L = li(lda),
                     LC = li(ldc);
    if constexpr (std::is_same_v<T, double>) {
      check(LAPACKE_dormqr_work(LAPACK_COL_MAJOR, 'L', 'N', M, N, K, a, L, tau, c, LC, &q, -1), "dormqr");
      const lapack_int lw = query_size(q);
      check(LAPACKE_dormqr_work(LAPACK_COL_MAJOR, 'L', 'N', M, N, K, a, L, tau, c, LC,
                                work<T>(std::size_t(lw)), lw), "dormqr");
    } else {
      check(LAPACKE_sormqr_work(LAPACK_COL_MAJOR, 'L', 'N', M, N, K, a, L, tau, c, LC, &q, -1), "sormqr");
      const lapack_int lw = query_size(q);
      check(LAPACKE_sormqr_work(LAPACK_COL_MAJOR, 'L', 'N', M, N, K, a, L, tau, c, LC,
                                work<T>(std::size_t(lw)), lw), "sormqr");
    }
  }
  /// QR of [A; B] with A (n x n) upper triangular, B (m x n) pentagonal (last l rows upper
  /// trapezoidal): A becomes R, B the reflectors V, t (nb x n) the block reflector factors.
  template <class T>
  static void tpqrt(index_t m, index_t n, index_t l, index_t nb, T* a, index_t lda, T* b,
                    index_t ldb, T* t, index_t ldt) {
    T* w = work<T>(std::size_t(nb * n));
    if constexpr (std::is_same_v<T, double>)
      check(LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, lapack_int(m), lapack_int(n), lapack_int(l),
                                lapack_int(nb), a, li(lda), b, li(ldb), t, li(ldt), w), "dtpqrt");
    else
      check(LAPACKE_stpqrt_work(LAPACK_COL_MAJOR, lapack_int(m), lapack_int(n), lapack_int(l),
                                lapack_int(nb), a, li(lda), b, li(ldb), t, li(ldt), w), "stpqrt");
  }
  /// [a; b] = Q [a; b] with Q from tpqrt (v: m x k, t: nb x k); a is k x n, b is m x n.
  template <class T>
  static void tpmqrt(index_t m, index_t n, index_t k, index_t l, index_t nb, const T* v,
                     index_t ldv, const T* t, index_t ldt, T* a, index_t lda, T* b, index_t ldb) {
    T* w = work<T>(std::size_t(nb * n));
    if constexpr (std::is_same_v<T, double>)
      check(LAPACKE_dtpmqrt_work(LAPACK_COL_MAJOR, 'L', 'N', lapack_int(m), lapack_int(n),
                                 lapack_int(k), lapack_int(l), lapack_int(nb), v, li(ldv), t,
                                 li(ldt), a, li(lda), b, li(ldb), w), "dtpmqrt");
    else
      check(LAPACKE_stpmqrt_work(LAPACK_COL_MAJOR, 'L', 'N', lapack_int(m), lapack_int(n),
                                 lapack_int(k), lapack_int(l), lapack_int(nb), v, li(ldv), t,
                                 li(ldt), a, li(lda), b, li(ldb), w), "stpmqrt");
  }

  /// Explicit QR of the column-major m x n matrix a (ld m): a's first kk = min(m, n) columns
  /// become Q (contiguous), r (kk x n, column-major) the upper trapezoid R. Returns kk.
  template <class T>
  static index_t qr_explicit(index_t m, index_t n, T* a, T* r) {
    const index_t kk = std::min(m, n);
    std::vector<T> tau(std::size_t(std::max<index_t>(kk, 1)));
    geqrf(m, n, a, m, tau.data());
    std::fill(r, r + kk * n, T(0));
    for (index_t j = 0; j < n; ++j)
      for (index_t i = 0; i <= std::min(j, kk - 1); ++i) r[j * kk + i] = a[j * m + i];
    orgqr(m, kk, kk, a, m, tau.data());
    return kk;
  }

  // --- SVD ------------------------------------------------------------------------------------
  /// Thin SVD of the m x n matrix a (destroyed): s (k), u (m x k), vt (k x n), k = min(m, n).
  /// LAPACK divide and conquer (gesdd); falls back to QR iteration (gesvd) if gesdd does not
  /// converge.
  template <class T>
  static void thin_svd(index_t m, index_t n, T* a, index_t lda, T* s, T* u, index_t ldu,
                       T* vt, index_t ldvt) {
    const index_t k = std::min(m, n);
    std::vector<T> keep(a, a + lda * n);  // gesdd destroys a; gesvd needs the original
    lapack_int info;
    if constexpr (std::is_same_v<T, double>)
      info = LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'S', lapack_int(m), lapack_int(n), a, li(lda), s, u,
                            li(ldu), vt, li(ldvt));
    else
      info = LAPACKE_sgesdd(LAPACK_COL_MAJOR, 'S', lapack_int(m), lapack_int(n), a, li(lda), s, u,
                            li(ldu), vt, li(ldvt));
    if (info == 0) return;
    if (info < 0) check(info, "gesdd");
    std::copy(keep.begin(), keep.end(), a);
    std::vector<T> superb(std::size_t(std::max<index_t>(k, 2)));
    if constexpr (std::is_same_v<T, double>)
      info = LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'S', 'S', lapack_int(m), lapack_int(n), a, li(lda),
                            s, u, li(ldu), vt, li(ldvt), superb.data());
    else
      info = LAPACKE_sgesvd(LAPACK_COL_MAJOR, 'S', 'S', lapack_int(m), lapack_int(n), a, li(lda),
                            s, u, li(ldu), vt, li(ldvt), superb.data());
    check(info, "gesvd");
  }

  /// Eigen-decomposition of the symmetric n x n a (its upper triangle read): w (n) := the
  /// eigenvalues in ascending order, a := the orthonormal eigenvectors (column j for w[j]).
  /// LAPACK's divide and conquer (syevd). Returns info (> 0: it did not converge).
  template <class T>
  static lapack_int syevd(index_t n, T* a, index_t lda, T* w) {
    lapack_int info;
    if constexpr (std::is_same_v<T, double>)
      info = LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'U', lapack_int(n), a, li(lda), w);
    else
      info = LAPACKE_ssyevd(LAPACK_COL_MAJOR, 'V', 'U', lapack_int(n), a, li(lda), w);
    if (info < 0) check(info, "syevd");
    return info;
  }

  // --- Cholesky and triangular kernels (the upper triangle throughout) --------------------------
  /// The upper triangle of c (n x n) = a a', a column-major n x k (a row-major k x n block is
  /// its transpose: c is then the block's Gram matrix). The strict lower triangle is untouched.
  template <class T>
  static void syrk(index_t n, index_t k, const T* a, index_t lda, T* c, index_t ldc) {
    if (n == 0) return;
    if constexpr (std::is_same_v<T, double>)
      cblas_dsyrk(CblasColMajor, CblasUpper, CblasNoTrans, int(n), int(k), 1.0, a, int(li(lda)), 0.0, c,
                  int(li(ldc)));
    else
      cblas_ssyrk(CblasColMajor, CblasUpper, CblasNoTrans, int(n), int(k), 1.0f, a, int(li(lda)), 0.0f, c,
                  int(li(ldc)));
  }
  /// Cholesky factor a = R' R in place (the upper triangle read and overwritten). Returns
  /// LAPACK's info: 0, or the order of the first leading minor that is not positive definite.
  template <class T>
  static lapack_int potrf(index_t n, T* a, index_t lda) {
    lapack_int info;
    if constexpr (std::is_same_v<T, double>)
      info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', lapack_int(n), a, li(lda));
    else
      info = LAPACKE_spotrf_work(LAPACK_COL_MAJOR, 'U', lapack_int(n), a, li(lda));
    if (info < 0) check(info, "potrf");
    return info;
  }
  /// The inverse of the upper-triangular a in place. Returns info (> 0: a zero diagonal entry).
  template <class T>
  static lapack_int trtri(index_t n, T* a, index_t lda) {
    lapack_int info;
    if constexpr (std::is_same_v<T, double>)
      info = LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'U', 'N', lapack_int(n), a, li(lda));
    else
      info = LAPACKE_strtri_work(LAPACK_COL_MAJOR, 'U', 'N', lapack_int(n), a, li(lda));
    if (info < 0) check(info, "trtri");
    return info;
  }
  /// b (m x n) := op(a)^-1 b, a upper triangular (m x m), op(a) = a' when `trans`.
  template <class T>
  static void trsm(bool trans, index_t m, index_t n, const T* a, index_t lda, T* b, index_t ldb) {
    if (m == 0 || n == 0) return;
    if constexpr (std::is_same_v<T, double>)
      cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, trans ? CblasTrans : CblasNoTrans, CblasNonUnit,
                  int(m), int(n), 1.0, a, int(li(lda)), b, int(li(ldb)));
    else
      cblas_strsm(CblasColMajor, CblasLeft, CblasUpper, trans ? CblasTrans : CblasNoTrans, CblasNonUnit,
                  int(m), int(n), 1.0f, a, int(li(lda)), b, int(li(ldb)));
  }
  /// b (m x n) := a b, a upper triangular (m x m).
  template <class T>
  static void trmm(index_t m, index_t n, const T* a, index_t lda, T* b, index_t ldb) {
    if (m == 0 || n == 0) return;
    if constexpr (std::is_same_v<T, double>)
      cblas_dtrmm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, int(m), int(n), 1.0, a,
                  int(li(lda)), b, int(li(ldb)));
    else
      cblas_strmm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, int(m), int(n), 1.0f, a,
                  int(li(lda)), b, int(li(ldb)));
  }

  // --- GEMM -----------------------------------------------------------------------------------
  /// c = alpha * op(a) * op(b) + beta * c, column-major; op(x) = x' when the flag is set.
  static void gemm(bool ta, bool tb, index_t m, index_t n, index_t k, double alpha,
                   const double* a, index_t lda, const double* b, index_t ldb, double beta,
                   double* c, index_t ldc) {
    if (m == 0 || n == 0) return;
    cblas_dgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                int(m), int(n), int(k), alpha, a,
                int(li(lda)), b, int(li(ldb)), beta, c, int(li(ldc)));
  }
  static void gemm(bool ta, bool tb, index_t m, index_t n, index_t k, float alpha, const float* a,
                   index_t lda, const float* b, index_t ldb, float beta, float* c, index_t ldc) {
    if (m == 0 || n == 0) return;
    cblas_sgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                int(m), int(n), int(k), alpha, a,
                int(li(lda)), b, int(li(ldb)), beta, c, int(li(ldc)));
  }
};

}  // namespace tessera::linalg
