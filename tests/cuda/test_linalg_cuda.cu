// dense<cuda> (cuSOLVER + cuBLAS) against dense<host> (LAPACK + OpenBLAS) on random matrices.
// Needs a usable GPU; skips otherwise.
#include "gpu_required.cuh"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <tessera/linalg/dense_cuda.cuh>

#include "support/cases.hpp"

namespace ts = tessera;
using dh = ts::linalg::dense<ts::host>;
using dc = ts::linalg::dense<ts::cuda>;
using testing::test_seed;

namespace {

template <class T>
std::vector<T> random_matrix(std::mt19937_64& rng, ts::index_t rows, ts::index_t cols) {
  std::normal_distribution<double> nd;
  std::vector<T> a(std::size_t(rows * cols));
  for (auto& x : a) x = T(nd(rng));
  return a;
}

template <class T>
double max_abs_diff(const std::vector<T>& a, const std::vector<T>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(double(a[i]) - double(b[i])));
  return m;
}

template <class T>
constexpr double tol() {
  return std::is_same_v<T, double> ? 1e-10 : 2e-3;
}

}  // namespace

TEMPLATE_TEST_CASE("cuBLAS gemm equals OpenBLAS gemm", "[cuda][linalg]", float, double) {
  using T = TestType;
  const auto seed = test_seed(515);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < 40; ++it) {
    const ts::index_t m = 1 + rng() % 40, n = 1 + rng() % 40, k = 1 + rng() % 40;
    const bool ta = rng() & 1, tb = rng() & 1;
    const ts::index_t lda = (ta ? k : m) + rng() % 3, ldb = (tb ? n : k) + rng() % 3, ldc = m + rng() % 3;
    INFO("seed " << seed << " it " << it << " m " << m << " n " << n << " k " << k << " ta " << ta << " tb " << tb);
    auto a = random_matrix<T>(rng, lda, ta ? m : k);
    auto b = random_matrix<T>(rng, ldb, tb ? k : n);
    auto c0 = random_matrix<T>(rng, ldc, n);
    auto c1 = c0;
    const T alpha = T(1.5), beta = it % 2 ? T(0) : T(-0.5);
    dh::gemm(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, c0.data(), ldc);
    dc::gemm(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, c1.data(), ldc);
    CHECK(max_abs_diff(c0, c1) <= tol<T>() * double(k + 1));
  }
}

TEMPLATE_TEST_CASE("cuSOLVER QR reconstructs and matches LAPACK up to signs", "[cuda][linalg]", float, double) {
  using T = TestType;
  const auto seed = test_seed(616);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < 20; ++it) {
    const ts::index_t n = 1 + rng() % 20, m = n + rng() % 40;
    INFO("seed " << seed << " it " << it << " m " << m << " n " << n);
    auto a = random_matrix<T>(rng, m, n);
    auto qh = a, qc = a;
    std::vector<T> th(static_cast<std::size_t>(n)), tc(static_cast<std::size_t>(n));
    dh::geqrf(m, n, qh.data(), m, th.data());
    dc::geqrf(m, n, qc.data(), m, tc.data());
    // R (upper triangle) equal up to the sign of each row.
    for (ts::index_t i = 0; i < n; ++i)
      for (ts::index_t j = i; j < n; ++j)
        CHECK(std::abs(std::abs(double(qh[std::size_t(i + j * m)])) - std::abs(double(qc[std::size_t(i + j * m)]))) <=
              tol<T>() * 10);
    std::vector<T> r(std::size_t(n * n), T(0));
    for (ts::index_t j = 0; j < n; ++j)
      for (ts::index_t i = 0; i <= j; ++i) r[std::size_t(i + j * n)] = qc[std::size_t(i + j * m)];
    dc::orgqr(m, n, n, qc.data(), m, tc.data());
    std::vector<T> qr(std::size_t(m * n), T(0));
    dh::gemm(false, false, m, n, n, T(1), qc.data(), m, r.data(), n, T(0), qr.data(), m);
    CHECK(max_abs_diff(qr, a) <= tol<T>() * 10 * double(n));
    std::vector<T> qtq(std::size_t(n * n), T(0)), eye(std::size_t(n * n), T(0));
    for (ts::index_t i = 0; i < n; ++i) eye[std::size_t(i + i * n)] = T(1);
    dh::gemm(true, false, n, n, m, T(1), qc.data(), m, qc.data(), m, T(0), qtq.data(), n);
    CHECK(max_abs_diff(qtq, eye) <= tol<T>() * 10 * double(m));
  }
}

TEMPLATE_TEST_CASE("cuSOLVER SVD (gesvdj and gesvd) matches LAPACK", "[cuda][linalg]", float, double) {
  using T = TestType;
  const auto seed = test_seed(717);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < 20; ++it) {
    const ts::index_t m = 1 + rng() % 30, n = 1 + rng() % 30, k = std::min(m, n);
    INFO("seed " << seed << " it " << it << " m " << m << " n " << n);
    auto a = random_matrix<T>(rng, m, n);
    for (int method = 0; method < 2; ++method) {
      auto ah = a, ac = a;
      std::vector<T> sh(static_cast<std::size_t>(k)), sc(static_cast<std::size_t>(k)), uh(std::size_t(m * k)), uc(std::size_t(m * k)),
          vh(std::size_t(k * n)), vc(std::size_t(k * n));
      dh::thin_svd(m, n, ah.data(), m, sh.data(), uh.data(), m, vh.data(), k);
      if (method == 0) dc::thin_svd(m, n, ac.data(), m, sc.data(), uc.data(), m, vc.data(), k);
      else dc::gesvd(m, n, ac.data(), m, sc.data(), uc.data(), m, vc.data(), k);
      CHECK(max_abs_diff(sh, sc) <= tol<T>() * 10 * double(m + n));
      // U S Vt reconstructs A.
      std::vector<T> us = uc, rec(std::size_t(m * n), T(0));
      for (ts::index_t j = 0; j < k; ++j)
        for (ts::index_t i = 0; i < m; ++i) us[std::size_t(i + j * m)] *= sc[std::size_t(j)];
      dh::gemm(false, false, m, n, k, T(1), us.data(), m, vc.data(), k, T(0), rec.data(), m);
      CHECK(max_abs_diff(rec, a) <= tol<T>() * 10 * double(m + n));
    }
  }
}

TEMPLATE_TEST_CASE("dense<cuda> reads and writes only the matrix it is given", "[cuda][linalg]", float,
                   double) {
  // Interior pointers into larger buffers (as TSQR's stacked factors pass them): the rows
  // between m and the leading dimension, and everything past the last column, keep their
  // sentinel values; beta == 0 ignores what c holds.
  using T = TestType;
  const auto seed = test_seed(818);
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  const T sentinel = T(-12345.5);
  const ts::index_t m = 37, n = 9, ld = m + 5, off = 3;
  auto fresh = [&] {
    std::vector<T> buf(std::size_t(off + ld * n + 7), sentinel);
    std::normal_distribution<double> nd;
    for (ts::index_t j = 0; j < n; ++j)
      for (ts::index_t i = 0; i < m; ++i) buf[std::size_t(off + i + j * ld)] = T(nd(rng));
    return buf;
  };
  auto untouched = [&](const std::vector<T>& buf) {
    for (ts::index_t p = 0; p < ts::index_t(buf.size()); ++p) {
      const ts::index_t q = p - off;
      const bool inside = q >= 0 && q < ld * n && q % ld < m;
      if (!inside && buf[std::size_t(p)] != sentinel) return false;
    }
    return true;
  };
  auto a = fresh();
  auto ref = a;
  std::vector<T> tc(static_cast<std::size_t>(n)), th(static_cast<std::size_t>(n));
  dc::geqrf(m, n, a.data() + off, ld, tc.data());
  dh::geqrf(m, n, ref.data() + off, ld, th.data());
  CHECK(untouched(a));
  dc::orgqr(m, n, n, a.data() + off, ld, tc.data());
  CHECK(untouched(a));
  auto c = fresh();
  auto qa = fresh();
  dh::geqrf(m, n, qa.data() + off, ld, th.data());
  dc::ormqr(m, n, n, qa.data() + off, ld, th.data(), c.data() + off, ld);
  CHECK(untouched(c));
  CHECK(untouched(qa));
  auto x = fresh(), y = fresh();
  std::vector<T> out(std::size_t(off + ld * n + 7), sentinel);
  for (ts::index_t j = 0; j < n; ++j)
    for (ts::index_t i = 0; i < m; ++i) out[std::size_t(off + i + j * ld)] = std::numeric_limits<T>::quiet_NaN();
  // out (m x n) = x (m x n) * y(0:n, 0:n)
  dc::gemm(false, false, m, n, n, T(1), x.data() + off, ld, y.data() + off, ld, T(0), out.data() + off, ld);
  CHECK(untouched(out));
  std::vector<T> expect(std::size_t(m * n));
  dh::gemm(false, false, m, n, n, T(1), x.data() + off, ld, y.data() + off, ld, T(0), expect.data(), m);
  double e = 0;
  for (ts::index_t j = 0; j < n; ++j)
    for (ts::index_t i = 0; i < m; ++i)
      e = std::max(e, std::abs(double(out[std::size_t(off + i + j * ld)]) - double(expect[std::size_t(i + j * m)])));
  CHECK(e <= tol<T>() * 10 * double(n));  // NaNs in c were ignored (beta == 0)
}

// ---------------------------------------------------------------------------------------------
// The device-resident TSQR (linalg/tsqr_cuda.cuh) and its kernels.

#include <tessera/linalg.hpp>
#include <tessera/tessera.hpp>

TEMPLATE_TEST_CASE("device transpose and below-diagonal zeroing match the host", "[cuda][linalg]",
                   float, double) {
  using T = TestType;
  const auto seed = test_seed(733);
  std::mt19937_64 rng(seed);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  for (int it = 0; it < 20; ++it) {
    const ts::index_t rows = 1 + rng() % 150, cols = 1 + rng() % 90;
    const ts::index_t lds = cols + rng() % 4, ldd = rows + rng() % 4;
    INFO("seed " << seed << " it " << it << " rows " << rows << " cols " << cols);
    auto src = random_matrix<T>(rng, rows, lds);
    std::vector<T> dst(std::size_t(ldd * cols), T(-7)), ref = dst;
    for (ts::index_t i = 0; i < rows; ++i)
      for (ts::index_t j = 0; j < cols; ++j) ref[std::size_t(j * ldd + i)] = src[std::size_t(i * lds + j)];
    T *ds = nullptr, *dd = nullptr;
    REQUIRE(cudaMalloc(&ds, src.size() * sizeof(T)) == cudaSuccess);
    REQUIRE(cudaMalloc(&dd, dst.size() * sizeof(T)) == cudaSuccess);
    // On s itself: a legacy-stream cudaMemcpy from pageable memory may still be in flight when
    // it returns, and a non-blocking stream does not wait for it (this raced on an H100).
    REQUIRE(cudaMemcpyAsync(ds, src.data(), src.size() * sizeof(T), cudaMemcpyHostToDevice, s) == cudaSuccess);
    REQUIRE(cudaMemcpyAsync(dd, dst.data(), dst.size() * sizeof(T), cudaMemcpyHostToDevice, s) == cudaSuccess);
    ts::linalg::cuda_dense::row_to_col_major(ds, lds, rows, cols, dd, ldd, s);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    REQUIRE(cudaMemcpy(dst.data(), dd, dst.size() * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(dst == ref);  // padding rows ldd > rows keep their poison
    ts::linalg::cuda_dense::zero_below_diagonal(dd, ldd, rows, cols, s);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    REQUIRE(cudaMemcpy(dst.data(), dd, dst.size() * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
    for (ts::index_t i = 0; i < rows; ++i)
      for (ts::index_t j = 0; j < std::min(i, cols); ++j) ref[std::size_t(j * ldd + i)] = T(0);
    CHECK(dst == ref);
    cudaFree(ds);
    cudaFree(dd);
  }
  cudaStreamDestroy(s);
}

TEST_CASE("device TSQR: Q on the device, R as the host TSQR's up to signs, any streams",
          "[cuda][linalg][tsqr]") {
  const auto seed = test_seed(9091);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < 6; ++it) {
    const ts::index_t n = 1 + ts::index_t(rng() % 70), rows = 1 + ts::index_t(rng() % 300);
    const ts::index_t m = n + ts::index_t(rng() % 900);
    const ts::index_t c = std::max<ts::index_t>(1, rows);
    INFO("seed " << seed << " it " << it << " m " << m << " n " << n << " row chunk " << c);
    auto x = ts::random::default_rng(seed + std::uint64_t(it)).standard_normal<double>({m, n}, {c, n});
    auto dev = ts::persist(x, ts::cuda{});  // a device_array input is read in place
    auto host = ts::linalg::tsqr(x, ts::host{});
    auto r_host = ts::compute(host.r);
    xt::xarray<double> q_first;
    for (int streams : {1, 3}) {
      auto [q, r] = ts::linalg::tsqr(dev, ts::cuda{.streams_per_device = streams});
      CHECK(q.on_device());
      REQUIRE(q.shape() == ts::shape_t{m, std::min(m, n)});
      CHECK(q.chunks()[0] == dev.chunks()[0]);
      auto rr = ts::compute(r);
      REQUIRE(rr.size() == r_host.size());
      double e = 0, big = 1;
      for (std::size_t i = 0; i < rr.size(); ++i) {
        e = std::max(e, std::abs(std::abs(rr.data()[i]) - std::abs(r_host.data()[i])));
        big = std::max(big, std::abs(r_host.data()[i]));
      }
      CHECK(e <= 1e-9 * big);
      auto qc = ts::compute(q);
      if (streams == 1) q_first = qc;
      else CHECK(std::equal(qc.begin(), qc.end(), q_first.begin(), q_first.end()));  // bitwise
      // Q R = A, evaluated on the device from the device-resident Q.
      auto resid = ts::item(ts::amax(ts::abs(ts::linalg::matmul(q, r, ts::cuda{}) - x)), ts::cuda{});
      CHECK(resid <= 1e-10 * double(std::max<ts::index_t>(n, 8)));
    }
  }
}
