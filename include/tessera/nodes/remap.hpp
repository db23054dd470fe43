// remap<C>: an axis-wise affine index remap of an expression (transpose, swapaxes, and the
// views of view.hpp). Output index o maps to input index
//     in[k] = base[k] + sum over output axes d with src[d] == k of step[d] * o[d],
// so a row of the output is a row (or a constant) of the input: a remap adds no pass over
// the data, and remaps of remaps compose into one.
#pragma once
#include <algorithm>
#include <type_traits>

#include "../core/affine_map.hpp"
#include "../core/expression.hpp"

namespace tessera {

template <class A>
struct remap_accessor {
  A a;
  affine_map m;
  TESSERA_HD auto line(const ivec& start, int axis, index_t step) const {
    ivec cs;
    int ca;
    index_t cst;
    m.map_line(start, axis, step, cs, ca, cst);
    return a.line(cs, ca, cst);
  }
};

template <class C>
class remap : public expression<remap<C>> {
 public:
  using value_type = typename C::value_type;
  remap(C child, affine_map m, chunk_grid g)
      : child_(std::move(child)), map_(m), grid_(std::move(g)) {}

  const chunk_grid& grid() const { return grid_; }
  const C& child() const { return child_; }
  const affine_map& map() const { return map_; }

  /// The node itself (no copy) when nothing below it lowers to another type.
  template <class P>
  decltype(auto) lower(const P& p) const {
    using L = std::remove_cvref_t<decltype(child_.lower(p))>;
    if constexpr (std::is_same_v<L, C>) return static_cast<const remap&>(*this);
    else return remap<L>(child_.lower(p), map_, grid_);
  }
  template <class Ctx>
  auto bind(const box& b, Ctx& ctx) const {
    return remap_accessor<decltype(child_.bind(b, ctx))>{child_.bind(map_.map_box(b), ctx), map_};
  }

 private:
  C child_;
  affine_map map_;
  chunk_grid grid_;
};

template <class T>
struct is_remap : std::false_type {};
template <class C>
struct is_remap<remap<C>> : std::true_type {};

/// Builds a remap of x, composing with x's own remap if it is one.
template <expression_type X>
auto make_remap(const X& x, const affine_map& m, chunk_grid g) {
  if constexpr (is_remap<X>::value) return remap(x.child(), m.then(x.map()), std::move(g));
  else return remap<X>(x, m, std::move(g));
}

namespace detail {
inline int normalize_axis(index_t axis, int rank, const char* what = "axis") {
  if (axis < -rank || axis >= rank)
    throw_invalid(what, " ", axis, " is out of range for an array of dimension ", rank);
  return int(axis < 0 ? axis + rank : axis);
}
}  // namespace detail

/// Permutes the axes: output axis d is input axis axes[d] (NumPy's transpose).
template <expression_type X>
auto transpose(const X& x, const std::vector<index_t>& axes) {
  const int r = x.dimension();
  if (int(axes.size()) != r)
    throw_invalid("transpose axes ", axes, " do not match an array of dimension ", r);
  affine_map m;
  m.out_rank = r;
  m.base.n = r;
  shape_t shape(static_cast<std::size_t>(r));
  chunks_t ch(static_cast<std::size_t>(r));
  std::vector<bool> seen(static_cast<std::size_t>(r), false);
  for (int d = 0; d < r; ++d) {
    int k = detail::normalize_axis(axes[std::size_t(d)], r);
    if (seen[std::size_t(k)]) throw_invalid("repeated axis ", axes[std::size_t(d)], " in transpose axes ", axes);
    seen[std::size_t(k)] = true;
    m.src[d] = k;
    m.step[d] = 1;
    shape[std::size_t(d)] = x.shape()[std::size_t(k)];
    ch[std::size_t(d)] = x.chunks()[std::size_t(k)];
  }
  return make_remap(x, m, chunk_grid(std::move(shape), std::move(ch)));
}
/// Reverses the axes.
template <expression_type X>
auto transpose(const X& x) {
  std::vector<index_t> axes(static_cast<std::size_t>(x.dimension()));
  for (std::size_t d = 0; d < axes.size(); ++d) axes[d] = index_t(axes.size() - 1 - d);
  return transpose(x, axes);
}
/// Exchanges two axes.
template <expression_type X>
auto swapaxes(const X& x, index_t a, index_t b) {
  const int r = x.dimension();
  std::vector<index_t> axes(static_cast<std::size_t>(r));
  for (int d = 0; d < r; ++d) axes[std::size_t(d)] = d;
  std::swap(axes[std::size_t(detail::normalize_axis(a, r))],
            axes[std::size_t(detail::normalize_axis(b, r))]);
  return transpose(x, axes);
}

}  // namespace tessera
