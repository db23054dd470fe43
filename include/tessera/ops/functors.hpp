// Element operations: stateless functors written once for host and device. Each converts its
// operands to the NumPy result type before operating.
#pragma once
#include <limits>
#include <type_traits>

#include "../core/math.hpp"
#include "../core/vector_sqrt.hpp"
#include "../core/promote.hpp"

TESSERA_BATCH_DIAGNOSTICS_BEGIN  // config.hpp: gcc false positives in batch code

namespace tessera::ops {

/// True for signed integer types whose arithmetic is not promoted to int (int32, int64): their
/// + - * and negation overflow is undefined behaviour in C++, so they are computed in the
/// unsigned type and wrap modulo 2^bits, as NumPy's do. (Narrower types are promoted to int,
/// where nothing overflows, and converting back wraps.)
template <class C>
inline constexpr bool wraps_in_unsigned =
    std::is_integral_v<C> && std::is_signed_v<C> && sizeof(C) >= sizeof(int);

#define TESSERA_BINARY_ARITH(name, op)                          \
  struct name {                                                 \
    template <class A, class B>                                 \
    TESSERA_HD auto operator()(A a_, B b_) const {              \
      using C = promote_t<A, B>;                                \
      C a = C(a_), b = C(b_);                                   \
      if constexpr (wraps_in_unsigned<C>) {                     \
        using U = std::make_unsigned_t<C>;                      \
        return C(U(U(a) op U(b)));                              \
      } else {                                                  \
        return C(a op b);                                       \
      }                                                         \
    }                                                           \
  };
TESSERA_BINARY_ARITH(plus, +)
TESSERA_BINARY_ARITH(minus, -)
TESSERA_BINARY_ARITH(multiplies, *)
#undef TESSERA_BINARY_ARITH

/// True division: integers divide as double (NumPy's `/`).
struct divides {
  template <class A, class B>
  TESSERA_HD auto operator()(A a, B b) const {
    using C = promote_t<A, B>;
    using F = std::conditional_t<std::is_floating_point_v<C>, C, double>;
    return F(a) / F(b);
  }
};

#define TESSERA_COMPARE(name, op)                    \
  struct name {                                      \
    template <class A, class B>                      \
    TESSERA_HD bool operator()(A a, B b) const {     \
      using C = promote_t<A, B>;                     \
      return C(a) op C(b);                           \
    }                                                \
  };
TESSERA_COMPARE(equal, ==)
TESSERA_COMPARE(not_equal, !=)
TESSERA_COMPARE(less, <)
TESSERA_COMPARE(less_equal, <=)
TESSERA_COMPARE(greater, >)
TESSERA_COMPARE(greater_equal, >=)
#undef TESSERA_COMPARE

struct negate {
  template <class A>
  TESSERA_HD A operator()(A a) const {
    static_assert(!std::is_same_v<A, bool>, "tessera: unary minus is not defined for bool arrays");
    if constexpr (wraps_in_unsigned<A>) {  // -INT_MIN wraps to INT_MIN (NumPy), no UB
      using U = std::make_unsigned_t<A>;
      return A(U(U(0) - U(a)));
    } else {
      return A(-a);
    }
  }
};

struct absolute {
  template <class A>
  TESSERA_HD A operator()(A a) const {
    if constexpr (std::is_floating_point_v<A>) return portable_math::fabs(a);
    else if constexpr (std::is_unsigned_v<A> || std::is_same_v<A, bool>) return a;
    else if constexpr (wraps_in_unsigned<A>) {  // abs(INT_MIN) is INT_MIN (NumPy), no UB
      using U = std::make_unsigned_t<A>;
      return a < 0 ? A(U(U(0) - U(a))) : a;
    } else return A(a < 0 ? -a : a);
  }
};

#define TESSERA_FLOAT_UNARY(name)                   \
  struct name {                                     \
    template <class A>                              \
    TESSERA_HD auto operator()(A a) const {         \
      return portable_math::name(float_of_t<A>(a));            \
    }                                               \
  };
TESSERA_FLOAT_UNARY(exp)
TESSERA_FLOAT_UNARY(log)
#undef TESSERA_FLOAT_UNARY

/// Square root; whole batches on the host take the vector lanes' IEEE square roots
/// (core/vector_sqrt.hpp: gcc keeps libm's scalar sqrt in loops), the same values.
struct sqrt {
  template <class A>
  TESSERA_HD auto operator()(A a) const {
    return portable_math::sqrt(float_of_t<A>(a));
  }
  template <class A>
  void fill_batch(const A* in, index_t n, float_of_t<A>* out) const {
    for (index_t k = 0; k < n; ++k) out[k] = float_of_t<A>(in[k]);
    host_math::sqrt_inplace(out, int(n));
  }
};

// sin, cos and tan also take whole batches on the host (fill_batch: elementwise lines call it): the
// branch-free part over the batch, vectorized, then libm's for the rare |x| >= 2^30, inf and NaN
// (core/host_math.hpp); the same values as the per-element operator().
#define TESSERA_TRIG_UNARY(name)                                                          \
  struct name {                                                                           \
    template <class A>                                                                    \
    TESSERA_HD auto operator()(A a) const {                                               \
      return portable_math::name(float_of_t<A>(a));                                       \
    }                                                                                     \
    template <class A>                                                                    \
    void fill_batch(const A* in, index_t n, float_of_t<A>* out) const {                   \
      using F = float_of_t<A>;                                                            \
      for (index_t k = 0; k < n; ++k) out[k] = host_math::name##_reduced(F(in[k]));        \
      for (index_t k = 0; k < n; ++k)                                                     \
        if (!host_math::trig_reduced_applies(F(in[k]))) out[k] = portable_math::name(F(in[k])); \
    }                                                                                     \
  };
TESSERA_TRIG_UNARY(sin)
TESSERA_TRIG_UNARY(cos)
TESSERA_TRIG_UNARY(tan)
#undef TESSERA_TRIG_UNARY

/// out[k] = host_math::pow(C(a[k]), C(b[k])) for a batch. An exponent the same over the batch
/// (a scalar operand) and one of the exact ones (2, 1, -1, 0, 0.5) takes its loop (x * x, ...;
/// square roots on the vector lanes); otherwise the branch-free pass, then the fix-up.
template <class A, class B, class C>
void pow_batch(const A* a, const B* b, index_t n, C* out) {
  if (n <= 0) return;
  const C y0 = C(b[0]);
  bool same = true;
  for (index_t k = 0; k < n; ++k) same &= C(b[k]) == y0;
  if (same && host_math::pow_exact_exponent(y0)) {
    if (y0 == C(2)) {
      for (index_t k = 0; k < n; ++k) out[k] = C(a[k]) * C(a[k]);
    } else if (y0 == C(0.5)) {
      for (index_t k = 0; k < n; ++k) out[k] = C(a[k]);
      host_math::sqrt_inplace(out, int(n));
      for (index_t k = 0; k < n; ++k)  // sqrt(-0) = -0, pow(-0, 0.5) = +0; pow(-inf, 0.5) = +inf
        if (out[k] == C(0) || out[k] != out[k]) out[k] = host_math::pow_exact(C(a[k]), y0);
    } else {
      for (index_t k = 0; k < n; ++k) out[k] = host_math::pow_exact(C(a[k]), y0);
    }
    return;
  }
  for (index_t k = 0; k < n; ++k) out[k] = host_math::pow_reduced(C(a[k]), C(b[k]));
  int others = 0;  // (a count: this loop vectorizes too)
  for (index_t k = 0; k < n; ++k) others += !host_math::pow_reduced_applies(C(a[k]), C(b[k]));
  if (others == 0) return;
  for (index_t k = 0; k < n; ++k)
    if (!host_math::pow_reduced_applies(C(a[k]), C(b[k]))) out[k] = portable_math::pow(C(a[k]), C(b[k]));
}

/// Power: floating operands use pow; integer operands use repeated squaring in the unsigned
/// type, so a result that does not fit wraps modulo 2^bits as NumPy's does, and nothing
/// overflows on the way to one that fits (3^39 in int64). A negative integer exponent gives 0
/// except for bases 1 and -1 (1, and +-1 by the exponent's parity), where NumPy raises.
struct power {
  template <class A, class B>
  TESSERA_HD auto operator()(A a_, B b_) const {
    using C = promote_t<A, B>;
    if constexpr (std::is_floating_point_v<C>) {
      return portable_math::pow(C(a_), C(b_));
    } else if constexpr (std::is_same_v<C, bool>) {
      return bool(a_ || !b_);
    } else {
      using U = std::make_unsigned_t<C>;
      // Products of 8- and 16-bit values are taken in unsigned int (never promoted to int).
      using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
      const C e = C(b_);
      if constexpr (std::is_signed_v<C>) {
        if (e < 0) {
          const C base = C(a_);
          return C(base == 1 ? 1 : base == -1 ? ((e & 1) ? -1 : 1) : 0);
        }
      }
      W base = W(U(C(a_))), r = 1;
      for (U k = U(e); k; k = U(k >> 1)) {
        if (k & 1u) r = W(U(r * base));
        if (k > 1u) base = W(U(base * base));  // no square after the last bit
      }
      return C(U(r));
    }
  }
  /// Floating batches on the host: the branch-free pow over the batch, vectorized, then libm's
  /// for the rare arguments it does not cover (core/host_math.hpp); the per-element values.
  template <class A, class B>
    requires std::is_floating_point_v<promote_t<A, B>>
  void fill_batch(const A* a, const B* b, index_t n, promote_t<A, B>* out) const {
    pow_batch(a, b, n, out);
  }
};

/// maximum/minimum propagate NaN and give b on ties (maximum(-0.0, 0.0) is 0.0), as NumPy's.
struct maximum {
  template <class A, class B>
  TESSERA_HD auto operator()(A a_, B b_) const {
    using C = promote_t<A, B>;
    C a = C(a_), b = C(b_);
    if (portable_math::isnan(a)) return a;
    if (portable_math::isnan(b)) return b;
    return a > b ? a : b;
  }
};
struct minimum {
  template <class A, class B>
  TESSERA_HD auto operator()(A a_, B b_) const {
    using C = promote_t<A, B>;
    C a = C(a_), b = C(b_);
    if (portable_math::isnan(a)) return a;
    if (portable_math::isnan(b)) return b;
    return a < b ? a : b;
  }
};

struct select {
  template <class Cnd, class A, class B>
  TESSERA_HD auto operator()(Cnd c, A a, B b) const {
    using C = promote_t<A, B>;
    return bool(c) ? C(a) : C(b);
  }
};

/// Conversion to U. Floating to integer truncates toward zero and is defined for every input
/// (a plain conversion is undefined behaviour out of range): NaN gives 0, values beyond U's
/// range give its minimum or maximum (saturation, as the GPU's conversion instructions do).
template <class U>
struct cast_to {
  template <class A>
  TESSERA_HD U operator()(A a) const {
    if constexpr (std::is_same_v<U, bool>) {
      return a != A(0);
    } else if constexpr (std::is_floating_point_v<A> && std::is_integral_v<U>) {
      // 2^digits, exact in A: the first value above U's maximum; -2^digits (signed) or 0
      // (unsigned) is U's minimum, and every value in (min - 1, min) truncates to it.
      constexpr A top = A(2) * A(U(1) << (std::numeric_limits<U>::digits - 1));
      constexpr A bottom = std::is_signed_v<U> ? -top : A(0);
      if (!(a == a)) return U(0);
      if (a >= top) return std::numeric_limits<U>::max();
      if (a < bottom) return std::numeric_limits<U>::min();
      return U(a);
    } else {
      return U(a);
    }
  }
};

}  // namespace tessera::ops

TESSERA_BATCH_DIAGNOSTICS_END
