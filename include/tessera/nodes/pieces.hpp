// Nodes assembled from pieces (concatenate, pad, roll, tile): the output index space is cut
// into cells by per-axis cut points, and inside one cell every element comes from one source,
// an affine remap of a child or a constant. The output grid refines the cuts, so a chunk task
// binds one cell: its accessor is that source's (one branch per line, no extra pass).
//
// A box that spans cells (a parent that rechunks, a row block of a linalg driver) is
// evaluated cell by cell into scratch of the binding context's memory space (the context's
// scratch and evaluate, store/chunk_store.hpp) and read from there.
#pragma once
#include <algorithm>
#include <array>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/expression.hpp"
#include "../core/one_of.hpp"
#include "../store/accessor.hpp"
#include "generated.hpp"
#include "remap.hpp"

namespace tessera {

template <class T, class Lines>
struct piece_line;

/// A line of one of the sources' line types, converted to T.
template <class T, class... L>
struct piece_line<T, detail::one_of<L...>> {
  using value_type = T;
  static constexpr bool batched = (L::batched || ...);
  detail::one_of<L...> l;

  TESSERA_HD T operator()(index_t j) const {
    return l.visit([j](const auto& x) { return T(x(j)); });
  }
  void fill(index_t j0, index_t n, T* out) const {
    l.visit([&](const auto& x) {
      using V = typename std::remove_cvref_t<decltype(x)>::value_type;
      if constexpr (std::is_same_v<V, T>) {
        x.fill(j0, n, out);
      } else {
        std::array<V, batch_size> buf;
        x.fill(j0, n, buf.data());
        for (index_t k = 0; k < n; ++k) out[k] = T(buf[std::size_t(k)]);
      }
    });
  }
};

/// The accessor of a bound cell: one of the sources A... (accessors in the node's own
/// coordinates), the last one always the scratch copy of a box that spans cells.
template <class T, class... A>
struct piece_accessor {
  using value_type = T;
  detail::one_of<A...> source;

  TESSERA_HD auto line(const ivec& start, int axis, index_t step) const {
    using lines = detail::one_of<decltype(std::declval<const A&>().line(start, axis, step))...>;
    piece_line<T, lines> r;
    make_line<0>(r.l, start, axis, step);
    return r;
  }

 private:
  template <int I, class Lines>
  TESSERA_HD void make_line(Lines& l, const ivec& start, int axis, index_t step) const {
    if constexpr (I < int(sizeof...(A))) {
      if (source.which == I) {
        l.template emplace<I>(source.template get<I>().line(start, axis, step));
        return;
      }
      make_line<I + 1>(l, start, axis, step);
    }
  }
};

/// A constant source (padding).
template <class T>
using constant_accessor = generated_accessor<generators::constant<T>>;

namespace detail {

/// The cell of axis d holding index i: cuts[d] are the sorted cell boundaries, 0 first and the
/// axis length last.
inline std::size_t cell_of(const std::vector<index_t>& cuts, index_t i) {
  return std::size_t(std::upper_bound(cuts.begin(), cuts.end(), i) - cuts.begin()) - 1;
}

/// Binds box b of a node cut into cells by `cuts`: bind_cell(sub) (an accessor of type Acc,
/// whose last source is a stored_accessor<T>) when b lies in one cell, else every cell's part
/// evaluated into context scratch.
template <class T, class Acc, class Ctx, class BindCell>
Acc bind_cells(const box& b, const std::vector<std::vector<index_t>>& cuts, Ctx& ctx,
               BindCell&& bind_cell) {
  constexpr int scratch_source = std::remove_cvref_t<decltype(std::declval<Acc&>().source)>::size - 1;
  const int r = b.rank();
  Acc out;
  if (b.count() == 0) {
    out.source.template emplace<scratch_source>(stored_accessor<T>{});
    return out;
  }
  bool one = true;
  for (int d = 0; d < r && one; ++d) {
    const auto& c = cuts[std::size_t(d)];
    one = cell_of(c, b.lo[d]) == cell_of(c, b.hi[d] - 1);
  }
  if (one) return bind_cell(b);
  stored_accessor<T> s;
  s.origin = b.lo;
  s.stride = row_major_strides(b);
  T* buf = ctx.template scratch<T>(b.count());
  s.p = buf;
  // Every cell the box touches: an odometer over the per-axis cell ranges.
  ivec first, last, at;
  first.n = last.n = at.n = r;
  for (int d = 0; d < r; ++d) {
    first[d] = index_t(cell_of(cuts[std::size_t(d)], b.lo[d]));
    last[d] = index_t(cell_of(cuts[std::size_t(d)], b.hi[d] - 1));
  }
  at = first;
  while (true) {
    box sub;
    sub.lo.n = sub.hi.n = r;
    index_t off = 0;
    for (int d = 0; d < r; ++d) {
      const auto& c = cuts[std::size_t(d)];
      sub.lo[d] = std::max(b.lo[d], c[std::size_t(at[d])]);
      sub.hi[d] = std::min(b.hi[d], c[std::size_t(at[d]) + 1]);
      off += (sub.lo[d] - b.lo[d]) * s.stride[d];
    }
    const Acc cell = bind_cell(sub);
    ctx.evaluate(cell, sub, buf ? buf + off : buf, s.stride);
    int d = r - 1;
    for (; d >= 0; --d) {
      if (++at[d] <= last[d]) break;
      at[d] = first[d];
    }
    if (d < 0) break;
  }
  out.source.template emplace<scratch_source>(s);
  return out;
}

/// Chunks for a stretch [lo, hi) of an output axis whose source is the child's axis with
/// chunks `child` read from index `in_lo` with step +1 or -1 (chunk boundaries follow the
/// child's, so a chunk lies in one child chunk), or a constant / a repeated element (step 0:
/// pieces of at most `cap`).
inline void append_stretch_chunks(std::vector<index_t>& out, index_t lo, index_t hi,
                                  const std::vector<index_t>& child, index_t in_lo, int step,
                                  index_t cap) {
  if (hi <= lo) return;
  if (step == 0) {
    cap = std::max<index_t>(cap, 1);
    for (index_t p = lo; p < hi; p += cap) out.push_back(std::min(cap, hi - p));
    return;
  }
  // Child boundaries inside the stretch, in output coordinates.
  std::vector<index_t> bounds{lo, hi};
  index_t edge = 0;
  for (index_t c : child) {
    edge += c;
    // child index `edge` is a boundary; the output index where the child index crosses it
    const index_t o = step > 0 ? lo + (edge - in_lo) : lo + (in_lo + 1 - edge);
    if (o > lo && o < hi) bounds.push_back(o);
  }
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  for (std::size_t i = 0; i + 1 < bounds.size(); ++i) out.push_back(bounds[i + 1] - bounds[i]);
}

}  // namespace detail
}  // namespace tessera
