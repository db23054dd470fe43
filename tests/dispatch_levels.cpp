// Runtime CPU dispatch (core/host_isa.hpp): every instruction-set level this CPU runs gives
// bitwise the same results. This executable is compiled WITHOUT -march (tests/CMakeLists.txt),
// as a user's plain build is, so that the AVX2 and AVX-512 kernel copies exist; it computes the
// same expressions at each level (random arrays contiguous and strided, elementwise arithmetic
// and math, reductions over each axis, an expression too deep to dispatch) and compares bytes,
// and compares the batched random paths with the per-element functions of this baseline TU.
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <tessera/random.hpp>
#include <tessera/reduce.hpp>
#include <tessera/tessera.hpp>
#include <tessera/view.hpp>

#include "support/cases.hpp"

namespace ts = tessera;
namespace tr = tessera::random;
using ts::index_t;
using namespace ts::placeholders;

namespace {

/// The bytes of a computed array, with its shape.
template <class A>
std::string bytes_of(const A& a) {
  std::string s;
  for (auto d : a.shape()) s += std::to_string(d) + ",";
  s += "|";
  if (a.size() > 0)
    s.append(reinterpret_cast<const char*>(a.data()), a.size() * sizeof(typename A::value_type));
  return s;
}

/// An expression of nesting depth n + 1: ((x + 1) + 1) ... + 1.
template <int N, class X>
auto chain(const X& x) {
  if constexpr (N == 0) return x;
  else return chain<N - 1>(x) + 1.0;
}

/// Everything computed at one level, as named byte strings.
std::vector<std::pair<std::string, std::string>> results(std::uint64_t seed, const ts::shape_t& shape,
                                                         const ts::chunks_arg& chunks) {
  std::vector<std::pair<std::string, std::string>> out;
  auto add = [&](const char* name, const auto& a) { out.emplace_back(name, bytes_of(a)); };
  const ts::host pol{.threads = 2};
  auto g = tr::default_rng(seed);
  auto x = g.normal<double>(10, 1, shape, chunks);
  auto xf = g.normal<float>(0, 2, shape, chunks);
  auto u = g.uniform<double>(-1, 3, shape, chunks);
  auto uf = g.random<float>(shape, chunks);
  auto ln = g.lognormal<double>(0, 0.5, shape, chunks);
  auto ex = g.exponential<float>(2, shape, chunks);
  auto in = g.integers<std::int32_t>(-1000, 1000, shape, chunks);
  add("normal<double>", ts::compute(x, pol));
  add("normal<float>", ts::compute(xf, pol));
  add("uniform<double>", ts::compute(u, pol));
  add("random<float>", ts::compute(uf, pol));
  add("lognormal<double>", ts::compute(ln, pol));
  add("exponential<float>", ts::compute(ex, pol));
  add("integers<int32>", ts::compute(in, pol));
  add("normal[::2, ::2]", ts::compute(ts::view(x, ts::range(_, _, 2), ts::range(_, _, 2)), pol));
  add("normal[1::3, ::5]", ts::compute(ts::view(x, ts::range(1, _, 3), ts::range(_, _, 5)), pol));
  add("normal<float>[::2, 1::3]",
      ts::compute(ts::view(xf, ts::range(_, _, 2), ts::range(1, _, 3)), pol));
  add("x * 1.7 + 0.3", ts::compute(x * 1.7 + 0.3, pol));
  add("u * x - x / 3", ts::compute(u * x - x / 3.0, pol));
  add("exp, log, sqrt, sin", ts::compute(ts::exp(u) + ts::log(x) * ts::sqrt(ts::abs(u)) -
                                             ts::sin(xf), pol));
  add("pow, cos, tanh", ts::compute(ts::pow(ts::abs(x), u * 3.0 - 1.0) + ts::pow(x, 3.0) +
                                        ts::pow(xf, 2.5f) * ts::cos(u) - ts::tanh(x), pol));
  add("int arithmetic", ts::compute(in * in - in * 7 + 3, pol));
  add("cast", ts::compute(ts::cast<std::int64_t>(x * 100.0), pol));
  add("mean(x + 1)", ts::compute(ts::mean(x + 1.0), pol));
  add("sum axis 0", ts::compute(ts::sum(x * u, {0}), pol));
  add("sum axis 1", ts::compute(ts::sum(x * u, {1}), pol));
  add("variance axis 0", ts::compute(ts::variance(x, {0}), pol));
  add("amax axis 1", ts::compute(ts::amax(u, {1}), pol));
  add("argmax axis 0", ts::compute(ts::argmax(x, 0), pol));
  add("argmax axis 1", ts::compute(ts::argmax(x, 1), pol));
  add("argmin<float> axis 1", ts::compute(ts::argmin(xf, 1), pol));
  // stored rows, read in place (the fold may pass a whole row in one call), NaN in a few
  const auto xs = ts::persist(ts::where(u > 2.97, std::numeric_limits<double>::quiet_NaN(), x), pol);
  const auto xfs = ts::persist(xf, pol);
  add("argmax stored axis 1", ts::compute(ts::argmax(xs, 1), pol));
  add("amax stored axis 1", ts::compute(ts::amax(xs, {1}), pol));
  add("argmin<float> stored axis 1", ts::compute(ts::argmin(xfs, 1), pol));
  add("sum int axis 1", ts::compute(ts::sum(in, {1}), pol));
  add("mean float", ts::compute(ts::mean(xf), pol));
  add("30-deep chain (not dispatched)", ts::compute(chain<30>(x), pol));
  add("mean of 30-deep chain", ts::compute(ts::mean(chain<30>(x)), pol));
  return out;
}

}  // namespace

TEST_CASE("every host instruction-set level gives bitwise the same results", "[dispatch]") {
  const ts::host_isa top = ts::detected_host_isa();
  INFO("compiled level " << ts::to_string(ts::compiled_host_isa) << ", CPU level "
                         << ts::to_string(top) << ", in use " << ts::to_string(ts::host_isa_in_use()));
  WARN("levels compared: " << ts::to_string(ts::compiled_host_isa) << " .. " << ts::to_string(top));
  const auto seed = testing::test_seed(2026);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const ts::host_isa before = ts::host_isa_in_use();
  for (int iter = 0; iter < 3; ++iter) {
    const ts::shape_t shape{index_t(1 + rng() % 90), index_t(1 + rng() % 90)};
    const ts::chunks_arg chunks{testing::random_chunks(rng, shape)};
    INFO("shape " << testing::describe(shape));
    ts::set_host_isa(ts::compiled_host_isa);
    const auto ref = results(seed + iter, shape, chunks);
    for (int l = int(ts::compiled_host_isa) + 1; l <= int(top); ++l) {
      const auto level = ts::host_isa(l);
      INFO("level " << ts::to_string(level) << " against " << ts::to_string(ts::compiled_host_isa));
      ts::set_host_isa(level);
      CHECK(ts::host_isa_in_use() == level);
      const auto got = results(seed + iter, shape, chunks);
      REQUIRE(got.size() == ref.size());
      for (std::size_t k = 0; k < ref.size(); ++k) {
        INFO(ref[k].first);
        CHECK(got[k].second == ref[k].second);
      }
    }
  }
  ts::set_host_isa(before);
}

TEST_CASE("Philox batches of every length give block()'s words at every level", "[dispatch]") {
  // The vector lanes run groups of 48, 32 and 16 blocks, then 8 or fewer masked (AVX-512;
  // AVX2 32 then 8, SSE2 16 then 4, then block() for the rest): every length up to 130 crosses
  // each of those tails, and 128 is a whole batch of normals.
  const ts::host_isa before = ts::host_isa_in_use();
  const tr::philox::key k = tr::philox::key::of_seed(0x9E3779B97F4A7C15ull);
  const std::uint64_t sub = 0x0000000500000003ull;
  for (int l = int(ts::compiled_host_isa); l <= int(ts::detected_host_isa()); ++l) {
    const auto level = ts::host_isa(l);
    INFO("level " << ts::to_string(level));
    ts::set_host_isa(level);
    for (int n = 0; n <= 130; ++n) {
      INFO("n " << n);
      std::vector<std::uint32_t> lo(std::size_t(n) + 8), hi(lo.size()), x(lo.size(), 7), y(x), z(x), w(x);
      for (int j = 0; j < n; ++j) {
        const std::uint64_t b = 0xFFFFFFF0ull + std::uint64_t(j) * 3;  // crosses the 32-bit carry
        lo[std::size_t(j)] = std::uint32_t(b);
        hi[std::size_t(j)] = std::uint32_t(b >> 32);
      }
      tr::philox::batch(k, sub, lo.data(), hi.data(), n, x.data(), y.data(), z.data(), w.data());
      int bad = 0;
      for (int j = 0; j < n; ++j) {
        const auto b = tr::philox::at(k, sub, (std::uint64_t(hi[std::size_t(j)]) << 32) | lo[std::size_t(j)]);
        const auto q = std::size_t(j);
        bad += x[q] != b.v[0] || y[q] != b.v[1] || z[q] != b.v[2] || w[q] != b.v[3];
      }
      CHECK(bad == 0);
      int touched = 0;  // nothing past n is written
      for (std::size_t q = std::size_t(n); q < x.size(); ++q)
        touched += x[q] != 7 || y[q] != 7 || z[q] != 7 || w[q] != 7;
      CHECK(touched == 0);
    }
  }
  ts::set_host_isa(before);
}

#if TESSERA_X86_LEVELS  // (random/box_muller_avx512.hpp exists on x86-64 with GCC or Clang)
TESSERA_BATCH_DIAGNOSTICS_BEGIN  // config.hpp: gcc false positives in intrinsics code
#if defined(__GNUC__) && !defined(__clang__)
// (gcc 12 also reports the deliberately undefined pass-through of _mm512_mul_epu32 inlined here)
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
namespace {
TESSERA_ISA_BEGIN_AVX512
/// The AVX-512 Philox pieces on the 16 blocks b0 + l bstride (l < 16) of `stream`: rounds 0 and
/// 1 by first_two_rounds_uniform_high (`uniform`: the blocks' high words are b0's) or by
/// rounds_in_lanes_between(0, 2), rounds 2..8 in two ranges, then last_round_combined:
/// xy[l] = x 2^32 + y and zw[l] = z 2^32 + w of block l.
void philox_pieces_avx512(tr::philox::key k, std::uint64_t stream, std::uint64_t b0, int bstride,
                          bool uniform, std::uint64_t* xy, std::uint64_t* zw) {
  namespace pa = tr::philox::avx512;
  __m512i lo[2], c0[2], c1[2], c2[2], c3[2], pxy[2], pzw[2];
  for (int u = 0; u < 2; ++u) {
    alignas(64) std::uint64_t b[8];
    for (int l = 0; l < 8; ++l) b[l] = b0 + std::uint64_t(8 * u + l) * std::uint64_t(bstride);
    lo[u] = _mm512_load_si512(b);
    c0[u] = lo[u];
    c1[u] = _mm512_srli_epi64(lo[u], 32);
    c2[u] = _mm512_set1_epi64(std::int64_t(std::uint32_t(stream)));
    c3[u] = _mm512_set1_epi64(std::int64_t(stream >> 32));
  }
  if (uniform)
    pa::first_two_rounds_uniform_high<2>(k, lo, std::uint32_t(b0 >> 32), std::uint32_t(stream),
                                         std::uint32_t(stream >> 32), c0, c1, c2, c3);
  else
    pa::rounds_in_lanes_between<2>(k, 0, 2, c0, c1, c2, c3);
  pa::rounds_in_lanes_between<2>(k, 2, 5, c0, c1, c2, c3);
  pa::rounds_in_lanes_between<2>(k, 5, tr::philox::rounds - 1, c0, c1, c2, c3);
  pa::last_round_combined<2>(k, c0, c1, c2, c3, pxy, pzw);
  for (int u = 0; u < 2; ++u) {
    _mm512_storeu_si512(xy + 8 * u, pxy[u]);
    _mm512_storeu_si512(zw + 8 * u, pzw[u]);
  }
}
TESSERA_ISA_END
}  // namespace
TESSERA_BATCH_DIAGNOSTICS_END

TEST_CASE("AVX-512 Philox pieces (uniform first rounds, ranges of rounds, combined last round) "
          "give philox::at's words", "[dispatch]") {
  if (ts::detected_host_isa() != ts::host_isa::avx512) {
    WARN("skipped: this CPU has no AVX-512 (random/philox.hpp's avx512 pieces are not run)");
    return;
  }
  const auto seed = testing::test_seed(91);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  int bad = 0, cases = 0;
  for (int t = 0; t < 200; ++t) {
    const tr::philox::key k = tr::philox::key::of_seed(rng());
    const std::uint64_t stream = t % 3 == 0 ? rng() % 7 : rng();
    const int bstride = 1 + int(rng() % 3);
    // high words kept inside one 2^32 for the uniform path; anywhere (carries included) else
    const bool uniform = t % 2 == 0;
    const std::uint64_t b0 = uniform ? (rng() & ~0xFFFFFFFFull) + rng() % (0xFFFFFFFFull - 64)
                                     : (t % 4 == 1 ? 0xFFFFFFF0ull + rng() % 16 : rng());
    std::uint64_t xy[16], zw[16];
    philox_pieces_avx512(k, stream, b0, bstride, uniform, xy, zw);
    for (int l = 0; l < 16; ++l, ++cases) {
      const tr::u32x4 w = tr::philox::at(k, stream, b0 + std::uint64_t(l) * std::uint64_t(bstride));
      bad += xy[l] != (std::uint64_t(w.v[0]) << 32 | w.v[1]) || zw[l] != (std::uint64_t(w.v[2]) << 32 | w.v[3]);
    }
  }
  INFO(cases << " blocks");
  CHECK(bad == 0);
}

namespace {
/// The checks of a double normals kernel (Kernel: kernel_avx512 or kernel_avx2 below, each
/// calling its namespace's normals_of_words and normals).
template <class Kernel>
void check_normals_kernel() {
  namespace bm = tr::box_muller_avx512;  // (pair_order and affine: the AVX2 kernel's aliases)
  // Compares out (from the kernel, filled with 99 beforehand) with what it must hold for nb
  // blocks whose words words_of(j) gives: conv::box_muller, then the map, pair j at (2j, 2j + 1)
  // in pair order or at 4g + {0, 2} / 4g + {1, 3} two apart; and nothing written past 2 nb.
  const auto check = [](const std::vector<double>& out, int nb, bm::pair_order order,
                        bm::affine m, auto words_of) {
    int bad = 0;
    for (int j = 0; j < nb; ++j) {
      const tr::u32x4 b = words_of(j);
      double z0, z1;
      tr::conv::box_muller(b.v[0], b.v[1], b.v[2], b.v[3], z0, z1);
      const double c = tr::math::fmad(m.scale, z0, m.loc), s = tr::math::fmad(m.scale, z1, m.loc);
      const int ci = order == bm::pair_order::neighbours ? 2 * j : 4 * (j / 2) + j % 2;
      const int si = order == bm::pair_order::neighbours ? 2 * j + 1 : ci + 2;
      bad += std::memcmp(&out[std::size_t(ci)], &c, 8) != 0 || std::memcmp(&out[std::size_t(si)], &s, 8) != 0;
    }
    CHECK(bad == 0);
    int touched = 0;
    for (std::size_t e = 2 * std::size_t(nb); e < out.size(); ++e) touched += out[e] != 99.0;
    CHECK(touched == 0);
  };
  const auto seed = testing::test_seed(77);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // (loc -0.0 keeps the sign of a zero product: r = 0 at u = 1, sin 0 at f = 0)
  const bm::affine maps[] = {{1, 0}, {1, 10}, {2.5, -3}, {-1, 0}, {1, -0.0}, {-1, -0.0}};
  SECTION("words at the edges: u = 2^-53 and 1, every quadrant boundary, random words") {
    std::vector<std::uint32_t> x, y, z, w;
    const std::uint32_t edges[] = {0u, 1u, 0x7FFu, 0x800u, 0x1FFFFFFFu, 0x20000000u, 0x3FFFFFFFu,
                                   0x40000000u, 0x5FFFFFFFu, 0x60000000u, 0x7FFFFFFFu, 0x80000000u,
                                   0x9FFFFFFFu, 0xA0000000u, 0xDFFFFFFFu, 0xE0000000u, 0xFFFFF800u,
                                   0xFFFFFFFFu};
    for (std::uint32_t a : edges)
      for (std::uint32_t c : edges) {
        x.push_back(a);
        y.push_back(edges[(a + c) % std::size(edges)]);
        z.push_back(c);
        w.push_back(edges[(a ^ c) % std::size(edges)]);
      }
    for (std::uint32_t c : edges)  // u = 1 (x all ones, y >= 0xFFFFF800): r = 0
      for (std::uint32_t b : {0xFFFFF800u, 0xFFFFFFFFu}) {
        x.push_back(0xFFFFFFFFu);
        y.push_back(b);
        z.push_back(c);
        w.push_back(c ^ b);
      }
    for (int k = 0; k < 200; ++k) {
      x.push_back(std::uint32_t(rng()));
      y.push_back(std::uint32_t(rng()));
      z.push_back(std::uint32_t(rng()));
      w.push_back(std::uint32_t(rng()));
    }
    for (const auto order : {bm::pair_order::neighbours, bm::pair_order::two_apart})
      for (const bm::affine m : maps)
        for (int nb : {int(x.size()), 1, 2, 7, 16, 17, 30}) {
          if (order == bm::pair_order::two_apart && nb % 2) continue;
          INFO("order " << int(order) << " scale " << m.scale << " loc " << m.loc << " blocks " << nb);
          std::vector<double> out(2 * std::size_t(nb) + 16, 99.0);
          Kernel::of_words(x.data(), y.data(), z.data(), w.data(), nb, order, m, out.data());
          check(out, nb, order, m, [&](int j) {
            const auto q = std::size_t(j);
            return tr::u32x4{{x[q], y[q], z[q], w[q]}};
          });
        }
  }
  SECTION("Philox blocks in registers: every count to 130, strides 1 and 2, across the 2^32 carry") {
    const tr::philox::key k = tr::philox::key::of_seed(rng());
    // streams with a zero and a non-zero high word; first blocks near 2^32 and near 2^64 (the
    // counter wraps), odd ones in pair order
    const std::uint64_t streams[] = {rng() % 5, (std::uint64_t(1) << 32) + rng() % 5, rng()};
    const std::uint64_t bases[] = {0xFFFFFFC0ull, 0xFFFFFFFFFFFFFFC0ull};
    for (const auto order : {bm::pair_order::neighbours, bm::pair_order::two_apart})
      for (int bstride : {1, 2})
        for (int nb = 0; nb <= 130; ++nb) {
          if (order == bm::pair_order::two_apart && (nb % 2 || bstride != 1)) continue;
          const std::uint64_t stream = streams[rng() % std::size(streams)];
          const std::uint64_t odd = order == bm::pair_order::neighbours ? rng() % 2 : 0;
          const std::uint64_t b0 = bases[rng() % std::size(bases)] + 2 * (rng() % 16) + odd;
          const bm::affine m = maps[rng() % std::size(maps)];
          INFO("order " << int(order) << " stride " << bstride << " blocks " << nb << " b0 " << b0
                        << " stream " << stream);
          std::vector<double> out(2 * std::size_t(nb) + 16, 99.0);
          Kernel::normals(k, stream, b0, bstride, nb, order, m, out.data());
          check(out, nb, order, m, [&](int j) {
            return tr::philox::at(k, stream, b0 + std::uint64_t(j) * std::uint64_t(bstride));
          });
        }
  }
}

struct kernel_avx512 {
  static constexpr auto of_words = tr::box_muller_avx512::normals_of_words;
  static constexpr auto normals = tr::box_muller_avx512::normals;
};
struct kernel_avx2 {
  static constexpr auto of_words = tr::box_muller_avx2::normals_of_words;
  static constexpr auto normals = tr::box_muller_avx2::normals;
};
}  // namespace

TEST_CASE("AVX-512 double normals equal conv::box_muller: chosen words and Philox blocks",
          "[dispatch]") {
  if (ts::detected_host_isa() != ts::host_isa::avx512) {
    WARN("skipped: this CPU has no AVX-512 (the kernel random/box_muller_avx512.hpp is not run)");
    return;
  }
  check_normals_kernel<kernel_avx512>();
}

TEST_CASE("AVX2 double normals equal conv::box_muller: chosen words and Philox blocks",
          "[dispatch]") {
  if (ts::detected_host_isa() < ts::host_isa::avx2) {
    WARN("skipped: this CPU has no AVX2 (the kernel random/box_muller_avx2.hpp is not run)");
    return;
  }
  check_normals_kernel<kernel_avx2>();
}

#endif  // TESSERA_X86_LEVELS

TEST_CASE("the batched random paths equal the per-element functions at every level",
          "[dispatch]") {
  const auto g = tr::default_rng(11);
  const ts::host_isa before = ts::host_isa_in_use();
  for (int l = int(ts::compiled_host_isa); l <= int(ts::detected_host_isa()); ++l) {
    const auto level = ts::host_isa(l);
    INFO("level " << ts::to_string(level));
    ts::set_host_isa(level);
    auto h = g;
    auto x = h.normal<double>(10, 1, {1000}, {300});
    const auto got = ts::compute(x, ts::host{.threads = 1});
    const auto& f = x.function();  // the element function of the flat index
    int bad = 0;
    for (index_t i = 0; i < 1000; ++i) bad += got(i) != f(i);
    CHECK(bad == 0);
    const auto strided = ts::compute(ts::view(x, ts::range(3, _, 7)), ts::host{.threads = 1});
    bad = 0;
    for (index_t k = 0; k < index_t(strided.size()); ++k) bad += strided(k) != f(3 + 7 * k);
    CHECK(bad == 0);
    // step 2 (whole pairs of every other block) from an odd and an even start, and a start
    // inside a group of four
    for (index_t start : {0, 1, 5}) {
      const auto two = ts::compute(ts::view(x, ts::range(start, _, 2)), ts::host{.threads = 1});
      bad = 0;
      for (index_t k = 0; k < index_t(two.size()); ++k) bad += two(k) != f(start + 2 * k);
      CHECK(bad == 0);
      const auto part = ts::compute(ts::view(x, ts::range(start, 997)), ts::host{.threads = 1});
      bad = 0;
      for (index_t k = 0; k < index_t(part.size()); ++k) bad += part(k) != f(start + k);
      CHECK(bad == 0);
    }
    auto ln = h.lognormal<double>(0.5, 0.75, {1000}, {300});
    const auto lg = ts::compute(ln, ts::host{.threads = 1});
    const auto& lf = ln.function();
    bad = 0;
    for (index_t i = 0; i < 1000; ++i) bad += lg(i) != lf(i);
    CHECK(bad == 0);
  }
  ts::set_host_isa(before);
}

TEST_CASE("choosing a level names bad levels", "[dispatch][errors]") {
  CHECK_THROWS_MATCHING(ts::detail::parse_host_isa("avx3", "TESSERA_HOST_ISA"),
                        std::invalid_argument, Catch::Matchers::Contains("'avx3'"));
  CHECK_THROWS_MATCHING(ts::set_host_isa(ts::host_isa(7)), std::invalid_argument,
                        Catch::Matchers::Contains("host_isa(7)"));
  CHECK(ts::detail::parse_host_isa("x86-64-v3", "x") == ts::host_isa::avx2);
  CHECK(ts::detail::parse_host_isa("avx512", "x") == ts::host_isa::avx512);
  if (ts::detected_host_isa() < ts::host_isa::avx512)
    CHECK_THROWS_MATCHING(ts::set_host_isa(ts::host_isa::avx512), std::invalid_argument,
                          Catch::Matchers::Contains("above this CPU's"));
  const ts::host_isa before = ts::set_host_isa(ts::detected_host_isa());
  CHECK(ts::host_isa_in_use() == ts::detected_host_isa());
  ts::set_host_isa(before);
}
