// NumPy-like type promotion for element types, including "weak" scalars (NEP 50):
// a C++ scalar next to an array adopts the array's type unless its kind is higher.
#pragma once
#include <cstdint>
#include <type_traits>

namespace tessera {

/// Element types an array may hold.
template <class T>
concept element = std::is_arithmetic_v<T> && !std::is_same_v<T, char> &&
                  !std::is_same_v<T, long double>;

namespace detail {

template <std::size_t N> struct signed_of;
template <> struct signed_of<1> { using type = std::int16_t; };
template <> struct signed_of<2> { using type = std::int32_t; };
template <> struct signed_of<4> { using type = std::int64_t; };

template <class A, class B>
struct promote2 {
  static auto pick() {
    if constexpr (std::is_same_v<A, B>) return A{};
    else if constexpr (std::is_same_v<A, bool>) return B{};
    else if constexpr (std::is_same_v<B, bool>) return A{};
    else if constexpr (std::is_floating_point_v<A> && std::is_floating_point_v<B>)
      return std::conditional_t<(sizeof(A) >= sizeof(B)), A, B>{};
    else if constexpr (std::is_floating_point_v<A> || std::is_floating_point_v<B>) {
      using F = std::conditional_t<std::is_floating_point_v<A>, A, B>;
      using I = std::conditional_t<std::is_floating_point_v<A>, B, A>;
      if constexpr (sizeof(F) >= 8 || sizeof(I) <= 2) return F{};
      else return double{};
    } else if constexpr (std::is_signed_v<A> == std::is_signed_v<B>)
      return std::conditional_t<(sizeof(A) >= sizeof(B)), A, B>{};
    else {
      using S = std::conditional_t<std::is_signed_v<A>, A, B>;
      using U = std::conditional_t<std::is_signed_v<A>, B, A>;
      if constexpr (sizeof(S) > sizeof(U)) return S{};
      else if constexpr (sizeof(U) < 8) return typename signed_of<sizeof(U)>::type{};
      else return double{};
    }
  }
  using type = decltype(pick());
};

}  // namespace detail

/// NumPy's result_type for two element types (int32 + float32 -> float64, uint64 + int64 ->
/// float64, bool + x -> x, ...).
template <class A, class B>
using promote_t = typename detail::promote2<A, B>::type;

/// The floating type NumPy computes transcendental functions in for element type T
/// (float stays float, small integers and bool -> float, others -> double).
template <class T>
using float_of_t =
    std::conditional_t<std::is_floating_point_v<T>, T,
                       std::conditional_t<(sizeof(T) <= 2), float, double>>;

/// Type a C++ scalar S takes next to an array of element type T (NEP 50 weak scalars).
template <class T, class S>
using weak_scalar_t = std::conditional_t<
    std::is_same_v<S, bool>, T,
    std::conditional_t<
        std::is_floating_point_v<T>, T,
        std::conditional_t<std::is_floating_point_v<S>, double,
                           std::conditional_t<std::is_same_v<T, bool>, std::int64_t, T>>>>;

}  // namespace tessera
