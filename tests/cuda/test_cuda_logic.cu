// The CUDA backend's host-side logic, run on every machine (with or without a GPU): policy
// parsing, device-list resolution, chunk-to-device assignment, memory-limit placement, the
// per-row index mapping of the evaluation kernels (the kernel body instantiated on the host),
// launch shapes, error messages, and the behaviour without a usable device (clear
// std::runtime_error for ts::cuda, host fallback with a notice for ts::auto_backend), for
// compute/persist/item and for ts::linalg.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include <tessera/cuda.hpp>
#include <tessera/linalg.hpp>
#include <xtensor/xarray.hpp>

#include "support/cases.hpp"

namespace ts = tessera;
namespace cuda_backend = tessera::detail::cuda_backend;
using namespace testing;

TEST_CASE("memory_limit accepts bytes or a fraction", "[cuda][policy]") {
  ts::cuda p{.memory_limit = 0.5};
  CHECK(p.memory_limit.is_fraction());
  CHECK(p.memory_limit.resolve(1000) == 500);
  ts::cuda q{.memory_limit = std::int64_t(1) << 30};
  CHECK_FALSE(q.memory_limit.is_fraction());
  CHECK(q.memory_limit.resolve(std::size_t(4) << 30) == std::size_t(1) << 30);
  CHECK(q.memory_limit.resolve(1000) == 1000);  // never above the device
  CHECK(ts::cuda{}.memory_limit.resolve(1000) == 900);  // default 90%
  CHECK(ts::cuda{}.streams_per_device == 2);
  CHECK(ts::cuda{}.devices.empty());
  CHECK_THROWS_AS(ts::memory_size(0), ts::invalid_argument);
  CHECK_THROWS_AS(ts::memory_size(-5), ts::invalid_argument);
  CHECK_THROWS_AS(ts::memory_size(1.5), ts::invalid_argument);
  CHECK_THROWS_AS(ts::memory_size(0.0), ts::invalid_argument);
  try {
    ts::memory_size(1.5);
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()).find("1.5") != std::string::npos);
  }
}

TEST_CASE("device lists resolve against the visible devices", "[cuda][policy]") {
  CHECK(cuda_backend::resolve_devices({}, 3) == std::vector<int>{0, 1, 2});
  CHECK(cuda_backend::resolve_devices({}, 0).empty());
  CHECK(cuda_backend::resolve_devices({0, 2}, 3) == std::vector<int>{0, 2});
  CHECK(cuda_backend::resolve_devices({2, 0}, 3) == std::vector<int>{2, 0});
  CHECK_THROWS_AS(cuda_backend::resolve_devices({3}, 3), ts::invalid_argument);
  CHECK_THROWS_AS(cuda_backend::resolve_devices({-1}, 3), ts::invalid_argument);
  CHECK_THROWS_AS(cuda_backend::resolve_devices({1, 1}, 3), ts::invalid_argument);
  try {
    cuda_backend::resolve_devices({0, 7}, 2);
    FAIL("no throw");
  } catch (const std::exception& e) {
    std::string m = e.what();
    CHECK(m.find("device 7") != std::string::npos);
    CHECK(m.find("2 device(s)") != std::string::npos);
  }
}

TEST_CASE("chunk-to-device assignment balances and follows data", "[cuda][scheduler]") {
  // No device-resident inputs: equal blocks go round-robin.
  std::vector<std::int64_t> work(8, 100);
  std::vector<std::vector<std::int64_t>> none(8);
  CHECK(cuda_backend::assign_blocks(work, none, 2) == std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1});
  CHECK(cuda_backend::assign_blocks(work, none, 3) == std::vector<int>{0, 1, 2, 0, 1, 2, 0, 1});
  CHECK(cuda_backend::assign_blocks(work, none, 1) == std::vector<int>(8, 0));
  // Uneven blocks: least-loaded first.
  CHECK(cuda_backend::assign_blocks({500, 100, 100, 100, 100, 100}, std::vector<std::vector<std::int64_t>>(6), 2) ==
        std::vector<int>{0, 1, 1, 1, 1, 1});
  // Data on device 1 for the first half, on device 0 for the second: kept where it lives.
  std::vector<std::vector<std::int64_t>> aff(8);
  for (int b = 0; b < 8; ++b) aff[std::size_t(b)] = b < 4 ? std::vector<std::int64_t>{0, 800}
                                                          : std::vector<std::int64_t>{800, 0};
  CHECK(cuda_backend::assign_blocks(work, aff, 2) == std::vector<int>{1, 1, 1, 1, 0, 0, 0, 0});
  // Everything on device 0: it takes up to 1.25x its share, the rest balance out.
  for (auto& a : aff) a = {800, 0};
  auto as = cuda_backend::assign_blocks(work, aff, 2);
  CHECK(std::count(as.begin(), as.end(), 0) == 5);
  CHECK(std::count(as.begin(), as.end(), 1) == 3);
  // Deterministic.
  CHECK(cuda_backend::assign_blocks(work, aff, 2) == as);

  // Randomized: every block is assigned, and no device exceeds max(slack * share, share + max block).
  const auto seed = test_seed(8080);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < 200; ++it) {
    INFO("seed " << seed << " iteration " << it);
    const int ndev = 1 + int(rng() % 4);
    const std::size_t n = 1 + rng() % 40;
    std::vector<std::int64_t> w(n);
    std::vector<std::vector<std::int64_t>> a(n);
    double total = 0, big = 0;
    for (std::size_t b = 0; b < n; ++b) {
      w[b] = 1 + std::int64_t(rng() % 1000);
      total += double(w[b]);
      big = std::max(big, double(w[b]));
      if (rng() % 2) {
        a[b].assign(std::size_t(ndev), 0);
        a[b][rng() % std::size_t(ndev)] = 1 + std::int64_t(rng() % 100);
      }
    }
    auto r = cuda_backend::assign_blocks(w, a, ndev);
    std::vector<double> load(std::size_t(ndev), 0);
    for (std::size_t b = 0; b < n; ++b) {
      REQUIRE(r[b] >= 0);
      REQUIRE(r[b] < ndev);
      load[std::size_t(r[b])] += double(w[b]);
    }
    for (double l : load) CHECK(l <= std::max(1.25 * total / ndev, total / ndev + big) + 1e-9);
  }
}

TEST_CASE("memory ledger keeps chunks under the limit", "[cuda][memory]") {
  cuda_backend::memory_ledger l{{0, 0}, {100, 60}};
  CHECK(l.place(0, 50) == 0);
  CHECK(l.place(0, 40) == 0);
  CHECK(l.place(0, 40) == 1);   // device 0 has 10 left: spills to 1
  CHECK(l.place(1, 30) == -1);  // 10 and 20 left: nowhere
  CHECK(l.place(1, 20) == 1);
  CHECK(l.used == std::vector<std::size_t>{90, 60});
  cuda_backend::memory_ledger m{{0, 0, 0}, {10, 50, 30}};
  CHECK(m.place(0, 20) == 1);  // most room
  CHECK(m.place(-1, 20) == 1);
  CHECK(m.place(-1, 20) == 2);
}

namespace {

/// Runs the device kernel body on the host for every row, every one of `segments` blocks per
/// row and every "thread" of a simulated block of `threads` threads (eval_rows_kernel's
/// mapping), writing into a full row-major output.
template <class E>
xt::xarray<typename E::value_type> eval_like_kernel(const E& e, int threads, int segments = 1) {
  using T = typename E::value_type;
  std::vector<std::size_t> sh(e.shape().begin(), e.shape().end());
  auto out = xt::xarray<T>::from_shape(sh);
  if (e.size() == 0) return out;
  const ts::chunk_grid& g = e.grid();
  const ts::ivec st = ts::detail::row_major_strides(g.shape());
  for (ts::index_t b = 0; b < g.block_count(); ++b) {
    ts::box bx = g.block_box(b);
    if (bx.count() == 0) continue;
    ts::host_context ctx;
    auto acc = e.bind(bx, ctx);
    ts::index_t off = 0;
    for (int d = 0; d < bx.rank(); ++d) off += bx.lo[d] * st[d];
    for (ts::index_t row = 0; row < cuda_backend::box_rows(bx); ++row)
      for (int y = 0; y < segments; ++y)
        for (int t = 0; t < threads; ++t)
          cuda_backend::eval_row(acc, bx, row, out.data() + off, st, y * threads + t, segments * threads);
  }
  return out;
}

template <class T>
bool bitwise_equal(const xt::xarray<T>& a, const xt::xarray<T>& b) {
  return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

}  // namespace

TEST_CASE("kernel row mapping equals the host chunk kernel", "[cuda][kernel]") {
  const auto seed = test_seed(31337);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < 150; ++it) {
    auto shape = random_shape(rng, 0, 4, 9);
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape));
    auto da = testing::random_data<double>(rng, shape);
    auto db = testing::random_data<float>(rng, shape);
    auto a = ts::from_xtensor(da, random_chunks(rng, shape));
    auto b = ts::from_xtensor(db, random_chunks(rng, shape));
    const int threads = 1 + int(rng() % 5), segments = 1 + int(rng() % 3);
    auto e = a * 2.0 + ts::exp(b / 8) - ts::arange<double>(0, double(shape.empty() ? 1 : shape.back()), 1.0);
    if (shape.empty()) {
      auto s = a * 2.0 + b;
      CHECK(bitwise_equal(eval_like_kernel(s, threads), ts::compute(s)));
      continue;
    }
    CHECK(bitwise_equal(eval_like_kernel(e, threads, segments), ts::compute(e)));
    std::vector<ts::index_t> axes(shape.size());
    std::iota(axes.begin(), axes.end(), 0);
    std::shuffle(axes.begin(), axes.end(), rng);
    auto t = ts::transpose(a - b, axes);
    CHECK(bitwise_equal(eval_like_kernel(t, threads, segments), ts::compute(t)));
    auto r = ts::rechunk(t, random_chunks(rng, t.shape()));
    CHECK(bitwise_equal(eval_like_kernel(r, threads), ts::compute(r)));
  }
}

TEST_CASE("launch shapes", "[cuda][kernel]") {
  auto mk = [](std::vector<ts::index_t> lo, std::vector<ts::index_t> hi) {
    ts::box b;
    b.lo.n = b.hi.n = int(lo.size());
    for (std::size_t d = 0; d < lo.size(); ++d) b.lo[int(d)] = lo[d], b.hi[int(d)] = hi[d];
    return b;
  };
  auto s = cuda_backend::plan_launch(mk({0, 0}, {1000, 4096}));
  CHECK_FALSE(s.short_rows);
  CHECK(s.blocks == 1000);
  CHECK(s.threads == 256);
  CHECK(s.segments == 2);
  s = cuda_backend::plan_launch(mk({0, 0}, {5000, 4096}));
  CHECK(s.segments == 1);  // enough rows to fill the device
  s = cuda_backend::plan_launch(mk({0}, {1000000}));  // a 1-D chunk: one row over many blocks
  CHECK(s.blocks == 1);
  CHECK(s.segments == 1024);
  s = cuda_backend::plan_launch(mk({0, 5}, {3, 45}));  // narrow rows: four to a block
  CHECK(s.threads == 64);
  CHECK(s.rows_per_block == 4);
  CHECK(s.blocks == 1);
  CHECK(s.segments == 1);
  s = cuda_backend::plan_launch(mk({0, 0}, {100000, 64}));  // a TSQR row block: grid-stride
  CHECK(s.rows_per_block == 4);
  CHECK(s.blocks == 4096);
  s = cuda_backend::plan_launch(mk({0, 0}, {3, 300}));
  CHECK(s.threads == 256);
  CHECK(s.rows_per_block == 1);
  CHECK(s.blocks == 3);
  CHECK(s.segments == 2);  // each thread keeps at least one element
  s = cuda_backend::plan_launch(mk({0, 0}, {1000, 3}));
  CHECK(s.short_rows);
  CHECK(s.blocks == 8);
  s = cuda_backend::plan_launch(mk({}, {}));
  CHECK(s.short_rows);
  CHECK(s.blocks == 1);
  s = cuda_backend::plan_launch(mk({0, 0}, {ts::index_t(1) << 30, 256}));
  CHECK(s.blocks == 1u << 20);  // grid-stride beyond
  CHECK(cuda_backend::box_rows(mk({2, 3, 4}, {5, 7, 9})) == 12);
  CHECK(cuda_backend::box_row_length(mk({2, 3, 4}, {5, 7, 9})) == 5);
}

namespace fake {
/// A stand-in for a device-resident array whose chunks are "on" given devices (no memory): a
/// chunk store whose blocks report device memory spaces; exercises the shared placement probe
/// and the CUDA planning without a GPU.
struct fake_device_store {
  using value_type = double;
  ts::chunk_grid g;
  std::vector<int> dev;
  const ts::chunk_grid& grid() const { return g; }
  ts::memory_space block_space(ts::index_t b) const { return ts::memory_space::on_device(dev[std::size_t(b)]); }
  const double* block_pointer(ts::index_t) const { return nullptr; }
  void read_block(ts::index_t, double*) const { FAIL("planning must not read chunks"); }
};
}  // namespace fake

TEST_CASE("a stage result stays on the device", "[cuda][staging]") {
  // Checked at compile time, so it holds without a GPU: on ts::cuda a reduction lowers to
  // device-resident chunks (the next stage binds their device pointers), and persist keeps
  // chunks on the devices; on the host both are host arrays.
  auto x = ts::ones<double>({8, 6}, {2, 3});
  STATIC_REQUIRE(std::is_same_v<decltype(ts::sum(x, {1}).lower(ts::cuda{})), ts::device_array<double>>);
  STATIC_REQUIRE(std::is_same_v<decltype(ts::persist(x, ts::cuda{})), ts::device_array<double>>);
  STATIC_REQUIRE(std::is_same_v<decltype(ts::mean(x).lower(ts::host{})), ts::array<double>>);
  STATIC_REQUIRE(ts::chunk_store<ts::detail::cuda_backend::device_store<double>>);
}

TEST_CASE("affinity probe keeps chunks where their inputs live", "[cuda][scheduler]") {
  auto store = std::make_shared<fake::fake_device_store>();
  store->g = ts::chunk_grid::make({8, 6}, {2, 6}, 8);  // 4 blocks of 12 elements
  store->dev = {3, 3, 1, 1};
  auto f = ts::from_store(store);
  ts::detail::placement_probe p;
  (void)f.bind(store->g.block_box(0), p);
  REQUIRE(p.bytes().size() == 1);
  CHECK(p.bytes_in(ts::memory_space::on_device(3)) == 12 * 8);
  CHECK(p.bytes_in(ts::memory_space::on_device(1)) == 0);
  // Output chunks of an expression on a different chunking: bytes per overlapping chunk.
  ts::detail::placement_probe q;
  auto e = ts::rechunk(f + 1.0, {3, 3});
  ts::box bx = e.grid().block_box(2);  // rows 3..6, cols 0..3
  (void)e.bind(bx, q);
  CHECK(q.bytes_in(ts::memory_space::on_device(3)) == 1 * 3 * 8);
  CHECK(q.bytes_in(ts::memory_space::on_device(1)) == 2 * 3 * 8);
  // Planning over policy devices {1, 3}: blocks 0,1 -> device 3 (index 1), 2,3 -> device 1.
  auto as = cuda_backend::plan_assignment(f * 2.0, {1, 3});
  CHECK(as == std::vector<int>{1, 1, 0, 0});
  // Host arrays have no affinity: round-robin.
  auto h = ts::from_xtensor(xt::xarray<double>::from_shape({8, 6}), {2, 6});
  CHECK(cuda_backend::plan_assignment(h + 1.0, {0, 1}) == std::vector<int>{0, 1, 0, 1});
}

TEST_CASE("CUDA errors name the call, the device and the message", "[cuda][errors]") {
  try {
    TESSERA_CUDA_CHECK(cudaErrorInvalidValue);
    FAIL("no throw");
  } catch (const ts::cuda_error& e) {
    std::string m = e.what();
    CHECK(m.find("cudaErrorInvalidValue") != std::string::npos);
    CHECK(m.find("`cudaErrorInvalidValue`") != std::string::npos);  // the call text
    CHECK(m.find(cudaGetErrorString(cudaErrorInvalidValue)) != std::string::npos);
    CHECK(m.find("device") != std::string::npos);
    CHECK(m.find("test_cuda_logic.cu") != std::string::npos);
  }
  CHECK_THROWS_AS(TESSERA_CUDA_LIB_CHECK("cuBLAS", 7), std::runtime_error);
  CHECK_NOTHROW(TESSERA_CUDA_CHECK(cudaSuccess));
}

TEST_CASE("without a usable device: ts::cuda throws, auto_backend falls back", "[cuda][fallback]") {
  auto x = ts::arange<double>(0, 10, 1, {3}) * 2.0;
  auto ref = ts::compute(x);
  // auto_backend gives the same values either way.
  CHECK(bitwise_equal(ts::compute(x, ts::auto_backend{}), ref));
  CHECK(ts::item(ts::full<double>({1}, 2.5), ts::best{}) == 2.5);
  auto p = ts::persist(x, ts::auto_backend{});
  CHECK(bitwise_equal(ts::compute(p), ref));
  CHECK(bitwise_equal(ts::compute(p + 0.0, ts::auto_backend{}), ref));
  if (ts::cuda::available()) {
    WARN("a CUDA device is usable here: the no-device checks were not run");
    CHECK(ts::cuda::unavailable_reason().empty());
    return;
  }
  WARN("no usable CUDA device: " << ts::cuda::unavailable_reason());
  CHECK_FALSE(p.on_device());
  CHECK_FALSE(ts::cuda::unavailable_reason().empty());
  CHECK(cuda_backend::fallback_notice().find("runs on the host") != std::string::npos);
  CHECK_THROWS_AS(ts::compute(x, ts::cuda{}), std::runtime_error);
  CHECK_THROWS_AS(ts::persist(x, ts::cuda{}), std::runtime_error);
  CHECK_THROWS_AS(ts::item(ts::ones<double>({1}), ts::cuda{}), std::runtime_error);
  CHECK_THROWS_AS(x.compute(ts::cuda{.devices = {0}}), std::runtime_error);
  try {
    ts::compute(x, ts::cuda{});
  } catch (const std::runtime_error& e) {
    std::string m = e.what();
    CHECK(m.find("no usable CUDA device") != std::string::npos);
    CHECK(m.find("CUDA_VISIBLE_DEVICES") != std::string::npos);
  }
  CHECK(ts::cuda::memory_in_use().empty());
  CHECK(ts::cuda::memory_reserved().empty());
  CHECK_NOTHROW(ts::cuda::release_memory());
}

TEST_CASE("CholeskyQR2's acceptance test: the 1-norm condition number of a triangular factor",
          "[cuda][linalg][tsqr]") {
  using ts::linalg::cuda_dense::triangular_condition_1;
  // R = [2 1; 0 4] (column-major), R^-1 = [0.5 -0.125; 0 0.25]: ||R||_1 = 5, ||R^-1||_1 = 0.5
  const double r[4] = {2, 0, 1, 4}, rinv[4] = {0.5, 0, -0.125, 0.25};
  CHECK(triangular_condition_1(r, rinv, 2) == 2.5);
  // only the upper triangle counts (the strict lower part is not R's)
  const double r_junk[4] = {2, 99, 1, 4};
  CHECK(triangular_condition_1(r_junk, rinv, 2) == 2.5);
  const double nan_inv[4] = {0.5, 0, std::nan(""), 0.25};
  CHECK(triangular_condition_1(r, nan_inv, 2) == std::numeric_limits<double>::infinity());
  CHECK_FALSE(triangular_condition_1(r, nan_inv, 2) <= ts::linalg::cuda_dense::cholesky_qr2_first_limit<double>());
  // the first step's limit: 0.1 / sqrt(eps)
  CHECK(ts::linalg::cuda_dense::cholesky_qr2_first_limit<double>() == Approx(6.71e6).epsilon(1e-3));
  CHECK(ts::linalg::cuda_dense::cholesky_qr2_first_limit<float>() == Approx(289.6).epsilon(1e-3));
}

TEST_CASE("linalg without a usable device: ts::cuda throws, auto_backend falls back",
          "[cuda][fallback][linalg]") {
  const auto seed = testing::test_seed(8081);
  INFO("seed " << seed);
  auto x = ts::random::default_rng(seed).standard_normal<double>({90, 7}, ts::chunks_t{{30, 25, 35}, {4, 3}});
  auto y = ts::random::default_rng(seed + 1).standard_normal<double>({7, 5}, ts::chunks_t{{7}, {5}});
  const ts::auto_backend best{};
  auto close = [](const auto& a, const auto& b, double tol) {
    auto ca = ts::compute(a), cb = ts::compute(b);
    REQUIRE(ca.shape() == cb.shape());
    double e = 0;
    for (std::size_t i = 0; i < ca.size(); ++i) e = std::max(e, std::abs(ca.data()[i] - cb.data()[i]));
    return e <= tol;
  };
  // The same factors (up to rounding) whichever backend auto_backend picks.
  auto [u0, s0, vt0] = ts::linalg::svd(x);
  auto [u1, s1, vt1] = ts::linalg::svd(x, best);
  CHECK(close(s0, s1, 1e-12));
  CHECK(close(u0, u1, 1e-10));
  CHECK(close(vt0, vt1, 1e-10));
  auto [q0, r0] = ts::linalg::qr(x);
  auto [q1, r1] = ts::linalg::qr(x, best);
  CHECK(close(ts::abs(r0), ts::abs(r1), 1e-12));  // rows of R agree up to sign
  CHECK(close(ts::linalg::matmul(x, y), ts::linalg::matmul(x, y, best), 1e-12));
  auto c0 = ts::linalg::svd_compressed(x, 3, {.n_power_iter = 1, .seed = 5});
  auto c1 = ts::linalg::svd_compressed(x, 3, best, {.n_power_iter = 1, .seed = 5});
  CHECK(close(c0.s, c1.s, 1e-10));
  if (ts::cuda::available()) {
    WARN("a CUDA device is usable here: the no-device linalg checks were not run");
    return;
  }
  CHECK(close(u0, u1, 0));  // the fallback is the host code itself
  CHECK_THROWS_AS(ts::linalg::svd(x, ts::cuda{}), std::runtime_error);
  CHECK_THROWS_AS(ts::linalg::tsqr(x, ts::cuda{}), std::runtime_error);
  CHECK_THROWS_AS(ts::linalg::matmul(x, y, ts::cuda{}), std::runtime_error);
  CHECK_THROWS_AS(ts::linalg::svd_compressed(x, 3, ts::cuda{}), std::runtime_error);
  try {
    ts::linalg::svd(x, ts::cuda{});
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("no usable CUDA device") != std::string::npos);
  }
}
