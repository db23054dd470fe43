// Counter-based random arrays (include/tessera/random.hpp, docs/random.md): Philox known
// answers, the documented counter layout, batch == per-element, chunking/thread invariance,
// statistics with fixed seeds, element-wise access into a 1e12-element array, argument checks.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include <tessera/core/process_memory.hpp>
#include <tessera/tessera.hpp>
#include <tessera/random.hpp>

#include "support/backends.hpp"
#include "support/cases.hpp"

namespace ts = tessera;
namespace tr = tessera::random;
using ts::index_t;

namespace {

/// Raw word at (seed, subsequence, offset), as curand() would return it first after
/// curand_init(seed, subsequence, offset): word offset % 4 of block offset / 4.
std::uint32_t word(std::uint64_t seed, std::uint64_t subseq, std::uint64_t offset) {
  return tr::philox::at(tr::philox::key::of_seed(seed), subseq, offset / 4).v[offset % 4];
}

struct moments {
  double mean = 0, var = 0;
  index_t n = 0;
};
template <class C>
moments moments_of(const C& c) {
  moments m;
  m.n = index_t(c.size());
  long double s = 0;
  for (auto v : c) s += (long double)v;
  m.mean = double(s / m.n);
  long double q = 0;
  for (auto v : c) q += ((long double)v - m.mean) * ((long double)v - m.mean);
  m.var = double(q / (m.n - 1));
  return m;
}

/// Kolmogorov-Smirnov statistic sqrt(n) D_n of samples against a CDF.
template <class C, class F>
double ks_statistic(const C& c, F cdf) {
  std::vector<double> v(c.begin(), c.end());
  std::sort(v.begin(), v.end());
  const double n = double(v.size());
  double d = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double f = cdf(v[i]);
    d = std::max({d, f - double(i) / n, double(i + 1) / n - f});
  }
  return d * std::sqrt(n);
}
// P(sqrt(n) D_n > 1.95) ~ 0.001 for large n.
constexpr double ks_critical = 1.95;

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

#if !defined(__CUDACC__)
/// normal<double>'s element function that counts its evaluations (host only, so not in the CUDA
/// twin of this file): tests that a view evaluates exactly the elements it selects.
struct counted_normal {
  using value_type = double;
  static constexpr int epb = 2;
  std::atomic<std::int64_t>* calls = nullptr;
  tr::normal_dist<double> normal;
  double element(const tr::u32x4& w, int slot, const tr::site& s) const {
    calls->fetch_add(1, std::memory_order_relaxed);
    return normal.element(w, slot, s);
  }
};
#endif

/// Pearson chi-square of observed counts against equal expected counts.
double chi_square(const std::vector<double>& counts) {
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  const double e = total / double(counts.size());
  double x = 0;
  for (double c : counts) x += (c - e) * (c - e) / e;
  return x;
}

/// Checks fill() (contiguous at several offsets, strided, dflat 0 and negative) against
/// per-element calls of a random array's element functor, bitwise.
template <class A>
void check_batch_matches_elements(const A& a, std::mt19937_64& rng) {
  const auto& f = a.function();
  using T = typename A::value_type;
  std::unique_ptr<T[]> got(new T[600]), want(new T[600]);
  const index_t n = a.size();
  for (int rep = 0; rep < 48; ++rep) {
    const index_t cnt = 1 + index_t(rng() % 300);
    index_t d;
    switch (rep % 6) {
      case 0: d = 1; break;
      case 1: d = 0; break;
      case 2: d = -1 - index_t(rng() % 3); break;
      case 3: d = 2; break;  // normals: whole pairs of every other block
      default: d = 1 + index_t(rng() % 9); break;
    }
    const index_t span = std::abs(d) * (cnt - 1);
    index_t f0 = index_t(rng() % std::uint64_t(std::max<index_t>(1, n - span)));
    if (d < 0) f0 += span;
    f.fill(f0, d, cnt, got.get());
    for (index_t k = 0; k < cnt; ++k) want[std::size_t(k)] = f(f0 + k * d);
    INFO("flat0 " << f0 << " dflat " << d << " n " << cnt);
    REQUIRE(std::memcmp(got.get(), want.get(), std::size_t(cnt) * sizeof(T)) == 0);
  }
}

}  // namespace

// --------------------------------------------------------------------------------------------

TEST_CASE("philox4x32-10 known-answer vectors (Random123)", "[random]") {
  using tr::philox::block;
  auto eq = [](tr::u32x4 v, std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
    return v.v[0] == a && v.v[1] == b && v.v[2] == c && v.v[3] == d;
  };
  CHECK(eq(block(0, 0, 0, 0, 0, 0), 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8));
  CHECK(eq(block(~0u, ~0u, ~0u, ~0u, ~0u, ~0u), 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd));
  CHECK(eq(block(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0),
           0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1));
  // the host batch (SIMD lanes + scalar tail) gives the same blocks
  std::vector<std::uint32_t> lo(77), hi(77), x(77), y(77), z(77), w(77);
  for (std::uint32_t j = 0; j < 77; ++j) {
    lo[j] = 0xfffffff0u + j * 0x01000193u;
    hi[j] = j * 7919u;
  }
  const tr::philox::key k{0xa4093822, 0x299f31d0};
  const std::uint64_t sub = 0x0370734413198a2eull;
  tr::philox::batch(k, sub, lo.data(), hi.data(), 77, x.data(), y.data(), z.data(), w.data());
  for (int j = 0; j < 77; ++j) {
    INFO("lane " << j);
    CHECK(eq(block(lo[j], hi[j], 0x13198a2e, 0x03707344, k.k0, k.k1), x[j], y[j], z[j], w[j]));
  }
}

TEST_CASE("counter layout follows cuRAND's curand_init(seed, subsequence, offset)", "[random]") {
  const std::uint64_t seed = 0x0123456789abcdefull;
  // key = seed halves, subsequence in counter words 2-3, offset / 4 in words 0-1
  const auto b = tr::philox::at(tr::philox::key::of_seed(seed), 0x1111222233334444ull,
                                0x5555666677778888ull);
  const auto r = tr::philox::block(0x77778888, 0x55556666, 0x33334444, 0x11112222, 0x89abcdef,
                                   0x01234567);
  CHECK(std::memcmp(&b, &r, sizeof b) == 0);

  auto g = tr::default_rng(seed);
  auto g0 = g;
  auto uf = g.random<float>({1000});            // stream 0
  auto ud = g.random<double>({1000});           // stream 1
  auto nd = g.standard_normal<double>({1000});  // stream 2
  auto nf = g.standard_normal<float>({1000});   // stream 3
  auto bi = g.bernoulli(0.3, {1000});           // stream 4
  auto it = g.integers<std::int32_t>(-5, 1000, {1000});  // stream 5
  CHECK(g.stream() == 6);
  CHECK(g0.stream() == 0);
  for (std::uint64_t i = 0; i < 1000; ++i) {
    INFO("element " << i);
    // random<float>: offset i, top 24 bits
    CHECK(uf.function()(index_t(i)) == float(word(seed, 0, i) >> 8) * 0x1p-24f);
    // random<double>: offsets 2i (high 32 bits) and 2i + 1 (top 21 bits)
    const std::uint64_t k53 = (std::uint64_t(word(seed, 1, 2 * i)) << 21) | (word(seed, 1, 2 * i + 1) >> 11);
    CHECK(ud.function()(index_t(i)) == double(k53) * 0x1p-53);
    // bernoulli: the same 53 bits (stream 4) below ceil(0.3 * 2^53)
    const std::uint64_t kb = (std::uint64_t(word(seed, 4, 2 * i)) << 21) | (word(seed, 4, 2 * i + 1) >> 11);
    CHECK(bi.function()(index_t(i)) == (kb < std::uint64_t(std::ceil(0.3 * 0x1p53))));
    // integers, range 1005 < 2^32: the first try is word 2i (accepted unless its low product
    // is below (2^32 - 1005) mod 1005)
    const std::uint64_t m = std::uint64_t(word(seed, 5, 2 * i)) * 1005u;
    if (std::uint32_t(m) >= (0u - 1005u) % 1005u)
      CHECK(it.function()(index_t(i)) == std::int32_t(std::int64_t(m >> 32) - 5));
  }
  // normals: pair p (block p, double / words 2p, 2p + 1, float) gives r cos and r sin, which are
  // the distribution's elements 2p and 2p + 1: array elements swap_low_bits(2p) and
  // swap_low_bits(2p + 1), two apart (4g, 4g + 2 for even p; 4g + 1, 4g + 3 for odd p)
  CHECK(tr::swap_low_bits(0) == 0);
  CHECK(tr::swap_low_bits(1) == 2);
  CHECK(tr::swap_low_bits(2) == 1);
  CHECK(tr::swap_low_bits(3) == 3);
  CHECK(tr::swap_low_bits(45) == 46);
  for (std::uint64_t p = 0; p < 500; ++p) {
    const index_t cos_at = index_t(tr::swap_low_bits(2 * p)), sin_at = index_t(tr::swap_low_bits(2 * p + 1));
    REQUIRE(sin_at == cos_at + 2);
    REQUIRE(cos_at == index_t(4 * (p / 2) + p % 2));
    const auto blk = tr::philox::at(tr::philox::key::of_seed(seed), 2, p);
    const double u = (double(blk.v[0]) * 0x1p21 + double(blk.v[1] >> 11) + 1) * 0x1p-53;
    const double r = std::sqrt(-2 * std::log(u));
    const double th = 2 * M_PI * ((double(blk.v[2]) * 0x1p21 + double(blk.v[3] >> 11)) * 0x1p-53);
    CHECK(nd.function()(cos_at) == Approx(r * std::cos(th)).margin(1e-12));
    CHECK(nd.function()(sin_at) == Approx(r * std::sin(th)).margin(1e-12));
    const double uf2 = (double(word(seed, 3, 2 * p) >> 1) + 0.5) * 0x1p-31;
    const double rf = std::sqrt(-2 * std::log(uf2));
    const double thf = 2 * M_PI * double(word(seed, 3, 2 * p + 1)) * 0x1p-32;
    CHECK(nf.function()(cos_at) == Approx(rf * std::cos(thf)).margin(2e-6));
    CHECK(nf.function()(sin_at) == Approx(rf * std::sin(thf)).margin(2e-6));
  }
}

TEST_CASE("host batch path equals per-element evaluation bitwise", "[random]") {
  const auto seed = testing::test_seed(20261121);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  auto g = tr::default_rng(seed);
  const ts::shape_t s{3001};
  check_batch_matches_elements(g.random<double>(s), rng);
  check_batch_matches_elements(g.random<float>(s), rng);
  check_batch_matches_elements(g.uniform<double>(-2.5, 7, s), rng);
  check_batch_matches_elements(g.uniform<float>(1, 1.0000001, s), rng);
  check_batch_matches_elements(g.standard_normal<double>(s), rng);
  check_batch_matches_elements(g.standard_normal<float>(s), rng);
  check_batch_matches_elements(g.normal<double>(10, 3, s), rng);
  check_batch_matches_elements(g.lognormal<double>(0.5, 0.75, s), rng);
  check_batch_matches_elements(g.lognormal<float>(0.5, 0.75, s), rng);
  check_batch_matches_elements(g.exponential<double>(2, s), rng);
  check_batch_matches_elements(g.exponential<float>(2, s), rng);
  check_batch_matches_elements(g.bernoulli(0.25, s), rng);
  check_batch_matches_elements(g.integers<int>(0, 10, s), rng);
  check_batch_matches_elements(g.integers<std::int64_t>(-7, 3 * (std::int64_t(1) << 30), s), rng);
  check_batch_matches_elements(g.integers<std::int64_t>(-(std::int64_t(1) << 62), std::int64_t(1) << 62, s), rng);
  check_batch_matches_elements(g.integers<std::uint8_t>(0, 256, s), rng);
  check_batch_matches_elements(g.gamma<double>(0.4, 2, s), rng);
  check_batch_matches_elements(g.gamma<float>(3.5, 1, s), rng);
}

/// line.pair(j) of a bound one-dimensional expression equals (line(j), line(j + gap)) bitwise,
/// for every j where the line's pairs start (the device fold's paired walk), on contiguous lines
/// (pairs two apart: gap 2, phase to the next multiple of 4) and stride-2 lines (neighbours:
/// gap 1), from every start modulo 4; other strides do not pair.
template <class X>
void check_pairs_match_elements(const X& x) {
  ts::host_context ctx;
  const ts::box bx = x.grid().block_box(0);
  auto acc = x.bind(bx, ctx);
  for (index_t step : {index_t(1), index_t(2)}) {
    for (index_t start = 0; start < 4; ++start) {
      if (start >= bx.hi[0]) continue;
      ts::ivec at = bx.lo;
      at[0] = start;
      auto line = acc.line(at, 0, step);
      static_assert(ts::paired_line<decltype(line)>);
      const int phase = line.pair_phase(), gap = line.pair_gap();
      const index_t len = (bx.hi[0] - start + step - 1) / step;
      INFO("step " << step << " start " << start);
      REQUIRE(gap == (step == 1 ? 2 : 1));
      REQUIRE(phase == (step == 1 ? int((4 - start) % 4) : int((start >> 1) & 1)));
      index_t pairs = 0;
      for (index_t j0 = phase; j0 < len; j0 += 2 * gap) {
        for (index_t j = j0; j < j0 + gap && j + gap < len; ++j) {
          typename decltype(line)::value_type a, b;
          line.pair(j, a, b);
          const auto ea = line(j), eb = line(j + gap);
          INFO("j " << j);
          REQUIRE(std::memcmp(&a, &ea, sizeof a) == 0);
          REQUIRE(std::memcmp(&b, &eb, sizeof b) == 0);
          ++pairs;
        }
      }
      CHECK(pairs >= (len - 6) / 2);
    }
  }
  // Other strides cannot pair.
  CHECK(acc.line(bx.lo, 0, 3).pair_phase() == -1);
  CHECK(acc.line(bx.lo, 0, 4).pair_phase() == -1);
}

TEST_CASE("the normals' own log and quarter-turn sine/cosine are accurate", "[random][numerics]") {
  // Against long double on uniforms as the normals draw them (math.hpp's minimax polynomials):
  // log within 2.1 ulp (1.2e-18 approximation error; the rest is rounding, worst next to 1),
  // sine and cosine of (pi / 2) (q + f) within 2.5e-16 absolute, and the Box-Muller radius,
  // -2 log u with the scaling folded in, bitwise -2 log(u).
  if (std::numeric_limits<long double>::digits < 64) {
    WARN("skipped: long double is not wider than double here");
    return;
  }
  const auto seed = testing::test_seed(2027);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  double worst_log = 0, worst_sin = 0, worst_cos = 0, at_log = 0;
  int radius_mismatch = 0;
  const long double half_pi = 1.570796326794896619231321691639751442L;
  for (int i = 0; i < 2000000; ++i) {
    const double u = tr::conv::u53_open0(std::uint32_t(rng()), std::uint32_t(rng()));
    const double l = tr::math::log(u);
    radius_mismatch += tr::conv::radius2_of(u) != -2.0 * l;
    if (u != 1.0) {
      const long double want = std::log((long double)u);
      const double ulp = std::nextafter(std::fabs(double(want)), 1.0 / 0.0) - std::fabs(double(want));
      const double e = double(std::fabs(l - want) / ulp);
      if (e > worst_log) worst_log = e, at_log = u;
    }
    double f, s, c;
    std::uint32_t q;
    tr::conv::angle_quadrant(std::uint32_t(rng()), std::uint32_t(rng()), f, q);
    tr::math::sincos_quadrant(f, q, s, c);
    const long double a = half_pi * ((long double)f + q);
    worst_sin = std::max(worst_sin, double(std::fabs(s - std::sin(a))));
    worst_cos = std::max(worst_cos, double(std::fabs(c - std::cos(a))));
  }
  INFO("log worst " << worst_log << " ulp at " << at_log << "; sin " << worst_sin << ", cos " << worst_cos);
  CHECK(worst_log <= 2.1);
  CHECK(worst_sin <= 2.5e-16);
  CHECK(worst_cos <= 2.5e-16);
  CHECK(radius_mismatch == 0);
}

TEST_CASE("normal pairs (two elements per Box-Muller) equal per-element evaluation bitwise",
          "[random]") {
  auto g = tr::default_rng(testing::test_seed(77));
  const ts::shape_t s{1001};
  check_pairs_match_elements(g.standard_normal<double>(s));
  check_pairs_match_elements(g.normal<float>(-3, 2, s));
  check_pairs_match_elements(g.normal<double>(10, 1, s) + 1.0);  // elementwise over a pair
  auto u = g.random<double>(s);
  // unpaired operand too (no product: GCC contracts a * b - c into an fma in some inlining
  // contexts and not in others, -ffp-contract=fast, so a product-difference need not be bitwise)
  check_pairs_match_elements(u + g.normal<double>(0, 1, s) - u);
  // Two paired operands whose pairs start at different elements do not pair.
  auto n = g.normal<double>(0, 1, {1002});
  auto shifted = ts::view(n, ts::range(1, 1002)) + ts::view(n, ts::range(0, 1001));
  ts::host_context ctx;
  auto acc = shifted.bind(shifted.grid().block_box(0), ctx);
  ts::ivec origin;
  origin.n = 1;
  origin[0] = 0;
  CHECK(acc.line(origin, 0, 1).pair_phase() == -1);
}

TEMPLATE_TEST_CASE("same seed and shape give bitwise equal arrays for any chunking and threads",
                   "[random]", TESSERA_TEST_BACKENDS) {
  using P = TestType;
  const auto seed = testing::test_seed(7);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const ts::shape_t shape{37, 53};
  std::vector<ts::chunks_arg> chunkings = {
      ts::chunks_arg{37, 53},
      ts::chunks_arg{1, 53},
      ts::chunks_arg{37, 1},
      ts::chunks_arg{5, 7},
      ts::chunks_arg{ts::chunks_t{{1, 30, 6}, {2, 50, 1}}},
      ts::chunks_arg{ts::chunks_t{{20, 17}, {13, 13, 13, 14}}},
  };
  for (int k = 0; k < 4; ++k) chunkings.push_back(ts::chunks_arg{testing::random_chunks(rng, shape)});

  auto check_all = [&](auto make) {
    auto ref = ts::compute(make(ts::chunks_arg{37, 53}), P{});
    for (std::size_t c = 0; c < chunkings.size(); ++c) {
      INFO("chunking " << c);
      auto x = make(chunkings[c]);
      CHECK(testing::bitwise_equal_arrays(ts::compute(x, P{}), ref));
      if constexpr (std::is_same_v<P, ts::host>) {
        CHECK(testing::bitwise_equal_arrays(ts::compute(x, ts::host{.threads = 1}), ref));
        CHECK(testing::bitwise_equal_arrays(ts::compute(x, ts::host{.threads = 0}), ref));
      }
    }
  };
  // each factory call on a copy of one generator draws the same stream
  const auto g = tr::default_rng(seed);
  check_all([&](const ts::chunks_arg& ch) { auto h = g; return h.standard_normal<double>(shape, ch); });
  check_all([&](const ts::chunks_arg& ch) { auto h = g; return h.normal<float>(1, 2, shape, ch); });
  check_all([&](const ts::chunks_arg& ch) { auto h = g; return h.random<double>(shape, ch); });
  check_all([&](const ts::chunks_arg& ch) { auto h = g; return h.uniform<float>(-1, 1, shape, ch); });
  check_all([&](const ts::chunks_arg& ch) { auto h = g; return h.integers<std::int16_t>(-300, 301, shape, ch); });
  check_all([&](const ts::chunks_arg& ch) { auto h = g; return h.exponential<double>(3, shape, ch); });
  check_all([&](const ts::chunks_arg& ch) { auto h = g; return h.lognormal<float>(0, 1, shape, ch); });
  check_all([&](const ts::chunks_arg& ch) { auto h = g; return h.bernoulli(0.5, shape, ch); });
  check_all([&](const ts::chunks_arg& ch) { auto h = g; return h.gamma<double>(0.7, 1, shape, ch); });

  // views: the transpose of a random array is the transpose of its values
  auto h = g;
  auto a = h.standard_normal<double>(shape, {5, 7});
  xt::xarray<double> at = xt::transpose(ts::compute(a, P{}));
  CHECK(testing::bitwise_equal_arrays(ts::compute(ts::transpose(a), P{}), at));
  CHECK(testing::bitwise_equal_arrays(ts::compute(ts::rechunk(ts::transpose(a), {3, 50}), P{}), at));
}

TEMPLATE_TEST_CASE("done-when: normal(10, 1) 4000 x 4000 moments and chunking invariance",
                   "[random]", TESSERA_TEST_BACKENDS) {
  using P = TestType;
  auto g = tr::default_rng(2026);
  auto g2 = g, g3 = g;
  auto a = ts::compute(g.normal<double>(10, 1, {4000, 4000}, {1000, 1000}), P{});
  const auto m = moments_of(a);
  INFO("mean " << m.mean << " var " << m.var);
  CHECK(std::abs(m.mean - 10) < 1e-3);
  CHECK(std::abs(std::sqrt(m.var) - 1) < 1e-3);
  CHECK(testing::bitwise_equal_arrays(ts::compute(g2.normal<double>(10, 1, {4000, 4000}, {4000, 7}), P{}), a));
  CHECK(testing::bitwise_equal_arrays(ts::compute(g3.normal<double>(10, 1, {4000, 4000}, {1, 4000}), P{}), a));
}

TEMPLATE_TEST_CASE("statistics of 1e7 draws: mean and variance within 5 standard errors",
                   "[random]", TESSERA_TEST_BACKENDS) {
  using P = TestType;
  auto g = tr::default_rng(12345);
  const index_t n = 10'000'000;
  const double sn = std::sqrt(double(n));
  auto check = [&](const char* what, const moments& m, double mean, double var, double mu4) {
    INFO(what << ": mean " << m.mean << " (want " << mean << "), var " << m.var << " (want " << var << ")");
    CHECK(std::abs(m.mean - mean) < 5 * std::sqrt(var) / sn);
    CHECK(std::abs(m.var - var) < 5 * std::sqrt(mu4 - var * var) / sn);
  };
  check("normal<double>", moments_of(ts::compute(g.standard_normal<double>({n}, {1 << 20}), P{})), 0, 1, 3);
  check("normal<float>", moments_of(ts::compute(g.normal<float>(-3, 2, {n}, {1 << 20}), P{})), -3, 4, 48);
  check("random<double>", moments_of(ts::compute(g.random<double>({n}, {1 << 20}), P{})), 0.5, 1.0 / 12, 1.0 / 80);
  check("random<float>", moments_of(ts::compute(g.random<float>({n}, {1 << 20}), P{})), 0.5, 1.0 / 12, 1.0 / 80);
  check("exponential<double>", moments_of(ts::compute(g.exponential<double>(2, {n}, {1 << 20}), P{})), 2, 4, 9 * 16);
  check("exponential<float>", moments_of(ts::compute(g.exponential<float>(2, {n}, {1 << 20}), P{})), 2, 4, 9 * 16);
  const double p = 0.3;
  check("bernoulli", moments_of(ts::compute(g.bernoulli(p, {n}, {1 << 20}), P{})), p, p * (1 - p),
        p * (1 - p) * (1 - 3 * p + 3 * p * p));
  // log of a lognormal is normal(mean, sigma)
  auto ln = ts::compute(g.lognormal<double>(0.5, 0.25, {n}, {1 << 20}), P{});
  for (auto& v : ln) v = std::log(v);
  check("log(lognormal)", moments_of(ln), 0.5, 0.0625, 3 * 0.0625 * 0.0625);
  // gamma (k, theta): mean k theta, var k theta^2, 4th central moment 3 k (k + 2) theta^4
  for (double k : {0.3, 1.0, 4.5}) {
    const index_t ng = 2'000'000;
    const auto m = moments_of(ts::compute(g.gamma<double>(k, 1.5, {ng}, {1 << 18}), P{}));
    const double var = k * 2.25, mu4 = 3 * k * (k + 2) * 2.25 * 2.25;
    INFO("gamma k " << k << ": mean " << m.mean << " var " << m.var);
    CHECK(std::abs(m.mean - 1.5 * k) < 5 * std::sqrt(var / double(ng)));
    CHECK(std::abs(m.var - var) < 5 * std::sqrt((mu4 - var * var) / double(ng)));
  }
  {
    const auto m = moments_of(ts::compute(g.gamma<float>(2.5, 1, {2'000'000}), P{}));
    CHECK(std::abs(m.mean - 2.5) < 5 * std::sqrt(2.5 / 2e6));
  }
  // chisquare(df): gamma(df / 2, 2): mean df, var 2 df, 4th central moment 12 df (df + 4)
  for (double df : {0.5, 3.0}) {
    const auto m = moments_of(ts::compute(g.chisquare<double>(df, {n}, {1 << 20}), P{}));
    check("chisquare", m, df, 2 * df, 12 * df * (df + 4));
  }
  check("standard_exponential", moments_of(ts::compute(g.standard_exponential<double>({n}, {1 << 20}), P{})), 1, 1, 9);
  check("standard_gamma", moments_of(ts::compute(g.standard_gamma<float>(2.0, {n}, {1 << 20}), P{})), 2, 2, 3 * 2 * 4);
}

TEMPLATE_TEST_CASE("Kolmogorov-Smirnov: uniform, normal, exponential", "[random]", TESSERA_TEST_BACKENDS) {
  using P = TestType;
  auto g = tr::default_rng(99);
  const index_t n = 1'000'000;
  auto clamp01 = [](double x) { return std::min(1.0, std::max(0.0, x)); };
  double d;
  d = ks_statistic(ts::compute(g.random<double>({n}, {100000}), P{}), clamp01);
  INFO("uniform double KS " << d);
  CHECK(d < ks_critical);
  d = ks_statistic(ts::compute(g.uniform<float>(-1, 3, {n}, {100000}), P{}),
                   [&](double x) { return clamp01((x + 1) / 4); });
  INFO("uniform float KS " << d);
  CHECK(d < ks_critical);
  d = ks_statistic(ts::compute(g.standard_normal<double>({n}, {100000}), P{}), normal_cdf);
  INFO("normal double KS " << d);
  CHECK(d < ks_critical);
  d = ks_statistic(ts::compute(g.normal<float>(5, 0.5, {n}, {100000}), P{}),
                   [](double x) { return normal_cdf((x - 5) / 0.5); });
  INFO("normal float KS " << d);
  CHECK(d < ks_critical);
  d = ks_statistic(ts::compute(g.exponential<double>(1, {n}, {100000}), P{}),
                   [](double x) { return x <= 0 ? 0.0 : -std::expm1(-x); });
  INFO("exponential KS " << d);
  CHECK(d < ks_critical);
  // the KS test does detect a wrong distribution at this size
  d = ks_statistic(ts::compute(g.normal<double>(0.01, 1, {n}, {100000}), P{}), normal_cdf);
  INFO("shifted normal KS " << d);
  CHECK(d > ks_critical);
}

TEMPLATE_TEST_CASE("NumPy Generator distributions: KS against closed-form CDFs, moments, chi-square of pmfs",
                   "[random]", TESSERA_TEST_BACKENDS) {
  using P = TestType;
  auto g = tr::default_rng(2718);
  const index_t n = 400'000;
  const double pi = 3.141592653589793;
  auto ks = [&](const char* what, const auto& arr, auto cdf) {
    const double d = ks_statistic(ts::compute(arr, P{}), cdf);
    INFO(what << " KS " << d);
    CHECK(d < ks_critical);
  };
  auto c01 = [](double x) { return std::min(1.0, std::max(0.0, x)); };
  ks("beta(0.5, 0.5) (arcsine; Johnk)", g.beta(0.5, 0.5, {n}, {100000}), [&](double x) { return c01(2 / pi * std::asin(std::sqrt(c01(x)))); });
  ks("beta(2, 3) (gammas)", g.beta<float>(2, 3, {n}, {100000}), [&](double x) {
    x = c01(x);
    return 6 * x * x * (1 - x) * (1 - x) + 4 * x * x * x * (1 - x) + x * x * x * x;
  });
  ks("f(2, 2)", g.f(2, 2, {n}), [](double x) { return x <= 0 ? 0.0 : x / (1 + x); });
  ks("standard_t(1)", g.standard_t(1, {n}), [&](double x) { return 0.5 + std::atan(x) / pi; });
  ks("standard_t(2)", g.standard_t(2, {n}), [](double x) { return 0.5 + x / (2 * std::sqrt(2 + x * x)); });
  ks("laplace(1, 2)", g.laplace(1, 2, {n}), [](double x) { return x < 1 ? 0.5 * std::exp((x - 1) / 2) : 1 - 0.5 * std::exp(-(x - 1) / 2); });
  ks("logistic(-1, 0.5)", g.logistic(-1, 0.5, {n}), [](double x) { return 1 / (1 + std::exp(-(x + 1) / 0.5)); });
  ks("gumbel(2, 3)", g.gumbel(2, 3, {n}), [](double x) { return std::exp(-std::exp(-(x - 2) / 3)); });
  ks("weibull(1.5)", g.weibull(1.5, {n}), [](double x) { return x <= 0 ? 0.0 : -std::expm1(-std::pow(x, 1.5)); });
  ks("pareto(3)", g.pareto(3, {n}), [](double x) { return x <= 0 ? 0.0 : 1 - std::pow(1 + x, -3.0); });
  ks("rayleigh(2)", g.rayleigh<float>(2, {n}), [](double x) { return x <= 0 ? 0.0 : -std::expm1(-x * x / 8); });
  ks("power(2.5)", g.power(2.5, {n}), [&](double x) { return std::pow(c01(x), 2.5); });
  ks("standard_cauchy", g.standard_cauchy({n}), [&](double x) { return 0.5 + std::atan(x) / pi; });
  ks("triangular(-1, 0.5, 2)", g.triangular(-1, 0.5, 2, {n}), [&](double x) {
    if (x <= -1) return 0.0;
    if (x >= 2) return 1.0;
    return x <= 0.5 ? (x + 1) * (x + 1) / (3 * 1.5) : 1 - (2 - x) * (2 - x) / (3 * 1.5);
  });
  ks("wald(2, 3)", g.wald(2, 3, {n}), [](double x) {
    if (x <= 0) return 0.0;
    const double r = std::sqrt(3 / x);
    return normal_cdf(r * (x / 2 - 1)) + std::exp(2 * 3 / 2.0) * normal_cdf(-r * (x / 2 + 1));
  });
  // the KS test does detect a wrong parameter at this size
  {
    const double d = ks_statistic(ts::compute(g.gumbel(2.05, 3, {n}), P{}), [](double x) { return std::exp(-std::exp(-(x - 2) / 3)); });
    INFO("shifted gumbel KS " << d);
    CHECK(d > ks_critical);
  }
  // Discrete: Pearson chi-square of the counts against the pmf (bins with expectation >= 20, the
  // tails pooled); the statistic stays below dof + 6 sqrt(2 dof) (beyond 4 standard deviations).
  auto gof = [&](const char* what, const auto& arr, auto log_pmf) {
    const auto v = ts::compute(arr, P{});
    std::map<std::int64_t, double> seen;
    for (auto k : v) seen[std::int64_t(k)] += 1;
    std::vector<std::pair<double, double>> bins;  // (observed, expected)
    double obs_rest = double(v.size()), exp_rest = double(v.size());
    for (std::int64_t k = 0; k < 1'000'000; ++k) {
      const double e = double(v.size()) * std::exp(log_pmf(double(k)));
      if (e >= 20) {
        bins.push_back({seen[k], e});
        obs_rest -= seen[k];
        exp_rest -= e;
      } else if (!bins.empty() && e < 1e-3 && exp_rest < 1) {
        break;
      }
    }
    double chi2 = (obs_rest - exp_rest) * (obs_rest - exp_rest) / std::max(exp_rest, 1.0);
    for (auto [o, e] : bins) chi2 += (o - e) * (o - e) / e;
    const double dof = double(bins.size());
    INFO(what << ": chi-square " << chi2 << " over " << dof << " bins");
    CHECK(chi2 < dof + 6 * std::sqrt(2 * dof));
  };
  auto lchoose = [](double a, double b) { return std::lgamma(a + 1) - std::lgamma(b + 1) - std::lgamma(a - b + 1); };
  gof("poisson(3) (Knuth)", g.poisson(3, {n}), [](double k) { return k * std::log(3.0) - 3 - std::lgamma(k + 1); });
  gof("poisson(57.5) (PTRS)", g.poisson(57.5, {n}), [](double k) { return k * std::log(57.5) - 57.5 - std::lgamma(k + 1); });
  gof("binomial(12, 0.35) (inversion)", g.binomial(12, 0.35, {n}), [&](double k) {
    return k > 12 ? -1e300 : lchoose(12, k) + k * std::log(0.35) + (12 - k) * std::log(0.65);
  });
  gof("binomial(5000, 0.7) (beta splitting)", g.binomial(5000, 0.7, {n}), [&](double k) {
    return k > 5000 ? -1e300 : lchoose(5000, k) + k * std::log(0.7) + (5000 - k) * std::log(0.3);
  });
  gof("geometric(0.2)", g.geometric(0.2, {n}), [](double k) { return k < 1 ? -1e300 : (k - 1) * std::log(0.8) + std::log(0.2); });
  gof("negative_binomial(4.5, 0.4)", g.negative_binomial(4.5, 0.4, {n}), [&](double k) {
    return std::lgamma(k + 4.5) - std::lgamma(k + 1) - std::lgamma(4.5) + 4.5 * std::log(0.4) + k * std::log(0.6);
  });
  // edge parameters
  CHECK(ts::amax(g.poisson(0, {1000})).item(P{}) == 0);
  CHECK(ts::amin(g.binomial(7, 1.0, {1000})).item(P{}) == 7);
  CHECK(ts::amax(g.geometric(1.0, {1000})).item(P{}) == 1);
  // chunk and thread invariance: the same values, bitwise, for another chunking
  auto g2 = tr::default_rng(31), g3 = tr::default_rng(31);
  CHECK(testing::bitwise_equal_arrays(ts::compute(g2.binomial(100000, 0.3, {3000}, {7}), P{}),
                                      ts::compute(g3.binomial(100000, 0.3, {3000}, {1000}), P{})));
  CHECK(testing::bitwise_equal_arrays(ts::compute(g2.beta(0.3, 0.7, {50, 60}, {7, 9}), P{}),
                                      ts::compute(g3.beta(0.3, 0.7, {50, 60}, {50, 1}), P{})));
}

TEMPLATE_TEST_CASE("integers: chi-square uniformity and no modulo bias", "[random]", TESSERA_TEST_BACKENDS) {
  using P = TestType;
  auto g = tr::default_rng(4242);
  const index_t n = 1'000'000;
  // p = 1e-4 critical values of chi-square: 9 dof 33.72, 2 dof 18.42
  {
    auto v = ts::compute(g.integers<int>(-3, 7, {n}, {250000}), P{});
    std::vector<double> c(10);
    for (int x : v) {
      REQUIRE(x >= -3);
      REQUIRE(x < 7);
      c[std::size_t(x + 3)] += 1;
    }
    INFO("chi2 " << chi_square(c));
    CHECK(chi_square(c) < 33.72);
  }
  // range 3 * 2^30: plain multiply-shift would give residue 0 mod 3 with probability 1/2;
  // the rejection step makes all three residues 1/3 (a quarter of first tries are rejected).
  auto residues = [&](auto v, auto low) {
    std::vector<double> c(3);
    for (auto x : v) c[std::size_t((x - low) % 3)] += 1;
    return chi_square(c);
  };
  const std::int64_t r32 = 3 * (std::int64_t(1) << 30);
  auto v32 = ts::compute(g.integers<std::int64_t>(-10, r32 - 10, {n}, {250000}), P{});
  CHECK(*std::min_element(v32.begin(), v32.end()) >= -10);
  CHECK(*std::max_element(v32.begin(), v32.end()) < r32 - 10);
  INFO("32-bit residues chi2 " << residues(v32, std::int64_t(-10)));
  CHECK(residues(v32, std::int64_t(-10)) < 18.42);
  const std::uint64_t r64 = 3 * (std::uint64_t(1) << 62);
  auto v64 = ts::compute(g.integers<std::uint64_t>(std::uint64_t(5), r64 + 5, {n}, {250000}), P{});
  INFO("64-bit residues chi2 " << residues(v64, std::uint64_t(5)));
  CHECK(residues(v64, std::uint64_t(5)) < 18.42);
  CHECK(*std::min_element(v64.begin(), v64.end()) >= 5u);
  CHECK(*std::max_element(v64.begin(), v64.end()) < r64 + 5);
  // full ranges of small types
  auto u8 = ts::compute(g.integers<std::uint8_t>(0, 256, {n}), P{});
  std::vector<double> c(256);
  for (auto x : u8) c[x] += 1;
  INFO("uint8 chi2 " << chi_square(c));
  CHECK(chi_square(c) < 255 + 4.5 * std::sqrt(2 * 255.0));
}

TEMPLATE_TEST_CASE("no correlation between consecutive streams and seeds", "[random]", TESSERA_TEST_BACKENDS) {
  using P = TestType;
  const index_t n = 2'000'000;
  auto corr = [](const auto& a, const auto& b) {
    const auto ma = moments_of(a), mb = moments_of(b);
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += (double(a.data()[i]) - ma.mean) * (double(b.data()[i]) - mb.mean);
    return double(s / (a.size() - 1)) / std::sqrt(ma.var * mb.var);
  };
  auto g = tr::default_rng(1);
  auto a = ts::compute(g.standard_normal<double>({n}), P{});
  auto b = ts::compute(g.standard_normal<double>({n}), P{});  // next stream
  auto c = ts::compute(tr::default_rng(2).standard_normal<double>({n}), P{});  // next seed
  auto u0 = ts::compute(g.random<float>({n}), P{});
  auto u1 = ts::compute(g.random<float>({n}), P{});
  const double lim = 5 / std::sqrt(double(n));
  INFO("corr(stream 0, stream 1) " << corr(a, b) << ", corr(seed 1, seed 2) " << corr(a, c)
                                  << ", corr(uniform streams) " << corr(u0, u1));
  CHECK(std::abs(corr(a, b)) < lim);
  CHECK(std::abs(corr(a, c)) < lim);
  CHECK(std::abs(corr(u0, u1)) < lim);
  // neighbours inside one array (lag 1: the sine and cosine of one Box-Muller pair)
  std::vector<double> a0(a.begin(), a.end() - 1), a1(a.begin() + 1, a.end());
  CHECK(std::abs(corr(a0, a1)) < lim);
  CHECK_FALSE(testing::bitwise_equal_arrays(a, b));
}

TEST_CASE("element-wise access: a window of a 1e12-element array costs only the window", "[random]") {
  const index_t big = 1'000'000'000'000;
  auto g = tr::default_rng(31337);
  const double rss0 = ts::peak_resident_mib();

  // 1-D, one chunk of 1e12 elements: bind one small box through the accessor
  auto a = g.standard_normal<double>({big}, {big});
  ts::host_context ctx;
  ts::box bx;
  bx.lo.n = bx.hi.n = 1;
  bx.lo[0] = 567'891'234'567;
  bx.hi[0] = bx.lo[0] + 1000;
  auto acc = a.bind(bx, ctx);
  std::vector<double> win(1000);
  ts::ivec st;
  st.n = 1;
  st[0] = 1;
  ts::write_box(acc, bx, win.data(), st);
  for (index_t k = 0; k < 1000; ++k) REQUIRE(win[std::size_t(k)] == a.function()(bx.lo[0] + k));

  // 2-D 1e6 x 1e6 with huge chunks, viewed through a transpose: a 3 x 10 box of the view
  auto b = g.random<float>({1'000'000, 1'000'000}, {500'000, 1'000'000});
  auto bt = ts::transpose(b);  // element (i, j) of bt is b(j, i): strided lines
  ts::box by;
  by.lo.n = by.hi.n = 2;
  by.lo[0] = 999'990;
  by.hi[0] = 1'000'000;
  by.lo[1] = 123'456;
  by.hi[1] = 123'459;
  auto accb = bt.bind(by, ctx);
  std::vector<float> wb(30);
  ts::ivec sb;
  sb.n = 2;
  sb[0] = 3;
  sb[1] = 1;
  ts::write_box(accb, by, wb.data(), sb);
  for (index_t i = 0; i < 10; ++i)
    for (index_t j = 0; j < 3; ++j)
      REQUIRE(wb[std::size_t(i * 3 + j)] == b.function()((by.lo[1] + j) * 1'000'000 + by.lo[0] + i));

  INFO("peak RSS grew " << ts::peak_resident_mib() - rss0 << " MiB");
  CHECK(ts::peak_resident_mib() - rss0 < 64);

#if !defined(__CUDACC__)
  // the same window of a distribution that counts its element evaluations: exactly 1000
  std::atomic<std::int64_t> calls{0};
  auto counted = g.draw(counted_normal{&calls, {}}, {big}, {big});
  auto acc_counted = counted.bind(bx, ctx);
  ts::write_box(acc_counted, bx, win.data(), st);
  CHECK(calls.load() == 1000);
#endif
}

TEMPLATE_TEST_CASE("views of a 1e12-element random array generate only what they select", "[random]",
                   TESSERA_TEST_BACKENDS) {
  using P = TestType;
  using namespace ts::placeholders;
  const index_t big = 1'000'000'000'000;
  auto g = tr::default_rng(8080);
  // a 1000-element window of a 1-D array held as one 1e12-element chunk
  auto a = g.standard_normal<double>({big}, {big});
  const index_t lo = 765'432'101'234;
  // Bitwise equal to the element function on the host; within 4 ulp on a device backend
  // (its normals use hardware fma; a host build without FMA rounds a*b+c twice).
  const std::int64_t ulps = std::is_same_v<P, ts::host> ? 0 : 4;
  auto w = ts::compute(ts::view(a, ts::range(lo, lo + 1000)), P{});
  REQUIRE(w.size() == 1000);
  for (index_t k = 0; k < 1000; ++k) REQUIRE(testing::ulp_distance(w(std::size_t(k)), a.function()(lo + k)) <= ulps);
  // every 2nd element (one Box-Muller value of each pair) and a 2-D strided corner
  auto e = ts::compute(ts::view(a, ts::range(lo + 1, lo + 2001, 2)), P{});
  for (index_t k = 0; k < 1000; ++k)
    REQUIRE(testing::ulp_distance(e(std::size_t(k)), a.function()(lo + 1 + 2 * k)) <= ulps);
  auto b = g.normal<float>(1, 2, {1'000'000, 1'000'000}, {1000, 1000});
  auto c = ts::compute(ts::view(b, ts::range(500'000, 500'004), ts::range(_, _, 250'000)), P{});
  REQUIRE(c.shape()[0] == 4);
  REQUIRE(c.shape()[1] == 4);
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 4; ++j)
      REQUIRE(testing::ulp_distance(c(std::size_t(i), std::size_t(j)),
                           b.function()((500'000 + i) * 1'000'000 + j * 250'000)) <= ulps);
  // (what each view evaluates is counted exactly in "views evaluate exactly the elements they
  // select" below; generating the whole 1e12-element chunk would not finish)
}

#if !defined(__CUDACC__)
TEST_CASE("views evaluate exactly the elements they select (counted)", "[random]") {
  using namespace ts::placeholders;
  const index_t big = 1'000'000'000'000;
  auto g = tr::default_rng(8081);
  std::atomic<std::int64_t> calls{0};
  auto a = g.draw(counted_normal{&calls, {}}, {big}, {big});
  const index_t lo = 765'432'101'234;
  auto w = ts::compute(ts::view(a, ts::range(lo, lo + 1000)), ts::host{});
  CHECK(calls.exchange(0) == 1000);
  auto e = ts::compute(ts::view(a, ts::range(lo + 1, lo + 2001, 2)), ts::host{});
  CHECK(calls.exchange(0) == 1000);
  auto b = g.draw(counted_normal{&calls, {}}, {1'000'000, 1'000'000}, {1000, 1000});
  auto c = ts::compute(ts::view(b, ts::range(500'000, 500'004), ts::range(_, _, 250'000)), ts::host{});
  CHECK(calls.exchange(0) == 16);
  const double m = ts::item(ts::mean(ts::view(b, ts::range(10, 1'000'000, 499'995), ts::range(7, 9))), ts::host{});
  CHECK(calls.exchange(0) == 4);
  REQUIRE(w.size() == 1000);
  REQUIRE(e.size() == 1000);
  REQUIRE(c.size() == 16);
  CHECK(std::isfinite(m));
}
#endif

TEST_CASE("generators: reproducible, one stream per array, copies replay", "[random]") {
  auto g = tr::default_rng(5);
  auto h = tr::default_rng(5);
  auto x1 = g.random<double>({100}).compute();
  auto x2 = g.random<double>({100}).compute();
  CHECK_FALSE(testing::bitwise_equal_arrays(x1, x2));
  CHECK(testing::bitwise_equal_arrays(h.random<double>({100}).compute(), x1));
  auto k = h;  // copy: replays the same next stream
  CHECK(testing::bitwise_equal_arrays(h.random<double>({100}).compute(), x2));
  CHECK(testing::bitwise_equal_arrays(k.random<double>({100}).compute(), x2));
  CHECK(g.stream() == 2);
  CHECK(g.seed() == 5);
  // a different seed gives different numbers
  CHECK_FALSE(testing::bitwise_equal_arrays(tr::default_rng(6).random<double>({100}).compute(), x1));
  // a rejected call does not consume a stream
  CHECK_THROWS(g.normal<double>(0, -1, {10}));
  CHECK(g.stream() == 2);
  // value ranges and special parameters
  auto u = g.uniform<float>(2, 2.0000002, {100000}).compute();
  for (float v : u) REQUIRE((v >= 2.0f && v < 2.0000002f));
  auto z = g.normal<double>(3, 0, {10}).compute();
  for (double v : z) CHECK(v == 3);
  auto b0 = g.bernoulli(0, {1000}).compute();
  auto b1 = g.bernoulli(1, {1000}).compute();
  CHECK(std::count(b0.begin(), b0.end(), true) == 0);
  CHECK(std::count(b1.begin(), b1.end(), false) == 0);
  auto e = g.exponential<float>(1, {100000}).compute();
  CHECK(*std::min_element(e.begin(), e.end()) >= 0);
  auto g0 = g.gamma<double>(0, 1, {10}).compute();
  for (double v : g0) CHECK(v == 0);
  auto gs = g.gamma<double>(0.05, 1, {100000}).compute();
  CHECK(*std::min_element(gs.begin(), gs.end()) >= 0);
  auto c1 = g.integers<int>(7, 8, {50}).compute();
  for (int v : c1) CHECK(v == 7);
}

TEST_CASE("invalid parameters throw std::invalid_argument naming the value", "[random]") {
  auto g = tr::default_rng(0);
  const double nan = std::nan("");
  auto throws_with = [](auto f, const std::string& text) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      INFO("message: " << e.what());
      CHECK(std::string(e.what()).find(text) != std::string::npos);
      return;
    }
    FAIL("no std::invalid_argument thrown, expected one mentioning " << text);
  };
  throws_with([&] { g.normal<double>(0, -1.5, {3}); }, "-1.5");
  throws_with([&] { g.normal<double>(nan, 1, {3}); }, "nan");
  throws_with([&] { g.normal<float>(0, nan, {3}); }, "nan");
  throws_with([&] { g.uniform<double>(2, 1, {3}); }, "2");
  throws_with([&] { g.uniform<double>(1, 1, {3}); }, "low (1)");
  throws_with([&] { g.uniform<float>(0, std::numeric_limits<double>::infinity(), {3}); }, "inf");
  throws_with([&] { g.exponential<double>(-2, {3}); }, "-2");
  throws_with([&] { g.lognormal<double>(0, -0.5, {3}); }, "-0.5");
  throws_with([&] { g.gamma<double>(-1, 1, {3}); }, "-1");
  throws_with([&] { g.chisquare<double>(0, {3}); }, "df (0)");
  throws_with([&] { g.gamma<double>(1, nan, {3}); }, "nan");
  throws_with([&] { g.bernoulli(1.25, {3}); }, "1.25");
  throws_with([&] { g.bernoulli(-0.1, {3}); }, "-0.1");
  throws_with([&] { g.bernoulli(nan, {3}); }, "nan");
  throws_with([&] { g.integers<int>(5, 5, {3}); }, "5");
  throws_with([&] { g.integers<std::uint8_t>(0, 257, {3}); }, "257");
  throws_with([&] { g.integers<std::uint8_t>(-1, 10, {3}); }, "-1");
  throws_with([&] { g.beta(0, 1, {3}); }, "a (0)");
  throws_with([&] { g.f(1, -2, {3}); }, "dfden (-2)");
  throws_with([&] { g.standard_t(nan, {3}); }, "df (nan)");
  throws_with([&] { g.poisson(-1, {3}); }, "lam (-1)");
  throws_with([&] { g.binomial(-3, 0.5, {3}); }, "n (-3)");
  throws_with([&] { g.binomial(3, 1.5, {3}); }, "p (1.5)");
  throws_with([&] { g.negative_binomial(2, 0, {3}); }, "p (0)");
  throws_with([&] { g.geometric(0, {3}); }, "p (0)");
  throws_with([&] { g.laplace(0, -1, {3}); }, "scale (-1)");
  throws_with([&] { g.pareto(0, {3}); }, "a (0)");
  throws_with([&] { g.triangular(0, 2, 1, {3}); }, "0, 2, 1");
  throws_with([&] { g.wald(1, 0, {3}); }, "scale (0)");
  CHECK(g.stream() == 0);
}

TEMPLATE_TEST_CASE("permutation and choice: bijections, chunk-invariant, uniform; weighted and without replacement",
                   "[random][permutation]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = testing::test_seed(71125);
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  for (index_t n : {index_t(0), index_t(1), index_t(2), index_t(3), index_t(17), index_t(1000), index_t(65537)}) {
    auto g = ts::random::default_rng(seed + std::uint64_t(n));
    const auto shape = ts::shape_t{n};
    auto a = ts::random::default_rng(seed + std::uint64_t(n)).permutation(n, testing::random_chunks(rng, shape));
    auto p = ts::compute(g.permutation(n, testing::random_chunks(rng, shape)), pol);
    INFO("n " << n);
    CHECK(testing::bitwise_equal_arrays(ts::compute(a, pol), p));  // the same for any chunking
    std::vector<index_t> sorted(p.begin(), p.end());
    std::sort(sorted.begin(), sorted.end());
    bool is_perm = true;
    for (index_t i = 0; i < n; ++i) is_perm = is_perm && sorted[std::size_t(i)] == i;
    CHECK(is_perm);
    if (n >= 17) {  // a slice computes only its elements, the same ones
      auto s = ts::compute(ts::view(a, ts::range(3, n, 5)), pol);
      for (std::size_t k = 0; k < s.size(); ++k) CHECK(s(k) == p(3 + 5 * k));
    }
  }
  // every order of 4 elements about equally often (24 orders, chi-square, 23 dof, p = 0.001)
  {
    auto g = ts::random::default_rng(seed);
    std::vector<double> counts(24, 0.0);
    for (int t = 0; t < 4800; ++t) {
      const auto f = g.permutation(4).function();  // the element function, on the host
      int code = 0;
      std::vector<int> left{0, 1, 2, 3};
      for (index_t i = 0; i < 4; ++i) {  // the permutation's rank among the 24
        const auto pos = std::find(left.begin(), left.end(), int(f(i))) - left.begin();
        code = code * int(4 - i) + int(pos);
        left.erase(left.begin() + pos);
      }
      counts[std::size_t(code)] += 1;
    }
    INFO("chi2 " << chi_square(counts));
    CHECK(chi_square(counts) < 49.73);
  }
  // choice with replacement: uniform over 7 values (6 dof)
  auto g = ts::random::default_rng(seed);
  const auto c = ts::compute(g.choice(7, {70000}, {9000}), pol);
  std::vector<double> counts(7, 0.0);
  index_t outside = 0;
  for (auto v : c) {
    if (v < 0 || v >= 7) ++outside;
    else counts[std::size_t(v)] += 1;
  }
  CHECK(outside == 0);
  INFO("chi2 " << chi_square(counts));
  CHECK(chi_square(counts) < 22.46);
  // without replacement: distinct
  const auto d = ts::compute(g.choice(50, {5, 8}, {2, 3}, false), pol);
  std::vector<index_t> dv(d.begin(), d.end());
  std::sort(dv.begin(), dv.end());
  CHECK(std::adjacent_find(dv.begin(), dv.end()) == dv.end());
  CHECK((dv.front() >= 0 && dv.back() < 50));
  // weighted: a zero-probability value never drawn, the others at their rates (2 dof)
  const std::vector<double> prob{0.1, 0.0, 0.6, 0.3};
  const auto w = ts::compute(g.choice(prob, {100000}, {30000}), pol);
  std::vector<double> wc(4, 0.0);
  for (auto v : w) wc[std::size_t(v)] += 1;
  CHECK(wc[1] == 0);
  double x2 = 0;
  for (int k : {0, 2, 3}) {
    const double e = 100000 * prob[std::size_t(k)];
    x2 += (wc[std::size_t(k)] - e) * (wc[std::size_t(k)] - e) / e;
  }
  INFO("weighted chi2 " << x2);
  CHECK(x2 < 13.82);
  // from an array, and an array's rows shuffled (each row intact)
  auto a = ts::arange<double>(0.5, 10.0, 1.0);
  index_t not_in_a = 0;
  for (double v : ts::compute(g.choice(a, {40}, {7}), pol)) not_in_a += !(v - 0.5 == std::floor(v) && v < 10);
  CHECK(not_in_a == 0);
  const xt::xarray<double> md = testing::random_data<double>(rng, {6, 3});
  const auto shuffled = ts::compute(g.permutation(ts::from_xtensor(md, {4, 2}), 0), pol);
  std::vector<std::vector<double>> r1, r2;
  for (std::size_t i = 0; i < 6; ++i) {
    r1.push_back({md(i, 0), md(i, 1), md(i, 2)});
    r2.push_back({shuffled(i, 0), shuffled(i, 1), shuffled(i, 2)});
  }
  std::sort(r1.begin(), r1.end());
  std::sort(r2.begin(), r2.end());
  CHECK(r1 == r2);
  // errors name the value
  CHECK_THROWS_MATCHING(g.choice(5, {6}, {}, false), ts::invalid_argument, Catch::Contains("cannot take 6 samples from 5"));
  CHECK_THROWS_MATCHING(g.choice(std::vector<double>{0.5, 0.6}, {3}), ts::invalid_argument, Catch::Contains("sum to 1.1"));
  CHECK_THROWS_MATCHING(g.choice(std::vector<double>{0.5, -0.5, 1}, {3}), ts::invalid_argument, Catch::Contains("p[1] = -0.5"));
  CHECK_THROWS_MATCHING(g.choice(0, {3}), ts::invalid_argument, Catch::Contains("n (0) must be > 0"));
}

TEMPLATE_TEST_CASE("multinomial, dirichlet and vonmises: sums, moments, ranges, chunk invariance",
                   "[random][vector_valued]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = testing::test_seed(81125);
  INFO("seed " << seed);
  // multinomial: every row sums to n; component means n p within 5 standard errors
  {
    const std::vector<double> p{0.2, 0.0, 0.5, 0.3};
    const std::int64_t n = 40;
    auto g = ts::random::default_rng(seed);
    auto m = g.multinomial(n, p, {20000}, {3000});
    CHECK(m.shape() == ts::shape_t{20000, 4});
    const auto c = ts::compute(m, pol);
    const auto c2 = ts::compute(ts::random::default_rng(seed).multinomial(n, p, {20000}, {7000}), pol);
    CHECK(testing::bitwise_equal_arrays(c, c2));
    index_t bad_rows = 0;
    std::vector<double> mean(4, 0.0);
    for (std::size_t r = 0; r < 20000; ++r) {
      std::int64_t s = 0;
      for (std::size_t j = 0; j < 4; ++j) {
        s += c(r, j);
        mean[j] += double(c(r, j)) / 20000;
      }
      bad_rows += s != n;
    }
    CHECK(bad_rows == 0);
    for (std::size_t j = 0; j < 4; ++j) {
      const double se = std::sqrt(double(n) * p[j] * (1 - p[j]) / 20000);
      INFO("component " << j << " mean " << mean[j]);
      CHECK(std::abs(mean[j] - double(n) * p[j]) <= 5 * se + 1e-12);
    }
    CHECK(ts::sum(ts::random::default_rng(seed).multinomial(0, p, {3})).item(pol) == 0);  // n = 0: all zeros
  }
  // dirichlet: rows sum to 1; means alpha / sum(alpha)
  {
    const std::vector<double> alpha{0.5, 2.0, 3.5};
    auto g = ts::random::default_rng(seed + 1);
    const auto d = ts::compute(g.dirichlet(alpha, {30000}, {4096}), pol);
    double worst = 0;
    std::vector<double> mean(3, 0.0);
    for (std::size_t r = 0; r < 30000; ++r) {
      double s = 0;
      for (std::size_t j = 0; j < 3; ++j) {
        s += d(r, j);
        mean[j] += d(r, j) / 30000;
      }
      worst = std::max(worst, std::abs(s - 1));
    }
    CHECK(worst < 1e-14);
    const double a0 = 6.0;
    for (std::size_t j = 0; j < 3; ++j) {
      const double m = alpha[j] / a0, var = m * (1 - m) / (a0 + 1);
      INFO("component " << j << " mean " << mean[j]);
      CHECK(std::abs(mean[j] - m) <= 5 * std::sqrt(var / 30000));
    }
  }
  // vonmises: angles in [-pi, pi]; E cos(x - mu) = I1(kappa) / I0(kappa); E sin(x - mu) = 0
  for (double kappa : {0.0, 0.5, 4.0, 2e6}) {
    const double mu = 1.0;
    auto g = ts::random::default_rng(seed + 2);
    const auto v = ts::compute(g.vonmises(mu, kappa, {200000}, {50000}), pol);
    double c = 0, s = 0;
    index_t outside = 0;
    for (double x : v) {
      outside += !(x >= -M_PI && x <= M_PI);
      c += std::cos(x - mu) / 200000;
      s += std::sin(x - mu) / 200000;
    }
    const double want = kappa == 0 ? 0.0 : std::cyl_bessel_i(1.0, std::min(kappa, 700.0)) / std::cyl_bessel_i(0.0, std::min(kappa, 700.0));
    INFO("kappa " << kappa << " E cos " << c << " want " << want << " E sin " << s);
    CHECK(outside == 0);
    CHECK(std::abs(c - (kappa > 1e6 ? 1 - 0.5 / kappa : want)) <= 5 * std::sqrt(0.5 / 200000));
    CHECK(std::abs(s) <= 5 * std::sqrt(0.5 / 200000));
  }
  auto g = ts::random::default_rng(seed);
  CHECK_THROWS_MATCHING(g.multinomial(5, {0.6, 0.6, 0.1}, {2}), ts::invalid_argument, Catch::Contains("sum(pvals[:-1]) = 1.2"));
  CHECK_THROWS_MATCHING(g.multinomial(5, {0.5, -0.1}, {2}), ts::invalid_argument, Catch::Contains("pvals[1] = -0.1"));
  CHECK_THROWS_MATCHING(g.dirichlet({1.0, 0.0}, {2}), ts::invalid_argument, Catch::Contains("alpha[1] = 0"));
  CHECK_THROWS_MATCHING(g.vonmises(0.0, -1.0, {2}), ts::invalid_argument, Catch::Contains("kappa (-1)"));
}
