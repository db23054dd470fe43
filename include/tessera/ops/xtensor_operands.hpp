// Operators between a Tessera expression and an xtensor expression (`x + a`, `a * x`, with
// `a` an xt::xarray, xt::xtensor or lazy xtensor expression): the xtensor operand is copied
// into a one-chunk-per-axis-as-auto Tessera array (ts::from_xtensor) and the operator is
// Tessera's, so the result is a lazy Tessera expression broadcast as NumPy does. These
// overloads are more constrained than xtensor's own unconstrained operator templates, so they
// are the ones chosen (xtensor would otherwise take the Tessera operand for a scalar).
#pragma once
#include <type_traits>
#include <utility>

#include <xtensor/xexpression.hpp>

#include "../compute.hpp"
#include "arith.hpp"
#include "ufuncs.hpp"

namespace tessera {

namespace detail {
template <class T>
concept xtensor_operand = xt::is_xexpression<std::remove_cvref_t<T>>::value && !expression_type<T>;

/// A Tessera operand: an xtensor expression copied into an array, anything else as it is.
template <class T>
decltype(auto) tessera_operand(T&& t) {
  if constexpr (xtensor_operand<T>) return from_xtensor(t);
  else return std::forward<T>(t);
}
}  // namespace detail

#define TESSERA_XTENSOR_OPERATOR(sym)                                                          \
  template <class A, class B>                                                                  \
    requires((expression_type<A> && detail::xtensor_operand<B>) ||                             \
             (detail::xtensor_operand<A> && expression_type<B>))                               \
  auto operator sym(A&& a, B&& b) {                                                            \
    return detail::tessera_operand(std::forward<A>(a)) sym detail::tessera_operand(std::forward<B>(b)); \
  }
TESSERA_XTENSOR_OPERATOR(+)
TESSERA_XTENSOR_OPERATOR(-)
TESSERA_XTENSOR_OPERATOR(*)
TESSERA_XTENSOR_OPERATOR(/)
TESSERA_XTENSOR_OPERATOR(%)
TESSERA_XTENSOR_OPERATOR(==)
TESSERA_XTENSOR_OPERATOR(!=)
TESSERA_XTENSOR_OPERATOR(<)
TESSERA_XTENSOR_OPERATOR(<=)
TESSERA_XTENSOR_OPERATOR(>)
TESSERA_XTENSOR_OPERATOR(>=)
TESSERA_XTENSOR_OPERATOR(&)
TESSERA_XTENSOR_OPERATOR(|)
TESSERA_XTENSOR_OPERATOR(^)
#undef TESSERA_XTENSOR_OPERATOR

}  // namespace tessera
