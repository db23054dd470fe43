// Scalar math usable in host and device element code (one overload set for both).
#pragma once
#include <math.h>

#include <type_traits>

#include "../config.hpp"
#include "host_math.hpp"

namespace tessera::portable_math {

#define TESSERA_MATH1(name)                                            \
  TESSERA_HD inline float name(float x) { return ::name##f(x); }       \
  TESSERA_HD inline double name(double x) { return ::name(x); }
// exp and log: on the host the branch-free versions of host_math.hpp (they vectorize inside the
// chunk kernels; exp within 1 ulp, log within 2 ulp of glibc), on the device CUDA's.
#if defined(__CUDA_ARCH__)
TESSERA_MATH1(exp)
TESSERA_MATH1(log)
#else
TESSERA_HD inline float exp(float x) { return host_math::exp(x); }
TESSERA_HD inline double exp(double x) { return host_math::exp(x); }
TESSERA_HD inline float log(float x) { return host_math::log(x); }
TESSERA_HD inline double log(double x) { return host_math::log(x); }
#endif
TESSERA_MATH1(sqrt)
TESSERA_MATH1(sin)
TESSERA_MATH1(cos)
TESSERA_MATH1(fabs)
#undef TESSERA_MATH1
TESSERA_HD inline float pow(float x, float y) { return ::powf(x, y); }
TESSERA_HD inline double pow(double x, double y) { return ::pow(x, y); }

template <class T>
TESSERA_HD constexpr bool isnan(T x) {
  if constexpr (std::is_floating_point_v<T>) return x != x;
  else return false;
}

}  // namespace tessera::portable_math
