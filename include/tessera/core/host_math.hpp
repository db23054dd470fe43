// exp and log for element code on the host: branch-free inline code (the random module's
// kernels, random/math.hpp) with IEEE special values, so the chunk kernels vectorize them
// (libm's exp and log are calls, which keep a loop scalar). exp within 1 ulp and log within 2
// ulp of glibc (tests/test_host_math.cpp: random inputs over the whole range and the special
// values). Device code keeps CUDA's own exp and log.
#pragma once
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

}  // namespace tessera::host_math
