// A distribution defined outside the library, from a consumer's point of view (docs/random.md,
// "Your own distribution"): only the public API (ts::random::distribution, generator::draw, the
// conv helpers and site). Checks a Rayleigh distribution bitwise against an identity with a
// built-in one, for any shape, chunking and strided view, and statistically; a rejection
// sampler on the retry sub-streams (site.retry); the generator's stream bookkeeping.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <tessera/tessera.hpp>
#include <tessera/random.hpp>

#include "support/backends.hpp"
#include "support/cases.hpp"

namespace user {  // outside namespace tessera, as a consumer's code is

namespace tr = tessera::random;

// Rayleigh(sigma): sigma sqrt(-2 log u), u in (0, 1] with 53 bits from two words, so two
// elements per Philox block. (docs/random.md shows this same struct.)
struct rayleigh {
  using value_type = double;
  static constexpr int epb = 2;  // element i: words 2 (i % 2), 2 (i % 2) + 1 of block i / 2
  double sigma = 1;
  TESSERA_HD double element(const tr::u32x4& w, int slot, const tr::site&) const {
    return sigma * tr::math::sqrt(tr::conv::radius2(w.v[2 * slot], w.v[2 * slot + 1]));
  }
};

// The same distribution with the optional host batch member `blocks` (nb consecutive blocks at
// once, here a loop the compiler vectorizes); it must give the same bits as element().
struct rayleigh_batched : rayleigh {
  void blocks(const std::uint32_t* x, const std::uint32_t* y, const std::uint32_t* z,
              const std::uint32_t* w, int nb, double* out, const tr::site&) const {
    for (int j = 0; j < nb; ++j) {
      out[2 * j] = sigma * tr::math::sqrt(tr::conv::radius2(x[j], y[j]));
      out[2 * j + 1] = sigma * tr::math::sqrt(tr::conv::radius2(z[j], w[j]));
    }
  }
};

// The standard normal truncated to [lo, hi], by rejection: one element per block. Element i
// tries the Box-Muller pair of its own block, then the pairs of block i of its retry
// sub-streams j = 1, 2, ... (site.retry(j)); after max_retries more blocks it returns lo.
struct truncated_normal {
  using value_type = double;
  static constexpr int epb = 1;
  static constexpr int max_retries = 64;
  double lo = 0, hi = 1;
  TESSERA_HD bool accept(double z) const { return z >= lo && z <= hi; }
  TESSERA_HD double element(const tr::u32x4& w, int, const tr::site& s) const {
    tr::u32x4 b = w;
    for (int j = 0; j <= max_retries; ++j) {
      if (j > 0) b = s.retry(std::uint64_t(j));
      double z0, z1;
      tr::conv::box_muller(b.v[0], b.v[1], b.v[2], b.v[3], z0, z1);
      if (accept(z0)) return z0;
      if (accept(z1)) return z1;
    }
    return lo;
  }
};

// Types that are not distributions, one requirement missing each.
struct no_value_type {
  static constexpr int epb = 1;
  double element(const tr::u32x4&, int, const tr::site&) const { return 0; }
};
struct bad_epb {
  using value_type = double;
  static constexpr int epb = 3;
  double element(const tr::u32x4&, int, const tr::site&) const { return 0; }
};
struct long_double_values {
  using value_type = long double;
  static constexpr int epb = 1;
  long double element(const tr::u32x4&, int, const tr::site&) const { return 0; }
};
struct not_plain_data {
  using value_type = double;
  static constexpr int epb = 1;
  std::vector<double> table;
  double element(const tr::u32x4&, int, const tr::site&) const { return 0; }
};
struct non_const_element {
  using value_type = double;
  static constexpr int epb = 1;
  double element(const tr::u32x4&, int, const tr::site&) { return 0; }
};
struct wrong_result_type {
  using value_type = double;
  static constexpr int epb = 1;
  float element(const tr::u32x4&, int, const tr::site&) const { return 0; }
};

}  // namespace user

namespace ts = tessera;
namespace tr = tessera::random;
using ts::index_t;

static_assert(tr::distribution<user::rayleigh>);
static_assert(tr::distribution<user::rayleigh_batched>);
static_assert(tr::distribution<user::truncated_normal>);
static_assert(tr::distribution<tr::normal_dist<float>>);  // the built-ins are distributions too
static_assert(tr::distribution<tr::integers_dist<std::uint8_t>>);
static_assert(tr::distribution<tr::bernoulli_dist>);
static_assert(!tr::distribution<user::no_value_type>);
static_assert(!tr::distribution<user::bad_epb>);
static_assert(!tr::distribution<user::long_double_values>);
static_assert(!tr::distribution<user::not_plain_data>);
static_assert(!tr::distribution<user::non_const_element>);
static_assert(!tr::distribution<user::wrong_result_type>);
static_assert(!tr::distribution<double>);
static_assert(std::is_same_v<decltype(std::declval<tr::generator&>().draw(user::rayleigh{}, {3})),
                             tr::random_array<user::rayleigh>>);

namespace {

/// Bitwise comparison of two doubles (distinguishes -0.0 and NaN payloads).
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

double normal_pdf(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI); }
double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

}  // namespace

TEMPLATE_TEST_CASE("user distribution: Rayleigh equals sigma sqrt(2 exponential(1)) bitwise",
                   "[random][extend]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = testing::test_seed(31);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int iters = testing::test_iterations(12);
  for (int it = 0; it < iters; ++it) {
    const ts::shape_t shape = testing::random_shape(rng, 1, 3, 40);
    const ts::chunks_t chunks = testing::random_chunks(rng, shape);
    const double sigma = 0.25 + double(rng() % 16) / 4;
    // both arrays read the same stream of the same seed: the exponential's element i is
    // -log(u) (times scale 1) from the same two words as the Rayleigh's -2 log(u); doubling
    // and negating are exact, so the square roots see the same double
    tr::generator g(rng(), rng() % 1000);
    auto h = g;
    auto k = g;
    const std::uint64_t stream = g.stream();
    auto r = g.draw(user::rayleigh{sigma}, shape, chunks);
    auto e = h.exponential<double>(1.0, shape, chunks);
    auto rb = k.draw(user::rayleigh_batched{{sigma}}, shape);
    INFO("iteration " << it << " shape " << testing::describe(shape) << " chunks "
                      << testing::describe(chunks) << " sigma "
                      << sigma << " stream " << stream);
    CHECK(g.stream() == stream + 1);
    const auto got = ts::compute(r, pol);
    const auto want = ts::compute(sigma * ts::sqrt(2.0 * e), pol);
    REQUIRE(testing::bitwise_equal_arrays(got, want));
    // the optional host batch member changes nothing, and neither does any chunking
    CHECK(testing::bitwise_equal_arrays(ts::compute(rb, pol), got));
    // the element function alone (what a view or a device thread evaluates)
    for (std::size_t f = 0; f < got.size(); ++f)
      REQUIRE(same_bits(got.data()[f], r.function()(index_t(f))));
  }
}

TEMPLATE_TEST_CASE("user distribution: same values for any chunking and strided view",
                   "[random][extend]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  using namespace ts::placeholders;
  const auto seed = testing::test_seed(32);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int iters = testing::test_iterations(10);
  for (int it = 0; it < iters; ++it) {
    const index_t n0 = 1 + index_t(rng() % 60), n1 = 1 + index_t(rng() % 60);
    const ts::shape_t shape{n0, n1};
    const ts::chunks_t c1 = testing::random_chunks(rng, shape), c2 = testing::random_chunks(rng, shape);
    const tr::generator g(rng());
    INFO("iteration " << it << " shape " << testing::describe(shape) << " chunks "
                      << testing::describe(c1) << " and " << testing::describe(c2));
    auto a = g;
    auto b = g;
    auto whole = ts::compute(a.draw(user::rayleigh_batched{{2.0}}, shape, {n0, n1}), pol);
    auto x = b.draw(user::rayleigh_batched{{2.0}}, shape, c1);
    REQUIRE(testing::bitwise_equal_arrays(ts::compute(x, pol), whole));
    REQUIRE(testing::bitwise_equal_arrays(ts::compute(ts::rechunk(x, c2), pol), whole));
    // a strided window: rows lo0, lo0 + s0, ... and columns hi1 - 1, hi1 - 1 - s1, ... (downward)
    const index_t lo0 = index_t(rng() % std::uint64_t(n0)), s0 = 1 + index_t(rng() % 4);
    const index_t hi1 = 1 + index_t(rng() % std::uint64_t(n1)), s1 = 1 + index_t(rng() % 3);
    INFO("rows " << lo0 << "::" << s0 << ", columns " << hi1 - 1 << "::-" << s1);
    const auto v = ts::compute(ts::view(x, ts::range(lo0, _, s0), ts::range(hi1 - 1, _, -s1)), pol);
    const index_t m0 = (n0 - lo0 + s0 - 1) / s0, m1 = (hi1 + s1 - 1) / s1;
    REQUIRE(v.shape().size() == 2);
    REQUIRE(index_t(v.shape()[0]) == m0);
    REQUIRE(index_t(v.shape()[1]) == m1);
    for (index_t i = 0; i < m0; ++i)
      for (index_t j = 0; j < m1; ++j)
        REQUIRE(same_bits(v(std::size_t(i), std::size_t(j)),
                          whole(std::size_t(lo0 + i * s0), std::size_t(hi1 - 1 - j * s1))));
  }
}

TEMPLATE_TEST_CASE("user distribution: Rayleigh mean and variance", "[random][extend]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const double sigma = 1.5;
  const index_t n = 4'000'000;
  auto g = tr::default_rng(testing::test_seed(2718));
  auto x = g.draw(user::rayleigh_batched{{sigma}}, {n}, {1 << 19});
  const double mean = ts::item(ts::mean(x), pol);
  const double var = ts::item(ts::variance(x, {.ddof = 1}), pol);
  // Rayleigh: mean sigma sqrt(pi / 2), variance (4 - pi) / 2 sigma^2, excess kurtosis
  // -(6 pi^2 - 24 pi + 16) / (4 - pi)^2. Tolerances: 5 standard errors of the sample mean
  // (sqrt(var / n)) and of the sample variance (sqrt((mu4 - var^2) / n)); a correct generator
  // fails either with probability below 1e-6.
  const double want_mean = sigma * std::sqrt(M_PI / 2), want_var = (4 - M_PI) / 2 * sigma * sigma;
  const double kurt = 3 - (6 * M_PI * M_PI - 24 * M_PI + 16) / ((4 - M_PI) * (4 - M_PI));
  const double mu4 = kurt * want_var * want_var;
  INFO("mean " << mean << " (want " << want_mean << "), variance " << var << " (want "
               << want_var << ")");
  CHECK(std::abs(mean - want_mean) < 5 * std::sqrt(want_var / double(n)));
  CHECK(std::abs(var - want_var) < 5 * std::sqrt((mu4 - want_var * want_var) / double(n)));
}

TEMPLATE_TEST_CASE("user rejection sampler on the retry sub-streams: chunking invariance, bounds",
                   "[random][extend]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = testing::test_seed(33);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // [0.5, 2] keeps 28.6 % of normals: about half of the elements reject both values of their
  // own block and go on to site.retry(1), ...
  const user::truncated_normal d{0.5, 2.0};
  const int iters = testing::test_iterations(12);
  for (int it = 0; it < iters; ++it) {
    const ts::shape_t shape = testing::random_shape(rng, 1, 3, 30);
    const ts::chunks_t chunks = testing::random_chunks(rng, shape);
    const tr::generator g(rng(), rng() % 100);
    INFO("iteration " << it << " shape " << testing::describe(shape) << " chunks "
                      << testing::describe(chunks));
    auto a = g;
    auto b = g;
    auto x = a.draw(d, shape, chunks);
    const auto got = ts::compute(x, pol);
    REQUIRE(testing::bitwise_equal_arrays(got, ts::compute(b.draw(d, shape), pol)));
    for (std::size_t f = 0; f < got.size(); ++f) {
      INFO("element " << f << " = " << got.data()[f]);
      REQUIRE(same_bits(got.data()[f], x.function()(index_t(f))));
      REQUIRE((got.data()[f] >= 0.5 && got.data()[f] <= 2.0));
    }
  }
  // the distribution of the accepted values: mean of N(0, 1) truncated to [a, b] is
  // (pdf(a) - pdf(b)) / Z, Z = cdf(b) - cdf(a); tolerance 5 standard errors
  const index_t n = 1'000'000;
  auto g = tr::default_rng(testing::test_seed(34));
  const auto v = ts::compute(g.draw(d, {n}, {1 << 17}), pol);
  const double z = normal_cdf(2.0) - normal_cdf(0.5);
  const double want_mean = (normal_pdf(0.5) - normal_pdf(2.0)) / z;
  const double want_var = 1 + (0.5 * normal_pdf(0.5) - 2.0 * normal_pdf(2.0)) / z - want_mean * want_mean;
  double sum = 0;
  index_t at_lo = 0;
  for (double e : v) {
    sum += e;
    at_lo += e == 0.5;  // the give-up value: never reached (probability ~1e-19 per element)
  }
  const double mean = sum / double(n);
  INFO("mean " << mean << " (want " << want_mean << ")");
  CHECK(std::abs(mean - want_mean) < 5 * std::sqrt(want_var / double(n)));
  CHECK(at_lo == 0);
}

TEST_CASE("draw takes the next stream like the factories; an exhausted generator throws",
          "[random][extend]") {
  auto g = tr::default_rng(5);
  auto u0 = g.random<double>({100});
  auto r1 = g.draw(user::rayleigh{2.0}, {100});
  auto u2 = g.random<double>({100});
  CHECK(g.stream() == 3);
  CHECK(r1.function().stream == 1);
  // a generator starting at stream 1 draws the same array first
  tr::generator h(5, 1);
  CHECK(testing::bitwise_equal_arrays(h.draw(user::rayleigh{2.0}, {100}).compute(), r1.compute()));
  CHECK(testing::bitwise_equal_arrays(h.random<double>({100}).compute(), u2.compute()));
  CHECK_FALSE(testing::bitwise_equal_arrays(tr::default_rng(5).random<double>({100}).compute(), u2.compute()));
  (void)u0;
  // a built-in distribution drawn through draw() is the factory's array
  auto e1 = tr::generator(9, 4).exponential<double>(2.5, {7, 9});
  tr::exponential_dist<double> ed;
  ed.scale = 2.5;
  CHECK(testing::bitwise_equal_arrays(tr::generator(9, 4).draw(ed, {7, 9}).compute(), e1.compute()));
  // rejected arguments consume no stream
  CHECK_THROWS_AS(g.draw(user::rayleigh{}, {10, 10}, {3}), std::invalid_argument);
  CHECK(g.stream() == 3);
  // the last stream below 2^48 can be drawn; after it, draw (and every factory) throws
  tr::generator last(5, tr::max_streams - 1);
  auto r = last.draw(user::truncated_normal{-1, 1}, {10});
  CHECK(r.function().stream == tr::max_streams - 1);
  CHECK(last.stream() == tr::max_streams);
  try {
    last.draw(user::rayleigh{}, {10});
    FAIL("no std::invalid_argument for an exhausted generator");
  } catch (const std::invalid_argument& e) {
    INFO("message: " << e.what());
    CHECK(std::string(e.what()).find("2^48") != std::string::npos);
  }
  CHECK_THROWS_AS(last.normal<double>(0, 1, {10}), std::invalid_argument);
  CHECK(last.stream() == tr::max_streams);
}
