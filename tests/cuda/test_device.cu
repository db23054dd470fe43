// Device-only behaviour of the CUDA backend: device-resident persist, multi-GPU spreading and
// gathering, streams, memory limits, pool release, errors. Needs a usable GPU; skips otherwise.
#include "gpu_required.cuh"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include <xtensor/xarray.hpp>
#include <xtensor/xmath.hpp>

#include "support/cases.hpp"

namespace ts = tessera;
using namespace testing;

namespace {
template <class T>
bool bitwise_equal(const xt::xarray<T>& a, const xt::xarray<T>& b) {
  return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}
template <class A, class B>
bool close(const A& a, const B& b, double rtol = 1e-12) {
  if (a.shape() != b.shape()) return false;
  auto ib = b.begin();
  for (auto ia = a.begin(); ia != a.end(); ++ia, ++ib) {
    double x = double(*ia), y = double(*ib);
    if (!(x == y || std::abs(x - y) <= rtol * std::max(std::abs(x), std::abs(y)))) return false;
  }
  return true;
}
int visible() { return int(ts::cuda::memory_in_use().size()); }
}  // namespace

TEST_CASE("persist keeps chunks on the devices and later expressions use them", "[cuda][persist]") {
  const auto seed = test_seed(9001);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < 40; ++it) {
    auto shape = random_shape(rng, 0, 4, 12);
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape));
    auto da = testing::random_data<double>(rng, shape);
    auto a = ts::from_xtensor(da, random_chunks(rng, shape));
    auto p = ts::persist(a * 3.0 + 1.0, ts::cuda{});
    CHECK(p.on_device());
    CHECK(p.chunks() == a.chunks());
    std::size_t bytes = 0;
    for (auto b : p.bytes_per_device()) bytes += b;
    CHECK(bytes == std::size_t(a.size()) * sizeof(double));
    xt::xarray<double> expect = da * 3.0 + 1.0;
    CHECK(close(ts::compute(p, ts::cuda{}), expect));
    CHECK(close(ts::compute(p), expect));  // host policy: device chunks copied per box
    // Mixed leaves: device-resident, host-resident, generated; other chunkings (gathers).
    auto b = ts::from_xtensor(da, random_chunks(rng, shape));
    auto e = ts::rechunk(p - b * 2.0, random_chunks(rng, shape)) + ts::full<double>(shape, 0.5);
    CHECK(close(ts::compute(e, ts::cuda{}), xt::xarray<double>(expect - da * 2.0 + 0.5)));
    CHECK(close(ts::compute(e, ts::host{}), xt::xarray<double>(expect - da * 2.0 + 0.5)));
    auto q = ts::persist(ts::rechunk(p, random_chunks(rng, shape)), ts::cuda{});  // device gather
    CHECK(bitwise_equal(ts::compute(q, ts::cuda{}), ts::compute(p, ts::cuda{})));
    if (!shape.empty()) {
      std::vector<ts::index_t> axes(shape.size());
      std::iota(axes.rbegin(), axes.rend(), 0);
      CHECK(close(ts::compute(ts::transpose(p, axes), ts::cuda{}), xt::xarray<double>(xt::transpose(expect))));
    }
  }
}

TEST_CASE("every stream count and device subset gives the same bits", "[cuda][scheduler]") {
  auto x = ts::arange<double>(0, 300000, 1, {7001});
  auto m = ts::full<double>({5, 1}, 0.25, {2, 1});
  auto e = ts::sin(x * 1e-3) * m + ts::exp(-x / 1e5);
  auto one = ts::compute(e, ts::cuda{.devices = {0}, .streams_per_device = 1});
  for (int s : {2, 3, 8}) CHECK(bitwise_equal(ts::compute(e, ts::cuda{.streams_per_device = s}), one));
  // Device sin/exp (<= 2 ulp) need not round like glibc's: relative 1e-14 with an absolute
  // floor for the values near the zero crossings of e.
  auto host = ts::compute(e);
  double worst = 0;
  for (std::size_t i = 0; i < host.size(); ++i) {
    const double a = one.data()[i], b = host.data()[i];
    worst = std::max(worst, std::abs(a - b) - 1e-14 * std::max(std::abs(a), std::abs(b)));
  }
  CHECK(worst <= 1e-15);
  CHECK_THROWS_AS(ts::compute(e, ts::cuda{.streams_per_device = 0}), std::invalid_argument);
  CHECK_THROWS_AS(ts::compute(e, ts::cuda{.devices = {visible()}}), std::invalid_argument);
  CHECK(ts::item(ts::ones<double>({1, 1}) * 4, ts::cuda{}) == 4.0);
  CHECK((x * 2).compute(ts::cuda{})(3) == 6.0);
}

TEST_CASE("multi-GPU: chunks spread over the devices, computed where they live", "[cuda][multigpu]") {
  if (visible() < 2) {
    WARN("one visible device: multi-GPU spreading not exercised");
    return;
  }
  auto a = ts::from_xtensor(xt::xarray<double>(xt::arange<double>(0, 4000).reshape({40, 100})), {5, 100});
  auto p = ts::persist(a, ts::cuda{});
  auto per = p.bytes_per_device();
  int used = 0;
  for (auto b : per) used += b > 0;
  CHECK(used >= 2);
  // Blocks assigned by affinity: an elementwise op over p keeps each chunk on its device.
  auto plan = ts::detail::cuda_backend::plan_assignment(p + 1.0, ts::detail::cuda_backend::resolve_devices({}, visible()));
  for (ts::index_t b = 0; b < p.grid().block_count(); ++b) CHECK(plan[std::size_t(b)] == p.block_device(b));
  // Cross-device gathers (peer copies): rechunk into one chunk.
  auto whole = ts::compute(ts::rechunk(p, {40, 100}), ts::cuda{.devices = {1}});
  CHECK(bitwise_equal(whole, ts::compute(a)));
}

TEST_CASE("memory_limit places and refuses persisted chunks", "[cuda][memory]") {
  auto x = ts::ones<double>({1000, 1000}, {250, 1000});  // 4 chunks of 2 MB
  CHECK_THROWS_AS(ts::persist(x, ts::cuda{.memory_limit = 1 << 20}), std::runtime_error);
  try {
    ts::persist(x, ts::cuda{.memory_limit = 1 << 20});
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("memory_limit") != std::string::npos);
  }
  auto p = ts::persist(x, ts::cuda{.devices = {0}, .memory_limit = std::int64_t(9) << 20});
  CHECK(p.bytes_per_device()[0] == std::size_t(8000000));
}

TEST_CASE("pool accounting and release_memory", "[cuda][memory]") {
  ts::cuda::release_memory();
  const auto before = ts::cuda::memory_in_use();
  {
    auto p = ts::persist(ts::ones<float>({2048, 2048}, {1024, 1024}), ts::cuda{.devices = {0}});
    const auto during = ts::cuda::memory_in_use();
    CHECK(during[0] >= before[0] + std::size_t(2048) * 2048 * sizeof(float));
  }
  ts::cuda::release_memory();
  const auto after = ts::cuda::memory_in_use();
  CHECK(after[0] <= before[0]);
  CHECK(ts::cuda::memory_reserved()[0] <= before[0] + (std::size_t(64) << 20));
}

TEST_CASE("auto_backend runs on the GPU when one is usable", "[cuda][fallback]") {
  auto p = ts::persist(ts::arange<int>(0, 100, 1, {7}), ts::auto_backend{});
  CHECK(p.on_device());
  CHECK(ts::compute(p * 2, ts::best{})(99) == 198);
}

TEST_CASE("failing CUDA calls throw with call, device and message", "[cuda][errors]") {
  void* p = nullptr;
  try {
    TESSERA_CUDA_CHECK(cudaMemcpy(p, &p, std::size_t(1) << 40, cudaMemcpyDeviceToHost));
    FAIL("no throw");
  } catch (const ts::cuda_error& e) {
    std::string m = e.what();
    CHECK(m.find("cudaMemcpy(p, &p") != std::string::npos);
    CHECK(m.find("on device ") != std::string::npos);
    CHECK(m.find("cudaError") != std::string::npos);
  }
  // The runtime is still usable afterwards.
  CHECK(ts::item(ts::full<double>({}, 2.0), ts::cuda{}) == 2.0);
}

namespace {
/// A leaf whose device bind starts another evaluation on the GPU from inside the chunk task
/// (not supported: it must throw, not wait forever for the device).
class nesting : public ts::expression<nesting> {
 public:
  using value_type = double;
  explicit nesting(ts::array<double> a) : a_(std::move(a)) {}
  const ts::chunk_grid& grid() const { return a_.grid(); }
  template <class Ctx>
  auto bind(const ts::box& b, Ctx& ctx) const {
    if constexpr (std::is_same_v<Ctx, ts::detail::cuda_backend::device_context>) (void)ts::compute(a_ * 2.0, ts::cuda{});
    return a_.bind(b, ctx);
  }

 private:
  ts::array<double> a_;
};
}  // namespace

TEST_CASE("an evaluation started inside a chunk task throws instead of deadlocking", "[cuda][scheduler]") {
  nesting n(ts::from_xtensor(xt::xarray<double>{1.0, 2.0, 3.0}));
  CHECK_THROWS_AS(ts::compute(n, ts::cuda{}), std::logic_error);
  CHECK(ts::compute(n + 0.0, ts::host{})(1) == 2.0);  // the host path is unaffected
}
