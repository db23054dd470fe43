// Operators and elementwise functions on expressions (and scalars on either side).
#pragma once
#include <type_traits>

#include "../nodes/elementwise.hpp"
#include "../nodes/generated.hpp"
#include "functors.hpp"

namespace tessera {

/// Anything usable as an operand: an expression or an arithmetic scalar.
template <class T>
concept operand = expression_type<T> || element<std::remove_cvref_t<T>>;

namespace detail {

template <class Other, class X>
auto as_operand(const X& x) {
  if constexpr (expression_type<X>) return x;
  else if constexpr (expression_type<Other>)
    return scalar(weak_scalar_t<typename Other::value_type, X>(x));
  else return scalar(x);
}

template <class Op, class A, class B>
auto binary(Op op, const A& a, const B& b) {
  auto x = as_operand<B>(a);
  auto y = as_operand<A>(b);
  return elementwise<Op, decltype(x), decltype(y)>(op, std::move(x), std::move(y));
}

template <class Op, class A>
auto unary(Op op, const A& a) {
  return elementwise<Op, A>(op, a);
}

}  // namespace detail

#define TESSERA_BINARY_OPERATOR(sym, functor)                                  \
  template <operand A, operand B>                                             \
    requires(expression_type<A> || expression_type<B>)                        \
  auto operator sym(const A& a, const B& b) {                                 \
    return detail::binary(ops::functor{}, a, b);                              \
  }
TESSERA_BINARY_OPERATOR(+, plus)
TESSERA_BINARY_OPERATOR(-, minus)
TESSERA_BINARY_OPERATOR(*, multiplies)
TESSERA_BINARY_OPERATOR(/, divides)
TESSERA_BINARY_OPERATOR(==, equal)
TESSERA_BINARY_OPERATOR(!=, not_equal)
TESSERA_BINARY_OPERATOR(<, less)
TESSERA_BINARY_OPERATOR(<=, less_equal)
TESSERA_BINARY_OPERATOR(>, greater)
TESSERA_BINARY_OPERATOR(>=, greater_equal)
#undef TESSERA_BINARY_OPERATOR

template <expression_type A>
auto operator-(const A& a) {
  return detail::unary(ops::negate{}, a);
}
template <expression_type A>
const A& operator+(const A& a) {
  return a;
}

#define TESSERA_UNARY_FUNCTION(name, functor)    \
  template <expression_type A>                   \
  auto name(const A& a) {                        \
    return detail::unary(ops::functor{}, a);     \
  }
TESSERA_UNARY_FUNCTION(exp, exp)
TESSERA_UNARY_FUNCTION(log, log)
TESSERA_UNARY_FUNCTION(sqrt, sqrt)
TESSERA_UNARY_FUNCTION(sin, sin)
TESSERA_UNARY_FUNCTION(cos, cos)
TESSERA_UNARY_FUNCTION(abs, absolute)
#undef TESSERA_UNARY_FUNCTION

#define TESSERA_BINARY_FUNCTION(name, functor)                 \
  template <operand A, operand B>                              \
    requires(expression_type<A> || expression_type<B>)         \
  auto name(const A& a, const B& b) {                          \
    return detail::binary(ops::functor{}, a, b);               \
  }
TESSERA_BINARY_FUNCTION(maximum, maximum)
TESSERA_BINARY_FUNCTION(minimum, minimum)
#undef TESSERA_BINARY_FUNCTION

/// a ** b, NumPy's power. An integer array to a negative integer scalar power is
/// tessera::invalid_argument, as NumPy raises ("Integers to negative integer powers are not
/// allowed"); negative elements of an integer exponent array (not known before evaluation)
/// give 0, except for bases 1 and -1 (ops::power).
template <operand A, operand B>
  requires(expression_type<A> || expression_type<B>)
auto pow(const A& a, const B& b) {
  if constexpr (expression_type<A> && !expression_type<B> && std::is_integral_v<B> &&
                std::is_signed_v<B>) {
    if (std::is_integral_v<typename A::value_type> && b < 0)
      throw_invalid("pow: integers to negative integer powers are not allowed (exponent ", +b,
                    "); make the base floating point, e.g. ts::pow(ts::cast<double>(x), ", +b, ")");
  }
  return detail::binary(ops::power{}, a, b);
}

/// Elementwise conversion to element type U (to bool: x != 0).
template <element U, expression_type A>
auto cast(const A& a) {
  return detail::unary(ops::cast_to<U>{}, a);
}

/// where(cond, a, b): a where cond is true, else b; a and b may be scalars.
template <operand Cnd, operand A, operand B>
  requires(expression_type<Cnd> || expression_type<A> || expression_type<B>)
auto where(const Cnd& c, const A& a, const B& b) {
  auto cc = [&] {
    if constexpr (expression_type<Cnd>) return c;
    else return scalar(bool(c));
  }();
  auto x = detail::as_operand<B>(a);
  auto y = detail::as_operand<A>(b);
  return elementwise<ops::select, decltype(cc), decltype(x), decltype(y)>(ops::select{}, cc, x, y);
}

}  // namespace tessera
