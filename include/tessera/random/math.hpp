// Branch-free scalar math for the random distributions, written once for host and device.
//
// Every multiply-add is an explicit fused multiply-add and the remaining operations are IEEE
// (add, multiply, divide, sqrt, integer conversions), so a value is bitwise the same whether
// it comes from the per-element path, the host batch path (which gcc vectorizes: no calls,
// no branches, no tables) or a CUDA kernel. fmad() is a fused multiply-add everywhere: an FMA
// instruction in the kernel copies compiled for AVX2 / AVX-512 (core/host_isa.hpp) and on
// -march builds with FMA; a call to libm's fma (exact, slower) in code compiled for the x86-64
// baseline, such as the baseline kernel copy, which runs only on CPUs without FMA.
#pragma once
#include <math.h>

#include <cstdint>

#include "../config.hpp"

namespace tessera::random::math {

TESSERA_HD TESSERA_INLINE double fmad(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return ::fma(a, b, c);
#else
  return __builtin_fma(a, b, c);
#endif
}
TESSERA_HD TESSERA_INLINE float fmad(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return ::fmaf(a, b, c);
#else
  return __builtin_fmaf(a, b, c);
#endif
}

TESSERA_HD TESSERA_INLINE std::uint64_t bits(double x) {
#if defined(__CUDA_ARCH__)
  return std::uint64_t(__double_as_longlong(x));
#else
  return __builtin_bit_cast(std::uint64_t, x);
#endif
}
TESSERA_HD TESSERA_INLINE double from_bits(std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double((long long)b);
#else
  return __builtin_bit_cast(double, b);
#endif
}
TESSERA_HD TESSERA_INLINE std::uint32_t bits(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  return __builtin_bit_cast(std::uint32_t, x);
#endif
}
TESSERA_HD TESSERA_INLINE float from_bits(std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(b);
#else
  return __builtin_bit_cast(float, b);
#endif
}

TESSERA_HD TESSERA_INLINE double sqrt(double x) { return ::sqrt(x); }
TESSERA_HD TESSERA_INLINE float sqrt(float x) { return ::sqrtf(x); }

// ---- natural logarithm of a positive normal finite x ---------------------------------------
// x = 2^e m, m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172:
// 2 s + 2 s z p(z), z = s^2, p the minimax polynomial of degree 6 for (atanh(s) / s - 1) / z
// (relative error 1.2e-18 before rounding; scripts/minimax_coefficients.py) for double; the odd
// series to s^11 for float.

/// k (log(x) + adj log 2) for k = 1 or -2 (adj: an exponent adjustment, 0 for log(x)); x
/// positive normal finite. k = -2 is Box-Muller's squared radius: the scaling is folded into the
/// last steps, where it is exact, so the value is bitwise -2 log_scaled(x, adj), one multiply
/// fewer.
template <int K>
TESSERA_HD TESSERA_INLINE double log_scaled_times(double x, std::int32_t adj) {
  static_assert(K == 1 || K == -2);
  // t = bits(x) + bits(1) - bits(sqrt(1/2)): its top 12 bits are E = e + 1023, e the exponent
  // of x / sqrt(1/2), and m = x 2^-e is t's mantissa bits under sqrt(1/2)'s. All in 64-bit lanes
  // (shift, and, add): no narrowing to 32 bits and back, which cost permutes on AVX-512.
  const std::uint64_t t = bits(x) + 0x00095F619980C433ull;
  const std::uint64_t E = t >> 52;
  const double m = from_bits(std::uint64_t((t & 0x000FFFFFFFFFFFFFull) + 0x3FE6A09E667F3BCDull));
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  double p = 0.07397974850291429;
  p = fmad(p, z, 0.07657025276056356);
  p = fmad(p, z, 0.09091782163059837);
  p = fmad(p, z, 0.11111099286592262);
  p = fmad(p, z, 0.1428571437119381);
  p = fmad(p, z, 0.19999999999707338);
  p = fmad(p, z, 0.3333333333333367);
  const double s2 = s + s;
  const double sk = K == 1 ? s2 : -(s2 + s2);  // k 2 s, exact
  const double lm = fmad(sk, z * p, sk);
  // e + adj exactly: 2^52 + E (E's bits under 2^52's) less 2^52 + 1023 - adj (both exact)
  const double ed = from_bits(std::uint64_t(E | 0x4330000000000000ull)) - (0x1p52 + double(1023 - adj));
  return fmad(ed, K * 0.6931467056274414, fmad(ed, K * 4.7493250390316726e-07, lm));
}
/// log(x) + adj log 2; x positive normal finite.
TESSERA_HD TESSERA_INLINE double log_scaled(double x, std::int32_t adj) {
  return log_scaled_times<1>(x, adj);
}
TESSERA_HD TESSERA_INLINE double log(double x) { return log_scaled(x, 0); }

/// log(x) + adj log 2; x positive normal finite.
TESSERA_HD TESSERA_INLINE float log_scaled(float x, std::int32_t adj) {
  const std::uint32_t b = bits(x);
  const std::uint32_t t = b - 0x3F3504F3u;
  const std::int32_t e = std::int32_t(t) >> 23;
  const float m = from_bits(std::uint32_t(b - (std::uint32_t(e) << 23)));
  const float f = m - 1.0f;
  const float s = f / (2.0f + f);
  const float z = s * s;
  float p = 1.0f / 11;
  p = fmad(p, z, 1.0f / 9);
  p = fmad(p, z, 1.0f / 7);
  p = fmad(p, z, 1.0f / 5);
  p = fmad(p, z, 1.0f / 3);
  const float s2 = s + s;
  const float lm = fmad(s2, z * p, s2);
  const float ef = float(e + adj);
  return fmad(ef, 0.693115234375f, fmad(ef, 3.1946183e-05f, lm));
}
TESSERA_HD TESSERA_INLINE float log(float x) { return log_scaled(x, 0); }

// ---- exponential ---------------------------------------------------------------------------
// n = round(x / ln 2), r = x - n ln 2 in [-0.35, 0.35], Taylor to r^13 (double) / r^8 (float),
// scaled by 2^n as two factors (gradual underflow and overflow to +inf come out right).

/// t(r) with e^r = 1 + r + r^2 t(r), for |r| <= 0.35 (Taylor to r^13): exp_poly's tail, which
/// expm1 adds to r as a double-double.
TESSERA_HD TESSERA_INLINE double exp_poly_tail(double r) {
  double p = 1.6059043836821613e-10;
  p = fmad(p, r, 2.08767569878681e-09);
  p = fmad(p, r, 2.505210838544172e-08);
  p = fmad(p, r, 2.755731922398589e-07);
  p = fmad(p, r, 2.7557319223985893e-06);
  p = fmad(p, r, 2.48015873015873e-05);
  p = fmad(p, r, 0.0001984126984126984);
  p = fmad(p, r, 0.001388888888888889);
  p = fmad(p, r, 0.008333333333333333);
  p = fmad(p, r, 0.041666666666666664);
  p = fmad(p, r, 0.16666666666666666);
  return fmad(p, r, 0.5);
}
/// p(r) with e^r = 1 + r p(r), for |r| <= 0.35.
TESSERA_HD TESSERA_INLINE double exp_poly(double r) { return fmad(exp_poly_tail(r), r, 1.0); }

/// v 2^n for |n| < 2100, as two factors that stay normal (gradual underflow and overflow to
/// +inf come out right); kn: the reduction's fmad(x, 1 / ln 2, magic), n in its low bits.
TESSERA_HD TESSERA_INLINE double scale_by_exponent(double v, double kn, double magic) {
  const std::int32_t ni = std::int32_t(std::uint32_t(bits(kn) - bits(magic)));  // n, |n| < 2100
  const std::int32_t n1 = ni / 2, n2 = ni - n1;
  const double f1 = from_bits(std::uint64_t(std::uint32_t(n1 + 1023)) << 52);
  const double f2 = from_bits(std::uint64_t(std::uint32_t(n2 + 1023)) << 52);
  return (v * f1) * f2;
}

TESSERA_HD TESSERA_INLINE double exp(double x) {
  x = x < -1400.0 ? -1400.0 : (x > 1400.0 ? 1400.0 : x);  // keeps both 2^n factors normal
  const double magic = 0x1.8p52;
  const double kn = fmad(x, 1.4426950408889634, magic);
  const double n = kn - magic;
  double r = fmad(-n, 0.6931467056274414, x);
  r = fmad(-n, 4.7493250390316726e-07, r);
  return scale_by_exponent(fmad(exp_poly(r), r, 1.0), kn, magic);
}

TESSERA_HD TESSERA_INLINE float exp(float x) {
  x = x < -170.0f ? -170.0f : (x > 170.0f ? 170.0f : x);
  const float magic = 0x1.8p23f;
  const float kn = fmad(x, 1.44269504f, magic);
  const float n = kn - magic;
  float r = fmad(-n, 0.693115234375f, x);
  r = fmad(-n, 3.1946183e-05f, r);
  float p = 2.48015873e-05f;
  p = fmad(p, r, 1.98412698e-04f);
  p = fmad(p, r, 1.38888889e-03f);
  p = fmad(p, r, 8.33333333e-03f);
  p = fmad(p, r, 4.16666667e-02f);
  p = fmad(p, r, 1.66666667e-01f);
  p = fmad(p, r, 0.5f);
  p = fmad(p, r, 1.0f);
  p = fmad(p, r, 1.0f);
  const std::int32_t ni = std::int32_t(bits(kn) - bits(magic));
  const std::int32_t n1 = ni / 2, n2 = ni - n1;
  const float f1 = from_bits(std::uint32_t(n1 + 127) << 23);
  const float f2 = from_bits(std::uint32_t(n2 + 127) << 23);
  return (p * f1) * f2;
}

// ---- sine and cosine of a fraction of a turn -------------------------------------------------
// angle = (pi / 2) (q + f), q in 0..3 the quadrant, f in [-1/2, 1/2] exact: sin(pi f / 2) =
// f P(z) and cos(pi f / 2) = 1 + z Q(z), z = f^2, P and Q the minimax polynomials of degree 6
// (relative errors 3.3e-18 and 3.9e-20 before rounding; scripts/minimax_coefficients.py) for
// double; the Taylor series to f^9 / f^10 for float.

TESSERA_HD TESSERA_INLINE void sincos_quadrant(double f, std::uint32_t q, double& s, double& c) {
  const double z = f * f;
  double ps = 5.6337210129122454e-08;
  ps = fmad(ps, z, -3.5986417544520816e-06);
  ps = fmad(ps, z, 0.00016044115029165178);
  ps = fmad(ps, z, -0.004681754132282418);
  ps = fmad(ps, z, 0.07969262624603957);
  ps = fmad(ps, z, -0.6459640975062443);
  ps = fmad(ps, z, 1.5707963267948966);
  const double sp = ps * f;
  double pc = -6.321202059033249e-09;
  pc = fmad(pc, z, 4.710609669257883e-07);
  pc = fmad(pc, z, -2.5202036788285655e-05);
  pc = fmad(pc, z, 0.0009192602741910664);
  pc = fmad(pc, z, -0.02086348076331257);
  pc = fmad(pc, z, 0.2536695079010468);
  pc = fmad(pc, z, -1.2337005501361697);
  const double cp = fmad(pc, z, 1.0);
  const bool swap = q & 1u;
  const double ss = swap ? cp : sp, cc = swap ? sp : cp;
  s = (q & 2u) ? -ss : ss;
  c = ((q + 1u) & 2u) ? -cc : cc;
}

TESSERA_HD TESSERA_INLINE void sincos_quadrant(float f, std::uint32_t q, float& s, float& c) {
  const float z = f * f;
  float ps = 1.60441185e-04f;
  ps = fmad(ps, z, -4.68175414e-03f);
  ps = fmad(ps, z, 7.96926262e-02f);
  ps = fmad(ps, z, -6.45964098e-01f);
  ps = fmad(ps, z, 1.57079633f);
  const float sp = ps * f;
  float pc = -2.52020424e-05f;
  pc = fmad(pc, z, 9.19260275e-04f);
  pc = fmad(pc, z, -2.08634808e-02f);
  pc = fmad(pc, z, 2.53669508e-01f);
  pc = fmad(pc, z, -1.23370055f);
  const float cp = fmad(pc, z, 1.0f);
  const bool swap = q & 1u;
  const float ss = swap ? cp : sp, cc = swap ? sp : cp;
  s = (q & 2u) ? -ss : ss;
  c = ((q + 1u) & 2u) ? -cc : cc;
}

}  // namespace tessera::random::math
