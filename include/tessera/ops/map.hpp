// ts::map(f, operands...): a user's elementwise operation as a lazy node, fused into the
// per-chunk kernel like the library's own operators (the public form of what ops/arith.hpp
// builds for `+`, ts::sin, ...).
#pragma once
#include <concepts>
#include <type_traits>

#include "../nodes/elementwise.hpp"
#include "../core/promote.hpp"
#include "../nodes/generated.hpp"

namespace tessera {

namespace detail {
/// NumPy's result type of the expression operands' element types (scalars do not count).
template <class X>
struct array_element {  // a scalar: no constraint
  using type = bool;
};
template <expression_type X>
struct array_element<X> {
  using type = typename X::value_type;
};
template <class... X>
struct array_result_type {
  using type = bool;
};
template <class X, class... Rest>
struct array_result_type<X, Rest...> {
  using type = promote_t<typename array_element<X>::type,
                         typename array_result_type<Rest...>::type>;
};

/// An operand of map: an expression as it is; a scalar as a constant of its weak type next to
/// the arrays' result type C (NEP 50: 2.5 next to float32 arrays is a float32).
template <class C, class X>
auto map_operand(const X& x) {
  if constexpr (expression_type<X>) return x;
  else return scalar(weak_scalar_t<C, X>(x));
}
template <class C, class X>
using map_element_t = typename decltype(map_operand<C>(std::declval<const X&>()))::value_type;
}  // namespace detail

/// Applies f to corresponding elements of the operands (expressions or arithmetic scalars, at
/// least one expression), broadcast as NumPy does. f receives each array operand's element type
/// and each scalar in its NEP 50 weak type next to the arrays (as `+` does: 2.5 next to float
/// arrays is a float, 3 next to int16 arrays an int16); it returns an element type and must
/// be trivially copyable (a functor struct, or a lambda capturing plain values by copy). For
/// ts::cuda, its call operator must be TESSERA_HD (or an nvcc __host__ __device__ lambda).
template <class F, class... X>
  requires(sizeof...(X) > 0) && ((expression_type<X> || element<std::remove_cvref_t<X>>) && ...) &&
          (expression_type<X> || ...)
auto map(const F& f, const X&... operands) {
  using C = typename detail::array_result_type<X...>::type;
  static_assert(std::is_invocable_v<const F&, detail::map_element_t<C, X>...>,
                "tessera::map: f is not callable with the operands' element types");
  if constexpr (std::is_invocable_v<const F&, detail::map_element_t<C, X>...>) {
    using R = std::invoke_result_t<const F&, detail::map_element_t<C, X>...>;
    static_assert(element<std::remove_cvref_t<R>> && !std::is_reference_v<R>,
                  "tessera::map: f must return an element type by value (bool, an integer "
                  "or a floating-point type)");
    static_assert(std::is_trivially_copyable_v<F>,
                  "tessera::map: f must be trivially copyable (it is copied into every chunk "
                  "task and to the device): capture plain values by copy");
    return elementwise<F, decltype(detail::map_operand<C>(operands))...>(
        f, detail::map_operand<C>(operands)...);
  }
}

}  // namespace tessera
