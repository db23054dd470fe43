// Device random numbers: the library's Philox4x32-10 equals cuRAND's device API
// (curand_init(seed, subsequence, offset) then curand()) word for word, on the device and on the
// host, and random arrays computed with ts::cuda equal the host's (uniforms and integers
// bitwise, normals within 4 ulp). Needs a usable GPU; skips otherwise.
#include "gpu_required.cuh"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include <curand_kernel.h>

#include <tessera/random/generator.hpp>

#include "support/cases.hpp"

namespace ts = tessera;
namespace pr = tessera::random::philox;

namespace {

struct triple {
  unsigned long long seed, subsequence, offset;
};

/// out[4 i + j]: the j-th curand() after curand_init(seed_i, subsequence_i, offset_i).
__global__ void curand_words(const triple* t, int n, unsigned* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandStatePhilox4_32_10_t st;
  curand_init(t[i].seed, t[i].subsequence, t[i].offset, &st);
  for (int j = 0; j < 4; ++j) out[4 * i + j] = curand(&st);
}

/// The same words from the library's Philox, evaluated on the device.
__global__ void tessera_words(const triple* t, int n, unsigned* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const auto key = pr::key::of_seed(t[i].seed);
  for (int j = 0; j < 4; ++j) {
    const unsigned long long o = t[i].offset + j;
    out[4 * i + j] = pr::at(key, t[i].subsequence, o / 4).v[o % 4];
  }
}

template <class K>
std::vector<unsigned> run(K kernel, const std::vector<triple>& t) {
  triple* dt = nullptr;
  unsigned* dout = nullptr;
  TESSERA_CUDA_CHECK(cudaMalloc(&dt, t.size() * sizeof(triple)));
  TESSERA_CUDA_CHECK(cudaMalloc(&dout, t.size() * 4 * sizeof(unsigned)));
  TESSERA_CUDA_CHECK(cudaMemcpy(dt, t.data(), t.size() * sizeof(triple), cudaMemcpyHostToDevice));
  kernel<<<int((t.size() + 127) / 128), 128>>>(dt, int(t.size()), dout);
  TESSERA_CUDA_CHECK(cudaGetLastError());
  std::vector<unsigned> out(t.size() * 4);
  TESSERA_CUDA_CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  TESSERA_CUDA_CHECK(cudaFree(dt));
  TESSERA_CUDA_CHECK(cudaFree(dout));
  return out;
}

using testing::ulp_distance;

template <class T>
bool bitwise_equal(const xt::xarray<T>& a, const xt::xarray<T>& b) {
  return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

}  // namespace

TEST_CASE("device Philox equals cuRAND Philox4_32_10 words", "[cuda][random]") {
  const auto seed = testing::test_seed(424242);
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  std::vector<triple> t = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, 3}, {0, 0, 4},
                           {0xffffffffffffffffull, 0xffffffffffffffffull, 0xfffffffffffffff0ull},
                           {12345, 1ull << 32, 1ull << 34}};
  for (int i = 0; i < 4096; ++i) t.push_back({rng(), rng() >> (rng() % 64), rng() >> (rng() % 64)});
  const auto ref = run(curand_words, t);
  const auto dev = run(tessera_words, t);
  std::vector<unsigned> host(t.size() * 4);
  for (std::size_t i = 0; i < t.size(); ++i)
    for (int j = 0; j < 4; ++j) {
      const unsigned long long o = t[i].offset + std::uint64_t(j);
      host[4 * i + std::size_t(j)] = pr::at(pr::key::of_seed(t[i].seed), t[i].subsequence, o / 4).v[o % 4];
    }
  std::size_t bad_dev = 0, bad_host = 0;
  for (std::size_t k = 0; k < ref.size(); ++k) {
    bad_dev += dev[k] != ref[k];
    bad_host += host[k] != ref[k];
  }
  CHECK(bad_dev == 0);
  CHECK(bad_host == 0);
}

TEST_CASE("random arrays on the device equal the host's", "[cuda][random]") {
  auto g = ts::random::default_rng(2026);
  const ts::shape_t shape{257, 131};
  const ts::chunks_arg chunks{100, 50};
  {
    auto u = g.random<double>(shape, chunks);
    CHECK(bitwise_equal(ts::compute(u, ts::cuda{}), ts::compute(u)));
    auto uf = g.random<float>(shape, chunks);
    CHECK(bitwise_equal(ts::compute(uf, ts::cuda{}), ts::compute(uf)));
    auto i = g.integers<std::int64_t>(-5, 1000003, shape, chunks);
    CHECK(bitwise_equal(ts::compute(i, ts::cuda{}), ts::compute(i)));
    // Strided views of a random array only generate what they select, on either side.
    auto t = ts::transpose(u);
    CHECK(bitwise_equal(ts::compute(t, ts::cuda{}), ts::compute(t)));
  }
  auto check_ulps = [](const auto& dev, const auto& host, std::int64_t max_ulps) {
    std::int64_t worst = 0;
    for (std::size_t k = 0; k < dev.size(); ++k) worst = std::max(worst, ulp_distance(dev.data()[k], host.data()[k]));
    CHECK(worst <= max_ulps);
  };
  auto n = g.standard_normal<double>(shape, chunks);
  check_ulps(ts::compute(n, ts::cuda{}), ts::compute(n), 4);
  auto nf = g.standard_normal<float>(shape, chunks);
  check_ulps(ts::compute(nf, ts::cuda{}), ts::compute(nf), 4);
}
