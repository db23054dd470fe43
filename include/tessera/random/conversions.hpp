// The building blocks of a distribution (docs/random.md, "Your own distribution"): where an
// element's words come from (site, with its retry sub-streams), the stream limits, and the
// conversions of Philox words into uniforms and Box-Muller pieces (namespace conv). All are
// TESSERA_HD: the same code, and the same bits, on the host and in CUDA kernels.
//
// Word layout (docs/random.md): a distribution D uses D::epb elements per Philox block; element
// i reads block i / epb of subsequence `stream`, slot i % epb. Rejection samplers continue on a
// per-element sub-stream: subsequence stream | j << 48 (j = 1, 2, ...), block i.
#pragma once
#include <cstdint>

#include "../config.hpp"
#include "../core/vector_sqrt.hpp"
#include "math.hpp"
#include "philox.hpp"

TESSERA_BATCH_DIAGNOSTICS_BEGIN  // config.hpp: gcc false positives in batch code

namespace tessera::random {

/// Bit position of the retry index in the subsequence: streams are < 2^48.
inline constexpr int retry_shift = 48;
inline constexpr std::uint64_t max_streams = std::uint64_t(1) << retry_shift;

/// Where an element's words come from: generator key, stream, flat element index.
struct site {
  philox::key key;
  std::uint64_t stream;
  std::uint64_t index;
  /// Block `index` of retry sub-stream j >= 1 of this element.
  TESSERA_HD u32x4 retry(std::uint64_t j) const {
    return philox::at(key, stream | (j << retry_shift), index);
  }
};

namespace detail {
using host_math::sqrt_inplace;  // core/vector_sqrt.hpp
}  // namespace detail

namespace conv {
/// A 32-bit word as a double, through a signed conversion (vectorizes on AVX2 too). Exact.
TESSERA_HD TESSERA_INLINE double u32(std::uint32_t a) {
  return double(std::int32_t(a ^ 0x80000000u)) + 2147483648.0;
}
/// 53-bit uniform in [0, 1) from two words (a: high 32 bits, b: top 21 bits used). Exact.
TESSERA_HD TESSERA_INLINE double u53(std::uint32_t a, std::uint32_t b) {
  return u32(a) * 0x1p-32 + double(std::int32_t(b >> 11)) * 0x1p-53;
}
/// The same 53 bits as a uniform in (0, 1]: (k + 1) 2^-53. Exact.
TESSERA_HD TESSERA_INLINE double u53_open0(std::uint32_t a, std::uint32_t b) {
  return u32(a) * 0x1p-32 + double(std::int32_t(b >> 11) + 1) * 0x1p-53;
}
/// 24-bit uniform in [0, 1) from one word. Exact.
TESSERA_HD TESSERA_INLINE float u24(std::uint32_t w) {
  return float(std::int32_t(w >> 8)) * 0x1p-24f;
}
/// Uniform in (0, 1] from one word: (w >> 1) 2^-31 + 2^-32 rounded to float (so the
/// smallest values keep their resolution: the minimum is 2^-32).
TESSERA_HD TESSERA_INLINE float u32_open0(std::uint32_t w) {
  return math::fmad(float(std::int32_t(w >> 1)), 0x1p-31f, 0x1p-32f);
}
/// Box-Muller, double: squared radius -2 log u of a uniform u in (0, 1].
TESSERA_HD TESSERA_INLINE double radius2_of(double u) { return math::log_scaled_times<-2>(u, 0); }
/// Box-Muller, double: squared radius -2 log u from words (a, b) (u in (0, 1], 53 bits).
TESSERA_HD TESSERA_INLINE double radius2(std::uint32_t a, std::uint32_t b) {
  return radius2_of(u53_open0(a, b));
}
/// Box-Muller, double: the angle 2 pi v, v = c 2^-32 + (d >> 11) 2^-53, reduced exactly to
/// (pi / 2) (q + f), q in 0..3, f in [-1/2, 1/2).
TESSERA_HD TESSERA_INLINE void angle_quadrant(std::uint32_t c, std::uint32_t d, double& f,
                                              std::uint32_t& q) {
  const std::uint32_t k = (c + (1u << 29)) >> 30;
  const std::int32_t rem = std::int32_t(c - (k << 30));
  f = double(rem) * 0x1p-30 + double(std::int32_t(d >> 11)) * 0x1p-51;
  q = k & 3u;
}
/// angle_quadrant's reduction, then its sine and cosine.
TESSERA_HD TESSERA_INLINE void angle(std::uint32_t c, std::uint32_t d, double& s, double& co) {
  double f;
  std::uint32_t q;
  angle_quadrant(c, d, f, q);
  math::sincos_quadrant(f, q, s, co);
}
/// Box-Muller pair in double: radius from (a, b), angle from (c, d).
TESSERA_HD TESSERA_INLINE void box_muller(std::uint32_t a, std::uint32_t b, std::uint32_t c,
                                          std::uint32_t d, double& z0, double& z1) {
  const double r = math::sqrt(radius2(a, b));
  double s, co;
  angle(c, d, s, co);
  z0 = r * co;
  z1 = r * s;
}
/// Box-Muller, float: squared radius from one word (u in (0, 1], see u32_open0).
TESSERA_HD TESSERA_INLINE float radius2(std::uint32_t a) {
  return -2.0f * math::log(u32_open0(a));
}
/// Box-Muller, float: the angle 2 pi b 2^-32 reduced exactly to (pi / 2) (q + f), q in 0..3,
/// f in [-1/2, 1/2) (30 bits of fraction).
TESSERA_HD TESSERA_INLINE void angle_quadrant(std::uint32_t b, float& f, std::uint32_t& q) {
  const std::uint32_t k = (b + (1u << 29)) >> 30;
  f = float(std::int32_t(b - (k << 30))) * 0x1p-30f;
  q = k & 3u;
}
/// Box-Muller, float: sine and cosine of 2 pi b 2^-32.
TESSERA_HD TESSERA_INLINE void angle(std::uint32_t b, float& s, float& co) {
  float f;
  std::uint32_t q;
  angle_quadrant(b, f, q);
  math::sincos_quadrant(f, q, s, co);
}
/// Box-Muller pair in float: radius from a, angle from b.
TESSERA_HD TESSERA_INLINE void box_muller(std::uint32_t a, std::uint32_t b, float& z0,
                                          float& z1) {
  const float r = math::sqrt(radius2(a));
  float s, co;
  angle(b, s, co);
  z0 = r * co;
  z1 = r * s;
}
TESSERA_HD TESSERA_INLINE std::uint64_t mulhi64(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return std::uint64_t((unsigned __int128)a * b >> 64);
#endif
}
}  // namespace conv

}  // namespace tessera::random

TESSERA_BATCH_DIAGNOSTICS_END
