// Scalar math usable in host and device element code (one overload set for both).
#pragma once
#include <math.h>

#include <limits>
#include <type_traits>

#include "../config.hpp"
#include "host_math.hpp"

namespace tessera::portable_math {

// libm's function on the host, CUDA's on the device.
#define TESSERA_MATH1(name)                                            \
  TESSERA_HD inline float name(float x) { return ::name##f(x); }       \
  TESSERA_HD inline double name(double x) { return ::name(x); }
#define TESSERA_MATH2(name)                                                          \
  TESSERA_HD inline float name(float x, float y) { return ::name##f(x, y); }         \
  TESSERA_HD inline double name(double x, double y) { return ::name(x, y); }
// The library's own function on the host (host_math.hpp: branch-free, so the chunk kernels
// vectorize it; always inlined, since a kernel at the compiled level is not flattened and a call
// left in its loop keeps it scalar), CUDA's on the device.
#if defined(__CUDA_ARCH__)
#define TESSERA_OWN_MATH1(name) TESSERA_MATH1(name)
#define TESSERA_OWN_MATH2(name) TESSERA_MATH2(name)
#else
#define TESSERA_OWN_MATH1(name)                                                       \
  TESSERA_HD TESSERA_INLINE float name(float x) { return host_math::name(x); }        \
  TESSERA_HD TESSERA_INLINE double name(double x) { return host_math::name(x); }
#define TESSERA_OWN_MATH2(name)                                                                 \
  TESSERA_HD TESSERA_INLINE float name(float x, float y) { return host_math::name(x, y); }      \
  TESSERA_HD TESSERA_INLINE double name(double x, double y) { return host_math::name(x, y); }
#endif

// The library's own on the host. Within 1 ulp of glibc: exp, sin, cos, atan, atan2, hypot,
// pow; within 2 ulp of glibc: log, tanh; within 1 ulp of the exact value: log2, log10, log1p,
// expm1, exp2, cbrt, tan, asin, acos; within 2 ulp of the exact value: sinh, cosh, asinh, acosh,
// atanh. sin, cos, tan: libm's from |x| = 2^30 on; pow: exact for the exponents 2, 1, -1, 0 and
// 0.5, libm's for zeros, infinities, NaN and negative bases to non-integer powers.
TESSERA_OWN_MATH1(exp)
TESSERA_OWN_MATH1(exp2)
TESSERA_OWN_MATH1(expm1)
TESSERA_OWN_MATH1(log)
TESSERA_OWN_MATH1(log2)
TESSERA_OWN_MATH1(log10)
TESSERA_OWN_MATH1(log1p)
TESSERA_OWN_MATH1(cbrt)
TESSERA_OWN_MATH1(sin)
TESSERA_OWN_MATH1(cos)
TESSERA_OWN_MATH1(tan)
TESSERA_OWN_MATH1(asin)
TESSERA_OWN_MATH1(acos)
TESSERA_OWN_MATH1(atan)
TESSERA_OWN_MATH1(sinh)
TESSERA_OWN_MATH1(cosh)
TESSERA_OWN_MATH1(tanh)
TESSERA_OWN_MATH1(asinh)
TESSERA_OWN_MATH1(acosh)
TESSERA_OWN_MATH1(atanh)
TESSERA_OWN_MATH2(pow)
TESSERA_OWN_MATH2(atan2)
TESSERA_OWN_MATH2(hypot)
// libm's on the host (square roots: IEEE, and batches take them on the vector lanes,
// core/vector_sqrt.hpp; rounding: gcc inlines them where the level has the instructions).
TESSERA_MATH1(sqrt)
TESSERA_MATH1(fabs)
TESSERA_MATH1(floor)
TESSERA_MATH1(ceil)
TESSERA_MATH1(trunc)
TESSERA_MATH1(rint)
TESSERA_MATH2(copysign)
TESSERA_MATH2(fmod)
TESSERA_MATH2(nextafter)
#undef TESSERA_OWN_MATH2
#undef TESSERA_OWN_MATH1
#undef TESSERA_MATH2
#undef TESSERA_MATH1

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
