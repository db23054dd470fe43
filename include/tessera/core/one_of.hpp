// one_of<T...>: exactly one of several trivially copyable types, chosen at run time, itself
// trivially copyable (host and device). Nodes whose output chunk binds one of several children
// (concatenate, pad) keep the bound child's accessor, and its line, in one: the kernel is one
// type for every chunk, and the choice is one well-predicted branch per line or element.
#pragma once
#include <new>
#include <type_traits>

#include "../config.hpp"

namespace tessera::detail {

template <class... T>
union one_of_storage;
template <class T>
union one_of_storage<T> {
  T head;
  TESSERA_HD one_of_storage() {}
};
template <class T, class... R>
union one_of_storage<T, R...> {
  T head;
  one_of_storage<R...> tail;
  TESSERA_HD one_of_storage() {}
};

template <int I, class S>
TESSERA_HD constexpr auto& storage_get(S& s) {
  if constexpr (I == 0) return s.head;
  else return storage_get<I - 1>(s.tail);
}

template <int I, class... T>
struct nth_type;
template <class T, class... R>
struct nth_type<0, T, R...> {
  using type = T;
};
template <int I, class T, class... R>
struct nth_type<I, T, R...> : nth_type<I - 1, R...> {};

template <class... T>
struct one_of {
  static_assert((std::is_trivially_copyable_v<T> && ...), "one_of holds trivially copyable types");
  static constexpr int size = int(sizeof...(T));
  template <int I>
  using type = typename nth_type<I, T...>::type;

  int which = -1;  // -1: empty
  one_of_storage<T...> s;

  template <int I>
  TESSERA_HD void emplace(const type<I>& v) {
    ::new (static_cast<void*>(&storage_get<I>(s))) type<I>(v);
    which = I;
  }
  template <int I>
  TESSERA_HD const type<I>& get() const {
    return storage_get<I>(s);
  }
  /// f(alternative) for the held alternative; which must not be -1.
  template <class F>
  TESSERA_HD decltype(auto) visit(F&& f) const {
    return visit_from<0>(f);
  }

 private:
  template <int I, class F>
  TESSERA_HD decltype(auto) visit_from(F& f) const {
    if constexpr (I + 1 == size) return f(get<I>());
    else {
      if (which == I) return f(get<I>());
      return visit_from<I + 1>(f);
    }
  }
};

}  // namespace tessera::detail
