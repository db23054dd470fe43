// Scalar math usable in host and device element code (one overload set for both).
#pragma once
#include <math.h>

#include <limits>
#include <type_traits>

#include "../config.hpp"
#include "host_math.hpp"

namespace tessera::portable_math {

#define TESSERA_MATH1(name)                                            \
  TESSERA_HD inline float name(float x) { return ::name##f(x); }       \
  TESSERA_HD inline double name(double x) { return ::name(x); }
// exp, log, log2, log10, sin and cos: on the host the versions of host_math.hpp (they vectorize
// inside the chunk kernels; exp, sin and cos within 1 ulp, log within 2 ulp of glibc, log2 and
// log10 within 1 ulp of the exact value), on the device CUDA's.
#if defined(__CUDA_ARCH__)
TESSERA_MATH1(exp)
TESSERA_MATH1(log)
TESSERA_MATH1(log2)
TESSERA_MATH1(log10)
TESSERA_MATH1(sin)
TESSERA_MATH1(cos)
#else
TESSERA_HD TESSERA_INLINE float exp(float x) { return host_math::exp(x); }
TESSERA_HD TESSERA_INLINE double exp(double x) { return host_math::exp(x); }
TESSERA_HD TESSERA_INLINE float log(float x) { return host_math::log(x); }
TESSERA_HD TESSERA_INLINE double log(double x) { return host_math::log(x); }
TESSERA_HD TESSERA_INLINE float log2(float x) { return host_math::log2(x); }
TESSERA_HD TESSERA_INLINE double log2(double x) { return host_math::log2(x); }
TESSERA_HD TESSERA_INLINE float log10(float x) { return host_math::log10(x); }
TESSERA_HD TESSERA_INLINE double log10(double x) { return host_math::log10(x); }
TESSERA_HD TESSERA_INLINE float sin(float x) { return host_math::sin(x); }
TESSERA_HD TESSERA_INLINE double sin(double x) { return host_math::sin(x); }
TESSERA_HD TESSERA_INLINE float cos(float x) { return host_math::cos(x); }
TESSERA_HD TESSERA_INLINE double cos(double x) { return host_math::cos(x); }
#endif
// tanh, sinh, cosh, atan, atanh, tan, asin, acos, asinh, acosh, log1p, expm1, exp2 and cbrt: on
// the host the branch-free versions of host_math.hpp (tanh within 2 ulp, atan within 1 ulp of
// glibc; sinh, cosh, atanh, asinh and acosh within 2 ulp, tan, asin, acos, log1p, expm1, exp2 and
// cbrt within 1 ulp of the exact value; tan is libm's from |x| = 2^30 on).
#if defined(__CUDA_ARCH__)
TESSERA_MATH1(tanh)
TESSERA_MATH1(log1p)
TESSERA_MATH1(expm1)
TESSERA_MATH1(sinh)
TESSERA_MATH1(cosh)
TESSERA_MATH1(atan)
TESSERA_MATH1(atanh)
TESSERA_MATH1(tan)
TESSERA_MATH1(asin)
TESSERA_MATH1(acos)
TESSERA_MATH1(asinh)
TESSERA_MATH1(acosh)
TESSERA_MATH1(exp2)
TESSERA_MATH1(cbrt)
#else
TESSERA_HD TESSERA_INLINE float cbrt(float x) { return host_math::cbrt(x); }
TESSERA_HD TESSERA_INLINE double cbrt(double x) { return host_math::cbrt(x); }
TESSERA_HD TESSERA_INLINE float exp2(float x) { return host_math::exp2(x); }
TESSERA_HD TESSERA_INLINE double exp2(double x) { return host_math::exp2(x); }
TESSERA_HD TESSERA_INLINE float asin(float x) { return host_math::asin(x); }
TESSERA_HD TESSERA_INLINE double asin(double x) { return host_math::asin(x); }
TESSERA_HD TESSERA_INLINE float acos(float x) { return host_math::acos(x); }
TESSERA_HD TESSERA_INLINE double acos(double x) { return host_math::acos(x); }
TESSERA_HD TESSERA_INLINE float asinh(float x) { return host_math::asinh(x); }
TESSERA_HD TESSERA_INLINE double asinh(double x) { return host_math::asinh(x); }
TESSERA_HD TESSERA_INLINE float acosh(float x) { return host_math::acosh(x); }
TESSERA_HD TESSERA_INLINE double acosh(double x) { return host_math::acosh(x); }
TESSERA_HD TESSERA_INLINE float atanh(float x) { return host_math::atanh(x); }
TESSERA_HD TESSERA_INLINE double atanh(double x) { return host_math::atanh(x); }
TESSERA_HD TESSERA_INLINE float tan(float x) { return host_math::tan(x); }
TESSERA_HD TESSERA_INLINE double tan(double x) { return host_math::tan(x); }
TESSERA_HD TESSERA_INLINE float sinh(float x) { return host_math::sinh(x); }
TESSERA_HD TESSERA_INLINE double sinh(double x) { return host_math::sinh(x); }
TESSERA_HD TESSERA_INLINE float cosh(float x) { return host_math::cosh(x); }
TESSERA_HD TESSERA_INLINE double cosh(double x) { return host_math::cosh(x); }
TESSERA_HD TESSERA_INLINE float atan(float x) { return host_math::atan(x); }
TESSERA_HD TESSERA_INLINE double atan(double x) { return host_math::atan(x); }
TESSERA_HD TESSERA_INLINE float tanh(float x) { return host_math::tanh(x); }
TESSERA_HD TESSERA_INLINE double tanh(double x) { return host_math::tanh(x); }
TESSERA_HD TESSERA_INLINE float log1p(float x) { return host_math::log1p(x); }
TESSERA_HD TESSERA_INLINE double log1p(double x) { return host_math::log1p(x); }
TESSERA_HD TESSERA_INLINE float expm1(float x) { return host_math::expm1(x); }
TESSERA_HD TESSERA_INLINE double expm1(double x) { return host_math::expm1(x); }
#endif
TESSERA_MATH1(sqrt)
TESSERA_MATH1(fabs)
// Rounding: libm on the host (gcc inlines them where the level has the instructions), CUDA's on
// the device.
TESSERA_MATH1(floor)
TESSERA_MATH1(ceil)
TESSERA_MATH1(trunc)
TESSERA_MATH1(rint)
#undef TESSERA_MATH1
#define TESSERA_MATH2(name)                                                          \
  TESSERA_HD inline float name(float x, float y) { return ::name##f(x, y); }         \
  TESSERA_HD inline double name(double x, double y) { return ::name(x, y); }
// pow: on the host the version of host_math.hpp (exact for the exponents 2, 1, -1, 0 and 0.5,
// branch-free where x is finite and nonzero and y finite, libm's elsewhere; within 1 ulp of
// glibc), on the device CUDA's.
#if defined(__CUDA_ARCH__)
TESSERA_MATH2(pow)
#else
TESSERA_HD TESSERA_INLINE float pow(float x, float y) { return host_math::pow(x, y); }
TESSERA_HD TESSERA_INLINE double pow(double x, double y) { return host_math::pow(x, y); }
#endif
// atan2 and hypot: on the host the versions of host_math.hpp (within 1 ulp of glibc), on the
// device CUDA's.
#if defined(__CUDA_ARCH__)
TESSERA_MATH2(atan2)
TESSERA_MATH2(hypot)
#else
TESSERA_HD TESSERA_INLINE float atan2(float y, float x) { return host_math::atan2(y, x); }
TESSERA_HD TESSERA_INLINE double atan2(double y, double x) { return host_math::atan2(y, x); }
TESSERA_HD TESSERA_INLINE float hypot(float x, float y) { return host_math::hypot(x, y); }
TESSERA_HD TESSERA_INLINE double hypot(double x, double y) { return host_math::hypot(x, y); }
#endif
TESSERA_MATH2(copysign)
TESSERA_MATH2(fmod)
TESSERA_MATH2(nextafter)
#undef TESSERA_MATH2

template <class T>
TESSERA_HD constexpr bool isnan(T x) {
  if constexpr (std::is_floating_point_v<T>) return x != x;
  else return false;
}
/// +-inf (false for integers).
template <class T>
TESSERA_HD constexpr bool isinf(T x) {
  if constexpr (std::is_floating_point_v<T>)
    return x == std::numeric_limits<T>::infinity() || x == -std::numeric_limits<T>::infinity();
  else return false;
}
/// Neither NaN nor +-inf (true for integers).
template <class T>
TESSERA_HD constexpr bool isfinite(T x) {
  if constexpr (std::is_floating_point_v<T>)
    return x - x == T(0);  // inf - inf and NaN - NaN are NaN
  else return true;
}
/// The sign bit (-0.0 and negative NaN included; x < 0 for integers).
template <class T>
TESSERA_HD bool signbit(T x) {
  if constexpr (std::is_floating_point_v<T>) return copysign(T(1), x) < T(0);
  else if constexpr (std::is_signed_v<T>) return x < 0;
  else return false;
}

}  // namespace tessera::portable_math
