// rechunk: the same values on a different chunk grid. Lazy: each output chunk binds its
// input on the new box (a stored input gathers the pieces it needs).
#pragma once
#include <type_traits>

#include "../core/expression.hpp"

namespace tessera {

template <class C>
class rechunked;
template <class T>
struct is_rechunked : std::false_type {};
template <class C>
struct is_rechunked<rechunked<C>> : std::true_type {};

template <class C>
class rechunked : public expression<rechunked<C>> {
 public:
  using value_type = typename C::value_type;
  rechunked(C child, chunk_grid g) : child_(std::move(child)), grid_(std::move(g)) {}
  const chunk_grid& grid() const { return grid_; }
  const C& child() const { return child_; }
  /// The node itself (no copy) when nothing below it lowers to another type.
  template <class P>
  decltype(auto) lower(const P& p) const {
    using L = std::remove_cvref_t<decltype(child_.lower(p))>;
    if constexpr (std::is_same_v<L, C>) return static_cast<const rechunked&>(*this);
    else return rechunked<L>(child_.lower(p), grid_);
  }
  template <class Ctx>
  auto bind(const box& b, Ctx& ctx) const {
    return child_.bind(b, ctx);
  }

 private:
  C child_;
  chunk_grid grid_;
};

/// x with new chunks (any chunks argument).
template <expression_type X>
auto rechunk(const X& x, const chunks_arg& chunks) {
  chunk_grid g = chunk_grid::make(x.shape(), chunks, sizeof(typename X::value_type));
  if constexpr (is_rechunked<X>::value)
    return rechunked(x.child(), std::move(g));
  else return rechunked<X>(x, std::move(g));
}

}  // namespace tessera
