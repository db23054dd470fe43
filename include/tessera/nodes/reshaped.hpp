// reshaped<C>: the child's elements in row-major order under a new shape (NumPy's reshape).
// The axes split into groups whose lengths multiply to the same product on both sides (e.g.
// (6, 4) -> (24) merges, (24) -> (2, 12) splits, (4, 6) -> (6, 4) both); inside a group an
// output index is a flat position that unflattens to the input's axes of that group, and the
// other groups pass through. Chunks follow Dask's rule: the first output axis of a group takes
// the boundaries of the group's first input axis (scaled), the others are whole; when the
// input's other axes of the group are whole (Dask rechunks to make them so) each output chunk
// reads one input chunk, otherwise it binds the bounding box of what it reads.
#pragma once
#include <numeric>
#include <type_traits>

#include "../core/expression.hpp"

namespace tessera {

/// The plain-data index map of a reshape (host and device).
struct reshape_map {
  int in_rank = 0, out_rank = 0, groups = 0;
  int group_of_out[max_rank] = {};              // output axis -> group
  int in_lo[max_rank + 1] = {}, in_hi[max_rank + 1] = {};  // input axes [in_lo, in_hi) of group g
  int out_lo[max_rank + 1] = {}, out_hi[max_rank + 1] = {};
  ivec in_shape;
  ivec out_stride;  // stride of each output axis inside its group's flat position

  /// Flat position inside group g of output index o.
  TESSERA_HD index_t flat(const ivec& o, int g) const {
    index_t f = 0;
    for (int a = out_lo[g]; a < out_hi[g]; ++a) f += o[a] * out_stride[a];
    return f;
  }
  /// Writes group g's input axes of flat position f into in.
  TESSERA_HD void unflatten(index_t f, int g, ivec& in) const {
    for (int k = in_hi[g] - 1; k >= in_lo[g]; --k) {
      in[k] = f % in_shape[k];
      f /= in_shape[k];
    }
  }
  TESSERA_HD ivec map(const ivec& o) const {
    ivec in;
    in.n = in_rank;
    for (int g = 0; g < groups; ++g) unflatten(flat(o, g), g, in);
    return in;
  }
  /// Bounding box in the input of an output box (non-empty).
  box map_box(const box& b) const {
    box c;
    c.lo.n = c.hi.n = in_rank;
    ivec last;
    last.n = out_rank;
    for (int a = 0; a < out_rank; ++a) last[a] = b.hi[a] - 1;
    for (int g = 0; g < groups; ++g) {
      index_t lo = flat(b.lo, g), hi = flat(last, g);
      bool whole = false;
      for (int k = in_lo[g]; k < in_hi[g]; ++k) {
        index_t rest = 1;
        for (int j = k + 1; j < in_hi[g]; ++j) rest *= in_shape[j];
        if (whole) {
          c.lo[k] = 0;
          c.hi[k] = in_shape[k];
          continue;
        }
        const index_t a = lo / rest, z = hi / rest;
        c.lo[k] = a;
        c.hi[k] = z + 1;
        if (a != z) whole = true;
        lo %= rest;
        hi %= rest;
      }
    }
    return c;
  }
};

template <class A>
struct reshape_line {
  using value_type = typename std::remove_cvref_t<decltype(std::declval<const A&>().line(ivec{}, 0, 0))>::value_type;
  static constexpr bool batched = true;
  A a;
  ivec in0;          // input index of element 0
  int k0 = 0, k1 = 0;  // input axes of the moving group
  index_t flat0 = 0, dflat = 0;
  ivec in_shape;

  TESSERA_HD ivec index(index_t j) const {
    ivec in = in0;
    index_t f = flat0 + j * dflat;
    for (int k = k1 - 1; k >= k0; --k) {
      in[k] = f % in_shape[k];
      f /= in_shape[k];
    }
    return in;
  }
  TESSERA_HD value_type operator()(index_t j) const { return element_at(a, index(j)); }
  /// Runs along the input's last axis where the line walks the flat position by 1.
  void fill(index_t j0, index_t n, value_type* out) const {
    const int last = in0.n - 1;
    if (dflat != 1 || k1 != in0.n || k1 == k0) {
      for (index_t k = 0; k < n; ++k) out[k] = (*this)(j0 + k);
      return;
    }
    for (index_t k = 0; k < n;) {
      const ivec at = index(j0 + k);
      const index_t run = std::min(n - k, in_shape[last] - at[last]);
      a.line(at, last, 1).fill(0, run, out + k);
      k += run;
    }
  }
};

template <class A>
struct reshape_accessor {
  A a;
  reshape_map m;
  TESSERA_HD reshape_line<A> line(const ivec& start, int axis, index_t step) const {
    reshape_line<A> l;
    l.a = a;
    l.in0 = m.map(start);
    l.in_shape = m.in_shape;
    if (axis >= 0) {
      const int g = m.group_of_out[axis];
      l.k0 = m.in_lo[g];
      l.k1 = m.in_hi[g];
      l.flat0 = m.flat(start, g);
      l.dflat = step * m.out_stride[axis];
    }
    return l;
  }
};

namespace detail {
/// The groups of a reshape from `in` to `out` (equal sizes), or throws.
inline reshape_map make_reshape_map(const shape_t& in, const shape_t& out) {
  reshape_map m;
  m.in_rank = int(in.size());
  m.out_rank = int(out.size());
  m.in_shape.n = m.in_rank;
  for (int k = 0; k < m.in_rank; ++k) m.in_shape[k] = in[std::size_t(k)];
  m.out_stride.n = m.out_rank;
  const index_t total = checked_size(in);
  auto add_group = [&](int i0, int i1, int j0, int j1) {
    const int g = m.groups++;
    m.in_lo[g] = i0;
    m.in_hi[g] = i1;
    m.out_lo[g] = j0;
    m.out_hi[g] = j1;
    index_t s = 1;
    for (int a = j1 - 1; a >= j0; --a) {
      m.group_of_out[a] = g;
      m.out_stride[a] = s;
      s *= out[std::size_t(a)];
    }
  };
  if (total == 0 || m.in_rank == 0 || m.out_rank == 0) {
    add_group(0, m.in_rank, 0, m.out_rank);
    return m;
  }
  int i = 0, j = 0;
  while (i < m.in_rank || j < m.out_rank) {
    const int i0 = i, j0 = j;
    index_t pin = 1, pout = 1;
    if (i < m.in_rank) pin *= in[std::size_t(i++)];
    if (j < m.out_rank) pout *= out[std::size_t(j++)];
    while (pin != pout) {
      if (pin < pout && i < m.in_rank) pin *= in[std::size_t(i++)];
      else if (pout < pin && j < m.out_rank) pout *= out[std::size_t(j++)];
      else throw_invalid("reshape: cannot group the axes of ", in, " and ", out);  // unreachable for equal sizes
    }
    add_group(i0, i, j0, j);
  }
  return m;
}

/// Output chunks: per group, the first output axis takes the first input axis's boundaries
/// scaled to flat positions (rounded down to whole output rows), the others are whole.
inline chunks_t reshape_chunks(const chunk_grid& in, const shape_t& out, const reshape_map& m) {
  chunks_t ch(out.size());
  const index_t total = in.size();
  for (int g = 0; g < m.groups; ++g) {
    for (int a = m.out_lo[g]; a < m.out_hi[g]; ++a) ch[std::size_t(a)] = {out[std::size_t(a)]};
    if (m.out_lo[g] == m.out_hi[g] || total == 0) continue;
    const int a0 = m.out_lo[g];
    if (m.in_lo[g] == m.in_hi[g]) continue;  // only length-1 input axes... none: whole
    const int k0 = m.in_lo[g];
    index_t in_rest = 1, out_rest = 1;
    for (int k = k0 + 1; k < m.in_hi[g]; ++k) in_rest *= in.shape()[std::size_t(k)];
    for (int a = a0 + 1; a < m.out_hi[g]; ++a) out_rest *= out[std::size_t(a)];
    std::vector<index_t> bounds{0};
    index_t edge = 0;
    for (index_t c : in.chunks()[std::size_t(k0)]) {
      edge += c;
      const index_t o = edge * in_rest / out_rest;
      if (o > bounds.back()) bounds.push_back(o);
    }
    if (bounds.back() != out[std::size_t(a0)]) bounds.push_back(out[std::size_t(a0)]);
    std::vector<index_t> c;
    for (std::size_t k = 1; k < bounds.size(); ++k) c.push_back(bounds[k] - bounds[k - 1]);
    ch[std::size_t(a0)] = std::move(c);
  }
  for (auto& c : ch)
    if (c.size() == 1 && c[0] == 0) c = {0};
  return ch;
}
}  // namespace detail

template <class C>
class reshaped : public expression<reshaped<C>> {
 public:
  using value_type = typename C::value_type;
  reshaped(C child, const shape_t& shape)
      : child_(std::move(child)), map_(detail::make_reshape_map(child_.shape(), shape)),
        grid_(shape, detail::reshape_chunks(child_.grid(), shape, map_)) {}

  const chunk_grid& grid() const { return grid_; }
  const C& child() const { return child_; }

  template <class P>
  decltype(auto) lower(const P& p) const {
    using L = std::remove_cvref_t<decltype(child_.lower(p))>;
    if constexpr (std::is_same_v<L, C>) return static_cast<const reshaped&>(*this);
    else return reshaped<L>(child_.lower(p), map_, grid_);
  }
  template <class Ctx>
  auto bind(const box& b, Ctx& ctx) const {
    using A = decltype(child_.bind(b, ctx));
    if (b.count() == 0) {
      box e;
      e.lo.n = e.hi.n = map_.in_rank;
      return reshape_accessor<A>{child_.bind(e, ctx), map_};
    }
    return reshape_accessor<A>{child_.bind(map_.map_box(b), ctx), map_};
  }

 private:
  template <class>
  friend class reshaped;
  reshaped(C child, const reshape_map& m, chunk_grid g) : child_(std::move(child)), map_(m), grid_(std::move(g)) {}

  C child_;
  reshape_map map_;
  chunk_grid grid_;
};

}  // namespace tessera
