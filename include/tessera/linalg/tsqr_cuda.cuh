// Device-resident TSQR for ts::cuda: row blocks are evaluated into device buffers, factored
// there by cuSOLVER, their R factors stacked and factored on the device, and Q (or U) written
// straight into device-resident chunks. Nothing but the small k x n factor crosses to the host.
//
//   pass 1 (one task per row block, devices x streams_per_device in flight):
//     the block's box of the lowered input, row-major on the device (a pointer into a
//     device-resident input's chunk, or the device chunk kernel's output) -> tiled transpose
//     to column-major A_b -> geqrf -> R_b (top min(rows, n) rows, zeroed below the diagonal)
//     -> orgqr: A_b becomes Q_b (kept on the device)
//   reduction (the policy's first device): the R_b stacked, [R_1; ...; R_B] = P R by
//     geqrf + orgqr, in groups of `fanin` (a tree of stacked QRs) when there are more;
//     R (k x n) is the only copy to the host
//   pass 2 (one task per row block, on the block's device): W_b = P_b X (X: identity for Q,
//     U_R for the SVD) and the row-major output chunk = (Q_b W_b) by one cuBLAS gemm
//     (computed as W_b' Q_b' in column-major terms) into a ts::device_array chunk.
//
// Results: Q and U are ts::device_array (chunks on the devices, a's row chunks); R, S, Vt are
// small host arrays. The host TSQR (tsqr.hpp) is the reference these are tested against.
#pragma once
#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "../backend/cuda/device_array.cuh"
#include "dense_cuda.cuh"
#include "device_kernels.cuh"
#include "svd.hpp"
#include "tsqr.hpp"

namespace tessera::linalg {
namespace cuda_dense {

/// Device memory from the stream-ordered pool, owned by one object. Released in order on the
/// legacy stream: the owner synchronizes the streams that used it first (device_tsqr does).
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  device_buffer(index_t n, int dev, cudaStream_t s) : dev_(dev) {
    void* p = nullptr;
    TESSERA_CUDA_CHECK(cudaMallocAsync(&p, std::size_t(std::max<index_t>(n, 1)) * sizeof(T), s));
    p_ = static_cast<T*>(p);
  }
  device_buffer(device_buffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), dev_(o.dev_) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::exchange(o.p_, nullptr);
      dev_ = o.dev_;
    }
    return *this;
  }
  ~device_buffer() { reset(); }
  void reset() noexcept {
    if (!p_) return;
    int prev = 0;
    if (cudaGetDevice(&prev) == cudaSuccess && cudaSetDevice(dev_) == cudaSuccess) {
      (void)cudaFreeAsync(p_, 0);
      (void)cudaSetDevice(prev);
    }
    p_ = nullptr;
  }
  T* get() const { return p_; }
  int device() const { return dev_; }

 private:
  T* p_ = nullptr;
  int dev_ = -1;
};

/// A column-major matrix in device memory, not owned.
template <class T>
struct device_view {
  const T* p = nullptr;
  index_t ld = 0;
};

/// Waits for every listed device (error paths: nothing may still use a buffer being freed).
inline void synchronize_devices(const std::vector<int>& devs) noexcept {
  int prev = 0;
  if (cudaGetDevice(&prev) != cudaSuccess) return;
  for (int d : devs)
    if (cudaSetDevice(d) == cudaSuccess) (void)cudaDeviceSynchronize();
  (void)cudaSetDevice(prev);
}

/// Column-major rows x cols from src (ld sld) to dst (ld dld), any devices (cudaMemcpyDefault).
template <class T>
void copy_device_matrix(T* dst, index_t dld, const T* src, index_t sld, index_t rows, index_t cols,
                        cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  const std::size_t sz = sizeof(T);
  TESSERA_CUDA_CHECK(cudaMemcpy2DAsync(dst, std::size_t(dld) * sz, src, std::size_t(sld) * sz,
                                       std::size_t(rows) * sz, std::size_t(cols), cudaMemcpyDefault,
                                       stream));
}

/// The factors of a device TSQR between pass 1 and pass 2.
template <class T>
struct device_tsqr {
  index_t n = 0, k = 0;
  std::vector<index_t> rows, kb;
  std::vector<int> dev;                     // device of row block b
  std::vector<device_buffer<T>> q;          // Q_b: rows[b] x kb[b], ld rows[b], on dev[b]
  bool q_row_major = false;                 // Q_b row-major instead (ld kb[b]): CholeskyQR2
  std::vector<device_buffer<T>> rb;         // R_b until the reduction
  std::vector<device_buffer<T>> keep;       // the stacked factors P_i point into
  std::vector<device_view<T>> p;            // P_b: kb[b] x k, on the first device
  std::vector<T> r;                         // R: k x n column-major, on the host
  std::vector<int> devices;                 // the policy's devices

  device_tsqr() = default;
  device_tsqr(device_tsqr&&) = default;
  device_tsqr& operator=(device_tsqr&&) = default;
  ~device_tsqr() {
    // Every task synchronizes its stream before it returns; after a failure, work of the
    // other tasks may still be queued: wait for it before the buffers go back to the pool.
    if (std::uncaught_exceptions() > 0) synchronize_devices(devices);
  }
};

/// geqrf + (R copied out, zeroed below the diagonal) + orgqr of the column-major m x n device
/// matrix a (ld lda) on the handles' stream: a's first kk = min(m, n) columns become Q and
/// `r` (kk x n, ld kk) R. Checks cuSOLVER's info (synchronizes the stream).
template <class T>
index_t qr_device(handles& h, index_t m, index_t n, T* a, index_t lda, device_buffer<T>& r) {
  const index_t kk = std::min(m, n);
  if (kk == 0) {  // an empty row block: no factor, nothing to stack
    r = device_buffer<T>(0, h.device, h.stream);
    return 0;
  }
  scratch s(h);
  T* tau = s.get<T>(kk);
  int* info = s.get<int>(2);
  dense<cuda>::geqrf_device(h, s, m, n, a, lda, tau, info);
  r = device_buffer<T>(kk * n, h.device, h.stream);
  copy_device_matrix(r.get(), kk, a, lda, kk, n, h.stream);
  zero_below_diagonal(r.get(), kk, kk, n, h.stream);
  dense<cuda>::orgqr_device(h, s, m, kk, kk, a, lda, tau, info + 1);
  int hinfo[2] = {0, 0};
  s.download(hinfo, info, 2);
  s.sync();
  check_info(hinfo[0], "geqrf");
  check_info(hinfo[1], "orgqr");
  return kk;
}

/// [rs_i] (each ks[i] x n, on any device) = [P_i] R on the current device: R (k x n, ld k) in
/// `r`, P_i (ks[i] x k) as views into buffers appended to `keep`. Groups of `fanin` factors are
/// stacked and factored, their R factors reduced recursively, and P_i = P_group,i P'_group.
template <class T>
void reduce_r_device(handles& h, index_t n, const std::vector<device_view<T>>& rs,
                     const std::vector<index_t>& ks, index_t fanin, std::vector<device_buffer<T>>& keep,
                     device_buffer<T>& r, index_t& k, std::vector<device_view<T>>& p) {
  const index_t cnt = index_t(rs.size());
  p.assign(std::size_t(cnt), {});
  // Stacks factors [i0, i1) into one K x n matrix and factors it; returns (S = P, K, kk).
  auto stack_qr = [&](index_t i0, index_t i1, device_buffer<T>& rg, std::vector<index_t>& offs) {
    offs.assign(1, 0);
    for (index_t i = i0; i < i1; ++i) offs.push_back(offs.back() + ks[std::size_t(i)]);
    const index_t K = offs.back();
    device_buffer<T> s(K * n, h.device, h.stream);
    for (index_t i = i0; i < i1; ++i)
      copy_device_matrix(s.get() + offs[std::size_t(i - i0)], K, rs[std::size_t(i)].p,
                         rs[std::size_t(i)].ld, ks[std::size_t(i)], n, h.stream);
    const index_t kk = qr_device(h, K, n, s.get(), K, rg);
    keep.push_back(std::move(s));
    return std::pair<index_t, index_t>{K, kk};
  };
  if (cnt <= fanin) {
    std::vector<index_t> offs;
    const std::pair<index_t, index_t> kq = stack_qr(0, cnt, r, offs);
    k = kq.second;
    const T* sp = keep.back().get();
    for (index_t i = 0; i < cnt; ++i) p[std::size_t(i)] = device_view<T>{sp + offs[std::size_t(i)], kq.first};
    return;
  }
  const index_t groups = (cnt + fanin - 1) / fanin;
  const auto ng = static_cast<std::size_t>(groups);
  std::vector<device_buffer<T>> gr(ng);
  std::vector<device_view<T>> gq(ng), grv(ng);
  std::vector<std::vector<index_t>> goffs(ng);
  std::vector<index_t> gk(ng);
  for (index_t g = 0; g < groups; ++g) {
    std::vector<index_t>& offs = goffs[std::size_t(g)];
    const std::pair<index_t, index_t> kq =
        stack_qr(g * fanin, std::min(cnt, (g + 1) * fanin), gr[std::size_t(g)], offs);
    gq[std::size_t(g)] = {keep.back().get(), kq.first};
    grv[std::size_t(g)] = {gr[std::size_t(g)].get(), kq.second};
    gk[std::size_t(g)] = kq.second;
  }
  std::vector<device_view<T>> gp;
  reduce_r_device(h, n, grv, gk, fanin, keep, r, k, gp);
  for (index_t i = 0; i < cnt; ++i) {
    const index_t g = i / fanin, ki = ks[std::size_t(i)];
    device_buffer<T> pi(ki * k, h.device, h.stream);
    gemm_device(h, false, false, ki, k, gk[std::size_t(g)], T(1),
                gq[std::size_t(g)].p + goffs[std::size_t(g)][std::size_t(i - g * fanin)],
                gq[std::size_t(g)].ld, gp[std::size_t(g)].p, gp[std::size_t(g)].ld, T(0), pi.get(), ki);
    p[std::size_t(i)] = {pi.get(), ki};
    keep.push_back(std::move(pi));
  }
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(h.stream));
}

/// Row block b of a row source on the current device, row-major (rows(b) x n, leading
/// dimension n), for as long as this object lives: a pointer into the input's own chunk when
/// the lowered input binds to stored values laid out that way (a device-resident array whose
/// chunks hold whole rows: nothing is copied), otherwise the block evaluated by the device
/// chunk kernel into a buffer this object owns. Released in stream order on the stream it was
/// bound on (the user synchronizes the streams that read it first, on the block's device).
template <class T>
struct bound_row_block {
  std::unique_ptr<tessera::detail::cuda_backend::device_context> ctx;  // a gathered box p points into
  device_buffer<T> evaluated;
  const T* p = nullptr;

  bound_row_block() = default;
  bound_row_block(bound_row_block&& o) noexcept = default;
  bound_row_block& operator=(bound_row_block&& o) noexcept {
    if (this != &o) {
      release();
      ctx = std::move(o.ctx);
      evaluated = std::move(o.evaluated);
      p = std::exchange(o.p, nullptr);
    }
    return *this;
  }
  ~bound_row_block() { release(); }
  /// The context frees its gathers on its stream, with its device current.
  void release() noexcept {
    if (ctx) {
      int prev = 0;
      const bool switched = cudaGetDevice(&prev) == cudaSuccess && cudaSetDevice(ctx->device()) == cudaSuccess;
      ctx.reset();
      if (switched) (void)cudaSetDevice(prev);
    }
    evaluated.reset();
    p = nullptr;
  }
};

template <class T, class Src>
bound_row_block<T> bind_row_block(handles& h, const Src& src, index_t b) {
  bound_row_block<T> r;
  const index_t mb = src.rows(b);
  if (mb == 0) return r;
  const box bx = src.block_box(b);
  r.ctx = std::make_unique<tessera::detail::cuda_backend::device_context>(h.device, h.stream, h.arena);
  auto acc = src.low.bind(bx, *r.ctx);
  if constexpr (std::is_same_v<decltype(acc), stored_accessor<T>>) {
    if (acc.p && acc.stride[1] == 1 && acc.stride[0] == src.n) {
      r.p = acc.p + (bx.lo[0] - acc.origin[0]) * acc.stride[0] + (bx.lo[1] - acc.origin[1]);
      return r;
    }
  }
  r.evaluated = device_buffer<T>(mb * src.n, h.device, h.stream);
  tessera::detail::cuda_backend::launch_eval(acc, bx, r.evaluated.get(), tessera::row_major_strides(bx), h.stream);
  r.ctx.reset();  // its gathers back to the pool after the evaluation (stream order)
  r.p = r.evaluated.get();
  return r;
}

/// Householder TSQR: pass 1 and the reduction over a row source (make_row_source with the
/// cuda policy).
template <class T, class Src>
device_tsqr<T> device_householder_factor(const cuda& pol, const Src& src, const tsqr_options& opt) {
  device_tsqr<T> f;
  const index_t n = src.n, B = src.blocks();
  f.n = n;
  f.devices = tessera::detail::cuda_backend::policy_devices(pol);
  f.rows.resize(std::size_t(B));
  f.kb.resize(std::size_t(B));
  for (index_t b = 0; b < B; ++b) {
    f.rows[std::size_t(b)] = src.rows(b);
    f.kb[std::size_t(b)] = std::min(src.rows(b), n);
  }
  f.dev.assign(std::size_t(B), -1);
  f.q.resize(std::size_t(B));
  f.rb.resize(std::size_t(B));
  dense<cuda>::parallel(pol, B, [&](index_t b) {
    handles& h = current();
    const index_t mb = f.rows[std::size_t(b)];
    f.dev[std::size_t(b)] = h.device;
    auto& a = f.q[std::size_t(b)];
    a = device_buffer<T>(mb * n, h.device, h.stream);
    const bound_row_block<T> in = bind_row_block<T>(h, src, b);
    row_to_col_major(in.p, n, mb, n, a.get(), mb, h.stream);
    qr_device(h, mb, n, a.get(), mb, f.rb[std::size_t(b)]);  // synchronizes the stream (before `in` goes)
    h.arena.reset();
  });
  std::vector<device_view<T>> rs(static_cast<std::size_t>(B));
  for (index_t b = 0; b < B; ++b) rs[std::size_t(b)] = {f.rb[std::size_t(b)].get(), f.kb[std::size_t(b)]};
  dense<cuda>::single(pol, [&] {
    handles& h = current();
    device_buffer<T> r;
    reduce_r_device(h, n, rs, f.kb, detail::auto_fanin(n, opt.fanin), f.keep, r, f.k, f.p);
    f.r.resize(std::size_t(f.k * n));
    scratch s(h);
    s.download(f.r.data(), r.get(), f.k * n);
    s.sync();
  });
  for (auto& r : f.rb) r.reset();  // every stream that used them is synchronized
  return f;
}

// CholeskyQR2's acceptance test, shared with the host (linalg/cholesky_qr2.hpp).
using detail::cholesky_qr2_first_limit;
using detail::cholesky_qr2_second_limit;
using detail::triangular_condition_1;

/// out (len) = the sum of `count` consecutive vectors of length len in `stack`, in order (one
/// gemv with a vector of ones: deterministic for a given shape).
template <class T>
void sum_in_order_device(handles& h, scratch& s, const T* stack, index_t len, index_t count, T* out) {
  const std::vector<T> ones(static_cast<std::size_t>(count), T(1));
  gemv_device(h, len, count, T(1), stack, len, s.upload(ones.data(), count), T(0), out);
}

/// g (n x n) = at at' for the column-major n x mb at (a row-major mb x n row block): partial
/// products over segments of rows (cuBLAS strided-batched gemm, so that a tall block fills the
/// GPU) summed in segment order by one gemv. Deterministic for a given (n, mb).
template <class T>
void gram_device(handles& h, scratch& s, const T* at, index_t n, index_t mb, T* g) {
  if (n == 0) return;
  if (mb == 0) {
    TESSERA_CUDA_CHECK(cudaMemsetAsync(g, 0, std::size_t(n * n) * sizeof(T), h.stream));
    return;
  }
  // Rows per partial product: about 1024 (so that a tall block fills the GPU), a divisor of mb
  // where one lies in [1024, 2048] (a remainder costs a gemm of its own, which cuBLAS splits
  // and reduces: 8.7 of the 35 us of a 1e5 x 64 block's Gram matrix on an H200).
  index_t seg = std::max<index_t>(1024, n);
  for (index_t d = seg; d <= 2 * seg && d < mb; ++d)
    if (mb % d == 0) {
      seg = d;
      break;
    }
  const index_t full = mb / seg, rest = mb - full * seg, parts = full + (rest > 0 ? 1 : 0);
  if (parts == 1) {
    gemm_device(h, false, true, n, n, mb, T(1), at, n, at, n, T(0), g, n);
    return;
  }
  T* part = s.get<T>(n * n * parts);
  gemm_strided_batched_device(h, false, true, n, n, seg, T(1), at, n, seg * n, at, n, seg * n, T(0),
                              part, n, n * n, full);
  if (rest > 0)
    gemm_device(h, false, true, n, n, rest, T(1), at + full * seg * n, n, at + full * seg * n, n, T(0),
                part + full * n * n, n);
  sum_in_order_device(h, s, part, n * n, parts, g);
}

/// One Cholesky step on the current device: the grams (each n x n, on any device) summed in
/// order, factored R' R = G (R into `r`, zero below the diagonal) and inverted (`rinv`); R and
/// R^-1 also copied to the host (rh, rih). false when G is not positive definite or R's
/// condition number exceeds `limit`: the caller falls back to Householder TSQR.
template <class T>
bool cholesky_step_device(handles& h, index_t n, const std::vector<device_buffer<T>>& grams, double limit,
                          device_buffer<T>& r, device_buffer<T>& rinv, std::vector<T>& rh,
                          std::vector<T>& rih) {
  scratch s(h);
  const index_t nn = n * n, B = index_t(grams.size());
  r = device_buffer<T>(nn, h.device, h.stream);
  T* stack = s.get<T>(nn * B);
  for (index_t b = 0; b < B; ++b)
    copy_device_matrix(stack + b * nn, nn, grams[std::size_t(b)].get(), nn, nn, 1, h.stream);
  sum_in_order_device(h, s, stack, nn, B, r.get());
  int* info = s.get<int>(1);
  cholesky_upper_device(h, s, n, r.get(), n, info);
  int hinfo = 0;
  s.download(&hinfo, info, 1);
  s.sync();
  if (hinfo != 0) return false;  // not positive definite (rank-deficient or too ill-conditioned)
  zero_below_diagonal(r.get(), n, n, n, h.stream);
  std::vector<T> eye(static_cast<std::size_t>(nn), T(0));
  for (index_t i = 0; i < n; ++i) eye[std::size_t(i + i * n)] = T(1);
  rinv = device_buffer<T>(nn, h.device, h.stream);
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(rinv.get(), eye.data(), std::size_t(nn) * sizeof(T),
                                     cudaMemcpyHostToDevice, h.stream));
  upper_solve_device(h, n, n, r.get(), n, rinv.get(), n);
  rh.resize(std::size_t(nn));
  rih.resize(std::size_t(nn));
  s.download(rh.data(), r.get(), nn);
  s.download(rih.data(), rinv.get(), nn);
  s.sync();
  return triangular_condition_1(rh.data(), rih.data(), n) <= limit;
}

/// CholeskyQR2 over a row source (m >= n): Q = A R1^-1 R2^-1, R = R2 R1, with
///   pass 1 (per row block): the block bound row-major on the device (in place for a
///     device-resident input, else evaluated and kept), its gram A_b' A_b;
///   step 1 (first device): G = sum of the grams in block order, R1 = chol(G), R1^-1;
///   pass 2 (per row block, on its device): Q1_b = A_b R1^-1 (one gemm into a new buffer; A_b
///     released), its gram;  step 2: R2 = chol(sum), R2^-1, R = R2 R1 (downloaded);
///   device_tsqr_apply: the output chunk = Q1_b (R2^-1 X), P_b = R2^-1 for every block.
/// Every sum runs in a fixed order: results do not depend on the stream count. Returns nothing
/// (and frees what it held) when a step's test fails.
template <class T, class Src>
std::optional<device_tsqr<T>> device_cholesky_qr2_factor(const cuda& pol, const Src& src) {
  device_tsqr<T> f;
  const index_t n = src.n, B = src.blocks();
  f.n = n;
  f.k = n;
  f.q_row_major = true;
  f.devices = tessera::detail::cuda_backend::policy_devices(pol);
  f.rows.resize(std::size_t(B));
  f.kb.assign(std::size_t(B), n);
  for (index_t b = 0; b < B; ++b) f.rows[std::size_t(b)] = src.rows(b);
  f.dev.assign(std::size_t(B), -1);
  f.q.resize(std::size_t(B));
  std::vector<bound_row_block<T>> in(static_cast<std::size_t>(B));  // A_b until pass 2
  std::vector<device_buffer<T>> grams(static_cast<std::size_t>(B));
  device_buffer<T> r1, r1inv, r2, r2inv;
  // On a failure, work other tasks queued may still use these buffers: wait for it before they
  // go back to the pool (declared after them, so it runs first).
  struct sync_on_error {
    const std::vector<int>& devices;
    int pending = std::uncaught_exceptions();
    ~sync_on_error() {
      if (std::uncaught_exceptions() > pending) synchronize_devices(devices);
    }
  } guard{f.devices};
  dense<cuda>::parallel(pol, B, [&](index_t b) {
    handles& h = current();
    const index_t mb = f.rows[std::size_t(b)];
    f.dev[std::size_t(b)] = h.device;
    in[std::size_t(b)] = bind_row_block<T>(h, src, b);
    scratch s(h);
    grams[std::size_t(b)] = device_buffer<T>(n * n, h.device, h.stream);
    gram_device(h, s, in[std::size_t(b)].p, n, mb, grams[std::size_t(b)].get());
    s.sync();
    h.arena.reset();
  });
  std::vector<T> r1h, r1invh, r2h, r2invh;
  bool ok = true;
  dense<cuda>::single(pol, [&] {
    ok = cholesky_step_device(current(), n, grams, cholesky_qr2_first_limit<T>(), r1, r1inv, r1h, r1invh);
  });
  if (!ok) return std::nullopt;
  const int first = f.devices.front();
  dense<cuda>::parallel(pol, B, [&](index_t b) {
    tessera::detail::cuda_backend::device_guard g(f.dev[std::size_t(b)]);  // where A_b lives
    handles& h = current();
    scratch s(h);
    const index_t mb = f.rows[std::size_t(b)];
    const T* ri = r1inv.get();
    if (h.device != first) {
      T* local = s.get<T>(n * n);
      copy_device_matrix(local, n, ri, n, n, n, h.stream);
      ri = local;
    }
    device_buffer<T> q1(mb * n, h.device, h.stream);
    // row-major Q1_b = A_b R1^-1, i.e. column-major Q1_b' = R1^-T A_b'
    gemm_device(h, true, false, n, mb, n, T(1), ri, n, in[std::size_t(b)].p, n, T(0), q1.get(), n);
    gram_device(h, s, q1.get(), n, mb, grams[std::size_t(b)].get());
    s.sync();
    in[std::size_t(b)] = {};  // A_b released (its stream is synchronized; on its device)
    f.q[std::size_t(b)] = std::move(q1);
  });
  dense<cuda>::single(pol, [&] {
    handles& h = current();
    ok = cholesky_step_device(h, n, grams, cholesky_qr2_second_limit, r2, r2inv, r2h, r2invh);
    if (!ok) return;
    scratch s(h);
    T* r = s.get<T>(n * n);
    gemm_device(h, false, false, n, n, n, T(1), r2.get(), n, r1.get(), n, T(0), r, n);  // R = R2 R1
    zero_below_diagonal(r, n, n, n, h.stream);
    f.r.resize(std::size_t(n * n));
    s.download(f.r.data(), r, n * n);
    s.sync();
  });
  for (auto& g : grams) g.reset();  // every stream that used them is synchronized
  if (!ok) return std::nullopt;
  f.p.assign(std::size_t(B), device_view<T>{r2inv.get(), n});
  f.keep.push_back(std::move(r2inv));
  return f;
}

/// Pass 1 and the reduction: CholeskyQR2 when the method allows it and a is tall (m >= n),
/// Householder TSQR otherwise or when CholeskyQR2's tests fail (the input is evaluated again).
template <class T, class Src>
device_tsqr<T> device_tsqr_factor(const cuda& pol, const Src& src, const tsqr_options& opt) {
  if (opt.method == tsqr_method::automatic && src.n > 0 && src.off.back() >= src.n) {
    if (auto f = device_cholesky_qr2_factor<T>(pol, src)) return std::move(*f);
  }
  return device_householder_factor<T>(pol, src, opt);
}

/// Pass 2: Q X (m x kx) as a device_array with the row blocks' chunks; x is k x kx
/// column-major on the host (nullptr: the identity, kx == k). Frees the Q_b as it goes.
template <class T>
device_array<T> device_tsqr_apply(const cuda& pol, device_tsqr<T>& f, const T* x, index_t kx) {
  index_t m = 0;
  for (auto r : f.rows) m += r;
  const index_t B = index_t(f.rows.size()), k = f.k;
  device_array<T> out(chunk_grid({m, kx}, chunks_t{f.rows, {kx}}));
  try {
    dense<cuda>::parallel(pol, B, [&](index_t b) {
      tessera::detail::cuda_backend::device_guard g(f.dev[std::size_t(b)]);  // where Q_b lives
      handles& h = current();
      scratch s(h);
      const index_t mb = f.rows[std::size_t(b)], kb = f.kb[std::size_t(b)];
      device_view<T> w = f.p[std::size_t(b)];
      if (f.p[std::size_t(b)].p && f.dev[std::size_t(b)] != f.devices.front()) {  // P_b to here
        T* local = s.get<T>(kb * k);
        copy_device_matrix(local, kb, w.p, w.ld, kb, k, h.stream);
        w = {local, kb};
      }
      if (x) {
        const T* dx = s.upload(x, k * kx);
        T* wb = s.get<T>(kb * kx);
        gemm_device(h, false, false, kb, kx, k, T(1), w.p, w.ld, dx, k, T(0), wb, kb);
        w = {wb, kb};
      }
      T* d = out.allocate_block(b, h.device, h.stream);
      // row-major (Q_b W_b) == column-major W_b' Q_b' (Q_b' is the stored matrix when Q_b is
      // row-major)
      if (f.q_row_major)
        gemm_device(h, true, false, kx, mb, kb, T(1), w.p, w.ld, f.q[std::size_t(b)].get(), kb, T(0), d, kx);
      else
        gemm_device(h, true, true, kx, mb, kb, T(1), w.p, w.ld, f.q[std::size_t(b)].get(), mb, T(0), d, kx);
      s.sync();
      f.q[std::size_t(b)].reset();
    });
  } catch (...) {
    synchronize_devices(f.devices);  // before `out` returns its chunks to the pools
    throw;
  }
  return out;
}

/// SVD of a tall (m >= n) matrix expression on the devices (svd.hpp's driver with the device
/// TSQR passes); vt gets column chunks `vcols`.
template <class T, class X>
svd_result<T, device_array<T>> svd_tall_device(const X& a, const cuda& pol, const tsqr_options& opt,
                                               const std::vector<index_t>& vcols) {
  return detail::svd_tall_with<T>(
      a, pol, opt, vcols, [&](const auto& src) { return device_tsqr_factor<T>(pol, src, opt); },
      [&](auto& f, const T* x, index_t kx) { return device_tsqr_apply<T>(pol, f, x, kx); });
}

}  // namespace cuda_dense

/// QR by TSQR on the policy's devices: q (m x k) stays in device memory (a ts::device_array
/// with a's row chunks), r (k x n) is a host array. See the header comment for the passes.
template <expression_type X>
qr_result<detail::real_of<X>, device_array<detail::real_of<X>>> tsqr(const X& a, const cuda& pol,
                                                                     const tsqr_options& opt = {}) {
  using T = detail::real_of<X>;
  auto rows = detail::qr_row_blocks<T>(a, opt);  // checks a first
  const index_t n = a.shape()[1];
  auto src = detail::make_row_source(a, rows, pol);
  auto f = cuda_dense::device_tsqr_factor<T>(pol, src, opt);
  qr_result<T, device_array<T>> res;
  res.r = detail::array_from_col_major(f.r.data(), f.k, n, {f.k}, a.chunks()[1]);
  res.q = cuda_dense::device_tsqr_apply<T>(pol, f, static_cast<const T*>(nullptr), f.k);
  return res;
}

template <expression_type X>
qr_result<detail::real_of<X>, device_array<detail::real_of<X>>> qr(const X& a, const cuda& pol,
                                                                   const tsqr_options& opt = {}) {
  return tsqr(a, pol, opt);
}

/// Thin SVD on the policy's devices: u (m x k) in device memory with a's row chunks, s and vt
/// host arrays. Short-fat inputs are factored through their transpose.
template <expression_type X>
svd_result<detail::real_of<X>, device_array<detail::real_of<X>>> svd(const X& a, const cuda& pol,
                                                                     const tsqr_options& opt = {}) {
  using T = detail::real_of<X>;
  detail::check_real_type<T>();
  detail::check_matrix(a, "svd");
  const index_t m = a.shape()[0], n = a.shape()[1], k = std::min(m, n);
  detail::check_dense_fits(a, k, k, sizeof(T), opt, "the SVD");
  if (m >= n) return cuda_dense::svd_tall_device<T>(a, pol, opt, a.chunks()[1]);
  // a' = U' S V'' : u = (V')' (m x k, small), vt = U'' (k x n).
  auto t = cuda_dense::svd_tall_device<T>(transpose(a), pol, opt, a.chunks()[0]);
  svd_result<T, device_array<T>> res;
  res.u = persist(transpose(t.vt), pol);
  res.s = t.s;
  res.vt = persist(transpose(t.u), host{});
  return res;
}

}  // namespace tessera::linalg
