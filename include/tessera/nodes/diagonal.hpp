// diagonal_of<C>: the diagonal of two axes of the child as the last output axis (NumPy's
// diagonal; trace sums it). Output index (rest..., k) reads the child at axis1 = k + off1,
// axis2 = k + off2 and the rest in order. Along the diagonal an output line moves along two
// child axes at once, so it reads element by element; along the other axes it is a child line.
// Diagonal chunks break wherever either axis's chunks do, so a chunk reads one child chunk.
#pragma once
#include <algorithm>
#include <type_traits>

#include "../core/expression.hpp"

namespace tessera {

/// Output index -> child index of a diagonal (plain data).
struct diagonal_map {
  int out_rank = 0, axis1 = 0, axis2 = 0;  // axis1 < axis2, child axes
  index_t off1 = 0, off2 = 0;
  TESSERA_HD ivec map(const ivec& o) const {
    ivec c;
    c.n = out_rank + 1;
    const index_t k = o[out_rank - 1];
    for (int d = 0, a = 0; d < c.n; ++d) {
      if (d == axis1) c[d] = k + off1;
      else if (d == axis2) c[d] = k + off2;
      else c[d] = o[a++];
    }
    return c;
  }
  /// The child axis an output axis other than the last one walks.
  TESSERA_HD int child_axis(int a) const {
    int d = a;
    if (d >= axis1) ++d;
    if (d >= axis2) ++d;
    return d;
  }
};

template <class A>
struct diagonal_line {
  using value_type = typename std::remove_cvref_t<decltype(std::declval<const A&>().line(ivec{}, 0, 0))>::value_type;
  static constexpr bool batched = false;
  A a;
  ivec c0;  // child index of element 0
  int axis1, axis2;
  index_t step;
  TESSERA_HD value_type operator()(index_t j) const {
    ivec c = c0;
    c[axis1] += j * step;
    c[axis2] += j * step;
    return element_at(a, c);
  }
  template <class T>
  void fill(index_t j0, index_t n, T* out) const {
    for (index_t k = 0; k < n; ++k) out[k] = (*this)(j0 + k);
  }
};

/// A diagonal node's line: along the diagonal element by element, else the child's line.
template <class A, class L>
struct diagonal_or_straight_line {
  using value_type = typename L::value_type;
  static constexpr bool batched = L::batched;
  bool diagonal;
  L straight;
  diagonal_line<A> diag;
  TESSERA_HD value_type operator()(index_t j) const { return diagonal ? diag(j) : straight(j); }
  void fill(index_t j0, index_t n, value_type* out) const {
    if (diagonal) diag.fill(j0, n, out);
    else straight.fill(j0, n, out);
  }
};

template <class A>
struct diagonal_accessor {
  A a;
  diagonal_map m;
  TESSERA_HD auto line(const ivec& start, int axis, index_t step) const {
    using child_line = decltype(a.line(start, 0, step));
    const ivec c = m.map(start);
    const bool diag = axis == m.out_rank - 1;
    return diagonal_or_straight_line<A, child_line>{
        diag, a.line(c, diag || axis < 0 ? -1 : m.child_axis(axis), step),
        diagonal_line<A>{a, c, m.axis1, m.axis2, axis < 0 ? 0 : step}};
  }
};

template <class C>
class diagonal_of : public expression<diagonal_of<C>> {
 public:
  using value_type = typename C::value_type;
  diagonal_of(C child, index_t offset, int axis1, int axis2) : child_(std::move(child)) {
    const int r = child_.dimension();
    if (axis1 > axis2) {
      std::swap(axis1, axis2);
      offset = -offset;
    }
    m_.out_rank = r - 1;
    m_.axis1 = axis1;
    m_.axis2 = axis2;
    m_.off1 = offset < 0 ? -offset : 0;
    m_.off2 = offset > 0 ? offset : 0;
    const auto& s = child_.shape();
    const index_t n1 = s[std::size_t(axis1)], n2 = s[std::size_t(axis2)];
    const index_t len = std::max<index_t>(0, std::min(n1 - m_.off1, n2 - m_.off2));
    shape_t shape;
    chunks_t chunks;
    for (int d = 0; d < r; ++d)
      if (d != axis1 && d != axis2) {
        shape.push_back(s[std::size_t(d)]);
        chunks.push_back(child_.chunks()[std::size_t(d)]);
      }
    shape.push_back(len);
    std::vector<index_t> bounds{0, len};
    for (int w = 0; w < 2; ++w) {
      index_t edge = 0;
      const index_t off = w == 0 ? m_.off1 : m_.off2;
      for (index_t c : child_.chunks()[std::size_t(w == 0 ? axis1 : axis2)]) {
        edge += c;
        if (edge - off > 0 && edge - off < len) bounds.push_back(edge - off);
      }
    }
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    std::vector<index_t> diag;
    for (std::size_t k = 1; k < bounds.size(); ++k) diag.push_back(bounds[k] - bounds[k - 1]);
    if (diag.empty()) diag.push_back(0);
    chunks.push_back(std::move(diag));
    grid_ = chunk_grid(std::move(shape), std::move(chunks));
  }

  const chunk_grid& grid() const { return grid_; }
  const C& child() const { return child_; }

  template <class P>
  decltype(auto) lower(const P& p) const {
    using L = std::remove_cvref_t<decltype(child_.lower(p))>;
    if constexpr (std::is_same_v<L, C>) return static_cast<const diagonal_of&>(*this);
    else return diagonal_of<L>(child_.lower(p), *this);
  }
  template <class Ctx>
  auto bind(const box& b, Ctx& ctx) const {
    using A = decltype(child_.bind(b, ctx));
    box c;
    c.lo.n = c.hi.n = m_.out_rank + 1;
    if (b.count() > 0) {
      ivec last;
      last.n = b.rank();
      for (int d = 0; d < b.rank(); ++d) last[d] = b.hi[d] - 1;
      c.lo = m_.map(b.lo);
      c.hi = m_.map(last);
      for (int d = 0; d < c.hi.n; ++d) ++c.hi[d];
    }
    return diagonal_accessor<A>{child_.bind(c, ctx), m_};
  }

 private:
  template <class>
  friend class diagonal_of;
  template <class D>
  diagonal_of(C child, const diagonal_of<D>& like) : child_(std::move(child)), m_(like.m_), grid_(like.grid_) {}

  C child_;
  diagonal_map m_;
  chunk_grid grid_;
};

}  // namespace tessera
