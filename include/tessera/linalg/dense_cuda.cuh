// Dense per-block kernels of ts::linalg for the CUDA backend: cuSOLVER + cuBLAS, mirroring
// dense<host> (linalg/dense_host.hpp) call for call so the chunked algorithms can use either:
//
//   dense<cuda>::geqrf / orgqr / ormqr        cusolverDn{S,D}geqrf / orgqr / ormqr
//   dense<cuda>::qr_explicit                  geqrf + orgqr in one device round trip
//   dense<cuda>::thin_svd                     cusolverDn{S,D}gesvdj (Jacobi, economy), falling
//                                             back to cusolverDn{S,D}gesvd when it does not
//                                             converge (gesvd needs m >= n: the transpose is
//                                             factored when m < n)
//   dense<cuda>::gemm                         cublas{S,D}gemm
//   dense<cuda>::threads_guard                no-op (the library threads are the GPU's)
//   dense<cuda>::tree_path = false            no tpqrt/tpmqrt in cuSOLVER: TSQR stacks R factors
//
// Execution: parallel(pol, n, f) runs the tasks on devices x streams_per_device host threads
// (a oneTBB arena), each task with one of the policy's devices current; load() evaluates a box
// of a lowered expression with the device chunk kernel (the same element code as the host)
// and copies it to host memory.
//
// Pointers are host memory, column-major, as in dense<host>: each call stages its operands on
// the calling thread's current device through the stream-ordered pool, runs on a per-thread
// stream, and copies the results back before returning. Include from .cu files only.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <functional>
#include <type_traits>
#include <vector>

#include "../backend/cuda/check.cuh"
#include "../backend/cuda/backend.cuh"
#include "dense_host.hpp"

#define TESSERA_CUSOLVER_CHECK(expr) TESSERA_CUDA_LIB_CHECK("cuSOLVER", expr)
#define TESSERA_CUBLAS_CHECK(expr) TESSERA_CUDA_LIB_CHECK("cuBLAS", expr)

namespace tessera::linalg {

namespace cuda_dense {

/// cuSOLVER/cuBLAS handles, a stream and a pinned staging arena of one host thread on one
/// device. Intentionally never destroyed (as the scheduler's streams): the threads that own
/// them (oneTBB workers, the main thread) live until process exit, when destroying CUDA
/// objects could run after the CUDA runtime has shut down.
struct handles {
  int device = -1;
  std::size_t max_pitch = 0;  // cudaDevAttrMaxPitch (bytes)
  cudaStream_t stream = nullptr;
  cusolverDnHandle_t solver = nullptr;
  cublasHandle_t blas = nullptr;
  tessera::detail::cuda_backend::pinned_arena arena;  // staging of host inputs in load()
};

inline handles& current() {
  if (!cuda::available())
    throw std::runtime_error("tessera::linalg: dense<cuda> has no usable CUDA device: " +
                             cuda::unavailable_reason());
  thread_local std::vector<handles*> per_device;
  int dev = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&dev));
  if (per_device.size() <= std::size_t(dev)) per_device.resize(std::size_t(dev) + 1, nullptr);
  auto& h = per_device[std::size_t(dev)];
  if (!h) {
    auto fresh = std::make_unique<handles>();
    fresh->device = dev;
    int pitch = 0;
    TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&pitch, cudaDevAttrMaxPitch, dev));
    fresh->max_pitch = std::size_t(pitch);
    TESSERA_CUDA_CHECK(cudaStreamCreateWithFlags(&fresh->stream, cudaStreamNonBlocking));
    TESSERA_CUSOLVER_CHECK(cusolverDnCreate(&fresh->solver));
    TESSERA_CUSOLVER_CHECK(cusolverDnSetStream(fresh->solver, fresh->stream));
    TESSERA_CUBLAS_CHECK(cublasCreate(&fresh->blas));
    TESSERA_CUBLAS_CHECK(cublasSetStream(fresh->blas, fresh->stream));
    h = fresh.release();
  }
  return *h;
}

/// Device buffers of one call, returned to the pool in stream order when the call ends.
class scratch {
 public:
  explicit scratch(const handles& h) : s_(h.stream), max_pitch_(h.max_pitch) {}
  ~scratch() {
    for (void* p : ptrs_) (void)cudaFreeAsync(p, s_);
  }
  template <class T>
  T* get(index_t n) {
    void* p = nullptr;
    TESSERA_CUDA_CHECK(cudaMallocAsync(&p, std::size_t(std::max<index_t>(n, 1)) * sizeof(T), s_));
    ptrs_.push_back(p);
    return static_cast<T*>(p);
  }
  /// A device copy of n host elements.
  template <class T>
  T* upload(const T* h, index_t n) {
    T* d = get<T>(n);
    if (n > 0)
      TESSERA_CUDA_CHECK(cudaMemcpyAsync(d, h, std::size_t(n) * sizeof(T), cudaMemcpyHostToDevice, s_));
    return d;
  }
  template <class T>
  void download(T* h, const T* d, index_t n) {
    if (n > 0)
      TESSERA_CUDA_CHECK(cudaMemcpyAsync(h, d, std::size_t(n) * sizeof(T), cudaMemcpyDeviceToHost, s_));
  }
  /// A packed device copy (leading dimension rows) of the column-major host matrix h (rows x
  /// cols, leading dimension ld >= rows). Reads only the matrix's own elements, so h may point
  /// into a larger matrix.
  template <class T>
  T* upload_matrix(const T* h, index_t rows, index_t cols, index_t ld) {
    T* d = get<T>(rows * cols);
    copy_matrix(d, rows, h, ld, rows, cols, cudaMemcpyHostToDevice);
    return d;
  }
  /// The packed device matrix d (rows x cols) into the host matrix h (leading dimension ld);
  /// rows rows..ld-1 of h are not touched.
  template <class T>
  void download_matrix(T* h, index_t ld, const T* d, index_t rows, index_t cols) {
    copy_matrix(h, ld, d, rows, rows, cols, cudaMemcpyDeviceToHost);
  }
  /// Column-major rows x cols from src (leading dimension sld) to dst (dld).
  template <class T>
  void copy_matrix(T* dst, index_t dld, const T* src, index_t sld, index_t rows, index_t cols,
                   cudaMemcpyKind kind) {
    if (rows <= 0 || cols <= 0) return;
    const std::size_t sz = sizeof(T);
    if (cols == 1 || (dld == rows && sld == rows)) {
      TESSERA_CUDA_CHECK(cudaMemcpyAsync(dst, src, std::size_t(rows) * std::size_t(cols) * sz, kind, s_));
    } else if (std::size_t(std::max(dld, sld)) * sz <= max_pitch_) {
      TESSERA_CUDA_CHECK(cudaMemcpy2DAsync(dst, std::size_t(dld) * sz, src, std::size_t(sld) * sz,
                                           std::size_t(rows) * sz, std::size_t(cols), kind, s_));
    } else {  // leading dimension beyond the device's pitch limit: column by column
      for (index_t j = 0; j < cols; ++j)
        TESSERA_CUDA_CHECK(cudaMemcpyAsync(dst + j * dld, src + j * sld, std::size_t(rows) * sz, kind, s_));
    }
  }
  void sync() { TESSERA_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_;
  std::size_t max_pitch_;
  std::vector<void*> ptrs_;
};

inline int ci(index_t v) { return int(std::max<index_t>(v, 1)); }

/// c = alpha op(a) op(b) + beta c on device memory (column-major), on the handles' stream.
template <class T>
void gemm_device(handles& h, bool ta, bool tb, index_t m, index_t n, index_t k, T alpha,
                 const T* a, index_t lda, const T* b, index_t ldb, T beta, T* c, index_t ldc) {
  if (m == 0 || n == 0) return;
  const auto opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  if constexpr (std::is_same_v<T, double>)
    TESSERA_CUBLAS_CHECK(cublasDgemm(h.blas, opa, opb, int(m), int(n), int(k), &alpha, a, ci(lda), b,
                                     ci(ldb), &beta, c, ci(ldc)));
  else
    TESSERA_CUBLAS_CHECK(cublasSgemm(h.blas, opa, opb, int(m), int(n), int(k), &alpha, a, ci(lda), b,
                                     ci(ldb), &beta, c, ci(ldc)));
}

/// Column-major c_i = alpha op(a_i) op(b_i) + beta c_i for i < batch, a_i = a + i * sa (b, c
/// likewise), on device memory on the handles' stream (cublas{S,D}gemmStridedBatched).
template <class T>
void gemm_strided_batched_device(handles& h, bool ta, bool tb, index_t m, index_t n, index_t k,
                                 T alpha, const T* a, index_t lda, index_t sa, const T* b,
                                 index_t ldb, index_t sb, T beta, T* c, index_t ldc, index_t sc,
                                 index_t batch) {
  if (m == 0 || n == 0 || batch == 0) return;
  const auto opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  if constexpr (std::is_same_v<T, double>)
    TESSERA_CUBLAS_CHECK(cublasDgemmStridedBatched(h.blas, opa, opb, int(m), int(n), int(k), &alpha, a,
                                                   ci(lda), (long long)sa, b, ci(ldb), (long long)sb,
                                                   &beta, c, ci(ldc), (long long)sc, int(batch)));
  else
    TESSERA_CUBLAS_CHECK(cublasSgemmStridedBatched(h.blas, opa, opb, int(m), int(n), int(k), &alpha, a,
                                                   ci(lda), (long long)sa, b, ci(ldb), (long long)sb,
                                                   &beta, c, ci(ldc), (long long)sc, int(batch)));
}

/// y = alpha a x + beta y (a: column-major m x n), device memory, the handles' stream.
template <class T>
void gemv_device(handles& h, index_t m, index_t n, T alpha, const T* a, index_t lda, const T* x, T beta,
                 T* y) {
  if (m == 0) return;
  if constexpr (std::is_same_v<T, double>)
    TESSERA_CUBLAS_CHECK(cublasDgemv(h.blas, CUBLAS_OP_N, int(m), int(n), &alpha, a, ci(lda), x, 1, &beta, y, 1));
  else
    TESSERA_CUBLAS_CHECK(cublasSgemv(h.blas, CUBLAS_OP_N, int(m), int(n), &alpha, a, ci(lda), x, 1, &beta, y, 1));
}

/// b = a^-1 b for the upper-triangular n x n a (column-major, ld lda) and n x nrhs b (ld ldb),
/// device memory, the handles' stream (cublas{S,D}trsm, left side, no transpose).
template <class T>
void upper_solve_device(handles& h, index_t n, index_t nrhs, const T* a, index_t lda, T* b, index_t ldb) {
  if (n == 0 || nrhs == 0) return;
  const T one = 1;
  if constexpr (std::is_same_v<T, double>)
    TESSERA_CUBLAS_CHECK(cublasDtrsm(h.blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                                     CUBLAS_DIAG_NON_UNIT, int(n), int(nrhs), &one, a, ci(lda), b, ci(ldb)));
  else
    TESSERA_CUBLAS_CHECK(cublasStrsm(h.blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                                     CUBLAS_DIAG_NON_UNIT, int(n), int(nrhs), &one, a, ci(lda), b, ci(ldb)));
}

/// Cholesky factor a = R' R of the symmetric n x n device matrix a (its upper triangle is read
/// and overwritten by R; the strict lower triangle is left as it was); cuSOLVER's info (> 0:
/// not positive definite) stays on the device.
template <class T>
void cholesky_upper_device(handles& h, scratch& s, index_t n, T* a, index_t lda, int* info) {
  int lwork = 0;
  if constexpr (std::is_same_v<T, double>)
    TESSERA_CUSOLVER_CHECK(cusolverDnDpotrf_bufferSize(h.solver, CUBLAS_FILL_MODE_UPPER, int(n), a, ci(lda), &lwork));
  else
    TESSERA_CUSOLVER_CHECK(cusolverDnSpotrf_bufferSize(h.solver, CUBLAS_FILL_MODE_UPPER, int(n), a, ci(lda), &lwork));
  T* work = s.get<T>(lwork);
  if constexpr (std::is_same_v<T, double>)
    TESSERA_CUSOLVER_CHECK(cusolverDnDpotrf(h.solver, CUBLAS_FILL_MODE_UPPER, int(n), a, ci(lda), work, lwork, info));
  else
    TESSERA_CUSOLVER_CHECK(cusolverDnSpotrf(h.solver, CUBLAS_FILL_MODE_UPPER, int(n), a, ci(lda), work, lwork, info));
}

inline void check_info(int info, const char* what) {
  if (info != 0)
    throw std::runtime_error(std::string("tessera::linalg: cuSOLVER ") + what +
                             " failed with info " + std::to_string(info));
}

}  // namespace cuda_dense

template <>
struct dense<cuda> {
  // --- execution ------------------------------------------------------------------------------
  static constexpr bool tree_path = false;
  static constexpr bool cholesky_qr2 = false;  // the device runs its own (tsqr_cuda.cuh)
  static int concurrency(const cuda& pol) {
    return int(tessera::detail::cuda_backend::policy_devices(pol).size()) * pol.streams_per_device;
  }
  /// Small host-side work (dense factors, transposes of results) runs on all cores.
  static host host_side(const cuda&) { return host{}; }

  /// f(0..n-1) as tasks on devices x streams_per_device host threads; the task's device (its
  /// arena slot modulo the device count) is current while it runs. Throws std::runtime_error
  /// when the policy has no usable device.
  template <class F>
  static void parallel(const cuda& pol, index_t n, F&& f) {
    const std::vector<int> devs = tessera::detail::cuda_backend::policy_devices(pol);
    const int slots = int(devs.size()) * pol.streams_per_device;
    tessera::detail::for_each_block(host{.threads = slots}, n, [&](index_t b) {
      int slot = tbb::this_task_arena::current_thread_index();
      if (slot < 0) slot = 0;
      tessera::detail::cuda_backend::device_guard g(devs[std::size_t(slot) % devs.size()]);
      f(b);
    });
  }

  /// f() on the calling thread with the policy's first device current (the dense steps outside
  /// parallel(): the stacked R's QR, the k x k SVD).
  template <class F>
  static void single(const cuda& pol, F&& f) {
    tessera::detail::cuda_backend::device_guard g(tessera::detail::cuda_backend::policy_devices(pol).front());
    f();
  }

  /// f(scratch) with the box loaded into it (load): a device backend has no host rows to read
  /// in place.
  template <class T, class L, class F>
  static void with_rows(const cuda& pol, const L& low, const box& bx, T* scratch, F&& f) {
    load(pol, low, bx, scratch);
    f(static_cast<const T*>(scratch));
  }

  /// Box bx of the lowered expression, evaluated by the chunk kernel on the current device and
  /// copied row-major (last axis contiguous) into the host buffer out (backend<cuda>'s
  /// eval_to_host, as a one-task run on the thread's linalg stream).
  template <class T, class L>
  static void load(const cuda&, const L& low, const box& bx, T* out) {
    if (bx.count() == 0) return;
    cuda_dense::handles& h = cuda_dense::current();
    std::vector<std::function<void()>> after;
    {
      backend<cuda>::task_env env(h.device, h.stream, h.arena, after);
      auto acc = low.bind(bx, env.context());
      backend<cuda>::eval_to_host(env, acc, bx, out, row_major_strides(bx));
    }  // scratch returned to the pool, ordered after the copy
    TESSERA_CUDA_CHECK(cudaStreamSynchronize(h.stream));
    for (auto& f : after) f();
    h.arena.reset();
  }

  class threads_guard {
   public:
    explicit threads_guard(int) {}
    threads_guard(const threads_guard&) = delete;
    threads_guard& operator=(const threads_guard&) = delete;
  };

  // --- QR -------------------------------------------------------------------------------------
  /// geqrf on device memory (da: m x n, ld lda; dt: min(m, n)); info stays on the device.
  template <class T>
  static void geqrf_device(cuda_dense::handles& h, cuda_dense::scratch& s, index_t m, index_t n,
                           T* da, index_t lda, T* dt, int* info) {
    using cuda_dense::ci;
    int lwork = 0;
    if constexpr (std::is_same_v<T, double>)
      TESSERA_CUSOLVER_CHECK(cusolverDnDgeqrf_bufferSize(h.solver, int(m), int(n), da, ci(lda), &lwork));
    else
      TESSERA_CUSOLVER_CHECK(cusolverDnSgeqrf_bufferSize(h.solver, int(m), int(n), da, ci(lda), &lwork));
    T* work = s.get<T>(lwork);
    if constexpr (std::is_same_v<T, double>)
      TESSERA_CUSOLVER_CHECK(cusolverDnDgeqrf(h.solver, int(m), int(n), da, ci(lda), dt, work, lwork, info));
    else
      TESSERA_CUSOLVER_CHECK(cusolverDnSgeqrf(h.solver, int(m), int(n), da, ci(lda), dt, work, lwork, info));
  }
  /// orgqr on device memory: the first n columns of Q from k reflectors in da, dt.
  template <class T>
  static void orgqr_device(cuda_dense::handles& h, cuda_dense::scratch& s, index_t m, index_t n,
                           index_t k, T* da, index_t lda, const T* dt, int* info) {
    using cuda_dense::ci;
    int lwork = 0;
    if constexpr (std::is_same_v<T, double>)
      TESSERA_CUSOLVER_CHECK(cusolverDnDorgqr_bufferSize(h.solver, int(m), int(n), int(k), da, ci(lda), dt, &lwork));
    else
      TESSERA_CUSOLVER_CHECK(cusolverDnSorgqr_bufferSize(h.solver, int(m), int(n), int(k), da, ci(lda), dt, &lwork));
    T* work = s.get<T>(lwork);
    if constexpr (std::is_same_v<T, double>)
      TESSERA_CUSOLVER_CHECK(cusolverDnDorgqr(h.solver, int(m), int(n), int(k), da, ci(lda), dt, work, lwork, info));
    else
      TESSERA_CUSOLVER_CHECK(cusolverDnSorgqr(h.solver, int(m), int(n), int(k), da, ci(lda), dt, work, lwork, info));
  }

  template <class T>
  static void geqrf(index_t m, index_t n, T* a, index_t lda, T* tau) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
    if (m == 0 || n == 0) return;
    using namespace cuda_dense;
    handles& h = current();
    scratch s(h);
    T* da = s.upload_matrix(a, m, n, lda);
    T* dt = s.get<T>(std::min(m, n));
    int* info = s.get<int>(1);
    geqrf_device(h, s, m, n, da, m, dt, info);
    int hinfo = 0;
    s.download_matrix(a, lda, da, m, n);
    s.download(tau, dt, std::min(m, n));
    s.download(&hinfo, info, 1);
    s.sync();
    check_info(hinfo, "geqrf");
  }

  template <class T>
  static void orgqr(index_t m, index_t n, index_t k, T* a, index_t lda, const T* tau) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
    if (m == 0 || n == 0) return;
    using namespace cuda_dense;
    handles& h = current();
    scratch s(h);
    T* da = s.upload_matrix(a, m, n, lda);
    T* dt = s.upload(tau, k);
    int* info = s.get<int>(1);
    orgqr_device(h, s, m, n, k, da, m, dt, info);
    int hinfo = 0;
    s.download_matrix(a, lda, da, m, n);
    s.download(&hinfo, info, 1);
    s.sync();
    check_info(hinfo, "orgqr");
  }

  /// Explicit QR of the column-major m x n matrix a (ld m) in one device round trip: a's first
  /// kk = min(m, n) columns become Q, r (kk x n) the upper trapezoid R. Returns kk.
  template <class T>
  static index_t qr_explicit(index_t m, index_t n, T* a, T* r) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
    const index_t kk = std::min(m, n);
    if (kk == 0) return 0;
    using namespace cuda_dense;
    handles& h = current();
    scratch s(h);
    T* da = s.upload(a, m * n);
    T* dt = s.get<T>(kk);
    int* info = s.get<int>(2);
    geqrf_device(h, s, m, n, da, m, dt, info);
    // R: the top kk rows of the factored matrix (column pitch m).
    s.copy_matrix(r, kk, da, m, kk, n, cudaMemcpyDeviceToHost);
    orgqr_device(h, s, m, kk, kk, da, m, dt, info + 1);
    int hinfo[2] = {0, 0};
    s.download(a, da, m * kk);
    s.download(hinfo, info, 2);
    s.sync();
    check_info(hinfo[0], "geqrf");
    check_info(hinfo[1], "orgqr");
    for (index_t j = 0; j < n; ++j)  // zero below the diagonal (geqrf left reflectors there)
      for (index_t i = j + 1; i < kk; ++i) r[j * kk + i] = T(0);
    return kk;
  }

  /// c (m x n) = Q c, Q from the k reflectors of geqrf in a (m x k), tau.
  template <class T>
  static void ormqr(index_t m, index_t n, index_t k, const T* a, index_t lda, const T* tau, T* c,
                    index_t ldc) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
    if (m == 0 || n == 0) return;
    using namespace cuda_dense;
    handles& h = current();
    scratch s(h);
    T* da = s.upload_matrix(a, m, k, lda);
    T* dt = s.upload(tau, k);
    T* dc = s.upload_matrix(c, m, n, ldc);
    int lwork = 0;
    if constexpr (std::is_same_v<T, double>)
      TESSERA_CUSOLVER_CHECK(cusolverDnDormqr_bufferSize(h.solver, CUBLAS_SIDE_LEFT, CUBLAS_OP_N, int(m), int(n),
                                                         int(k), da, ci(m), dt, dc, ci(m), &lwork));
    else
      TESSERA_CUSOLVER_CHECK(cusolverDnSormqr_bufferSize(h.solver, CUBLAS_SIDE_LEFT, CUBLAS_OP_N, int(m), int(n),
                                                         int(k), da, ci(m), dt, dc, ci(m), &lwork));
    T* work = s.get<T>(lwork);
    int* info = s.get<int>(1);
    if constexpr (std::is_same_v<T, double>)
      TESSERA_CUSOLVER_CHECK(cusolverDnDormqr(h.solver, CUBLAS_SIDE_LEFT, CUBLAS_OP_N, int(m), int(n), int(k), da,
                                              ci(m), dt, dc, ci(m), work, lwork, info));
    else
      TESSERA_CUSOLVER_CHECK(cusolverDnSormqr(h.solver, CUBLAS_SIDE_LEFT, CUBLAS_OP_N, int(m), int(n), int(k), da,
                                              ci(m), dt, dc, ci(m), work, lwork, info));
    int hinfo = 0;
    s.download_matrix(c, ldc, dc, m, n);
    s.download(&hinfo, info, 1);
    s.sync();
    check_info(hinfo, "ormqr");
  }

  // --- SVD ------------------------------------------------------------------------------------
  /// Thin SVD of the m x n matrix a (destroyed): s (k), u (m x k), vt (k x n), k = min(m, n).
  /// Jacobi (gesvdj, economy); QR iteration (gesvd) when gesvdj does not converge.
  template <class T>
  static void thin_svd(index_t m, index_t n, T* a, index_t lda, T* s, T* u, index_t ldu,
                       T* vt, index_t ldvt) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
    const index_t k = std::min(m, n);
    if (k == 0) return;
    if (gesvdj(m, n, a, lda, s, u, ldu, vt, ldvt) == 0) return;
    gesvd(m, n, a, lda, s, u, ldu, vt, ldvt);
  }

  /// Jacobi SVD; returns cuSOLVER's info (0: converged). a is not modified.
  template <class T>
  static int gesvdj(index_t m, index_t n, const T* a, index_t lda, T* s, T* u, index_t ldu, T* vt,
                    index_t ldvt) {
    using namespace cuda_dense;
    const index_t k = std::min(m, n);
    handles& h = current();
    scratch sc(h);
    T* da = sc.upload_matrix(a, m, n, lda);
    T* ds = sc.get<T>(k);
    T* du = sc.get<T>(m * k);
    T* dv = sc.get<T>(n * k);
    int* info = sc.get<int>(1);
    gesvdjInfo_t params = nullptr;
    TESSERA_CUSOLVER_CHECK(cusolverDnCreateGesvdjInfo(&params));
    struct destroy {
      gesvdjInfo_t p;
      ~destroy() { cusolverDnDestroyGesvdjInfo(p); }
    } guard{params};
    int lwork = 0;
    const auto jobz = CUSOLVER_EIG_MODE_VECTOR;
    if constexpr (std::is_same_v<T, double>)
      TESSERA_CUSOLVER_CHECK(cusolverDnDgesvdj_bufferSize(h.solver, jobz, 1, int(m), int(n), da, ci(m), ds, du,
                                                          ci(m), dv, ci(n), &lwork, params));
    else
      TESSERA_CUSOLVER_CHECK(cusolverDnSgesvdj_bufferSize(h.solver, jobz, 1, int(m), int(n), da, ci(m), ds, du,
                                                          ci(m), dv, ci(n), &lwork, params));
    T* work = sc.get<T>(lwork);
    if constexpr (std::is_same_v<T, double>)
      TESSERA_CUSOLVER_CHECK(cusolverDnDgesvdj(h.solver, jobz, 1, int(m), int(n), da, ci(m), ds, du, ci(m), dv,
                                               ci(n), work, lwork, info, params));
    else
      TESSERA_CUSOLVER_CHECK(cusolverDnSgesvdj(h.solver, jobz, 1, int(m), int(n), da, ci(m), ds, du, ci(m), dv,
                                               ci(n), work, lwork, info, params));
    std::vector<T> hv(std::size_t(n * k));
    int hinfo = 0;
    sc.download(s, ds, k);
    sc.download(hv.data(), dv, n * k);
    sc.download(&hinfo, info, 1);
    sc.download_matrix(u, ldu, du, m, k);  // overwritten by gesvd when gesvdj fails
    sc.sync();
    if (hinfo < 0) check_info(hinfo, "gesvdj");
    if (hinfo != 0) return hinfo;
    for (index_t j = 0; j < n; ++j)  // vt = V'
      for (index_t i = 0; i < k; ++i) vt[i + j * ldvt] = hv[std::size_t(j + i * n)];
    return 0;
  }

  /// QR-iteration SVD (cuSOLVER gesvd, which needs m >= n: the transpose is factored for
  /// m < n). a is destroyed.
  template <class T>
  static void gesvd(index_t m, index_t n, T* a, index_t lda, T* s, T* u, index_t ldu, T* vt,
                    index_t ldvt) {
    using namespace cuda_dense;
    const index_t k = std::min(m, n);
    const bool tr = m < n;
    const index_t M = tr ? n : m, N = tr ? m : n;  // factored matrix is M x N, M >= N
    std::vector<T> b(std::size_t(M * N));
    for (index_t j = 0; j < n; ++j)
      for (index_t i = 0; i < m; ++i) (tr ? b[std::size_t(j + i * M)] : b[std::size_t(i + j * M)]) = a[i + j * lda];
    handles& h = current();
    scratch sc(h);
    T* db = sc.upload(b.data(), M * N);
    T* ds = sc.get<T>(k);
    T* dU = sc.get<T>(M * N);   // M x N
    T* dVt = sc.get<T>(N * N);  // N x N
    int* info = sc.get<int>(1);
    int lwork = 0;
    if constexpr (std::is_same_v<T, double>)
      TESSERA_CUSOLVER_CHECK(cusolverDnDgesvd_bufferSize(h.solver, int(M), int(N), &lwork));
    else
      TESSERA_CUSOLVER_CHECK(cusolverDnSgesvd_bufferSize(h.solver, int(M), int(N), &lwork));
    T* work = sc.get<T>(lwork);
    T* rwork = sc.get<T>(N);
    if constexpr (std::is_same_v<T, double>)
      TESSERA_CUSOLVER_CHECK(cusolverDnDgesvd(h.solver, 'S', 'S', int(M), int(N), db, int(M), ds, dU, int(M), dVt,
                                              int(N), work, lwork, rwork, info));
    else
      TESSERA_CUSOLVER_CHECK(cusolverDnSgesvd(h.solver, 'S', 'S', int(M), int(N), db, int(M), ds, dU, int(M), dVt,
                                              int(N), work, lwork, rwork, info));
    std::vector<T> U(std::size_t(M * N)), Vt(std::size_t(N * N));
    int hinfo = 0;
    sc.download(s, ds, k);
    sc.download(U.data(), dU, M * N);
    sc.download(Vt.data(), dVt, N * N);
    sc.download(&hinfo, info, 1);
    sc.sync();
    check_info(hinfo, "gesvd");
    // B = U S Vt. Not transposed: u = U (m x k), vt = Vt (k x n). Transposed (A = B'):
    // A = Vt' S U', so u = Vt' (m x k) and vt = U' (k x n).
    for (index_t j = 0; j < k; ++j)
      for (index_t i = 0; i < m; ++i)
        u[i + j * ldu] = tr ? Vt[std::size_t(j + i * N)] : U[std::size_t(i + j * M)];
    for (index_t j = 0; j < n; ++j)
      for (index_t i = 0; i < k; ++i)
        vt[i + j * ldvt] = tr ? U[std::size_t(j + i * M)] : Vt[std::size_t(i + j * N)];
  }

  // --- GEMM -----------------------------------------------------------------------------------
  /// c = alpha * op(a) * op(b) + beta * c, column-major; op(x) = x' when the flag is set.
  template <class T>
  static void gemm(bool ta, bool tb, index_t m, index_t n, index_t k, T alpha, const T* a,
                   index_t lda, const T* b, index_t ldb, T beta, T* c, index_t ldc) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
    if (m == 0 || n == 0) return;
    using namespace cuda_dense;
    handles& h = current();
    scratch s(h);
    const index_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    const T* da = s.upload_matrix(a, ar, ac, lda);
    const T* db = s.upload_matrix(b, br, bc, ldb);
    // c is read only when beta != 0 (BLAS semantics: beta == 0 ignores NaNs in c); rows
    // m..ldc-1 of the host c are never touched.
    T* dc = beta == T(0) ? s.get<T>(m * n) : s.upload_matrix(c, m, n, ldc);
    gemm_device(h, ta, tb, m, n, k, alpha, da, ar, db, br, beta, dc, m);
    s.download_matrix(c, ldc, dc, m, n);
    s.sync();
  }
};

}  // namespace tessera::linalg
