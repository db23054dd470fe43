// exp, exp2, log, log2, log10, cbrt, sin, cos, tan, tanh, sinh, cosh, asin, acos, atan, atan2,
// asinh, acosh, atanh, hypot, log1p, expm1 and pow for element code on the host: branch-free
// inline code (the random module's kernels, random/math.hpp) with IEEE special values, so the
// chunk kernels vectorize them (libm's functions are calls, which keep a loop scalar; so does a
// conditional expression with arithmetic in an arm, which gcc will not if-convert: selects here
// are of values already computed, or detail::pick). exp, sin, cos, atan, atan2, hypot and pow
// within 1 ulp, log and tanh within 2 ulp of glibc; exp2, cbrt, log2, log10, log1p, expm1, tan,
// asin and acos within 1 ulp, sinh, cosh, asinh, acosh and atanh within 2 ulp of the exact value
// (tests/test_host_math.cpp: random inputs over the whole range and the special values). Device
// code keeps CUDA's own functions.
//
// sin, cos, tan and pow: the branch-free part (sin_reduced, cos_reduced, tan_reduced,
// pow_reduced) covers the
// ordinary arguments (|x| < 2^30 for sin and cos, where a three-part pi / 2 reduces the argument
// to a double-double; see pow_reduced_applies), libm's the rest. The per-element functions choose
// with a branch; batches (the fill_batch of ops::sin / ops::cos / ops::power, which the chunk
// kernels call) run the branch-free part over the whole batch, vectorized, then redo the rare
// other arguments with libm: the same values either way.
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
/// pi and ln 2 rounded, pi's rounding error, pi / 2 rounded.
inline constexpr double pi_hi = 3.14159265358979311600e+00, pi_lo = 1.22464679914735317720e-16;
inline constexpr double half_pi = 1.57079632679489655800e+00, ln2 = 6.93147180559945286227e-01;
/// x with the sign bit of s (x >= 0 or NaN).
TESSERA_HD TESSERA_INLINE double with_sign_of(double x, double s) {
  return random::math::from_bits(random::math::bits(x) | (random::math::bits(s) & std::uint64_t(0x8000000000000000ull)));
}
}  // namespace detail

/// Natural logarithm: NaN below 0 and for NaN, -inf at +-0, +inf at +inf; subnormals exact.
TESSERA_HD TESSERA_INLINE double log(double x) {
  using lim = std::numeric_limits<double>;
  const bool tiny = x < 0x1p-1022;  // subnormal, zero or negative (false for NaN)
  // (selects of constants, then unconditional arithmetic: the loop stays branch-free)
  double r = random::math::log_scaled(x * detail::pick(tiny, 0x1p52, 1.0), -(52 & -std::int32_t(tiny)));
  r = detail::pick(x < 0, lim::quiet_NaN(), r);
  r = detail::pick(x == 0, -lim::infinity(), r);
  r = detail::pick(x == lim::infinity(), x, r);
  return detail::pick(x != x, x, r);
}
TESSERA_HD TESSERA_INLINE float log(float x) {
  using lim = std::numeric_limits<float>;
  const bool tiny = x < 0x1p-126f;
  float r = random::math::log_scaled(x * detail::pick(tiny, 0x1p23f, 1.0f), -(23 & -std::int32_t(tiny)));
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
/// As a double-double hi + lo: hi is sin_kernel's value, lo its last rounding error.
TESSERA_HD TESSERA_INLINE void sin_kernel_dd(double x, double y, double& hi, double& lo) {
  constexpr double s1 = -1.66666666666666324348e-01, s2 = 8.33333333332248946124e-03,
                   s3 = -1.98412698298579493134e-04, s4 = 2.75573137070700676789e-06,
                   s5 = -2.50507602534068634195e-08, s6 = 1.58969099521155010221e-10;
  const double z = x * x, v = z * x;
  const double r = fmad(z, fmad(z, fmad(z, fmad(z, s6, s5), s4), s3), s2);
  const double a = fmad(-v, r, 0.5 * y);
  const double b = fmad(z, a, -y);
  const double c = fmad(-v, s1, b);
  hi = x - c;
  lo = (x - hi) - c;  // |x| >= |c|
}
TESSERA_HD TESSERA_INLINE double sin_kernel(double x, double y) {
  double hi, lo;
  sin_kernel_dd(x, y, hi, lo);
  return hi;
}
/// cos(rh + rl) for |rh + rl| <= pi / 4 (+ a hair): even polynomial of degree 14 with the tail's
/// first-order term, 1 - z / 2 split so that its rounding error is kept (within about 0.8 ulp).
/// As a double-double hi + lo: hi is cos_kernel's value, lo its last rounding error.
TESSERA_HD TESSERA_INLINE void cos_kernel_dd(double x, double y, double& hi, double& lo) {
  constexpr double c1 = 4.16666666666666019037e-02, c2 = -1.38888888888741095749e-03,
                   c3 = 2.48015872894767294178e-05, c4 = -2.75573143513906633035e-07,
                   c5 = 2.08757232129817482790e-09, c6 = -1.13596475577881948265e-11;
  const double z = x * x, w = z * z;
  const double r = fmad(w * w, fmad(z, fmad(z, c6, c5), c4), z * fmad(z, fmad(z, c3, c2), c1));
  const double hz = 0.5 * z;
  const double one_minus = 1.0 - hz;
  const double d = fmad(z, r, -(x * y));
  const double e = ((1.0 - one_minus) - hz) + d;
  hi = one_minus + e;
  lo = (one_minus - hi) + e;  // |one_minus| >= |e|
}
TESSERA_HD TESSERA_INLINE double cos_kernel(double x, double y) {
  double hi, lo;
  cos_kernel_dd(x, y, hi, lo);
  return hi;
}
}  // namespace detail

/// Largest |x| of the branch-free sin, cos and tan (sin_reduced, cos_reduced, tan_reduced).
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

/// tan(x) for |x| < 2^30, branch-free (garbage above; NaN for inf and NaN): the reduced
/// argument's sine over its cosine (minus the cosine over the sine in odd quadrants), both as
/// double-doubles (the kernels' last rounding kept), the quotient corrected by its FMA
/// remainder; -0 at -0.
TESSERA_HD TESSERA_INLINE double tan_reduced(double x) {
  double rh, rl;
  std::uint32_t q;
  detail::reduce_half_pi(x, rh, rl, q);
  double sh, sl, ch, cl;
  detail::sin_kernel_dd(rh, rl, sh, sl);
  detail::cos_kernel_dd(rh, rl, ch, cl);
  const bool odd = q & 1u;
  const double nh = detail::pick(odd, -ch, sh), nl = detail::pick(odd, -cl, sl);
  const double dh = detail::pick(odd, sh, ch), dl = detail::pick(odd, sl, cl);
  const double t = nh / dh;
  // (nh + nl) / (dh + dl) = t + (nh - t dh + nl - t dl) / dh to first order
  const double r = (detail::fmad(-t, dh, nh) + detail::fmad(-t, dl, nl)) / dh;
  return detail::pick(x == 0, x, t + r);
}
/// float: the double function rounded once (|x| < 2^30).
TESSERA_HD TESSERA_INLINE float tan_reduced(float x) { return float(tan_reduced(double(x))); }
/// tan of any value: the branch-free code for |x| < 2^30, libm's otherwise.
TESSERA_HD inline double tan(double x) { return trig_reduced_applies(x) ? tan_reduced(x) : ::tan(x); }
TESSERA_HD inline float tan(float x) { return trig_reduced_applies(x) ? tan_reduced(x) : ::tanf(x); }

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

// ---- power ---------------------------------------------------------------------------------
// pow(x, y) = exp(y log x) with log x as a double-double (about 2^-66 absolute in its mantissa
// part, so that y log x keeps the accuracy e^z needs for |z| up to 745) and e^z taking z as a
// double-double; the exponents 2, 1, -1, 0 and 0.5 exactly as x * x, x, 1 / x, 1 and sqrt(x) (as
// NumPy's fast paths for those powers: pow_exact).
// Branch-free for x finite and nonzero, y finite, and x > 0 or y an integer (pow_reduced_applies);
// libm's elsewhere (zeros, infinities, NaN, negative x to non-integer y). Within 1 ulp of glibc
// (tests/test_host_math.cpp).

namespace detail {
/// a + b = s + e exactly (any magnitudes).
TESSERA_HD TESSERA_INLINE void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  const double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}

/// x = 2^e m with m in [sqrt(1/2), sqrt(2)) and s + sl = (m - 1) / (m + 1) (a double-double),
/// for x positive and finite (subnormals included): the reduction of log_dd and log_base.
TESSERA_HD TESSERA_INLINE void log_reduce(double x, double& e, double& s, double& sl) {
  using random::math::bits;
  using random::math::from_bits;
  const bool tiny = x < 0x1p-1022;
  const std::uint64_t b = bits(x * pick(tiny, 0x1p52, 1.0));
  const std::uint64_t t = b - 0x3FE6A09E667F3BCDull;  // exponent of x / sqrt(1/2)
  const std::int32_t k = std::int32_t(std::uint32_t(t >> 32)) >> 20;
  const double m = from_bits(b - (std::uint64_t(std::int64_t(k)) << 52));
  e = double(k - (52 & -std::int32_t(tiny)));
  const double f = m - 1.0;  // exact (Sterbenz)
  const double nh = 2.0 + f, nl = f - (nh - 2.0);  // m + 1 = nh + nl exactly
  const double inv = 1.0 / nh;  // (one division: s need not be the rounded quotient)
  s = f * inv;
  sl = fmad(-s, nl, fmad(-s, nh, f)) * inv;  // f / (m + 1) = s + sl
}

/// log x = lh + ll for x positive and finite (subnormals included), within about 2^-66 of the
/// exact value plus 2^-75 |exponent| (x = 2^e m, m in [sqrt(1/2), sqrt(2)): log m = 2 atanh(s),
/// s = (m - 1) / (m + 1) carried as a double-double, its series to s^25 with the first three
/// terms in double-double).
TESSERA_HD TESSERA_INLINE void log_dd(double x, double& lh, double& ll) {
  constexpr double ln2_hi = 0x1.62e42feep-1;  // 32 significant bits: e ln2_hi is exact
  constexpr double ln2_lo = 0x1.a39ef35793c76p-33;
  double e, s, sl;
  log_reduce(x, e, s, sl);
  const double zh = s * s;
  const double zl = fmad(2.0 * s, sl, fmad(s, s, -zh));  // (s + sl)^2 = zh + zl
  // 2 atanh(S) = 2S + 2S^3 / 3 + 2S^5 / 5 + 2S^7 (1/7 + S^2 / 9 + ... + S^18 / 25): the first
  // three terms as double-doubles (the third is up to 2^-14: its rounding would cost 2^-67).
  const double ah = 2.0 * s, al = 2.0 * sl;
  const double bh = ah * zh;
  const double bl = fmad(ah, zh, -bh) + fmad(ah, zl, al * zh);  // 2S^3 = bh + bl
  const double ch = bh * (1.0 / 3);
  const double c3 = fmad(-ch, 3.0, bh) + bl;  // 2S^3 / 3 = ch + c3 / 3
  const double gh = bh * zh;
  const double gl = fmad(bh, zh, -gh) + fmad(bh, zl, bl * zh);  // 2S^5 = gh + gl
  const double dh = gh * 0.2;
  const double d5 = fmad(-dh, 5.0, gh) + gl;  // 2S^5 / 5 = dh + d5 / 5
  double q = 1.0 / 25;
  q = fmad(q, zh, 1.0 / 23);
  q = fmad(q, zh, 1.0 / 21);
  q = fmad(q, zh, 1.0 / 19);
  q = fmad(q, zh, 1.0 / 17);
  q = fmad(q, zh, 1.0 / 15);
  q = fmad(q, zh, 1.0 / 13);
  q = fmad(q, zh, 1.0 / 11);
  q = fmad(q, zh, 1.0 / 9);
  q = fmad(q, zh, 1.0 / 7);
  // dh + 2S^7 q = uh + ue (the rest is below 2^-19 and 2% of dh, with its sign: dh - uh is
  // exact). Explicit multiply-adds: a product feeding only additions would be contracted into
  // an FMA in some builds and not in others, and this one is inexact.
  const double zq = zh * q;
  const double uh = fmad(gh, zq, dh);
  const double ue = fmad(gh, zq, dh - uh);
  double th, te, mh, me;
  two_sum(ch, uh, th, te);
  two_sum(ah, th, mh, me);
  const double ml = me + fmad(c3, 1.0 / 3, fmad(d5, 0.2, te + ue + al));
  double sh, se;
  two_sum(e * ln2_hi, mh, sh, se);
  const double sl2 = se + fmad(e, ln2_lo, ml);
  lh = sh + sl2;
  ll = sl2 - (lh - sh);
}

/// e^(zh + zl) for |zl| <= 2^-40 |zh| or so: exp's reduction and polynomial (random/math.hpp)
/// with zl and the reduction's rounding error carried to the end; +inf above, 0 below the range
/// (zh may be infinite, zl then anything but NaN).
TESSERA_HD TESSERA_INLINE double exp_dd(double zh, double zl) {
  // clamps (both 2^n factors stay normal; zl bounded where zh overflowed): no branches
  const double x = zh < -1400.0 ? -1400.0 : (zh > 1400.0 ? 1400.0 : zh);
  const double xl = zl < -0x1p-20 ? -0x1p-20 : (zl > 0x1p-20 ? 0x1p-20 : zl);
  const double magic = 0x1.8p52;
  const double kn = fmad(x, 1.4426950408889634, magic);
  const double n = kn - magic;
  const double r0 = fmad(-n, 0.6931467056274414, x);  // exact
  double r, rl;
  two_sum(r0, fmad(-n, 4.7493250390316726e-07, xl), r, rl);
  const double p = random::math::exp_poly(r);
  // e^r = 1 + r p(r) = h + he; e^(r + rl) = e^r (1 + rl)
  const double h = fmad(p, r, 1.0);
  const double he = fmad(p, r, 1.0 - h);  // h's rounding error (1 - h is exact)
  const double er = h + fmad(h, rl, he);
  return random::math::scale_by_exponent(er, kn, magic);
}

/// Whether y is an integer, and an odd one (y finite). Below 2^52, adding 2^52 rounds to an
/// integer (and half an odd integer to an even one); from 2^52 on every double is an integer,
/// odd ones only below 2^53. Comparisons only, so that loops over it vectorize.
TESSERA_HD TESSERA_INLINE void integer_parity(double y, bool& integer, bool& odd) {
  const double a = __builtin_fabs(y), h = 0.5 * a;
  integer = (a >= 0x1p52) | ((a + 0x1p52) - 0x1p52 == a);
  odd = integer & (a < 0x1p53) & ((h + 0x1p52) - 0x1p52 != h);
}
}  // namespace detail

/// 2^x, branch-free: e^(x ln 2) with x ln 2 a double-double (the product's rounding error by an
/// FMA, ln 2's own low part times x) through exp_dd. Within 1 ulp of the exact value, exact at
/// the integers; +inf from 1024 on, gradual underflow down to -1075, 0 below, NaN for NaN.
TESSERA_HD TESSERA_INLINE double exp2(double x) {
  constexpr double ln2 = detail::ln2, ln2_lo = 2.31904681384629955842e-17;
  const double c = x < -1100.0 ? -1100.0 : (x > 1100.0 ? 1100.0 : x);  // (inf: clamped)
  const double zh = c * ln2;
  const double zl = detail::fmad(c, ln2, -zh) + c * ln2_lo;
  return detail::pick(x != x, x, detail::exp_dd(zh, zl));
}
/// float: the double function rounded once.
TESSERA_HD TESSERA_INLINE float exp2(float x) { return float(exp2(double(x))); }

/// Cube root, branch-free: |x| = 2^(3k) m with m in [1/2, 4) (subnormals scaled by 2^54 first),
/// a cubic first guess of cbrt(m) (1.7% off at most), two Halley steps y (y^3 + 2m) / (2y^3 + m)
/// (cubic convergence), one Newton step on the exact residual m - y^3 (y^3 as a double-double by
/// FMAs), then 2^k and x's sign. Within 1 ulp of the exact value, exact for exact cubes; +-0,
/// +-inf and NaN as themselves.
TESSERA_HD TESSERA_INLINE double cbrt(double x) {
  using detail::fmad;
  using detail::pick;
  constexpr double magic = 0x1.8p52;
  const double ax = __builtin_fabs(x);
  const bool tiny = ax < 0x1p-1022;
  const double a = ax * pick(tiny, 0x1p54, 1.0);
  // the exponent of a as a double (from its bits, no integer conversion), k = round(e / 3)
  const double e =
      random::math::from_bits(std::uint64_t((random::math::bits(a) >> 52) | 0x4330000000000000ull)) - (0x1p52 + 1023.0);
  const double kn = fmad(e, 1.0 / 3.0, magic), k = kn - magic;
  const double m = random::math::scale_by_exponent(a, magic - 3.0 * k, magic);
  double y = fmad(fmad(fmad(0.010880777369501608, m, -0.11024101710496398), m, 0.5220744240564223), m,
                  0.5726408238788899);
  for (int it = 0; it < 2; ++it) {
    const double y3 = y * y * y;
    y = y * fmad(2.0, m, y3) / fmad(2.0, y3, m);
  }
  const double y2 = y * y, y2l = fmad(y, y, -y2);
  const double y3 = y2 * y, y3l = fmad(y2, y, -y3) + y2l * y;
  y += ((m - y3) - y3l) / (3.0 * y2);
  const double r = random::math::scale_by_exponent(y, kn, magic) * pick(tiny, 0x1p-18, 1.0);
  const double v = detail::with_sign_of(r, x);
  return pick((ax == 0.0) | (ax == std::numeric_limits<double>::infinity()) | (x != x), x, v);
}
/// float: the double function rounded once.
TESSERA_HD TESSERA_INLINE float cbrt(float x) { return float(cbrt(double(x))); }


/// The exponents pow takes exactly, as NumPy's fast paths for them do (any x, NaN included):
/// x^2 = x * x, x^1 = x, x^-1 = 1 / x, x^0 = 1, x^0.5 = sqrt(x) (but +0 at -0 and +inf at -inf).
template <class T>
TESSERA_HD TESSERA_INLINE bool pow_exact_exponent(T y) {
  return (y == T(2)) | (y == T(1)) | (y == T(-1)) | (y == T(0)) | (y == T(0.5));
}
/// x^y for an exponent of pow_exact_exponent.
template <class T>
TESSERA_HD inline T pow_exact(T x, T y) {
  if (y == T(2)) return x * x;
  if (y == T(1)) return x;
  if (y == T(-1)) return T(1) / x;
  if (y == T(0)) return T(1);
  if (x == T(0)) return T(0);
  if (x == -std::numeric_limits<T>::infinity()) return std::numeric_limits<T>::infinity();
  return random::math::sqrt(x);
}

/// True where the branch-free pow applies: x finite and nonzero, y finite and not an exponent
/// of pow_exact_exponent, and x > 0 or y an integer.
TESSERA_HD TESSERA_INLINE bool pow_reduced_applies(double x, double y) {
  bool integer, odd;
  detail::integer_parity(y, integer, odd);
  const double big = 1.7976931348623157e308;
  return (x >= -big) & (x <= big) & (x != 0) & (y >= -big) & (y <= big) & ((x > 0) | integer) &
         !pow_exact_exponent(y);
}
TESSERA_HD TESSERA_INLINE bool pow_reduced_applies(float x, float y) {
  return pow_reduced_applies(double(x), double(y));
}

/// x^y where pow_reduced_applies(x, y), branch-free (garbage elsewhere).
TESSERA_HD TESSERA_INLINE double pow_reduced(double x, double y) {
  bool integer, odd;
  detail::integer_parity(y, integer, odd);
  const double a = __builtin_fabs(x);
  double lh, ll;
  detail::log_dd(a, lh, ll);
  const double zh = y * lh;
  const double zl = random::math::fmad(y, ll, random::math::fmad(y, lh, -zh));
  const double r = detail::exp_dd(zh, zl);
  return detail::pick((x < 0) & odd, -r, r);
}
/// float: the double function rounded once.
TESSERA_HD TESSERA_INLINE float pow_reduced(float x, float y) {
  return float(pow_reduced(double(x), double(y)));
}

/// x^y for any x and y: the exact exponents as pow_exact, the branch-free code where it applies,
/// libm's otherwise.
TESSERA_HD inline double pow(double x, double y) {
  if (pow_exact_exponent(y)) return pow_exact(x, y);
  return pow_reduced_applies(x, y) ? pow_reduced(x, y) : ::pow(x, y);
}
TESSERA_HD inline float pow(float x, float y) {
  if (pow_exact_exponent(y)) return pow_exact(x, y);
  return pow_reduced_applies(x, y) ? pow_reduced(x, y) : ::powf(x, y);
}

namespace detail {
/// log_b x = k log_b 2 + (ln m) / ln b for any x (x = 2^k m, m in [sqrt(1/2), sqrt(2)); bh + bl
/// = log_b 2 with k bh exact, ch + cl = 1 / ln b), rounded once, branch-free. ln m = 2 atanh(s),
/// s = (m - 1) / (m + 1): 2s as a double-double, the rest of the series (at most 2^-6.7 of it)
/// in double, to s^23; both products and the sum with k log_b 2 carried as double-doubles, so
/// the value before the last rounding is within about 2^-57 of the exact one (relative): within
/// 1 ulp, nearly always correctly rounded. NaN below 0 and for NaN, -inf at +-0, +inf at +inf.
TESSERA_HD TESSERA_INLINE double log_base(double x, double bh, double bl, double ch, double cl) {
  using lim = std::numeric_limits<double>;
  using random::math::fmad;
  double e, s, sl;
  log_reduce(pick((x > 0) & (x <= lim::max()), x, 1.0), e, s, sl);
  const double z = s * s;
  double q = 1.0 / 23;
  q = fmad(q, z, 1.0 / 21);
  q = fmad(q, z, 1.0 / 19);
  q = fmad(q, z, 1.0 / 17);
  q = fmad(q, z, 1.0 / 15);
  q = fmad(q, z, 1.0 / 13);
  q = fmad(q, z, 1.0 / 11);
  q = fmad(q, z, 1.0 / 9);
  q = fmad(q, z, 1.0 / 7);
  q = fmad(q, z, 1.0 / 5);
  q = fmad(q, z, 1.0 / 3);
  const double ah = 2.0 * s;
  const double al = fmad(ah * z, q, 2.0 * sl);  // ln m = ah + al (2 sl exact)
  const double h = ah * ch;
  const double err = fmad(ah, ch, -h) + fmad(ah, cl, al * ch);  // (ah + al) c = h + err
  double sh, se;
  two_sum(e * bh, h, sh, se);  // e bh exact
  double r = sh + (se + fmad(e, bl, err));
  r = pick(x < 0, lim::quiet_NaN(), r);
  r = pick(x == 0, -lim::infinity(), r);
  r = pick(x == lim::infinity(), x, r);
  return pick(x != x, x, r);
}
}  // namespace detail

/// Base-2 and base-10 logarithms, branch-free (detail::log_base): within 1 ulp of the exact
/// value, nearly always correctly rounded (glibc's log10 is up to 1.5 ulp off next to 1), exact
/// at powers of two and, for log10, of ten up to 10^22; NaN below 0 and for NaN, -inf at +-0,
/// +inf at +inf.
TESSERA_HD TESSERA_INLINE double log2(double x) {
  return detail::log_base(x, 1.0, 0.0, 0x1.71547652b82fep+0, 0x1.777d0ffda0d24p-56);
}
TESSERA_HD TESSERA_INLINE double log10(double x) {
  return detail::log_base(x, 0x1.3441350ap-2, -0x1.0c0219dc1da99p-39, 0x1.bcb7b1526e50ep-2,
                          0x1.95355baaafad3p-57);
}
/// float: the double functions rounded once.
TESSERA_HD TESSERA_INLINE float log2(float x) { return float(log2(double(x))); }
TESSERA_HD TESSERA_INLINE float log10(float x) { return float(log10(double(x))); }

/// log(1 + x), branch-free: the double-double logarithm (detail::log_dd) of u = 1 + x plus the
/// rounding error of 1 + x, (x - (u - 1)) / u, rounded once: within 1 ulp, x itself where
/// 1 + x rounds to 1 (and at +-0); -inf at -1, NaN below -1 and for NaN, +inf at +inf.
TESSERA_HD TESSERA_INLINE double log1p(double x) {
  using lim = std::numeric_limits<double>;
  const double u = 1.0 + x;
  const bool regular = (u > 0.0) & (u < lim::infinity());  // x > -1 and finite
  const double v = detail::pick(regular, u, 1.0);
  double lh, ll;
  detail::log_dd(v, lh, ll);
  const double c = (detail::pick(regular, x, 0.0) - (v - 1.0)) / v;  // u - 1 is exact below 2^53
  double r = lh + (ll + c);
  r = detail::pick(x == 0.0, x, r);  // -0 stays -0
  r = detail::pick(x < -1.0, lim::quiet_NaN(), r);
  r = detail::pick(x == -1.0, -lim::infinity(), r);
  return detail::pick(regular | (x <= -1.0), r, x);  // +inf and NaN
}
/// float: the double function rounded once.
TESSERA_HD TESSERA_INLINE float log1p(float x) { return float(log1p(double(x))); }

/// e^x - 1, branch-free: x = n ln 2 + r (|r| <= ln 2 / 2, r + rl a double-double), e^r - 1 =
/// r + r^2 t(r) + rl with exp's polynomial tail (no cancellation) as a double-double, then
/// 2^n ((e^r - 1) + (1 - 2^-n)) with that sum carried as a double-double and rounded once after
/// the scaling. Within 1 ulp of the exact value; -0 at -0, -1 far below 0 and at -inf, +inf
/// from about 709.78 on, NaN for NaN.
TESSERA_HD TESSERA_INLINE double expm1(double x) {
  using random::math::scale_by_exponent;
  const double c = x < -60.0 ? -60.0 : (x > 710.0 ? 710.0 : x);  // -1 and +inf beyond
  const double magic = 0x1.8p52;
  const double kn = detail::fmad(c, 1.4426950408889634, magic);
  const double n = kn - magic;
  const double r0 = detail::fmad(-n, 0.6931467056274414, c);  // exact
  double r, rl;
  detail::two_sum(r0, detail::fmad(-n, 4.7493250390316726e-07, 0.0), r, rl);
  const double r2 = r * r;
  // at most 0.07, its rounding is small; an explicit multiply-add, so that no build contracts
  // the product into the sums below (every build gives the same bits)
  const double t = detail::fmad(r2, random::math::exp_poly_tail(r), 0.0);
  double qh, ql;
  detail::two_sum(r, t, qh, ql);
  ql += detail::fmad(r, r, -r2) * 0.5 + rl;  // e^(r + rl) - 1 = qh + ql (r^2's rounding, t ~ r^2 / 2)
  const double m = 1.0 - scale_by_exponent(1.0, 2.0 * magic - kn, magic);  // 1 - 2^-n, exact for n <= 53
  double sh, se;
  detail::two_sum(m, qh, sh, se);
  const double sl = se + ql;
  const double v = scale_by_exponent(sh, kn, magic) + scale_by_exponent(sl, kn, magic);
  return detail::pick((x == 0.0) | (x != x), x, v);
}
/// float: the double function rounded once.
TESSERA_HD TESSERA_INLINE float expm1(float x) { return float(expm1(double(x))); }

// ---- hyperbolic sine and cosine, arctangent, hypotenuse -------------------------------------

namespace detail {
/// e^a / 2 for a >= 1, finite up to sinh's and cosh's overflow threshold (about 710.48, where
/// e^a itself overflowed at 709.78): e^(a - ln 2) with a - ln2_hi exact (ln2_hi has 32
/// significant bits: for 1 <= a < 2^21 the difference is a multiple of a's ulp below a) and
/// ln2_lo carried by exp_dd.
TESSERA_HD TESSERA_INLINE double half_exp(double a) {
  return exp_dd(a - 6.93147180369123816490e-01, -1.90821492927058770002e-10);
}
}  // namespace detail

/// Hyperbolic sine, branch-free: below |x| = 1 its odd Taylor series to x^21 (positive terms,
/// no cancellation; the next term is below 2^-60 of the sum), above h - 1 / (4h) with h = e^|x| /
/// 2 (detail::half_exp), with the sign of x. Within 2 ulp of the exact value (as glibc's); -0 at
/// -0, +-inf from about +-710.48 on, NaN for NaN.
TESSERA_HD TESSERA_INLINE double sinh(double x) {
  using detail::fmad;
  const double a = __builtin_fabs(x), z = a * a;
  // 1/3!, 1/5!, ..., 1/21! (rounded), Horner in z = x^2
  const double p = fmad(fmad(fmad(fmad(fmad(fmad(fmad(fmad(fmad(1.9572941063391263e-20, z, 8.22063524662433e-18), z, 2.8114572543455206e-15), z, 7.647163731819816e-13), z, 1.6059043836821613e-10), z, 2.505210838544172e-08), z, 2.7557319223985893e-06), z, 0.0001984126984126984), z, 0.008333333333333333), z, 0.16666666666666666);
  const double small = fmad(a * z, p, a);
  const double h = detail::half_exp(a < 711.0 ? a : 711.0);
  const double large = h - 0.25 / h;
  const double r = detail::pick(a < 1.0, small, large);
  return detail::pick(x != x, x, detail::with_sign_of(r, x));
}
/// float: the double function rounded once.
TESSERA_HD TESSERA_INLINE float sinh(float x) { return float(sinh(double(x))); }

/// Hyperbolic cosine, branch-free: below |x| = 1 its even Taylor series to x^20, above h + 1 /
/// (4h) with h = e^|x| / 2. Within 2 ulp of the exact value (as glibc's); 1 at +-0, +inf from
/// about +-710.48 on and at +-inf, NaN for NaN.
TESSERA_HD TESSERA_INLINE double cosh(double x) {
  using detail::fmad;
  const double a = __builtin_fabs(x), z = a * a;
  // 1/2!, 1/4!, ..., 1/20! (rounded), Horner in z = x^2
  const double p = fmad(fmad(fmad(fmad(fmad(fmad(fmad(fmad(fmad(4.110317623312165e-19, z, 1.5619206968586225e-16), z, 4.779477332387385e-14), z, 1.1470745597729725e-11), z, 2.08767569878681e-09), z, 2.755731922398589e-07), z, 2.48015873015873e-05), z, 0.001388888888888889), z, 0.041666666666666664), z, 0.5);
  const double small = fmad(z, p, 1.0);
  const double h = detail::half_exp(a < 711.0 ? a : 711.0);
  const double r = detail::pick(a < 1.0, small, h + 0.25 / h);
  return detail::pick(a != a, a, r);
}
/// float: the double function rounded once.
TESSERA_HD TESSERA_INLINE float cosh(float x) { return float(cosh(double(x))); }

/// Inverse hyperbolic tangent, branch-free (fdlibm's formulas on the branch-free log1p):
/// log1p(2a + 2a^2 / (1 - a)) / 2 below a = |x| = 0.5, log1p(2a / (1 - a)) / 2 above, with the
/// sign of x. Within 2 ulp of the exact value; +-inf at +-1, NaN beyond and for NaN, -0 at -0.
TESSERA_HD TESSERA_INLINE double atanh(double x) {
  const double a = __builtin_fabs(x), d = 1.0 - a;
  const double t = a + a;
  const double arg = detail::pick(a < 0.5, detail::fmad(t, a / d, t), t / d);
  const double r = 0.5 * log1p(arg);
  return detail::with_sign_of(r, x);  // (NaN stays NaN)
}
/// float: the double function rounded once.
TESSERA_HD TESSERA_INLINE float atanh(float x) { return float(atanh(double(x))); }

namespace detail {
/// pi - (zh + zl) rounded once, for 0 <= zh <= pi (pi_hi - zh's rounding error carried with the
/// low parts).
TESSERA_HD TESSERA_INLINE double pi_minus(double zh, double zl) {
  const double d = pi_hi - zh;
  return d + (((pi_hi - d) - zh) + (pi_lo - zl));
}
/// atan(a + al) = zh + zl (a double-double) for a >= 0 (or NaN), al a small correction to a (a
/// quotient's remainder; 0 for atan itself), added as al / (1 + a^2).
TESSERA_HD TESSERA_INLINE void atan_core(double a, double al, double& zh, double& zl) {
  using random::math::fmad;
  const bool i0 = a >= 0.4375, i1 = a >= 0.6875, i2 = a >= 1.1875, i3 = a >= 2.4375;
  // (p a + q) / (r a + s) for the interval: (a + 0) / (0 a + 1), (2a - 1) / (a + 2), (a - 1) /
  // (a + 1), (a - 1.5) / (1.5 a + 1), (0 a - 1) / (a + 0)
  const double p = pick(i3, 0.0, pick(i1, 1.0, pick(i0, 2.0, 1.0)));
  const double q = pick(i3, -1.0, pick(i2, -1.5, pick(i0, -1.0, 0.0)));
  const double r = pick(i2, pick(i3, 1.0, 1.5), pick(i0, 1.0, 0.0));
  const double s = pick(i3, 0.0, pick(i2, 1.0, pick(i1, 1.0, pick(i0, 2.0, 1.0))));
  const double capped = a < 0x1p1000 ? a : 0x1p1000;  // (0 * inf would be NaN)
  const double t = fmad(p, capped, q) / fmad(r, a, s);
  const double ch = pick(i3, half_pi,
                         pick(i2, 9.82793723247329054082e-01,
                              pick(i1, 7.85398163397448278999e-01, pick(i0, 4.63647609000806093515e-01, 0.0))));
  const double cl = pick(i3, 6.12323399573676603587e-17,
                         pick(i2, 1.39033110312309984516e-17,
                              pick(i1, 3.06161699786838301793e-17, pick(i0, 2.26987774529616870924e-17, 0.0))));
  const double z = t * t, w = z * z;
  // the odd and even halves of the polynomial in z, as fdlibm splits them
  const double s1 = z * fmad(w, fmad(w, fmad(w, fmad(w, fmad(w, 1.62858201153657823623e-02,
                                                                4.97687799461593236017e-02),
                                                           6.66107313738753120669e-02),
                                                      9.09088713343650656196e-02),
                                                 1.42857142725034663711e-01),
                             3.33333333333329318027e-01);
  const double s2 = w * fmad(w, fmad(w, fmad(w, fmad(w, -3.65315727442169155270e-02,
                                                      -5.83357013379057348645e-02),
                                                 -7.69187620504482999495e-02),
                                            -1.11111104054623557880e-01),
                             -1.99999999998764832476e-01);
  const double corr = al / fmad(a, a, 1.0);  // (0 where a^2 overflows)
  // atan a = ch + (t - v), v = t (s1 + s2) - cl - corr small: the sums carried exactly
  const double v = (t * (s1 + s2) - cl) - corr;
  double u, ue;
  two_sum(t, -v, u, ue);
  zh = ch + u;  // |ch| >= |u| where ch != 0 (then it is exact)
  zl = ((ch - zh) + u) + ue;
}
}  // namespace detail
/// Arctangent, branch-free (fdlibm's reduction and polynomial): |x| is mapped to t by one of
/// t = |x| (below 7/16), (2|x| - 1) / (2 + |x|), (|x| - 1) / (|x| + 1), (|x| - 1.5) / (1 + 1.5|x|)
/// or -1 / |x| (from 39/16 on), written as one quotient (p|x| + q) / (r|x| + s), and atan|x| =
/// atan(c) + atan t with atan(c) of the interval's point c (0, 1/2, 1, 3/2, inf) as a
/// double-double; t's odd polynomial of degree 21, the sum carried as a double-double and
/// rounded once. Within 1 ulp of the exact value; +-pi/2 at +-inf, -0 at
/// -0, NaN for NaN.
TESSERA_HD TESSERA_INLINE double atan(double x) {
  double zh, zl;
  detail::atan_core(__builtin_fabs(x), 0.0, zh, zl);
  return detail::pick(x != x, x, detail::with_sign_of(zh + zl, x));
}
/// float: the double function rounded once.
TESSERA_HD TESSERA_INLINE float atan(float x) { return float(atan(double(x))); }

/// The angle of (x, y), branch-free (fdlibm's scheme): atan(|y| / |x|) with the quotient's
/// remainder carried into the arctangent, then pi - that for x < 0 (pi as pi_hi + pi_lo), with
/// y's sign, the arctangent and pi - it as double-doubles rounded once; the IEEE special cases
/// (zeros of either sign, infinities, NaN) as libm. Within 1 ulp of glibc (0.72 ulp of the exact
/// value on 1e7 random pairs).
TESSERA_HD TESSERA_INLINE double atan2(double y, double x) {
  using detail::fmad;
  using detail::pick;
  using detail::half_pi;
  constexpr double quarter_pi = 7.85398163397448278999e-01;
  constexpr double three_quarters_pi = 2.35619449019234492885e+00;
  constexpr double inf = std::numeric_limits<double>::infinity();
  const double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
  const bool west = random::math::bits(x) >> 63;  // x < 0 or x = -0
  const double t = ay / ax;
  const bool regular = (t < inf) & (ax < inf) & (ax > 0.0);  // t finite: its remainder is exact
  const double tl = pick(regular, fmad(-t, ax, ay) / ax, 0.0);
  double zh, zl;
  detail::atan_core(pick(t == t, t, 0.0), tl, zh, zl);
  double r = pick(west, detail::pi_minus(zh, zl), zh + zl);
  r = pick(ay == 0.0, pick(west, detail::pi_hi, 0.0), r);             // (+-0, x)
  r = pick((ax == 0.0) & (ay != 0.0), half_pi, r);                    // (y, +-0)
  r = pick((ay == inf) & (ax < inf), half_pi, r);                     // (+-inf, finite)
  r = pick((ay == inf) & (ax == inf), pick(west, three_quarters_pi, quarter_pi), r);
  r = detail::with_sign_of(r, y);
  return pick((x != x) | (y != y), x + y, r);
}
/// float: in double, rounded once.
TESSERA_HD TESSERA_INLINE float atan2(float y, float x) { return float(atan2(double(y), double(x))); }

// ---- arcsin, arccos, arcsinh, arccosh: around one square root ------------------------------
// Each is name_radicand(x) (the square root's argument) and name_finish(x, root), so that a batch
// takes its square roots on the vector lanes between the two (ops' fill_batch: gcc keeps libm's
// scalar sqrt in element loops because of errno); name(x) is name_finish(x, sqrt(radicand)).

namespace detail {
/// 1 - a^2 = wh + wl for 0 <= a <= 1: (1 - a)(1 + a) from a = 1/2 on (1 - a exact there),
/// 1 - a * a with one rounding below.
TESSERA_HD TESSERA_INLINE void one_minus_square(double a, double& wh, double& wl) {
  const double d = 1.0 - a;
  double s, se;
  two_sum(1.0, a, s, se);
  const double big = d * s;
  const double big_l = fmad(d, s, -big) + d * se;
  const double small = fmad(-a, a, 1.0);
  const double small_l = fmad(-a, a, 1.0 - small);
  const bool upper = a >= 0.5;
  wh = pick(upper, big, small);
  wl = pick(upper, big_l, small_l);
}
/// sqrt(wh + wl) = root + the returned correction (root = the rounded sqrt(wh)).
TESSERA_HD TESSERA_INLINE double root_low(double wh, double wl, double root) {
  return pick(root > 0.0, (fmad(-root, root, wh) + wl) / (root + root), 0.0);
}
/// atan((nh + nl) / (dh + dl)) = zh + zl for nh, dh >= 0, not both 0 (+-inf where dh is 0).
TESSERA_HD TESSERA_INLINE void atan_ratio(double nh, double nl, double dh, double dl, double& zh, double& zl) {
  const double t = nh / dh;
  const bool regular = (dh > 0.0) & (t < std::numeric_limits<double>::infinity());
  const double tl = pick(regular, (fmad(-t, dh, nh) + (nl - t * dl)) / dh, 0.0);
  atan_core(t, tl, zh, zl);
}
}  // namespace detail

TESSERA_HD TESSERA_INLINE double asin_radicand(double x) {
  double wh, wl;
  detail::one_minus_square(__builtin_fabs(x), wh, wl);
  return wh;
}
/// arcsin from root = sqrt(asin_radicand(x)): atan(|x| / sqrt(1 - x^2)) with the square root and
/// the quotient carried as double-doubles, x's sign. Within 1 ulp of the exact value; NaN
/// beyond +-1 and for NaN, -0 at -0.
TESSERA_HD TESSERA_INLINE double asin_finish(double x, double root) {
  const double a = __builtin_fabs(x);
  double wh, wl, zh, zl;
  detail::one_minus_square(a, wh, wl);
  detail::atan_ratio(a, 0.0, root, detail::root_low(wh, wl, root), zh, zl);
  return detail::pick(x != x, x, detail::with_sign_of(zh + zl, x));
}
TESSERA_HD TESSERA_INLINE double acos_radicand(double x) { return asin_radicand(x); }
/// arccos from root = sqrt(acos_radicand(x)): atan(sqrt(1 - x^2) / |x|), pi minus it for x < 0
/// (as double-doubles). Within 1 ulp of the exact value; pi / 2 at +-0, NaN beyond +-1 and for
/// NaN.
TESSERA_HD TESSERA_INLINE double acos_finish(double x, double root) {
  const double a = __builtin_fabs(x);
  double wh, wl, zh, zl;
  detail::one_minus_square(a, wh, wl);
  detail::atan_ratio(root, detail::root_low(wh, wl, root), a, 0.0, zh, zl);
  double r = detail::pick(x < 0.0, detail::pi_minus(zh, zl), zh + zl);
  r = detail::pick(a == 0.0, detail::half_pi, r);
  return detail::pick(x != x, x, r);
}

/// The square root's argument of asinh and acosh: a^2 + 1 (a = |x| below 2^28, where the
/// formula uses it) and t (t + 2), t = x - 1 (= x^2 - 1; x below 2^28).
TESSERA_HD TESSERA_INLINE double asinh_radicand(double x) {
  const double a = __builtin_fabs(x), c = detail::pick(a < 0x1p28, a, 1.0);
  return detail::fmad(c, c, 1.0);
}
/// arcsinh from root = sqrt(asinh_radicand(x)), branch-free (fdlibm's formulas on the
/// branch-free log1p): log1p(a + a^2 / (1 + root)) up to a = |x| = 2, log(2a + 1 / (root + a))
/// up to 2^28, log a + ln 2 above, with x's sign. Within 2 ulp of the exact value; -0 at -0,
/// +-inf at +-inf, NaN for NaN.
TESSERA_HD TESSERA_INLINE double asinh_finish(double x, double root) {
  const double a = __builtin_fabs(x);
  const bool large = a >= 0x1p28, mid = a > 2.0;
  const double arg = detail::pick(large, a - 1.0,  // log1p(a - 1) = log a (a - 1 exact below 2^53)
                                  detail::pick(mid, (a + a - 1.0) + 1.0 / (root + a),
                                               a + (a * a) / (1.0 + root)));
  const double r = log1p(arg) + detail::pick(large, detail::ln2, 0.0);
  return detail::pick(x != x, x, detail::with_sign_of(r, x));
}
TESSERA_HD TESSERA_INLINE double acosh_radicand(double x) {
  const double t = detail::pick(x < 0x1p28, x, 2.0) - 1.0;
  return t * (t + 2.0);
}
/// arccosh from root = sqrt(acosh_radicand(x)), branch-free (fdlibm's formulas on log1p):
/// log1p(t + root) up to x = 2 (t = x - 1), log(2x - 1 / (x + root)) up to 2^28, log x + ln 2
/// above. Within 2 ulp of the exact value; 0 at 1, +inf at +inf, NaN below 1 and for NaN.
TESSERA_HD TESSERA_INLINE double acosh_finish(double x, double root) {
  const bool large = x >= 0x1p28, mid = x > 2.0;
  // up to 2: the radicand t (t + 2) as a double-double, so that the root carries its low part
  const double t = x - 1.0;
  double s, se;
  detail::two_sum(t, 2.0, s, se);
  const double wh = t * s, wl = detail::fmad(t, s, -wh) + t * se;
  double ah, ae;
  detail::two_sum(t, root, ah, ae);  // t + sqrt(t (t + 2)) = ah + al
  const double al = ae + detail::root_low(wh, wl, root);
  const double arg = detail::pick(large, x - 1.0,
                                  detail::pick(mid, (x + x - 1.0) - 1.0 / (x + root), ah));
  // log1p(ah + al) = log1p(ah) + al / (1 + ah) to first order (al: 0 above 2)
  const double corr = detail::pick(large | mid, 0.0, al / (1.0 + ah));
  const double r = (log1p(arg) + corr) + detail::pick(large, detail::ln2, 0.0);
  return detail::pick(x >= 1.0, r, std::numeric_limits<double>::quiet_NaN());  // (NaN: false)
}

TESSERA_HD TESSERA_INLINE double asin(double x) { return asin_finish(x, random::math::sqrt(asin_radicand(x))); }
TESSERA_HD TESSERA_INLINE double acos(double x) { return acos_finish(x, random::math::sqrt(acos_radicand(x))); }
TESSERA_HD TESSERA_INLINE double asinh(double x) { return asinh_finish(x, random::math::sqrt(asinh_radicand(x))); }
TESSERA_HD TESSERA_INLINE double acosh(double x) { return acosh_finish(x, random::math::sqrt(acosh_radicand(x))); }
/// float: the double functions rounded once.
TESSERA_HD TESSERA_INLINE float asin(float x) { return float(asin(double(x))); }
TESSERA_HD TESSERA_INLINE float acos(float x) { return float(acos(double(x))); }
TESSERA_HD TESSERA_INLINE float asinh(float x) { return float(asinh(double(x))); }
TESSERA_HD TESSERA_INLINE float acosh(float x) { return float(acosh(double(x))); }

/// sqrt(x^2 + y^2) without undue overflow or underflow, branch-free: the larger magnitude a and
/// the smaller b scaled by a power of two into range, h = sqrt(a^2 + b^2) (one FMA), then one
/// correction step h - (h^2 - a^2 - b^2) / (2h) with the residual computed exactly by FMAs
/// (Borges, "An improved algorithm for hypot(a, b)", 2019). Within 1 ulp of glibc; +inf when
/// either is infinite (even with a NaN), else NaN with a NaN; 0 at (0, 0). In two steps around
/// the square root, hypot_square then hypot_finish, so that a batch can take its square roots on
/// the vector lanes (gcc keeps libm's scalar sqrt in loops: ops::hypot::fill_batch).
namespace detail {
struct hypot_scaled {
  double a, b, unscale;  // larger and smaller magnitude, scaled; the factor that undoes it
};
TESSERA_HD TESSERA_INLINE hypot_scaled hypot_scale(double x, double y) {
  const double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
  const bool xbig = ax >= ay;
  const double hi = pick(xbig, ax, ay), lo = pick(xbig, ay, ax);
  const bool down = hi >= 0x1p500, up = hi < 0x1p-500;
  const double scale = pick(down, 0x1p-600, pick(up, 0x1p600, 1.0));
  return {hi * scale, lo * scale, pick(down, 0x1p600, pick(up, 0x1p-600, 1.0))};
}
}  // namespace detail
/// a^2 + b^2 of the scaled magnitudes (hypot's square root takes it).
TESSERA_HD TESSERA_INLINE double hypot_square(double x, double y) {
  const detail::hypot_scaled v = detail::hypot_scale(x, y);
  return detail::fmad(v.a, v.a, v.b * v.b);
}
/// hypot(x, y) from h0 = sqrt(hypot_square(x, y)).
TESSERA_HD TESSERA_INLINE double hypot_finish(double x, double y, double h0) {
  using detail::fmad;
  using detail::pick;
  const detail::hypot_scaled v = detail::hypot_scale(x, y);
  const double a = v.a, b = v.b;
  const double h2 = h0 * h0, a2 = a * a;
  const double e = (fmad(-b, b, h2 - a2) + fmad(h0, h0, -h2)) - fmad(a, a, -a2);
  double r = (h0 - e / (h0 + h0)) * v.unscale;
  r = pick(a == 0.0, 0.0, r);
  r = pick((x != x) | (y != y), x + y, r);  // NaN
  constexpr double inf = std::numeric_limits<double>::infinity();
  return pick((__builtin_fabs(x) == inf) | (__builtin_fabs(y) == inf), inf, r);
}
TESSERA_HD TESSERA_INLINE double hypot(double x, double y) {
  return hypot_finish(x, y, random::math::sqrt(hypot_square(x, y)));
}
/// float: in double, rounded once (the squares are exact there and nothing overflows).
TESSERA_HD TESSERA_INLINE float hypot(float x, float y) {
  const double a = double(x), b = double(y);
  constexpr float inf = std::numeric_limits<float>::infinity();
  const float r = float(random::math::sqrt(a * a + b * b));
  return detail::pick((x == inf) | (x == -inf) | (y == inf) | (y == -inf), inf, r);
}

}  // namespace tessera::host_math
