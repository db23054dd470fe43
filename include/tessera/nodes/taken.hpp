// taken<C>: the child's elements at a list of indices along one axis (NumPy's take, integer
// array indexing, compress and boolean masks build on it: indexing.hpp). The indices are a
// one-chunk ts::array<index_t>, bound like any stored leaf, so the binding context brings them
// where the kernel runs (device memory on ts::cuda). An output chunk binds the child on the
// bounding box of the indices it reads: sorted, clustered indices read one chunk or a few.
#pragma once
#include <algorithm>
#include <type_traits>

#include "../core/expression.hpp"
#include "stored.hpp"

namespace tessera {

template <class A>
struct taken_line {
  using child_line = std::remove_cvref_t<decltype(std::declval<const A&>().line(ivec{}, 0, 0))>;
  using value_type = typename child_line::value_type;
  static constexpr bool batched = child_line::batched;
  bool along;               // the line walks the indexed axis: element by element
  child_line straight;      // else: the child's line at the mapped start
  A a;
  ivec c0;                  // child index of element 0
  int axis;
  const index_t* idx;       // idx[j * step]: the child index along `axis` of element j
  index_t step;
  TESSERA_HD value_type operator()(index_t j) const {
    if (!along || axis < 0) return straight(j);  // (along implies axis >= 0; said for GCC)
    ivec c = c0;
    c[axis] = idx[j * step];
    return element_at(a, c);
  }
  void fill(index_t j0, index_t n, value_type* out) const {
    if (!along) {
      straight.fill(j0, n, out);
      return;
    }
    for (index_t k = 0; k < n; ++k) out[k] = (*this)(j0 + k);
  }
};

template <class A>
struct taken_accessor {
  A a;
  stored_accessor<index_t> indices;  // origin: output position along the axis
  int axis;
  TESSERA_HD taken_line<A> line(const ivec& start, int ax, index_t step) const {
    const index_t* idx = indices.p + (start[axis] - indices.origin[0]);
    ivec c = start;
    c[axis] = idx[0];
    const bool along = ax == axis;
    return taken_line<A>{along, a.line(c, along ? -1 : ax, step), a, c, axis, idx, along ? step : 0};
  }
};

template <class C>
class taken : public expression<taken<C>> {
 public:
  using value_type = typename C::value_type;
  /// indices: valid child indices along `axis` (normalized by the caller); `chunk` the output
  /// chunk length along the axis.
  taken(C child, array<index_t> indices, int axis, index_t chunk)
      : child_(std::move(child)), indices_(std::move(indices)), axis_(axis) {
    shape_t shape = child_.shape();
    chunks_t chunks = child_.chunks();
    const index_t n = indices_.shape()[0];
    shape[std::size_t(axis)] = n;
    chunks[std::size_t(axis)] = detail::regular(n, std::max<index_t>(chunk, 1));
    grid_ = chunk_grid(std::move(shape), std::move(chunks));
  }
  const chunk_grid& grid() const { return grid_; }
  const C& child() const { return child_; }
  const array<index_t>& indices() const { return indices_; }
  int axis() const { return axis_; }

  template <class P>
  decltype(auto) lower(const P& p) const {
    using L = std::remove_cvref_t<decltype(child_.lower(p))>;
    if constexpr (std::is_same_v<L, C>) return static_cast<const taken&>(*this);
    else return taken<L>(child_.lower(p), indices_, axis_, grid_);
  }
  template <class Ctx>
  auto bind(const box& b, Ctx& ctx) const {
    using A = decltype(child_.bind(b, ctx));
    box c = b, ib;
    ib.lo.n = ib.hi.n = 1;
    ib.lo[0] = b.lo[axis_];
    ib.hi[0] = b.hi[axis_];
    if (b.count() > 0) {  // the bounding box of the indices this box reads
      const index_t* p = indices_.block_data(0);
      const auto [mn, mx] = std::minmax_element(p + b.lo[axis_], p + b.hi[axis_]);
      c.lo[axis_] = *mn;
      c.hi[axis_] = *mx + 1;
    }
    return taken_accessor<A>{child_.bind(c, ctx), view_box(indices_.store(), ib, ctx), axis_};
  }

 private:
  template <class>
  friend class taken;
  taken(C child, array<index_t> indices, int axis, chunk_grid g)
      : child_(std::move(child)), indices_(std::move(indices)), axis_(axis), grid_(std::move(g)) {}

  C child_;
  array<index_t> indices_;
  int axis_;
  chunk_grid grid_;
};

}  // namespace tessera
