// Element functors with bool results or bit operations: logical and/or/xor/not (any element
// type, nonzero is true, NaN included), isnan / isinf / isfinite / signbit, and the bitwise
// ufuncs on integers and bool (and, or, xor, invert, left and right shifts).
#pragma once
#include <type_traits>

#include "../core/math.hpp"
#include "../core/promote.hpp"

namespace tessera::ops {

#define TESSERA_LOGICAL(name, expr)                     \
  struct name {                                         \
    template <class A, class B>                         \
    TESSERA_HD bool operator()(A a_, B b_) const {      \
      const bool a = a_ != A(0), b = b_ != B(0);        \
      return expr;                                      \
    }                                                   \
  };
TESSERA_LOGICAL(logical_and, a && b)
TESSERA_LOGICAL(logical_or, a || b)
TESSERA_LOGICAL(logical_xor, a != b)
#undef TESSERA_LOGICAL

struct logical_not {
  template <class A>
  TESSERA_HD bool operator()(A a) const {
    return a == A(0);
  }
};

#define TESSERA_CLASSIFY(name)                          \
  struct name {                                         \
    template <class A>                                  \
    TESSERA_HD bool operator()(A a) const {             \
      return portable_math::name(a);                    \
    }                                                   \
  };
TESSERA_CLASSIFY(isnan)
TESSERA_CLASSIFY(isinf)
TESSERA_CLASSIFY(isfinite)
TESSERA_CLASSIFY(signbit)
#undef TESSERA_CLASSIFY

/// The type a bitwise ufunc computes in: NumPy's promotion, which must be an integer or bool.
template <class A, class B>
struct bitwise_type {
  using type = promote_t<A, B>;
  static_assert(std::is_integral_v<type>,
                "tessera: bitwise operations need integer or bool operands (NumPy raises "
                "TypeError for floating ones)");
};

#define TESSERA_BITWISE(name, op)                                 \
  struct name {                                                   \
    template <class A, class B>                                   \
    TESSERA_HD auto operator()(A a, B b) const {                  \
      using C = typename bitwise_type<A, B>::type;                \
      if constexpr (std::is_same_v<C, bool>) return bool(a op b); \
      else return C(C(a) op C(b));                                \
    }                                                             \
  };
TESSERA_BITWISE(bitwise_and, &)
TESSERA_BITWISE(bitwise_or, |)
TESSERA_BITWISE(bitwise_xor, ^)
#undef TESSERA_BITWISE

/// ~x: bitwise complement of integers; logical not of bool (NumPy's invert).
struct bitwise_not {
  template <class A>
  TESSERA_HD A operator()(A a) const {
    static_assert(std::is_integral_v<A>,
                  "tessera: bitwise_not/invert needs an integer or bool operand (NumPy raises "
                  "TypeError for floating ones)");
    if constexpr (std::is_same_v<A, bool>) return !a;
    else return A(~a);
  }
};

/// a << b and a >> b as NumPy's: in the promoted integer type (bool operands shift as int8),
/// a shift by a negative amount or by the width or more gives 0 (left) or the sign fill (right:
/// -1 for negative a, else 0); no undefined behaviour.
template <class A, class B>
using shift_type = std::conditional_t<std::is_same_v<typename bitwise_type<A, B>::type, bool>,
                                      signed char, typename bitwise_type<A, B>::type>;
/// 0 <= b < the bit width of C.
template <class C>
TESSERA_HD bool shift_in_range(C b) {
  if constexpr (std::is_signed_v<C>)
    if (b < 0) return false;
  return b < C(sizeof(C) * 8);
}
struct left_shift {
  template <class A, class B>
  TESSERA_HD auto operator()(A a_, B b_) const {
    using C = shift_type<A, B>;
    using U = std::make_unsigned_t<C>;
    const C a = C(a_), b = C(b_);
    if (!shift_in_range(b)) return C(0);
    return C(U(U(a) << int(b)));
  }
};
struct right_shift {
  template <class A, class B>
  TESSERA_HD auto operator()(A a_, B b_) const {
    using C = shift_type<A, B>;
    const C a = C(a_), b = C(b_);
    if (!shift_in_range(b)) {
      if constexpr (std::is_signed_v<C>) return C(a < 0 ? -1 : 0);
      else return C(0);
    }
    return C(a >> int(b));
  }
};

}  // namespace tessera::ops
