// exp and log of host element code (core/host_math.hpp): within 1 ulp (exp) and 2 ulp (log) of
// glibc over the whole range, IEEE special values, and the same through ts::exp / ts::log.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include <tessera/tessera.hpp>

#include "support/cases.hpp"

namespace ts = tessera;
namespace hm = tessera::host_math;

namespace {

/// |got - want| in units of the last place of want (0 when both are NaN or equal; a huge
/// number when one is infinite and the other not).
template <class T>
double ulps(T got, T want) {
  if ((got != got) && (want != want)) return 0;
  if (got == want) return 0;
  if (std::isinf(got) || std::isinf(want) || (got != got) || (want != want)) return 1e300;
  const T a = std::fabs(want);
  const T u = std::nextafter(a, std::numeric_limits<T>::infinity()) - a;
  return std::fabs(double(got) - double(want)) / double(u);
}

/// A random finite non-negative value of any binade (subnormals included): random bits.
template <class T>
T any_positive(std::mt19937_64& rng) {
  using U = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  while (true) {
    U b = U(rng()) & (U(~U(0)) >> 1);
    T x;
    std::memcpy(&x, &b, sizeof x);
    if (std::isfinite(x)) return x;
  }
}

template <class T>
void check_range(std::mt19937_64& rng, T lo, T hi) {
  std::uniform_real_distribution<T> in(lo, hi);
  double worst_exp = 0, worst_log = 0;
  T at_exp = 0, at_log = 0;
  for (int i = 0; i < 400000; ++i) {
    const T x = in(rng);
    const double e = ulps(hm::exp(x), T(std::exp(x)));
    if (e > worst_exp) worst_exp = e, at_exp = x;
    const T y = any_positive<T>(rng);
    const double l = ulps(hm::log(y), T(std::log(y)));
    if (l > worst_log) worst_log = l, at_log = y;
    const T z = in(rng) * T(0.01) + T(1);  // near 1, where log is small
    const double l1 = ulps(hm::log(z), T(std::log(z)));
    if (l1 > worst_log) worst_log = l1, at_log = z;
  }
  INFO("worst exp " << worst_exp << " ulp at " << at_exp << ", worst log " << worst_log
                    << " ulp at " << at_log);
  CHECK(worst_exp <= 1);
  CHECK(worst_log <= 2);
}

}  // namespace

TEST_CASE("host exp and log are within 1 and 2 ulp of libm", "[math]") {
  const auto seed = testing::test_seed(24);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  check_range<double>(rng, -746.0, 710.0);
  check_range<float>(rng, -104.0f, 89.0f);
}

TEST_CASE("host exp and log give IEEE special values", "[math]") {
  using L = std::numeric_limits<double>;
  using F = std::numeric_limits<float>;
  CHECK(hm::exp(0.0) == 1.0);
  CHECK(hm::exp(-0.0) == 1.0);
  CHECK(hm::exp(L::infinity()) == L::infinity());
  CHECK(hm::exp(-L::infinity()) == 0.0);
  CHECK(std::isnan(hm::exp(L::quiet_NaN())));
  CHECK(hm::exp(710.0) == L::infinity());
  CHECK(hm::exp(-746.0) == 0.0);
  CHECK(hm::exp(-745.0) == std::exp(-745.0));  // the smallest subnormal
  CHECK(hm::log(1.0) == 0.0);
  CHECK(hm::log(0.0) == -L::infinity());
  CHECK(hm::log(-0.0) == -L::infinity());
  CHECK(std::isnan(hm::log(-1.0)));
  CHECK(std::isnan(hm::log(-L::infinity())));
  CHECK(std::isnan(hm::log(L::quiet_NaN())));
  CHECK(hm::log(L::infinity()) == L::infinity());
  CHECK(hm::log(L::denorm_min()) == std::log(L::denorm_min()));
  CHECK(hm::log(L::max()) == std::log(L::max()));
  CHECK(hm::exp(0.0f) == 1.0f);
  CHECK(hm::exp(F::infinity()) == F::infinity());
  CHECK(hm::exp(-F::infinity()) == 0.0f);
  CHECK(std::isnan(hm::exp(F::quiet_NaN())));
  CHECK(hm::log(0.0f) == -F::infinity());
  CHECK(std::isnan(hm::log(-2.0f)));
  CHECK(hm::log(F::infinity()) == F::infinity());
  CHECK(ulps(hm::log(F::denorm_min()), std::log(F::denorm_min())) <= 2);
}

TEST_CASE("ts::exp and ts::log of arrays use them, in every chunk kernel", "[math]") {
  auto x = ts::from_xtensor(xt::xarray<double>{{-800, -1, 0, 1e-310}, {0.5, 1, 700, 800}}, {1, 3});
  const auto e = ts::compute(ts::exp(x), ts::host{.threads = 2});
  const auto l = ts::compute(ts::log(ts::abs(x)), ts::host{.threads = 2});
  const xt::xarray<double> xs = ts::compute(x);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    INFO("x = " << xs.flat(i));
    CHECK(ulps(e.flat(i), std::exp(xs.flat(i))) <= 1);
    CHECK(ulps(l.flat(i), std::log(std::fabs(xs.flat(i)))) <= 2);
  }
}
