// Element functors of NumPy's floating ufuncs beyond ops/functors.hpp's exp, log, sqrt, sin and
// cos: each converts its operands to the floating type NumPy computes in (float_of_t: float
// stays float, int8/uint8/int16/bool -> float, wider integers -> double) and calls
// portable_math (on the host the branch-free host_math versions where there is one: tanh, sinh,
// cosh, arcsin, arccos, arctan, arcsinh, arccosh, arctanh, arctan2, log1p, expm1, log2, log10,
// hypot, power; libm for the rest: exp2, cbrt; CUDA's math on the device). tan is
// ops/functors.hpp's, with sin and cos.
#pragma once
#include <limits>
#include <type_traits>

#include "../core/math.hpp"
#include "../core/promote.hpp"
#include "functors.hpp"

namespace tessera::ops {

/// The floating result type of a binary floating ufunc on A and B (NumPy: the promoted type,
/// then its float).
template <class A, class B>
using float_promote_t = float_of_t<promote_t<A, B>>;

// (always inlined: the host's branch-free functions are large, and a call left in a chunk
// kernel's loop keeps it scalar where the kernel is not flattened, as in a -march=native build)
#define TESSERA_FLOAT_UNARY(name, math)                 \
  struct name {                                         \
    template <class A>                                  \
    TESSERA_HD TESSERA_INLINE auto operator()(A a) const { \
      return portable_math::math(float_of_t<A>(a));     \
    }                                                   \
  };
TESSERA_FLOAT_UNARY(arctan, atan)
TESSERA_FLOAT_UNARY(sinh, sinh)
TESSERA_FLOAT_UNARY(cosh, cosh)
TESSERA_FLOAT_UNARY(tanh, tanh)
TESSERA_FLOAT_UNARY(arctanh, atanh)
TESSERA_FLOAT_UNARY(log1p, log1p)
TESSERA_FLOAT_UNARY(expm1, expm1)
TESSERA_FLOAT_UNARY(log2, log2)
TESSERA_FLOAT_UNARY(log10, log10)
TESSERA_FLOAT_UNARY(exp2, exp2)
TESSERA_FLOAT_UNARY(cbrt, cbrt)
TESSERA_FLOAT_UNARY(fabs, fabs)
TESSERA_FLOAT_UNARY(rint, rint)
#undef TESSERA_FLOAT_UNARY

/// arcsin, arccos, arcsinh and arccosh: around one square root each (host_math's name_radicand
/// and name_finish); host batches take the square roots on the vector lanes between the two,
/// in double (float results rounded once, as per element): the same values as operator().
#define TESSERA_ROOT_UNARY(name, math)                                                       \
  struct name {                                                                              \
    template <class A>                                                                       \
    TESSERA_HD TESSERA_INLINE auto operator()(A a) const {                                   \
      return portable_math::math(float_of_t<A>(a));                                          \
    }                                                                                        \
    template <class A>                                                                       \
    void fill_batch(const A* in, index_t n, float_of_t<A>* out) const {                      \
      using F = float_of_t<A>;                                                               \
      alignas(64) double root[256];                                                          \
      for (index_t k0 = 0; k0 < n; k0 += 256) {                                              \
        const int m = int(n - k0 < 256 ? n - k0 : 256);                                      \
        for (int k = 0; k < m; ++k) root[k] = host_math::math##_radicand(double(F(in[k0 + k]))); \
        host_math::sqrt_inplace(root, m);                                                    \
        for (int k = 0; k < m; ++k)                                                          \
          out[k0 + k] = F(host_math::math##_finish(double(F(in[k0 + k])), root[k]));         \
      }                                                                                      \
    }                                                                                        \
  };
TESSERA_ROOT_UNARY(arcsin, asin)
TESSERA_ROOT_UNARY(arccos, acos)
TESSERA_ROOT_UNARY(arcsinh, asinh)
TESSERA_ROOT_UNARY(arccosh, acosh)
#undef TESSERA_ROOT_UNARY

/// Degrees to radians and back: x * (pi / 180), x * (180 / pi), the constant rounded to the
/// result type (NumPy's deg2rad / rad2deg).
struct deg2rad {
  template <class A>
  TESSERA_HD auto operator()(A a) const {
    using F = float_of_t<A>;
    return F(a) * F(0.017453292519943295769236907684886127);
  }
};
struct rad2deg {
  template <class A>
  TESSERA_HD auto operator()(A a) const {
    using F = float_of_t<A>;
    return F(a) * F(57.295779513082320876798154814105170);
  }
};

#define TESSERA_FLOAT_BINARY(name, math)                         \
  struct name {                                                  \
    template <class A, class B>                                  \
    TESSERA_HD TESSERA_INLINE auto operator()(A a, B b) const {  \
      using F = float_promote_t<A, B>;                           \
      return portable_math::math(F(a), F(b));                    \
    }                                                            \
  };
TESSERA_FLOAT_BINARY(arctan2, atan2)
TESSERA_FLOAT_BINARY(copysign, copysign)
TESSERA_FLOAT_BINARY(nextafter, nextafter)
#undef TESSERA_FLOAT_BINARY

/// sqrt(a^2 + b^2) (NumPy's hypot). Host batches of doubles take their square roots on the
/// vector lanes between the two branch-free halves of host_math::hypot: the same values.
struct hypot {
  template <class A, class B>
  TESSERA_HD TESSERA_INLINE auto operator()(A a, B b) const {
    using F = float_promote_t<A, B>;
    return portable_math::hypot(F(a), F(b));
  }
  template <class A, class B>
  void fill_batch(const A* a, const B* b, index_t n, float_promote_t<A, B>* out) const {
    using F = float_promote_t<A, B>;
    if constexpr (std::is_same_v<F, double>) {
      for (index_t k = 0; k < n; ++k) out[k] = host_math::hypot_square(double(a[k]), double(b[k]));
      host_math::sqrt_inplace(out, int(n));
      for (index_t k = 0; k < n; ++k) out[k] = host_math::hypot_finish(double(a[k]), double(b[k]), out[k]);
    } else {
      for (index_t k = 0; k < n; ++k) out[k] = portable_math::hypot(F(a[k]), F(b[k]));
    }
  }
};
/// log(exp(a) + exp(b)) without overflow (NumPy's logaddexp): max + log1p(exp(-|a - b|));
/// equal infinities give themselves, NaN propagates.
struct logaddexp {
  template <class A, class B>
  TESSERA_HD auto operator()(A a_, B b_) const {
    using F = float_promote_t<A, B>;
    const F a = F(a_), b = F(b_);
    if (a == b) return a + F(0.69314718055994530941723212145817657);  // log(2): also +-inf
    const F d = a - b;
    if (d > 0) return a + portable_math::log1p(portable_math::exp(-d));
    if (d <= 0) return b + portable_math::log1p(portable_math::exp(d));
    return d;  // NaN
  }
};
/// log2(2^a + 2^b) (NumPy's logaddexp2).
struct logaddexp2 {
  template <class A, class B>
  TESSERA_HD auto operator()(A a_, B b_) const {
    using F = float_promote_t<A, B>;
    const F a = F(a_), b = F(b_);
    if (a == b) return a + F(1);
    const F d = a - b;
    constexpr F log2e = F(1.4426950408889634073599246810018921);
    if (d > 0) return a + portable_math::log1p(portable_math::exp2(-d)) * log2e;
    if (d <= 0) return b + portable_math::log1p(portable_math::exp2(d)) * log2e;
    return d;
  }
};

/// a ** b in double at least (NumPy's float_power: float64 for every integer or float32 pair).
struct float_power {
  template <class A, class B>
  TESSERA_HD auto operator()(A a, B b) const {
    return portable_math::pow(double(a), double(b));
  }
  /// Host batches: as ops::power's (the branch-free pow, then libm's for the rest).
  template <class A, class B>
  void fill_batch(const A* a, const B* b, index_t n, double* out) const {
    pow_batch(a, b, n, out);
  }
};

/// Maximum / minimum that ignore NaN (NumPy's fmax / fmin): the other operand when one is NaN,
/// NaN only when both are; b on ties, as NumPy (fmax(-0.0, 0.0) is 0.0, fmax(0.0, -0.0) is
/// -0.0). On integers and bool: the promoted maximum / minimum.
struct fmax {
  template <class A, class B>
  TESSERA_HD auto operator()(A a_, B b_) const {
    using C = promote_t<A, B>;
    const C a = C(a_), b = C(b_);
    if (portable_math::isnan(b)) return a;
    if (portable_math::isnan(a)) return b;
    return a > b ? a : b;
  }
};
struct fmin {
  template <class A, class B>
  TESSERA_HD auto operator()(A a_, B b_) const {
    using C = promote_t<A, B>;
    const C a = C(a_), b = C(b_);
    if (portable_math::isnan(b)) return a;
    if (portable_math::isnan(a)) return b;
    return a < b ? a : b;
  }
};

/// Heaviside step (NumPy's heaviside(x, h0)): 0 for x < 0, h0 at x == 0, 1 for x > 0, NaN for
/// NaN.
struct heaviside {
  template <class A, class B>
  TESSERA_HD auto operator()(A x_, B h0_) const {
    using F = float_promote_t<A, B>;
    const F x = F(x_), h0 = F(h0_);
    if (x < 0) return F(0);
    if (x > 0) return F(1);
    if (x == 0) return h0;
    return x;  // NaN
  }
};

/// NaN -> nan, +inf -> posinf, -inf -> neginf (NumPy's nan_to_num with its defaults: 0, the
/// largest and the lowest finite value of the type); integers and bool unchanged.
template <class V>
struct nan_to_num {
  V nan = V(0);
  V posinf = std::numeric_limits<V>::max();
  V neginf = std::numeric_limits<V>::lowest();
  template <class A>
  TESSERA_HD A operator()(A a) const {
    if constexpr (std::is_floating_point_v<A>) {
      if (a != a) return A(nan);
      if (a == std::numeric_limits<A>::infinity()) return A(posinf);
      if (a == -std::numeric_limits<A>::infinity()) return A(neginf);
    }
    return a;
  }
};

}  // namespace tessera::ops
