// NumPy's elementwise functions (ufuncs) beyond ops/arith.hpp's operators, exp, log, sqrt,
// sin, cos, abs, pow, maximum, minimum and where: each returns a lazy elementwise node, fused
// into the per-chunk kernel like `+`. Scalars may stand on either side of a binary function
// (NEP 50 weak scalars, as for the operators); broadcasting and type promotion follow NumPy.
#pragma once
#include <limits>
#include <optional>
#include <type_traits>

#include "../reduce/reduction.hpp"
#include "arith.hpp"
#include "division.hpp"
#include "float_functions.hpp"
#include "logic.hpp"
#include "rounding.hpp"

namespace tessera {

namespace ops {
struct square {
  template <class A>
  TESSERA_HD auto operator()(A a) const {
    using T = std::conditional_t<std::is_same_v<A, bool>, signed char, A>;
    return multiplies{}(T(a), T(a));
  }
};
/// min(max(x, lo), hi) with NaN propagating (NumPy's clip).
struct clip {
  template <class X, class L, class H>
  TESSERA_HD auto operator()(X x, L lo, H hi) const {
    return minimum{}(maximum{}(x, lo), hi);
  }
};
/// |a - b| <= atol + rtol |b|, or a == b (infinities), or both NaN with equal_nan (NumPy's
/// isclose; computed in float32 for two float32 operands, else in double).
struct isclose {
  double rtol = 1e-5, atol = 1e-8;
  bool equal_nan = false;
  template <class A, class B>
  TESSERA_HD bool operator()(A a_, B b_) const {
    using F = std::conditional_t<std::is_same_v<promote_t<A, B>, float>, float, double>;
    const F a = F(a_), b = F(b_);
    if (a == b) return true;
    if (a != a || b != b) return equal_nan && a != a && b != b;
    if (!portable_math::isfinite(a) || !portable_math::isfinite(b)) return false;
    return portable_math::fabs(F(a - b)) <= F(F(atol) + F(rtol) * portable_math::fabs(b));
  }
};
}  // namespace ops

#define TESSERA_UFUNC1(name, functor)            \
  template <expression_type A>                   \
  auto name(const A& a) {                        \
    return detail::unary(ops::functor{}, a);     \
  }
// Floating functions (integers and bool are computed in float_of_t: int8/uint8/int16/bool ->
// float, wider integers -> double).
TESSERA_UFUNC1(tan, tan)
TESSERA_UFUNC1(arcsin, arcsin)
TESSERA_UFUNC1(arccos, arccos)
TESSERA_UFUNC1(arctan, arctan)
TESSERA_UFUNC1(sinh, sinh)
TESSERA_UFUNC1(cosh, cosh)
TESSERA_UFUNC1(tanh, tanh)
TESSERA_UFUNC1(arcsinh, arcsinh)
TESSERA_UFUNC1(arccosh, arccosh)
TESSERA_UFUNC1(arctanh, arctanh)
TESSERA_UFUNC1(asin, arcsin)  // the array API's spellings
TESSERA_UFUNC1(acos, arccos)
TESSERA_UFUNC1(atan, arctan)
TESSERA_UFUNC1(asinh, arcsinh)
TESSERA_UFUNC1(acosh, arccosh)
TESSERA_UFUNC1(atanh, arctanh)
TESSERA_UFUNC1(log1p, log1p)
TESSERA_UFUNC1(expm1, expm1)
TESSERA_UFUNC1(log2, log2)
TESSERA_UFUNC1(log10, log10)
TESSERA_UFUNC1(exp2, exp2)
TESSERA_UFUNC1(cbrt, cbrt)
TESSERA_UFUNC1(fabs, fabs)
TESSERA_UFUNC1(rint, rint)
TESSERA_UFUNC1(deg2rad, deg2rad)
TESSERA_UFUNC1(rad2deg, rad2deg)
TESSERA_UFUNC1(radians, deg2rad)
TESSERA_UFUNC1(degrees, rad2deg)
// Rounding keeps the element type (integers and bool unchanged, NumPy >= 2.1).
TESSERA_UFUNC1(floor, floor)
TESSERA_UFUNC1(ceil, ceil)
TESSERA_UFUNC1(trunc, trunc)
TESSERA_UFUNC1(fix, trunc)
TESSERA_UFUNC1(sign, sign)
// bool results.
TESSERA_UFUNC1(isnan, isnan)
TESSERA_UFUNC1(isinf, isinf)
TESSERA_UFUNC1(isfinite, isfinite)
TESSERA_UFUNC1(signbit, signbit)
TESSERA_UFUNC1(logical_not, logical_not)
// Integers and bool.
TESSERA_UFUNC1(bitwise_not, bitwise_not)
TESSERA_UFUNC1(invert, bitwise_not)
// Others.
TESSERA_UFUNC1(negative, negate)
TESSERA_UFUNC1(absolute, absolute)
TESSERA_UFUNC1(reciprocal, reciprocal)
#undef TESSERA_UFUNC1

/// x itself (NumPy's positive).
template <expression_type A>
const A& positive(const A& a) {
  return a;
}

/// x * x in x's type (bool as int8, as NumPy's square; integers wrap as `*` does).
template <expression_type A>
auto square(const A& a) {
  return detail::unary(ops::square{}, a);
}

/// x rounded to `decimals` decimal places, ties to even (NumPy's round/around; integers with
/// decimals < 0 round to multiples of 10^-decimals; bool gives float, and throws for
/// decimals < 0 as NumPy raises).
template <expression_type A>
auto round(const A& a, int decimals = 0) {
  if constexpr (std::is_same_v<typename A::value_type, bool>) {  // NumPy: a float result
    if (decimals < 0)
      throw_invalid("round: decimals = ", decimals, " is not defined for a bool array (NumPy "
                    "raises); cast it to an integer type first");
    return detail::unary(ops::round_decimals{decimals}, cast<float>(a));
  } else {
    return detail::unary(ops::round_decimals{decimals}, a);
  }
}
template <expression_type A>
auto around(const A& a, int decimals = 0) {
  return round(a, decimals);
}

/// NaN -> nan, +inf -> posinf, -inf -> neginf (defaults: 0, the type's largest and lowest
/// finite values); integer and bool arrays unchanged (NumPy's nan_to_num).
template <expression_type A>
auto nan_to_num(const A& a, double nan = 0.0, std::optional<double> posinf = std::nullopt,
                std::optional<double> neginf = std::nullopt) {
  using T = typename A::value_type;
  using V = std::conditional_t<std::is_floating_point_v<T>, T, double>;
  ops::nan_to_num<V> f;
  f.nan = V(nan);
  if (posinf) f.posinf = V(*posinf);
  if (neginf) f.neginf = V(*neginf);
  return detail::unary(f, a);
}

#define TESSERA_UFUNC2(name, functor)                          \
  template <operand A, operand B>                              \
    requires(expression_type<A> || expression_type<B>)         \
  auto name(const A& a, const B& b) {                          \
    return detail::binary(ops::functor{}, a, b);               \
  }
TESSERA_UFUNC2(arctan2, arctan2)
TESSERA_UFUNC2(atan2, arctan2)
TESSERA_UFUNC2(hypot, hypot)
TESSERA_UFUNC2(copysign, copysign)
TESSERA_UFUNC2(nextafter, nextafter)
TESSERA_UFUNC2(logaddexp, logaddexp)
TESSERA_UFUNC2(logaddexp2, logaddexp2)
TESSERA_UFUNC2(float_power, float_power)
TESSERA_UFUNC2(fmax, fmax)
TESSERA_UFUNC2(fmin, fmin)
TESSERA_UFUNC2(heaviside, heaviside)
TESSERA_UFUNC2(logical_and, logical_and)
TESSERA_UFUNC2(logical_or, logical_or)
TESSERA_UFUNC2(logical_xor, logical_xor)
TESSERA_UFUNC2(bitwise_and, bitwise_and)
TESSERA_UFUNC2(bitwise_or, bitwise_or)
TESSERA_UFUNC2(bitwise_xor, bitwise_xor)
TESSERA_UFUNC2(left_shift, left_shift)
TESSERA_UFUNC2(right_shift, right_shift)
TESSERA_UFUNC2(floor_divide, floor_divide)
TESSERA_UFUNC2(remainder, remainder)
TESSERA_UFUNC2(mod, remainder)
TESSERA_UFUNC2(fmod, fmod)
// NumPy's names of the operators.
TESSERA_UFUNC2(add, plus)
TESSERA_UFUNC2(subtract, minus)
TESSERA_UFUNC2(multiply, multiplies)
TESSERA_UFUNC2(divide, divides)
TESSERA_UFUNC2(true_divide, divides)
TESSERA_UFUNC2(equal, equal)
TESSERA_UFUNC2(not_equal, not_equal)
TESSERA_UFUNC2(less, less)
TESSERA_UFUNC2(less_equal, less_equal)
TESSERA_UFUNC2(greater, greater)
TESSERA_UFUNC2(greater_equal, greater_equal)
#undef TESSERA_UFUNC2

/// NumPy's power (ts::pow).
template <operand A, operand B>
  requires(expression_type<A> || expression_type<B>)
auto power(const A& a, const B& b) {
  return pow(a, b);
}

#define TESSERA_UFUNC_OPERATOR(sym, functor)                                   \
  template <operand A, operand B>                                             \
    requires(expression_type<A> || expression_type<B>)                        \
  auto operator sym(const A& a, const B& b) {                                 \
    return detail::binary(ops::functor{}, a, b);                              \
  }
TESSERA_UFUNC_OPERATOR(%, remainder)
TESSERA_UFUNC_OPERATOR(&, bitwise_and)
TESSERA_UFUNC_OPERATOR(|, bitwise_or)
TESSERA_UFUNC_OPERATOR(^, bitwise_xor)
TESSERA_UFUNC_OPERATOR(<<, left_shift)
TESSERA_UFUNC_OPERATOR(>>, right_shift)
#undef TESSERA_UFUNC_OPERATOR

template <expression_type A>
auto operator~(const A& a) {
  return detail::unary(ops::bitwise_not{}, a);
}


/// Limits every element to [lo, hi] (NumPy's clip: minimum(maximum(x, lo), hi), NaN
/// propagates); lo and hi are scalars (weak, as for operators) or arrays broadcast with x.
template <expression_type X, operand L, operand H>
auto clip(const X& x, const L& lo, const H& hi) {
  auto l = detail::as_operand<X>(lo);
  auto h = detail::as_operand<X>(hi);
  return elementwise<ops::clip, X, decltype(l), decltype(h)>(ops::clip{}, x, l, h);
}

/// Elementwise closeness (NumPy's isclose), a bool array.
template <operand A, operand B>
  requires(expression_type<A> || expression_type<B>)
auto isclose(const A& a, const B& b, double rtol = 1e-5, double atol = 1e-8,
             bool equal_nan = false) {
  return detail::binary(ops::isclose{rtol, atol, equal_nan}, a, b);
}

/// Whether all elements are close (NumPy's allclose): a lazy 0-d bool, ts::all of isclose.
template <operand A, operand B>
  requires(expression_type<A> || expression_type<B>)
auto allclose(const A& a, const B& b, double rtol = 1e-5, double atol = 1e-8,
              bool equal_nan = false) {
  return all(isclose(a, b, rtol, atol, equal_nan));
}

}  // namespace tessera
