// piecewise<C>: each output axis is a sequence of stretches, each read from the child's axis
// forward (step +1), backward (-1), at one repeated index (0), or a constant fill value: pad
// (every mode), roll and tile are this node with different stretches (pad.hpp). A cell (one
// stretch per axis) is one affine remap of the child or the constant (nodes/pieces.hpp), so a
// chunk task binds the child once, on the box it reads.
#pragma once
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "pieces.hpp"

namespace tessera {

/// Output indices [lo, hi) of one axis read from child index base + step * o, or the fill
/// value when `constant`.
struct stretch {
  index_t lo = 0, hi = 0;
  int step = 1;  // +1, -1 or 0
  index_t base = 0;
  bool constant = false;
};

namespace detail {
struct piecewise_layout {
  std::vector<std::vector<stretch>> axes;  // per output axis, in order, covering [0, n)
  std::vector<std::vector<index_t>> cuts;  // stretch boundaries per axis (bind_cells)
  std::vector<std::vector<std::size_t>> cell_stretch;  // the stretch behind each cell
};
}  // namespace detail

template <class C>
class piecewise : public expression<piecewise<C>> {
 public:
  using value_type = typename C::value_type;

  /// The stretches of every axis must cover it in order; mapped stretches must stay inside
  /// the child's axis (checked: a logic error of the caller otherwise).
  piecewise(C child, std::vector<std::vector<stretch>> axes, value_type fill)
      : child_(std::move(child)), fill_(fill) {
    auto layout = std::make_shared<detail::piecewise_layout>();
    const int r = child_.dimension();
    if (int(axes.size()) != r) throw_invalid("piecewise: ", axes.size(), " axes of stretches for a ", r, "-d child");
    shape_t shape(std::size_t(r), 0);
    chunks_t chunks(static_cast<std::size_t>(r));
    for (int d = 0; d < r; ++d) {
      const auto& st = axes[std::size_t(d)];
      const index_t n = child_.shape()[std::size_t(d)];
      const auto& cc = child_.chunks()[std::size_t(d)];
      // constant / repeated stretches come in pieces no longer than the child's chunks (one
      // piece when the child's axis is empty)
      index_t cap = n > 0 ? 1 : std::numeric_limits<index_t>::max();
      for (index_t c : cc) cap = std::max(cap, c);
      std::vector<index_t> cut{0};
      std::vector<std::size_t> behind;
      index_t at = 0;
      for (std::size_t i = 0; i < st.size(); ++i) {
        const stretch& s = st[i];
        if (s.lo != at || s.hi < s.lo) throw_invalid("piecewise: stretches of axis ", d, " do not cover it in order");
        if (!s.constant && s.hi > s.lo) {
          const index_t a = s.base + s.step * s.lo, z = s.base + s.step * (s.hi - 1);
          if (std::min(a, z) < 0 || std::max(a, z) >= n)
            throw_invalid("piecewise: a stretch of axis ", d, " reads outside the child's length ", n);
        }
        detail::append_stretch_chunks(chunks[std::size_t(d)], s.lo, s.hi, cc,
                                      s.base + s.step * s.lo, s.constant ? 0 : s.step, cap);
        if (s.hi > s.lo) {
          cut.push_back(s.hi);
          behind.push_back(i);
        }
        at = s.hi;
      }
      shape[std::size_t(d)] = at;
      if (chunks[std::size_t(d)].empty()) chunks[std::size_t(d)].push_back(0);
      if (behind.empty()) behind.push_back(0);  // an empty axis: no cell is ever bound
      layout->cuts.push_back(std::move(cut));
      layout->cell_stretch.push_back(std::move(behind));
    }
    layout->axes = std::move(axes);
    layout_ = std::move(layout);
    grid_ = chunk_grid(std::move(shape), std::move(chunks));
  }

  const chunk_grid& grid() const { return grid_; }
  const C& child() const { return child_; }

  template <class P>
  decltype(auto) lower(const P& p) const {
    using L = std::remove_cvref_t<decltype(child_.lower(p))>;
    if constexpr (std::is_same_v<L, C>) return static_cast<const piecewise&>(*this);
    else return piecewise<L>(child_.lower(p), *this);
  }

  template <class Ctx>
  auto bind(const box& b, Ctx& ctx) const {
    using T = value_type;
    using child_acc = decltype(child_.bind(b, ctx));
    using acc_t = piece_accessor<T, remap_accessor<child_acc>, constant_accessor<T>, stored_accessor<T>>;
    return detail::bind_cells<T, acc_t>(b, layout_->cuts, ctx, [&](const box& sub) {
      acc_t a;
      const int r = sub.rank();
      affine_map m;
      m.out_rank = r;
      m.base.n = r;
      for (int d = 0; d < r; ++d) {
        const auto& cut = layout_->cuts[std::size_t(d)];
        const stretch& s = layout_->axes[std::size_t(d)][layout_->cell_stretch[std::size_t(d)][detail::cell_of(cut, sub.lo[d])]];
        if (s.constant) {
          a.source.template emplace<1>(constant_accessor<T>{{fill_}, ivec{}});
          return a;
        }
        m.src[d] = s.step != 0 ? d : -1;
        m.step[d] = s.step;
        m.base[d] = s.base;
      }
      a.source.template emplace<0>(remap_accessor<child_acc>{child_.bind(m.map_box(sub), ctx), m});
      return a;
    });
  }

 private:
  template <class>
  friend class piecewise;
  template <class D>
  piecewise(C child, const piecewise<D>& like)
      : child_(std::move(child)), fill_(like.fill_), layout_(like.layout_), grid_(like.grid_) {}

  C child_;
  value_type fill_;
  std::shared_ptr<const detail::piecewise_layout> layout_;
  chunk_grid grid_;
};

}  // namespace tessera
