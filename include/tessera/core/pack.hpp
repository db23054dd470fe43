// pack<T...>: the operands of a bound elementwise node (accessors) and of its lines, as a flat
// aggregate, `pack<A, B>{{a}, {b}}`, read with get<I>(p).
//
// Why not std::tuple: its element constructors are constexpr functions, and GCC tries to
// evaluate every call of one as a constant while folding, building the whole object first; a
// bound chain of n nodes nests n levels of such objects, so binding cost grew as n^3 (256
// chained operations: minutes and gigabytes). An aggregate is initialized member by member with
// no constructor call, stays trivially copyable (kernel parameters) and adds no template depth.
#pragma once
#include <cstddef>
#include <utility>

#include "../config.hpp"

namespace tessera::detail {

template <std::size_t I, class T>
struct pack_slot {
  T value;
};

template <class Seq, class... T>
struct pack_of;

template <std::size_t... I, class... T>
struct pack_of<std::index_sequence<I...>, T...> : pack_slot<I, T>... {};

template <class... T>
using pack = pack_of<std::index_sequence_for<T...>, T...>;

/// Number of elements of a pack (pack_size<P>::value).
template <class P>
struct pack_size;
template <std::size_t... I, class... T>
struct pack_size<pack_of<std::index_sequence<I...>, T...>> {
  static constexpr std::size_t value = sizeof...(T);
};

/// Element I of a pack (found by deduction against its base pack_slot<I, T>).
template <std::size_t I, class T>
TESSERA_HD const T& get(const pack_slot<I, T>& s) {
  return s.value;
}
template <std::size_t I, class T>
TESSERA_HD T& get(pack_slot<I, T>& s) {
  return s.value;
}

}  // namespace tessera::detail
