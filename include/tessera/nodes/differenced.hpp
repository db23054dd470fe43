// differenced<C>: the n-th discrete difference along one axis (NumPy's diff): output element
// i reads child elements i .. i + n along the axis and differences them n times, in the
// element type as NumPy does (integers wrap, booleans: not-equal), so the result is NumPy's
// to the bit. Output chunks are the child's, shortened by n at the end of the axis; a chunk
// reads its child chunk plus the next n elements (a halo).
#pragma once
#include <type_traits>

#include "../core/expression.hpp"

namespace tessera {

/// The longest difference order (the window of n + 1 elements lives in registers).
inline constexpr int max_diff_order = 64;

namespace detail {
template <class T>
TESSERA_HD T difference(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a != b;
  else if constexpr (std::is_integral_v<T>)
    return T(std::make_unsigned_t<T>(a) - std::make_unsigned_t<T>(b));  // wraps as NumPy
  else return a - b;
}
}  // namespace detail

template <class A>
struct differenced_line {
  using value_type = typename std::remove_cvref_t<decltype(std::declval<const A&>().line(ivec{}, 0, 0))>::value_type;
  static constexpr bool batched = false;
  A a;
  ivec start;
  int axis, diff_axis, order;
  index_t step;
  TESSERA_HD value_type operator()(index_t j) const {
    ivec p = start;
    if (axis >= 0) p[axis] += j * step;
    const auto l = a.line(p, diff_axis, 1);
    value_type w[max_diff_order + 1];
    for (int k = 0; k <= order; ++k) w[k] = l(k);
    for (int m = order; m > 0; --m)
      for (int k = 0; k < m; ++k) w[k] = detail::difference(w[k + 1], w[k]);
    return w[0];
  }
  template <class T>
  void fill(index_t j0, index_t n, T* out) const {
    for (index_t k = 0; k < n; ++k) out[k] = (*this)(j0 + k);
  }
};

template <class A>
struct differenced_accessor {
  A a;
  int diff_axis, order;
  TESSERA_HD differenced_line<A> line(const ivec& start, int axis, index_t step) const {
    return {a, start, axis, diff_axis, order, step};
  }
};

template <class C>
class differenced : public expression<differenced<C>> {
 public:
  using value_type = typename C::value_type;
  differenced(C child, int order, int axis) : child_(std::move(child)), order_(order), axis_(axis) {
    shape_t shape = child_.shape();
    chunks_t chunks = child_.chunks();
    index_t& n = shape[std::size_t(axis)];
    n = std::max<index_t>(0, n - order);
    std::vector<index_t> c;
    index_t left = n;
    for (index_t k : chunks[std::size_t(axis)]) {
      if (left == 0) break;
      c.push_back(std::min(k, left));
      left -= c.back();
    }
    if (c.empty()) c.push_back(0);
    chunks[std::size_t(axis)] = std::move(c);
    grid_ = chunk_grid(std::move(shape), std::move(chunks));
  }
  const chunk_grid& grid() const { return grid_; }
  const C& child() const { return child_; }

  template <class P>
  decltype(auto) lower(const P& p) const {
    using L = std::remove_cvref_t<decltype(child_.lower(p))>;
    if constexpr (std::is_same_v<L, C>) return static_cast<const differenced&>(*this);
    else return differenced<L>(child_.lower(p), order_, axis_);
  }
  template <class Ctx>
  auto bind(const box& b, Ctx& ctx) const {
    box c = b;
    if (b.count() > 0) c.hi[axis_] += order_;
    return differenced_accessor<decltype(child_.bind(c, ctx))>{child_.bind(c, ctx), axis_, order_};
  }

 private:
  C child_;
  int order_, axis_;
  chunk_grid grid_;
};

}  // namespace tessera
