// exp, exp2, log, log2, log10, log1p, expm1, cbrt, sin, cos, tan, the inverse trigonometric and
// the hyperbolic functions, hypot and pow of host element code (core/host_math.hpp): within 1 ulp
// (exp, sin, cos, pow) and 2 ulp (log, tanh) of glibc, exp2, cbrt, log2, log10, log1p, expm1,
// tan, arcsin, arccos, arctan, arctan2 and hypot within 1 ulp and sinh, cosh, arcsinh, arccosh and arctanh
// within 2 ulp of the exact value, over the whole range, IEEE
// special values, and the same through ts::exp / ts::log /
// ts::log2 / ts::log10 / ts::sin / ts::cos / ts::pow (sin, cos and pow: batches bitwise equal to
// per-element calls).
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

/// The worst ulp error seen of a function, and where.
struct worst_ulps {
  double ulp = 0, at = 0;
  void note(double e, double x) {
    if (e > ulp) ulp = e, at = x;
  }
};

/// Checks each function's worst double error against its bound and its float one against 1 ulp,
/// naming the function and the argument of each.
template <std::size_t N>
void check_worst(const char* const (&name)[N], const double (&bound)[N], const worst_ulps (&d)[N],
                 const worst_ulps (&f)[N]) {
  for (std::size_t k = 0; k < N; ++k) {
    INFO(name[k] << ": worst " << d[k].ulp << " ulp at " << d[k].at << ", float " << f[k].ulp
                 << " ulp at " << f[k].at);
    CHECK(d[k].ulp <= bound[k]);
    CHECK(f[k].ulp <= 1);
  }
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

TEST_CASE("host log2 and log10 are within 1 ulp, exact at powers, with IEEE special values", "[math]") {
  const auto seed = testing::test_seed(31);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> near1(-0.01, 0.01);
  double worst = 0, worst_f = 0, at = 0, at_f = 0;
  for (int i = 0; i < 300000; ++i) {
    // any binade (subnormals included), and next to 1 where the logarithms are small
    const double x = (i % 3) ? any_positive<double>(rng) : 1.0 + near1(rng) * ((i % 2) ? 1 : 0x1p-30);
    // against long double (64-bit significand): glibc's double log10 is up to 1.5 ulp off next
    // to 1 (log10(0x1.02302255a3d39p+0): 1.52 ulp), these are within about half an ulp
    const long double xl = x;
    const double e = std::max(ulps(hm::log2(x), double(std::log2(xl))),
                              ulps(hm::log10(x), double(std::log10(xl))));
    if (e > worst) worst = e, at = x;
    const float xf = (i % 3) ? any_positive<float>(rng) : float(x);
    const double ef = std::max(ulps(hm::log2(xf), float(std::log2(double(xf)))),
                               ulps(hm::log10(xf), float(std::log10(double(xf)))));
    if (ef > worst_f) worst_f = ef, at_f = xf;
  }
  INFO("worst " << worst << " ulp at " << at << ", float " << worst_f << " ulp at " << at_f);
  CHECK(worst <= 1);
  CHECK(worst_f <= 1);
  int inexact = 0;
  for (int k = -1074; k <= 1023; ++k) inexact += hm::log2(std::ldexp(1.0, k)) != double(k);
  for (int k = -149; k <= 127; ++k) inexact += hm::log2(std::ldexp(1.0f, k)) != float(k);
  double p = 1;
  for (int k = 0; k <= 22; ++k, p *= 10) inexact += hm::log10(p) != double(k);
  CHECK(inexact == 0);
  const long double above1 = std::nextafter(1.0, 2.0), below1 = std::nextafter(1.0, 0.0);
  CHECK(ulps(hm::log2(double(above1)), double(std::log2(above1))) <= 1);
  CHECK(ulps(hm::log10(double(below1)), double(std::log10(below1))) <= 1);
  using L = std::numeric_limits<double>;
  for (double (*f)(double) : {+[](double v) { return hm::log2(v); }, +[](double v) { return hm::log10(v); }}) {
    CHECK(f(1.0) == 0.0);
    CHECK(!std::signbit(f(1.0)));
    CHECK(f(0.0) == -L::infinity());
    CHECK(f(-0.0) == -L::infinity());
    CHECK(std::isnan(f(-1.0)));
    CHECK(std::isnan(f(-L::denorm_min())));
    CHECK(std::isnan(f(-L::infinity())));
    CHECK(std::isnan(f(L::quiet_NaN())));
    CHECK(f(L::infinity()) == L::infinity());
  }
  CHECK(hm::log2(L::max()) == std::log2(L::max()));
  CHECK(hm::log10(L::denorm_min()) == std::log10(L::denorm_min()));
  CHECK(hm::log2(0.0f) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(hm::log10(-2.0f)));
}

TEST_CASE("host log1p and expm1 are within 1 ulp, exact where they must be, with IEEE special values",
          "[math]") {
  const auto seed = testing::test_seed(47);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0), frac(0.0, 1.0);
  double worst_l = 0, worst_lf = 0, worst_m = 0, worst_mf = 0;
  double at_l = 0, at_lf = 0, at_m = 0, at_mf = 0;
  for (int i = 0; i < 300000; ++i) {
    const double scale = std::ldexp(1.0, -int(rng() % 64));
    // log1p: any magnitude above 0, and small values of both signs down to next to -1
    const double y = (i % 3 == 0) ? any_positive<double>(rng) : frac(rng) * scale * ((i % 3 == 1) ? -1 : 1);
    const double l = ulps(hm::log1p(y), double(std::log1p((long double)y)));
    if (l > worst_l) worst_l = l, at_l = y;
    const float yf = (i % 3 == 0) ? any_positive<float>(rng) : float(y);
    const double lf = ulps(hm::log1p(yf), float(std::log1p(double(yf))));
    if (lf > worst_lf) worst_lf = lf, at_lf = yf;
    // expm1: the whole range (-1 from about -38, overflow from 709.78) and small arguments
    const double z = (i % 2) ? std::uniform_real_distribution<double>(-70.0, 712.0)(rng) : unit(rng) * scale;
    const double m = ulps(hm::expm1(z), double(std::expm1((long double)z)));
    if (m > worst_m) worst_m = m, at_m = z;
    const float zf = float(z);
    const double mf = ulps(hm::expm1(zf), float(std::expm1((long double)zf)));
    if (mf > worst_mf) worst_mf = mf, at_mf = zf;
  }
  INFO("worst expm1 " << worst_m << " ulp at " << at_m << " (float " << worst_mf << " at " << at_mf << ")");
  CHECK(worst_m <= 1);
  CHECK(worst_mf <= 1);
  INFO("worst log1p " << worst_l << " ulp at " << at_l << " (float " << worst_lf
                     << " at " << at_lf << ")");
  CHECK(worst_l <= 1);
  CHECK(worst_lf <= 1);
  using L = std::numeric_limits<double>;
  CHECK(hm::log1p(0.0) == 0.0);
  CHECK(!std::signbit(hm::log1p(0.0)));
  CHECK(std::signbit(hm::log1p(-0.0)));
  CHECK(hm::log1p(L::denorm_min()) == L::denorm_min());
  CHECK(hm::log1p(-1.0) == -L::infinity());
  CHECK(std::isnan(hm::log1p(-1.5)));
  CHECK(std::isnan(hm::log1p(std::nextafter(-1.0, -2.0))));
  CHECK(std::isnan(hm::log1p(-L::infinity())));
  CHECK(std::isnan(hm::log1p(L::quiet_NaN())));
  CHECK(hm::log1p(L::infinity()) == L::infinity());
  CHECK(hm::log1p(L::max()) == std::log1p(L::max()));
  CHECK(hm::log1p(-1.0f) == -std::numeric_limits<float>::infinity());
  CHECK(hm::expm1(0.0) == 0.0);
  CHECK(!std::signbit(hm::expm1(0.0)));
  CHECK(std::signbit(hm::expm1(-0.0)));
  CHECK(hm::expm1(L::denorm_min()) == L::denorm_min());
  CHECK(hm::expm1(-L::denorm_min()) == -L::denorm_min());
  CHECK(hm::expm1(-100.0) == -1.0);
  CHECK(hm::expm1(-L::infinity()) == -1.0);
  CHECK(hm::expm1(710.0) == L::infinity());
  CHECK(hm::expm1(L::infinity()) == L::infinity());
  CHECK(std::isnan(hm::expm1(L::quiet_NaN())));
  CHECK(hm::expm1(709.7) == std::expm1(709.7));
  CHECK(hm::expm1(-0.0f) == 0.0f);
}

TEST_CASE("ts::log1p and ts::expm1 of arrays use them, in every chunk kernel", "[math]") {
  auto x = ts::from_xtensor(
      xt::xarray<double>{{-1100, -1074, -1, -0.5, 0, 1e-300}, {0.75, 1, 3, 52.5, 1023, 2000}}, {1, 4});
  const xt::xarray<double> l1 = ts::compute(ts::log1p(x), ts::host{.threads = 2});
  const xt::xarray<double> m1 = ts::compute(ts::expm1(x), ts::host{.threads = 2});
  const xt::xarray<double> xs = ts::compute(x);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    INFO("x = " << xs.flat(i));
    const double want = hm::log1p(xs.flat(i));
    CHECK(std::memcmp(&l1.flat(i), &want, sizeof want) == 0);  // bitwise (-inf at -1 included)
    CHECK(m1.flat(i) == hm::expm1(xs.flat(i)));
  }
  CHECK(m1(1, 5) == std::numeric_limits<double>::infinity());
  CHECK(m1(0, 0) == -1.0);
  CHECK(l1(0, 2) == -std::numeric_limits<double>::infinity());
}

TEST_CASE("host sinh, cosh, arctan, hypot and arctan2 are within 2, 2, 1, 1 and 1 ulp, with IEEE special values",
          "[math]") {
  const auto seed = testing::test_seed(1128);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  worst_ulps worst[5], worst_f[5];
  for (int i = 0; i < 300000; ++i) {
    // any binade, and the ranges where the formulas change (|x| 1, 22, ln 2 / 2, the arctangent's
    // interval ends, the overflow at about 710.48)
    const double m = (i % 2) ? any_positive<double>(rng)
                             : std::ldexp(std::uniform_real_distribution<double>(1.0, 2.0)(rng),
                                          int(rng() % 14) - 4);
    const double x = (rng() & 1) ? -m : m;
    const long double xl = x;
    if (std::fabs(x) < 710.5) {
      worst[0].note(ulps(hm::sinh(x), double(std::sinh(xl))), x);
      worst[1].note(ulps(hm::cosh(x), double(std::cosh(xl))), x);
    }
    worst[2].note(ulps(hm::atan(x), double(std::atan(xl))), x);
    // hypot and atan2: any two magnitudes, and pairs within a factor 2^30 of each other
    const double y = (i % 3) ? any_positive<double>(rng) : std::ldexp(m, int(rng() % 61) - 30) * 1.37;
    worst[3].note(ulps(hm::hypot(x, y), double(std::hypot(xl, (long double)y))), x);
    const double sy = (rng() & 1) ? -y : y;
    worst[4].note(ulps(hm::atan2(sy, x), double(std::atan2((long double)sy, xl))), x);
    const float xf = float(std::ldexp(std::uniform_real_distribution<double>(-2.0, 2.0)(rng), int(rng() % 12) - 5));
    const float yf = float(y);
    worst_f[0].note(ulps(hm::sinh(xf), float(std::sinh((long double)xf))), xf);
    worst_f[1].note(ulps(hm::cosh(xf), float(std::cosh((long double)xf))), xf);
    worst_f[2].note(ulps(hm::atan(xf), float(std::atan((long double)xf))), xf);
    if (std::isfinite(yf)) {
      worst_f[3].note(ulps(hm::hypot(xf, yf), float(std::hypot((long double)xf, (long double)yf))), xf);
      worst_f[4].note(ulps(hm::atan2(-yf, xf), float(std::atan2(-(long double)yf, (long double)xf))), xf);
    }
  }
  const char* name[5] = {"sinh", "cosh", "atan", "hypot", "atan2"};
  const double bound[5] = {2, 2, 1, 1, 1};
  check_worst(name, bound, worst, worst_f);
  using L = std::numeric_limits<double>;
  const double inf = L::infinity(), nan = L::quiet_NaN();
  CHECK(hm::sinh(0.0) == 0.0);
  CHECK(!std::signbit(hm::sinh(0.0)));
  CHECK(std::signbit(hm::sinh(-0.0)));
  CHECK(hm::sinh(L::denorm_min()) == L::denorm_min());
  CHECK(hm::sinh(-L::denorm_min()) == -L::denorm_min());
  CHECK(hm::sinh(inf) == inf);
  CHECK(hm::sinh(-inf) == -inf);
  CHECK(std::isnan(hm::sinh(nan)));
  CHECK(std::isfinite(hm::sinh(710.47)));  // e^x overflows from 709.78, sinh and cosh later
  CHECK(ulps(hm::sinh(-710.47), double(std::sinh((long double)-710.47))) <= 2);
  CHECK(hm::sinh(710.48) == inf);
  CHECK(hm::sinh(-1000.0) == -inf);
  CHECK(hm::cosh(0.0) == 1.0);
  CHECK(hm::cosh(-0.0) == 1.0);
  CHECK(hm::cosh(inf) == inf);
  CHECK(hm::cosh(-inf) == inf);
  CHECK(std::isnan(hm::cosh(nan)));
  CHECK(std::isfinite(hm::cosh(-710.47)));
  CHECK(hm::cosh(710.48) == inf);
  CHECK(std::signbit(hm::atan(-0.0)));
  CHECK(hm::atan(L::denorm_min()) == L::denorm_min());
  CHECK(hm::atan(inf) == std::atan(inf));
  CHECK(hm::atan(-inf) == std::atan(-inf));
  CHECK(hm::atan(1e300) == std::atan(1e300));
  CHECK(hm::atan(1.0) == std::atan(1.0));
  CHECK(std::isnan(hm::atan(nan)));
  CHECK(hm::hypot(0.0, -0.0) == 0.0);
  CHECK(!std::signbit(hm::hypot(-0.0, -0.0)));
  CHECK(hm::hypot(3.0, -4.0) == 5.0);
  CHECK(hm::hypot(inf, nan) == inf);
  CHECK(hm::hypot(nan, -inf) == inf);
  CHECK(std::isnan(hm::hypot(nan, 1.0)));
  CHECK(hm::hypot(L::max(), L::max()) == inf);
  CHECK(hm::hypot(L::max(), 1.0) == L::max());
  CHECK(hm::hypot(L::denorm_min(), 0.0) == L::denorm_min());
  CHECK(hm::hypot(3e-310, 4e-310) == std::hypot(3e-310, 4e-310));
  CHECK(hm::hypot(1e300, 1e300) == std::hypot(1e300, 1e300));
  CHECK(hm::hypot(-std::numeric_limits<float>::infinity(), 2.0f) == std::numeric_limits<float>::infinity());
  CHECK(std::isnan(hm::hypot(std::numeric_limits<float>::quiet_NaN(), 2.0f)));
  // atan2: every pair of special values (signed zeros, infinities, NaN, tiny and huge ratios)
  // as glibc, bitwise
  const double special[] = {0.0, -0.0, 1.0, -1.0, inf, -inf, nan, 1e-310, -1e300, 3.5, -2e-300};
  for (double sy : special)
    for (double sx : special) {
      INFO("atan2(" << sy << ", " << sx << ")");
      const double got = hm::atan2(sy, sx), want = std::atan2(sy, sx);
      CHECK(((got != got && want != want) || std::memcmp(&got, &want, sizeof got) == 0));
    }
}

TEST_CASE("host tan and arctanh are within 1 and 2 ulp of the exact value, with IEEE special values",
          "[math]") {
  const auto seed = testing::test_seed(1129);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  double worst_t = 0, worst_a = 0, worst_tf = 0, worst_af = 0, at_t = 0, at_a = 0, at_tf = 0, at_af = 0;
  for (int i = 0; i < 300000; ++i) {
    // tan: every binade up to 2^30 (libm's above), near multiples of pi / 2 included
    const double m = std::ldexp(std::uniform_real_distribution<double>(1.0, 2.0)(rng), int(rng() % 80) - 50);
    const double x = (rng() & 1) ? -m : m;
    const double near = std::round(m / 1.5707963267948966) * 1.5707963267948966 * (1 + 1e-12 * double(int(rng() % 200) - 100));
    for (double v : {x, near}) {
      const double e = ulps(hm::tan(v), double(std::tan((long double)v)));
      if (e > worst_t) worst_t = e, at_t = v;
    }
    // atanh: (-1, 1), every binade, and next to +-1
    const double u = (i % 2) ? std::ldexp(std::uniform_real_distribution<double>(0.5, 1.0)(rng), -int(rng() % 60))
                             : 1.0 - std::ldexp(1.0, -int(rng() % 53)) * std::uniform_real_distribution<double>(0.5, 1.0)(rng);
    const double y = (rng() & 1) ? -u : u;
    const double ea = ulps(hm::atanh(y), double(std::atanh((long double)y)));
    if (ea > worst_a) worst_a = ea, at_a = y;
    const float xf = float(x), yf = float(y);
    if (std::fabs(xf) < 0x1p30f) {
      const double ef = ulps(hm::tan(xf), float(std::tan((long double)xf)));
      if (ef > worst_tf) worst_tf = ef, at_tf = xf;
    }
    if (std::fabs(yf) < 1.0f) {
      const double ef = ulps(hm::atanh(yf), float(std::atanh((long double)yf)));
      if (ef > worst_af) worst_af = ef, at_af = yf;
    }
  }
  INFO("worst tan " << worst_t << " ulp at " << at_t << " (float " << worst_tf << " at " << at_tf
                    << "), atanh " << worst_a << " ulp at " << at_a << " (float " << worst_af << " at "
                    << at_af << ")");
  CHECK(worst_t <= 1);
  CHECK(worst_tf <= 1);
  CHECK(worst_a <= 2);
  CHECK(worst_af <= 1);
  using L = std::numeric_limits<double>;
  const double inf = L::infinity(), nan = L::quiet_NaN();
  CHECK(std::signbit(hm::tan(-0.0)));
  CHECK(hm::tan(L::denorm_min()) == L::denorm_min());
  CHECK(std::isnan(hm::tan(inf)));
  CHECK(std::isnan(hm::tan(nan)));
  CHECK(hm::tan(1e300) == std::tan(1e300));  // libm's above 2^30
  CHECK(hm::tan(0x1p30) == std::tan(0x1p30));
  CHECK(hm::atanh(1.0) == inf);
  CHECK(hm::atanh(-1.0) == -inf);
  CHECK(std::isnan(hm::atanh(1.5)));
  CHECK(std::isnan(hm::atanh(-inf)));
  CHECK(std::isnan(hm::atanh(nan)));
  CHECK(std::signbit(hm::atanh(-0.0)));
  CHECK(hm::atanh(L::denorm_min()) == L::denorm_min());
  CHECK(hm::atanh(-0.5) == -hm::atanh(0.5));
}

TEST_CASE("host arcsin, arccos, arcsinh and arccosh are within 1, 1, 2 and 2 ulp of the exact value",
          "[math]") {
  const auto seed = testing::test_seed(1130);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  worst_ulps worst[4], worst_f[4];
  for (int i = 0; i < 300000; ++i) {
    // [-1, 1]: every binade, and next to +-1
    const double u = (i % 2) ? std::ldexp(mant(rng), -int(rng() % 64) - 1)
                             : 1.0 - std::ldexp(mant(rng), -int(rng() % 53) - 2);
    const double x = (rng() & 1) ? -u : u;
    const double b = std::ldexp(mant(rng), int(rng() % 90) - 45) * ((rng() & 1) ? -1 : 1);
    const double c = 1.0 + std::ldexp(mant(rng), int(rng() % 100) - 60);  // above 1, any distance
    const double got[4] = {hm::asin(x), hm::acos(x), hm::asinh(b), hm::acosh(c)};
    const double want[4] = {double(std::asin((long double)x)), double(std::acos((long double)x)),
                            double(std::asinh((long double)b)), double(std::acosh((long double)c))};
    const double arg[4] = {x, x, b, c};
    const float gf[4] = {hm::asin(float(x)), hm::acos(float(x)), hm::asinh(float(b)), hm::acosh(float(c))};
    const float wf[4] = {float(std::asin((long double)float(x))), float(std::acos((long double)float(x))),
                         float(std::asinh((long double)float(b))), float(std::acosh((long double)float(c)))};
    for (int k = 0; k < 4; ++k) {
      worst[k].note(ulps(got[k], want[k]), arg[k]);
      worst_f[k].note(ulps(gf[k], wf[k]), arg[k]);
    }
  }
  const char* name[4] = {"asin", "acos", "asinh", "acosh"};
  const double bound[4] = {1, 1, 2, 2};
  check_worst(name, bound, worst, worst_f);
  // special values as glibc's (bitwise, NaN as NaN)
  using L = std::numeric_limits<double>;
  const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.0, 0x1p28, -0x1p28, 1e300,
                            -1e300, L::infinity(), -L::infinity(), L::quiet_NaN(), L::denorm_min(),
                            -L::denorm_min(), L::max()};
  for (double v : special) {
    INFO("x = " << v);
    auto same = [](double g, double w) {
      return (g != g && w != w) || (g == w && std::signbit(g) == std::signbit(w)) || ulps(g, w) <= 1;
    };
    CHECK(same(hm::asin(v), std::asin(v)));
    CHECK(same(hm::acos(v), std::acos(v)));
    CHECK(same(hm::asinh(v), std::asinh(v)));
    CHECK(same(hm::acosh(v), std::acosh(v)));
  }
  CHECK(std::signbit(hm::asin(-0.0)));
  CHECK(std::signbit(hm::asinh(-0.0)));
  CHECK(hm::acos(1.0) == 0.0);
  CHECK(hm::acosh(1.0) == 0.0);
  CHECK(hm::asin(1.0) == std::asin(1.0));
  CHECK(hm::acos(-1.0) == std::acos(-1.0));
}

TEST_CASE("ts::arcsin, ts::arccos, ts::arcsinh and ts::arccosh of arrays: batches as elements", "[math]") {
  const xt::xarray<double> a{{-1.5, -1, -0.999, -0.5, -0.0, 1e-310}, {0.25, 0.5, 0.75, 0.9999999, 1, 2}};
  const xt::xarray<double> b{{-1e300, -3, -1, 0, 1, 1.0000001}, {1.5, 2, 2.5, 1e9, 0x1p28, 1e300}};
  auto x = ts::from_xtensor(a, {1, 4});
  auto y = ts::from_xtensor(b, {2, 3});
  const ts::host pol{.threads = 2};
  const xt::xarray<double> as = ts::compute(ts::arcsin(x), pol), ac = ts::compute(ts::arccos(x * 1.0), pol);
  const xt::xarray<double> sh = ts::compute(ts::arcsinh(y), pol), ch = ts::compute(ts::arccosh(y), pol);
  const xt::xarray<float> asf = ts::compute(ts::arcsin(ts::cast<float>(x)), pol);
  auto same = [](double g, double w) { return (g != g && w != w) || std::memcmp(&g, &w, sizeof g) == 0; };
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("x = " << a.flat(i) << ", y = " << b.flat(i));
    CHECK(same(as.flat(i), hm::asin(a.flat(i))));
    CHECK(same(ac.flat(i), hm::acos(a.flat(i))));
    CHECK(same(sh.flat(i), hm::asinh(b.flat(i))));
    CHECK(same(ch.flat(i), hm::acosh(b.flat(i))));
    CHECK(same(double(asf.flat(i)), double(hm::asin(float(a.flat(i))))));
  }
}

TEST_CASE("host exp2 and cbrt are within 1 ulp of the exact value, exact where they must be", "[math]") {
  const auto seed = testing::test_seed(1131);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  double worst_e = 0, worst_c = 0, worst_ef = 0, worst_cf = 0, at_e = 0, at_c = 0;
  for (int i = 0; i < 300000; ++i) {
    // exp2: the whole range (gradual underflow below -1022, overflow from 1024) and small arguments
    const double x = (i % 2) ? std::uniform_real_distribution<double>(-1080.0, 1025.0)(rng)
                             : std::ldexp(std::uniform_real_distribution<double>(-2.0, 2.0)(rng), -int(rng() % 60));
    const double e = ulps(hm::exp2(x), double(std::exp2((long double)x)));
    if (e > worst_e) worst_e = e, at_e = x;
    worst_ef = std::max(worst_ef, ulps(hm::exp2(float(x)), float(std::exp2((long double)float(x)))));
    // cbrt: any finite value of either sign (subnormals included)
    const double c = any_positive<double>(rng) * ((rng() & 1) ? -1 : 1);
    const double ec = ulps(hm::cbrt(c), double(std::cbrt((long double)c)));
    if (ec > worst_c) worst_c = ec, at_c = c;
    const float cf = any_positive<float>(rng);
    worst_cf = std::max(worst_cf, ulps(hm::cbrt(cf), float(std::cbrt((long double)cf))));
  }
  INFO("worst exp2 " << worst_e << " ulp at " << at_e << " (float " << worst_ef << "), cbrt " << worst_c
                     << " ulp at " << at_c << " (float " << worst_cf << ")");
  CHECK(worst_e <= 1);
  CHECK(worst_ef <= 1);
  CHECK(worst_c <= 1);
  CHECK(worst_cf <= 1);
  using L = std::numeric_limits<double>;
  const double inf = L::infinity(), nan = L::quiet_NaN();
  int inexact = 0;
  for (int k = -1074; k <= 1023; ++k) inexact += hm::exp2(double(k)) != std::ldexp(1.0, k);
  for (int k = 1; k <= 2000; ++k) {
    const double c = k, c3 = c * c * c;  // exact cubes (below 2^53)
    inexact += (hm::cbrt(c3) != c) + (hm::cbrt(-c3) != -c);
    inexact += hm::cbrt(std::ldexp(c3, 3 * (k % 300) - 450)) != std::ldexp(c, k % 300 - 150);
  }
  CHECK(inexact == 0);
  CHECK(hm::exp2(0.0) == 1.0);
  CHECK(hm::exp2(-0.0) == 1.0);
  CHECK(hm::exp2(1024.0) == inf);
  CHECK(hm::exp2(inf) == inf);
  CHECK(hm::exp2(-inf) == 0.0);
  CHECK(hm::exp2(-1075.5) == 0.0);
  CHECK(hm::exp2(-1074.0) == L::denorm_min());
  CHECK(std::isnan(hm::exp2(nan)));
  CHECK(hm::cbrt(0.0) == 0.0);
  CHECK(std::signbit(hm::cbrt(-0.0)));
  CHECK(hm::cbrt(inf) == inf);
  CHECK(hm::cbrt(-inf) == -inf);
  CHECK(std::isnan(hm::cbrt(nan)));
  CHECK(hm::cbrt(L::denorm_min()) == 0x1p-358);  // exact (glibc's is an ulp below)
  CHECK(ulps(hm::cbrt(L::max()), std::cbrt(L::max())) <= 1);
  CHECK(hm::cbrt(27.0f) == 3.0f);
}

TEST_CASE("ts::tan, ts::arctanh, ts::exp2 and ts::cbrt of arrays use them, batches as elements", "[math]") {
  const xt::xarray<double> a{{-1e300, -0x1p30, -2.5, -1, -0.0, 1e-310}, {0.5, 1, 1.5707963267948966, 3, 0x1p29, 7e9}};
  const xt::xarray<double> b{{-1, -0.999, -0.5, -1e-300, 0, 1e-310}, {0.25, 0.5, 0.75, 0.9999999, 1, 1.5}};
  auto x = ts::from_xtensor(a, {1, 4});
  auto y = ts::from_xtensor(b, {2, 3});
  const ts::host pol{.threads = 2};
  const xt::xarray<double> t = ts::compute(ts::tan(x), pol), h = ts::compute(ts::arctanh(y), pol);
  const xt::xarray<double> t1 = ts::compute(ts::tan(x * 1.0), pol);  // a lazy operand
  const xt::xarray<double> e2 = ts::compute(ts::exp2(x), pol), cb = ts::compute(ts::cbrt(x), pol);
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("x = " << a.flat(i) << ", y = " << b.flat(i));
    auto same = [](double g, double w) { return (g != g && w != w) || std::memcmp(&g, &w, sizeof g) == 0; };
    CHECK(same(t.flat(i), hm::tan(a.flat(i))));
    CHECK(same(t1.flat(i), hm::tan(a.flat(i))));
    CHECK(same(h.flat(i), hm::atanh(b.flat(i))));
    CHECK(same(e2.flat(i), hm::exp2(a.flat(i))));
    CHECK(same(cb.flat(i), hm::cbrt(a.flat(i))));
    CHECK(ulps(t.flat(i), std::tan(a.flat(i))) <= 1);
  }
}

TEST_CASE("ts::sinh, ts::cosh, ts::arctan, ts::hypot and ts::arctan2 of arrays use them, in every chunk kernel",
          "[math]") {
  const xt::xarray<double> a{{-800, -22, -1, -0.3, -0.0, 1e-310}, {0.5, 1, 2.5, 710.4, 1e300, 800}};
  const xt::xarray<double> b{{3, 1e-300, -2, 0.4, 0, 1e-310}, {-0.5, 1e300, 2.5, -1, 1e300, 600}};
  auto x = ts::from_xtensor(a, {1, 4});
  auto y = ts::from_xtensor(b, {2, 3});
  const ts::host pol{.threads = 2};
  const xt::xarray<double> sh = ts::compute(ts::sinh(x), pol), ch = ts::compute(ts::cosh(x), pol);
  const xt::xarray<double> at = ts::compute(ts::arctan(x), pol);
  const xt::xarray<double> hy = ts::compute(ts::hypot(x, y), pol);  // stored: batches
  const xt::xarray<double> hy1 = ts::compute(ts::hypot(x * 1.0, 2.0), pol);  // with a scalar
  const xt::xarray<float> hf = ts::compute(ts::hypot(ts::cast<float>(x), ts::cast<float>(y)), pol);
  const xt::xarray<double> a2 = ts::compute(ts::arctan2(y, x), pol);
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("x = " << a.flat(i) << ", y = " << b.flat(i));
    auto same = [](double g, double w) { return std::memcmp(&g, &w, sizeof g) == 0; };
    CHECK(same(sh.flat(i), hm::sinh(a.flat(i))));
    CHECK(same(ch.flat(i), hm::cosh(a.flat(i))));
    CHECK(same(at.flat(i), hm::atan(a.flat(i))));
    CHECK(same(hy.flat(i), hm::hypot(a.flat(i), b.flat(i))));
    CHECK(same(hy1.flat(i), hm::hypot(a.flat(i), 2.0)));
    CHECK(hf.flat(i) == hm::hypot(float(a.flat(i)), float(b.flat(i))));
    CHECK(ulps(hy.flat(i), std::hypot(a.flat(i), b.flat(i))) <= 1);
    CHECK(same(a2.flat(i), hm::atan2(b.flat(i), a.flat(i))));
    CHECK(ulps(a2.flat(i), std::atan2(b.flat(i), a.flat(i))) <= 1);
  }
}

TEST_CASE("ts::log2 and ts::log10 of arrays use them, in every chunk kernel", "[math]") {
  auto x = ts::from_xtensor(xt::xarray<double>{{-1, 0, 1e-310, 0.5}, {1, 8, 1000, 1e300}}, {1, 3});
  const xt::xarray<double> l2 = ts::compute(ts::log2(x), ts::host{.threads = 2});
  const xt::xarray<double> l10 = ts::compute(ts::log10(x), ts::host{.threads = 2});
  const xt::xarray<double> xs = ts::compute(x);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    INFO("x = " << xs.flat(i));
    const long double xl = xs.flat(i);
    CHECK(ulps(l2.flat(i), double(std::log2(xl))) <= 1);
    CHECK(ulps(l10.flat(i), double(std::log10(xl))) <= 1);
  }
  CHECK(l2(1, 1) == 3.0);
  CHECK(l10(1, 2) == 3.0);
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

namespace {
/// Worst ulp distance of host_math::sin and cos from libm's over inputs drawn by `draw`.
template <class T, class Draw>
void check_trig(const char* what, Draw draw, int count) {
  double worst_sin = 0, worst_cos = 0;
  T at_sin = 0, at_cos = 0;
  for (int i = 0; i < count; ++i) {
    const T x = draw();
    const double es = ulps(hm::sin(x), T(std::sin(x)));
    if (es > worst_sin) worst_sin = es, at_sin = x;
    const double ec = ulps(hm::cos(x), T(std::cos(x)));
    if (ec > worst_cos) worst_cos = ec, at_cos = x;
  }
  INFO(what << ": worst sin " << worst_sin << " ulp at " << at_sin << ", worst cos " << worst_cos
            << " ulp at " << at_cos);
  CHECK(worst_sin <= 1);
  CHECK(worst_cos <= 1);
}
}  // namespace

TEST_CASE("host sin and cos are within 1 ulp of libm", "[math]") {
  const auto seed = testing::test_seed(2611);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(-1, 1);
  check_trig<double>("|x| < 4", [&] { return 4 * unit(rng); }, 300000);
  check_trig<double>("every binade below 2^31", [&] { return std::ldexp(unit(rng), int(rng() % 32)); }, 300000);
  check_trig<double>("tiny", [&] { return std::ldexp(unit(rng), -int(rng() % 1080)); }, 100000);
  // Next to multiples of pi / 2, where the reduction cancels: n pi / 2 rounded, and a few ulp off.
  check_trig<double>("near n pi / 2", [&] {
    double x = double(rng() % (std::uint64_t(1) << 30)) * (M_PI / 2);
    for (int k = int(rng() % 4); k > 0; --k) x = std::nextafter(x, (rng() & 1) ? 1e300 : -1e300);
    return x;
  }, 300000);
  check_trig<double>("above 2^30 (libm)", [&] { return std::ldexp(unit(rng), 31 + int(rng() % 990)); }, 20000);
  std::uniform_real_distribution<float> unitf(-1, 1);
  check_trig<float>("float, every binade", [&] { return std::ldexp(unitf(rng), int(rng() % 160) - 128); }, 300000);
}

TEST_CASE("host sin and cos give IEEE special values", "[math]") {
  using L = std::numeric_limits<double>;
  using F = std::numeric_limits<float>;
  const double zero = 0.0;
  CHECK(hm::sin(zero) == 0.0);
  CHECK(!std::signbit(hm::sin(zero)));
  CHECK(std::signbit(hm::sin(-zero)));
  CHECK(std::signbit(hm::sin(-0.0f)));
  CHECK(hm::cos(zero) == 1.0);
  CHECK(hm::cos(-zero) == 1.0);
  CHECK(std::isnan(hm::sin(L::infinity())));
  CHECK(std::isnan(hm::cos(-L::infinity())));
  CHECK(std::isnan(hm::sin(L::quiet_NaN())));
  CHECK(std::isnan(hm::cos(F::quiet_NaN())));
  CHECK(hm::sin(L::denorm_min()) == L::denorm_min());
  CHECK(hm::sin(1e300) == std::sin(1e300));
  CHECK(hm::cos(-0x1p30) == std::cos(-0x1p30));  // the first argument that is libm's
  CHECK(ulps(hm::sin(std::nextafter(0x1p30, 0.0)), std::sin(std::nextafter(0x1p30, 0.0))) <= 1);
}

TEST_CASE("ts::sin and ts::cos of arrays: batches equal per-element calls, in every chunk kernel",
          "[math]") {
  const auto seed = testing::test_seed(2612);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(-1, 1);
  // Mostly ordinary arguments, some beyond 2^30 and non-finite ones, in random places of rows
  // longer than a batch (the libm pass redoes them inside the vectorized batch).
  xt::xarray<double> d = xt::zeros<double>({7, 600});
  for (std::size_t i = 0; i < d.size(); ++i) {
    const auto k = rng() % 50;
    d.flat(i) = k == 0 ? std::ldexp(unit(rng), 40 + int(rng() % 900))
                : k == 1 ? (rng() & 1 ? std::numeric_limits<double>::infinity() : std::nan(""))
                         : std::ldexp(unit(rng), int(rng() % 12));
  }
  const ts::chunks_t chunks = testing::random_chunks(rng, {7, 600});
  auto x = ts::from_xtensor(d, chunks);
  const auto s = ts::compute(ts::sin(x), ts::host{.threads = 2});
  const auto c = ts::compute(ts::cos(x) * 2.0, ts::host{.threads = 2});
  const auto sf = ts::compute(ts::sin(ts::cast<float>(x)), ts::host{.threads = 1});
  for (std::size_t i = 0; i < d.size(); ++i) {
    INFO("x = " << d.flat(i));
    const double ws = hm::sin(d.flat(i)), wc = hm::cos(d.flat(i)) * 2.0;
    const float wf = hm::sin(float(d.flat(i)));
    REQUIRE(std::memcmp(&s.flat(i), &ws, sizeof ws) == 0);
    REQUIRE(std::memcmp(&c.flat(i), &wc, sizeof wc) == 0);
    REQUIRE(std::memcmp(&sf.flat(i), &wf, sizeof wf) == 0);
    CHECK(ulps(s.flat(i), std::sin(d.flat(i))) <= 1);
  }
  // and through a reduction (the fold's batches): the same sums as of the computed values
  const xt::xarray<double> finite = xt::where(xt::isfinite(d), d, 0.5);
  auto y = ts::from_xtensor(finite, chunks);
  const double folded = ts::sum(ts::sin(y)).item(ts::host{.threads = 1});
  const double stored = ts::sum(ts::from_xtensor(xt::xarray<double>(ts::compute(ts::sin(y))), chunks))
                            .item(ts::host{.threads = 1});
  CHECK(folded == stored);
}

TEST_CASE("host tanh is within 2 ulp of libm, with IEEE special values", "[math]") {
  const auto seed = testing::test_seed(2613);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(-1, 1);
  double worst = 0, worst_f = 0, at = 0;
  for (int i = 0; i < 400000; ++i) {
    const double x = std::ldexp(unit(rng), int(rng() % 40) - 30);  // both branches, to +-1
    const double e = ulps(hm::tanh(x), std::tanh(x));
    if (e > worst) worst = e, at = x;
    const float xf = float(x);
    worst_f = std::max(worst_f, ulps(hm::tanh(xf), std::tanh(xf)));
  }
  INFO("worst " << worst << " ulp at " << at << ", float " << worst_f);
  CHECK(worst <= 2);
  CHECK(worst_f <= 2);
  using L = std::numeric_limits<double>;
  const double zero = 0.0;
  CHECK(std::signbit(hm::tanh(-zero)));
  CHECK(hm::tanh(zero) == 0.0);
  CHECK(hm::tanh(L::infinity()) == 1.0);
  CHECK(hm::tanh(-L::infinity()) == -1.0);
  CHECK(hm::tanh(800.0) == 1.0);
  CHECK(std::isnan(hm::tanh(L::quiet_NaN())));
  CHECK(hm::tanh(L::denorm_min()) == L::denorm_min());
  // through ts::tanh and ts::sqrt (sqrt's batches: the vector lanes' IEEE square roots)
  xt::xarray<double> d = xt::zeros<double>({3, 700});
  for (std::size_t i = 0; i < d.size(); ++i) d.flat(i) = std::ldexp(unit(rng), int(rng() % 20) - 10);
  d.flat(5) = -4.0;
  d.flat(6) = -zero;
  d.flat(7) = L::infinity();
  auto x = ts::from_xtensor(d, testing::random_chunks(rng, {3, 700}));
  const auto t = ts::compute(ts::tanh(x), ts::host{.threads = 2});
  const auto r = ts::compute(ts::sqrt(x), ts::host{.threads = 2});
  const auto rf = ts::compute(ts::sqrt(ts::cast<float>(x)), ts::host{.threads = 1});
  for (std::size_t i = 0; i < d.size(); ++i) {
    INFO("x = " << d.flat(i));
    const double wt = hm::tanh(d.flat(i)), wr = std::sqrt(d.flat(i));
    const float wrf = std::sqrt(float(d.flat(i)));
    REQUIRE(std::memcmp(&t.flat(i), &wt, sizeof wt) == 0);
    if (std::isnan(wr)) {
      CHECK(std::isnan(r.flat(i)));
      CHECK(std::isnan(rf.flat(i)));
    } else {
      REQUIRE(std::memcmp(&r.flat(i), &wr, sizeof wr) == 0);
      REQUIRE(std::memcmp(&rf.flat(i), &wrf, sizeof wrf) == 0);
    }
  }
}

namespace {
/// ts::pow's inputs: x of every binade (and negative), y such that x^y stays in range.
void check_pow(std::mt19937_64& rng, int n, double& worst, double& at_x, double& at_y) {
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < n; ++i) {
    double x, y;
    switch (i % 5) {
      case 0:  // any binade, subnormals included, results up to the overflow and underflow
        x = std::ldexp(0.5 + 0.5 * u(rng), int(rng() % 2098) - 1073);
        y = (2 * u(rng) - 1) * 740 / std::fabs(std::log(x));
        break;
      case 1:  // near 1, large exponents
        x = 1 + (u(rng) - 0.5) * 0.9;
        y = (2 * u(rng) - 1) * 740 / std::fabs(std::log(x));
        break;
      case 2:  // at the ends of the logarithm's reduced range, sqrt(1/2) and sqrt(2)
        x = std::sqrt(2.0) * (1 + (u(rng) - 0.5) * 1e-3);
        if (rng() & 1) x = 1 / x;
        y = (2 * u(rng) - 1) * 740 / std::fabs(std::log(x));
        break;
      case 3:  // negative bases, integer exponents
        x = -std::exp((2 * u(rng) - 1) * 20);
        y = double(std::int64_t(rng() % 61) - 30);
        break;
      default:
        x = 10 * u(rng);
        y = 20 * u(rng) - 10;
    }
    const double want = std::pow(x, y);
    if (std::isinf(want) || want == 0) continue;  // the thresholds, checked below
    const double e = ulps(hm::pow(x, y), want);
    if (e > worst) worst = e, at_x = x, at_y = y;
  }
}
}  // namespace

TEST_CASE("host pow is within 1 ulp of libm, with its special values", "[math]") {
  const auto seed = testing::test_seed(3003);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  double worst = 0, at_x = 0, at_y = 0;
  check_pow(rng, 1000000, worst, at_x, at_y);
  INFO("worst " << worst << " ulp at pow(" << at_x << ", " << at_y << ")");
  CHECK(worst <= 1);
  double worst_f = 0;
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < 200000; ++i) {
    const float x = float(std::ldexp(0.5 + 0.5 * u(rng), int(rng() % 40) - 20));
    const float y = float((2 * u(rng) - 1) * 80 / std::fabs(std::log(double(x))));
    const float want = std::pow(x, y);
    if (!std::isinf(want) && want != 0) worst_f = std::max(worst_f, ulps(hm::pow(x, y), want));
  }
  CHECK(worst_f <= 1);
  // Zeros, infinities, NaN, +-1, integers and half-integers on both sides of 2^52 and 2^53, the
  // overflow and underflow: libm's values (and x^2, x^1 exactly x * x and x).
  using L = std::numeric_limits<double>;
  const double I = L::infinity();
  const double vals[] = {0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 2.5, -2.5, I, -I,
                         L::quiet_NaN(), L::max(), -L::max(), L::denorm_min(), -L::denorm_min(),
                         L::min(), 1e300, 1e-300, 0x1p52, 0x1p52 + 1, 0x1p53, 0x1p53 + 2,
                         -0x1p52 - 1, 0x1p51 + 0.5, 1e20, -1e20, 1075.0, -1075.0, 1024.0, -1074.0};
  for (const double x : vals)
    for (const double y : vals) {
      INFO("pow(" << x << ", " << y << ")");
      const double got = hm::pow(x, y), want = std::pow(x, y);
      CHECK(ulps(got, want) <= 1);
      if (!std::isnan(want)) CHECK(std::signbit(got) == std::signbit(want));
    }
  for (int i = 0; i < 1000; ++i) {  // NumPy's fast paths: exact
    const double x = std::ldexp(2 * u(rng) - 1, int(rng() % 100) - 50);
    REQUIRE(hm::pow(x, 2.0) == x * x);
    REQUIRE(hm::pow(x, 1.0) == x);
    REQUIRE(hm::pow(x, -1.0) == 1 / x);
    REQUIRE(hm::pow(x, 0.0) == 1.0);
    if (x > 0) REQUIRE(hm::pow(x, 0.5) == std::sqrt(x));
  }
  CHECK(hm::pow(10.0, 308.5) == I);
  CHECK(hm::pow(10.0, -324.0) == 0.0);
  CHECK(hm::pow(-10.0, 309.0) == -I);
  CHECK(hm::pow(2.0, -1074.0) == L::denorm_min());
}

TEST_CASE("ts::pow of arrays: batches equal per-element calls, in every chunk kernel", "[math]") {
  const auto seed = testing::test_seed(3004);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(-1, 1);
  // Ordinary bases and exponents, with zeros, infinities, NaN and negative bases to non-integer
  // powers (libm's fix-up inside a vectorized batch) in random places of rows longer than a batch.
  xt::xarray<double> b = xt::zeros<double>({5, 700}), e = xt::zeros<double>({5, 700});
  const double specials[] = {0.0, -0.0, std::numeric_limits<double>::infinity(), std::nan(""), -1.5};
  for (std::size_t i = 0; i < b.size(); ++i) {
    b.flat(i) = std::ldexp(unit(rng), int(rng() % 16) - 8);
    e.flat(i) = rng() % 4 == 0 ? double(int(rng() % 9) - 4) : 6 * unit(rng);
    if (rng() % 40 == 0) b.flat(i) = specials[rng() % 5];
    if (rng() % 60 == 0) e.flat(i) = specials[rng() % 4];
  }
  const ts::chunks_t chunks = testing::random_chunks(rng, {5, 700});
  auto x = ts::from_xtensor(b, chunks);
  auto y = ts::from_xtensor(e, testing::random_chunks(rng, {5, 700}));
  const auto p = ts::compute(ts::pow(x, y), ts::host{.threads = 2});
  const auto p3 = ts::compute(ts::pow(x, 3.0), ts::host{.threads = 2});
  const auto pf = ts::compute(ts::pow(ts::cast<float>(x), ts::cast<float>(y)), ts::host{.threads = 1});
  const auto fp = ts::compute(ts::float_power(ts::cast<float>(x), 0.5), ts::host{.threads = 1});
  for (std::size_t i = 0; i < b.size(); ++i) {
    const double bi = b.flat(i), ei = e.flat(i);
    INFO("pow(" << bi << ", " << ei << ")");
    const double w = hm::pow(bi, ei), w3 = hm::pow(bi, 3.0), wfp = hm::pow(double(float(bi)), 0.5);
    const float wf = hm::pow(float(bi), float(ei));
    REQUIRE(std::memcmp(&p.flat(i), &w, sizeof w) == 0);
    REQUIRE(std::memcmp(&p3.flat(i), &w3, sizeof w3) == 0);
    REQUIRE(std::memcmp(&pf.flat(i), &wf, sizeof wf) == 0);
    REQUIRE(std::memcmp(&fp.flat(i), &wfp, sizeof wfp) == 0);
    CHECK(ulps(p.flat(i), std::pow(bi, ei)) <= 1);
  }
  // a scalar exponent: NumPy's exact ones take their own loops (2: x * x, 0.5: the lanes'
  // square roots, ...), the others the general batch; the same bits as per element either way
  for (const double y0 : {2.0, 0.5, -1.0, 0.0, 1.0, 3.0, -0.5}) {
    const auto q = ts::compute(ts::pow(x, y0), ts::host{.threads = 2});
    const auto qf = ts::compute(ts::pow(ts::cast<float>(x), float(y0)), ts::host{.threads = 1});
    for (std::size_t i = 0; i < b.size(); ++i) {
      INFO("pow(" << b.flat(i) << ", " << y0 << ")");
      const double w = hm::pow(b.flat(i), y0);
      const float wf = hm::pow(float(b.flat(i)), float(y0));
      if (!(std::isnan(w) && std::isnan(q.flat(i)))) REQUIRE(std::memcmp(&q.flat(i), &w, sizeof w) == 0);
      if (!(std::isnan(wf) && std::isnan(qf.flat(i)))) REQUIRE(std::memcmp(&qf.flat(i), &wf, sizeof wf) == 0);
      CHECK(ulps(q.flat(i), std::pow(b.flat(i), y0)) <= 1);
    }
  }
  // and through a reduction (the fold's batches): the same sum as of the computed values
  auto z = ts::from_xtensor(xt::xarray<double>(xt::where(xt::isfinite(b), xt::abs(b), 1.0) + 0.5), chunks);
  auto ez = ts::from_xtensor(xt::xarray<double>(xt::where(xt::isfinite(e), e, 1.0)), chunks);
  const double folded = ts::sum(ts::pow(z, ez)).item(ts::host{.threads = 1});
  const double stored = ts::sum(ts::from_xtensor(xt::xarray<double>(ts::compute(ts::pow(z, ez))), chunks))
                            .item(ts::host{.threads = 1});
  CHECK(folded == stored);
}
