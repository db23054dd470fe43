// exp, log, sin, cos and tanh for element code on the host: branch-free inline code (the random
// module's kernels, random/math.hpp) with IEEE special values, so the chunk kernels vectorize
// them (libm's functions are calls, which keep a loop scalar). exp, sin and cos within 1 ulp,
// log and tanh within 2 ulp of glibc (tests/test_host_math.cpp: random inputs over the whole
// range and the special values). Device code keeps CUDA's own functions.
//
// sin and cos: the branch-free part (sin_reduced, cos_reduced) covers |x| < 2^30, where a
// three-part pi / 2 reduces the argument to a double-double; above (and for inf and NaN) libm's.
// The per-element functions choose with a branch; batches (ops::sin / ops::cos fill_batch, which
// the chunk kernels call) run the branch-free part over the whole batch, vectorized, then redo
// the rare large arguments with libm: the same values either way.
#pragma once
#include <math.h>

#include <cstdint>
#include <limits>

#include "../config.hpp"
#include "../random/math.hpp"

namespace tessera::host_math {

/// e^x: +inf above the overflow threshold, 0 below the underflow one, gradual underflow in
/// between, NaN for NaN.
TESSERA_HD TESSERA_INLINE double exp(double x) { return random::math::exp(x); }
TESSERA_HD TESSERA_INLINE float exp(float x) { return random::math::exp(x); }

namespace detail {
/// c ? y : r on the bits (an integer blend: a conditional expression lets gcc branch around
/// the computation of r, which keeps the loop scalar).
TESSERA_HD TESSERA_INLINE double pick(bool c, double y, double r) {
  const std::uint64_t m = std::uint64_t(0) - std::uint64_t(c);
  return random::math::from_bits((random::math::bits(y) & m) | (random::math::bits(r) & ~m));
}
TESSERA_HD TESSERA_INLINE float pick(bool c, float y, float r) {
  const std::uint32_t m = std::uint32_t(0) - std::uint32_t(c);
  return random::math::from_bits((random::math::bits(y) & m) | (random::math::bits(r) & ~m));
}
}  // namespace detail

/// Natural logarithm: NaN below 0 and for NaN, -inf at +-0, +inf at +inf; subnormals exact.
TESSERA_HD TESSERA_INLINE double log(double x) {
  using lim = std::numeric_limits<double>;
  const bool tiny = x < 0x1p-1022;  // subnormal, zero or negative (false for NaN)
  // (selects of constants, then unconditional arithmetic: the loop stays branch-free)
  double r = random::math::log_scaled(x * (tiny ? 0x1p52 : 1.0), tiny ? -52 : 0);
  r = detail::pick(x < 0, lim::quiet_NaN(), r);
  r = detail::pick(x == 0, -lim::infinity(), r);
  r = detail::pick(x == lim::infinity(), x, r);
  return detail::pick(x != x, x, r);
}
TESSERA_HD TESSERA_INLINE float log(float x) {
  using lim = std::numeric_limits<float>;
  const bool tiny = x < 0x1p-126f;
  float r = random::math::log_scaled(x * (tiny ? 0x1p23f : 1.0f), tiny ? -23 : 0);
  r = detail::pick(x < 0, lim::quiet_NaN(), r);
  r = detail::pick(x == 0, -lim::infinity(), r);
  r = detail::pick(x == lim::infinity(), x, r);
  return detail::pick(x != x, x, r);
}

namespace detail {
using random::math::fmad;

/// x = (rh + rl) + q (pi / 2) with |rh + rl| <= pi / 4 (a hair more at the rounding of q) and
/// rh + rl within about 2^-100 |x| of the exact remainder, for |x| < 2^30.
TESSERA_HD TESSERA_INLINE void reduce_half_pi(double x, double& rh, double& rl, std::uint32_t& q) {
  constexpr double two_over_pi = 0x1.45f306dc9c883p-1;
  constexpr double p1 = 0x1.921fb54442d18p+0;     // pi / 2 = p1 + p2 + p3 + O(2^-163)
  constexpr double p2 = 0x1.1a62633145c07p-54;
  constexpr double p3 = -0x1.f1976b7ed8fbcp-110;
  constexpr double magic = 0x1.8p52;
  const double kn = fmad(x, two_over_pi, magic);  // round(x 2 / pi) in the low bits
  const double n = kn - magic;
  q = std::uint32_t(random::math::bits(kn));
  const double r1 = fmad(-n, p1, x);  // exact: |r1| < 1 and its bits lie above 2^-53
  const double t = n * p2;
  const double te = fmad(n, p2, -t);  // n p2 = t + te exactly
  const double s = r1 - t;            // two-sum: r1 - t = s + e exactly
  const double bb = s - r1;
  const double e = (r1 - (s - bb)) + (-t - bb);
  const double lo = fmad(-n, p3, e - te);
  rh = s + lo;
  rl = lo - (rh - s);
}

/// sin(rh + rl) for |rh + rl| <= pi / 4 (+ a hair): odd polynomial of degree 13 with the tail's
/// first-order term (within about 0.6 ulp).
TESSERA_HD TESSERA_INLINE double sin_kernel(double x, double y) {
  constexpr double s1 = -1.66666666666666324348e-01, s2 = 8.33333333332248946124e-03,
                   s3 = -1.98412698298579493134e-04, s4 = 2.75573137070700676789e-06,
                   s5 = -2.50507602534068634195e-08, s6 = 1.58969099521155010221e-10;
  const double z = x * x, v = z * x;
  const double r = fmad(z, fmad(z, fmad(z, fmad(z, s6, s5), s4), s3), s2);
  const double a = fmad(-v, r, 0.5 * y);
  const double b = fmad(z, a, -y);
  return x - fmad(-v, s1, b);
}
/// cos(rh + rl) for |rh + rl| <= pi / 4 (+ a hair): even polynomial of degree 14 with the tail's
/// first-order term, 1 - z / 2 split so that its rounding error is kept (within about 0.8 ulp).
TESSERA_HD TESSERA_INLINE double cos_kernel(double x, double y) {
  constexpr double c1 = 4.16666666666666019037e-02, c2 = -1.38888888888741095749e-03,
                   c3 = 2.48015872894767294178e-05, c4 = -2.75573143513906633035e-07,
                   c5 = 2.08757232129817482790e-09, c6 = -1.13596475577881948265e-11;
  const double z = x * x, w = z * z;
  const double r = fmad(w * w, fmad(z, fmad(z, c6, c5), c4), z * fmad(z, fmad(z, c3, c2), c1));
  const double hz = 0.5 * z;
  const double one_minus = 1.0 - hz;
  const double d = fmad(z, r, -(x * y));
  return one_minus + (((1.0 - one_minus) - hz) + d);
}
}  // namespace detail

/// Largest |x| of the branch-free sin and cos (sin_reduced, cos_reduced).
inline constexpr double trig_reduced_limit = 0x1p30;

/// sin(x) and cos(x) for |x| < 2^30, branch-free (garbage above; NaN for inf and NaN).
TESSERA_HD TESSERA_INLINE void sincos_reduced(double x, double& s, double& c) {
  double rh, rl;
  std::uint32_t q;
  detail::reduce_half_pi(x, rh, rl, q);
  const double ks = detail::sin_kernel(rh, rl), kc = detail::cos_kernel(rh, rl);
  const double vs = detail::pick(q & 1u, kc, ks), vc = detail::pick(q & 1u, ks, kc);
  s = detail::pick(x == 0, x, detail::pick(q & 2u, -vs, vs));  // sin(-0) = -0
  c = detail::pick((q + 1u) & 2u, -vc, vc);
}
TESSERA_HD TESSERA_INLINE double sin_reduced(double x) {
  double s, c;
  sincos_reduced(x, s, c);
  return s;
}
TESSERA_HD TESSERA_INLINE double cos_reduced(double x) {
  double s, c;
  sincos_reduced(x, s, c);
  return c;
}
/// float: the double functions rounded once (|x| < 2^30).
TESSERA_HD TESSERA_INLINE float sin_reduced(float x) { return float(sin_reduced(double(x))); }
TESSERA_HD TESSERA_INLINE float cos_reduced(float x) { return float(cos_reduced(double(x))); }

/// True where the branch-free sin / cos apply (false for large |x|, inf and NaN).
template <class T>
TESSERA_HD TESSERA_INLINE bool trig_reduced_applies(T x) {
  return x < T(trig_reduced_limit) && x > -T(trig_reduced_limit);
}

/// sin and cos of any value: the branch-free code for |x| < 2^30, libm's otherwise.
TESSERA_HD inline double sin(double x) { return trig_reduced_applies(x) ? sin_reduced(x) : ::sin(x); }
TESSERA_HD inline float sin(float x) { return trig_reduced_applies(x) ? sin_reduced(x) : ::sinf(x); }
TESSERA_HD inline double cos(double x) { return trig_reduced_applies(x) ? cos_reduced(x) : ::cos(x); }
TESSERA_HD inline float cos(float x) { return trig_reduced_applies(x) ? cos_reduced(x) : ::cosf(x); }

/// Hyperbolic tangent, branch-free: x + x z P(z) / Q(z) (z = x^2, a rational approximation of
/// degrees 2 / 3) below |x| = 0.625, 1 - 2 / (e^{2|x|} + 1) with the sign of x above (+-1 from
/// the overflow of e^{2|x|} on); NaN for NaN, -0 for -0. Within 2 ulp of glibc.
TESSERA_HD TESSERA_INLINE double tanh(double x) {
  using random::math::fmad;
  constexpr double p0 = -9.64399179425052238628e-1, p1 = -9.92877231001918586564e1,
                   p2 = -1.61468768441708447952e3;
  constexpr double q0 = 1.12811678491632931402e2, q1 = 2.23548839060100448583e3,
                   q2 = 4.84406305325125486048e3;
  const double z = x * x;
  const double p = fmad(fmad(p0, z, p1), z, p2);
  const double q = fmad(fmad(z + q0, z, q1), z, q2);
  const double small = fmad(x * z, p / q, x);
  const double a = detail::pick(x < 0, -x, x);
  const double large = 1.0 - 2.0 / (exp(a + a) + 1.0);
  const double r = detail::pick(x < 0, -large, large);
  return detail::pick(a < 0.625, detail::pick(x == 0, x, small), r);  // tanh(-0) = -0
}
/// float: the double function rounded once.
TESSERA_HD TESSERA_INLINE float tanh(float x) { return float(tanh(double(x))); }

}  // namespace tessera::host_math
