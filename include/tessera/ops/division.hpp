// Element functors of NumPy's integer-style division: floor_divide (//), remainder (% with the
// divisor's sign, alias mod), fmod (C's remainder, the dividend's sign), reciprocal. Floats
// follow NumPy's npy_divmod, so results agree bit for bit (signs of zeros included); integer
// division by zero gives 0 as NumPy's does (it warns), INT_MIN // -1 wraps to INT_MIN and
// INT_MIN % -1 is 0, never undefined behaviour. bool operands divide as int8, as NumPy's.
#pragma once
#include <limits>
#include <type_traits>

#include "../core/math.hpp"
#include "../core/promote.hpp"
#include "functors.hpp"

namespace tessera::ops {

/// The type NumPy divides A and B in (bool pairs: int8).
template <class A, class B>
using division_type = std::conditional_t<std::is_same_v<promote_t<A, B>, bool>, signed char,
                                         promote_t<A, B>>;

namespace detail {
/// NumPy's npy_divmod for floating a, b: the floored quotient; `mod` gets the remainder with
/// b's sign.
template <class F>
TESSERA_HD F divmod(F a, F b, F& mod) {
  mod = portable_math::fmod(a, b);
  if (!b) return a / b;
  F div = (a - mod) / b;
  if (mod) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= F(1);
    }
  } else {
    mod = portable_math::copysign(F(0), b);
  }
  if (div) {
    F floordiv = portable_math::floor(div);
    if (div - floordiv > F(0.5)) floordiv += F(1);
    return floordiv;
  }
  return portable_math::copysign(F(0), a / b);
}
/// True for the one signed pair whose C quotient overflows: MIN / -1.
template <class C>
TESSERA_HD bool quotient_overflows(C a, C b) {
  if constexpr (std::is_signed_v<C>) return a == std::numeric_limits<C>::min() && b == C(-1);
  else return false;
}
}  // namespace detail

struct floor_divide {
  template <class A, class B>
  TESSERA_HD auto operator()(A a_, B b_) const {
    using C = division_type<A, B>;
    const C a = C(a_), b = C(b_);
    if constexpr (std::is_floating_point_v<C>) {
      C mod;
      return detail::divmod(a, b, mod);
    } else {
      if (b == 0) return C(0);
      if (detail::quotient_overflows(a, b)) return a;  // wraps to MIN
      C q = C(a / b);
      if constexpr (std::is_signed_v<C>)
        if (C(a % b) != 0 && ((a < 0) != (b < 0))) q = C(q - 1);
      return q;
    }
  }
};

struct remainder {
  template <class A, class B>
  TESSERA_HD auto operator()(A a_, B b_) const {
    using C = division_type<A, B>;
    const C a = C(a_), b = C(b_);
    if constexpr (std::is_floating_point_v<C>) {
      if (!b) return portable_math::fmod(a, b);
      C mod;
      detail::divmod(a, b, mod);
      return mod;
    } else {
      if (b == 0 || detail::quotient_overflows(a, b)) return C(0);
      C r = C(a % b);
      if constexpr (std::is_signed_v<C>)
        if (r != 0 && ((r < 0) != (b < 0))) r = C(r + b);
      return r;
    }
  }
};

struct fmod {
  template <class A, class B>
  TESSERA_HD auto operator()(A a_, B b_) const {
    using C = division_type<A, B>;
    const C a = C(a_), b = C(b_);
    if constexpr (std::is_floating_point_v<C>) {
      return portable_math::fmod(a, b);
    } else {
      if (b == 0 || detail::quotient_overflows(a, b)) return C(0);
      return C(a % b);
    }
  }
};

/// 1 / x in x's type: floats divide; integers and bool take 1.0 / x in double converted back
/// as ts::cast does (NumPy's loop computes 1.0 / x and converts: 2 -> 0, -1 -> -1; 0 gives
/// +inf, which ts::cast saturates to the type's maximum, where NumPy's result is undefined);
/// bool as int8.
struct reciprocal {
  template <class A>
  TESSERA_HD auto operator()(A a) const {
    using R = division_type<A, A>;  // bool -> int8, as NumPy's
    if constexpr (std::is_floating_point_v<A>) return A(1) / a;
    else return cast_to<R>{}(1.0 / double(a));
  }
};

}  // namespace tessera::ops
