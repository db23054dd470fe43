// concatenated<C...>: children joined along one axis (NumPy's concatenate; stack, hstack,
// vstack, dstack, block and append build on it, join.hpp). The children may be of different
// node types (C... as given) or many of one type (one C, a run-time count); the element type
// is their NumPy result type. Along the axis the output chunks are the children's chunks in
// order; on the other axes the common refinement of theirs. A chunk lies in one child, so a
// chunk task binds that child alone (nodes/pieces.hpp), shifted by its offset.
#pragma once
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/promote.hpp"
#include "pieces.hpp"

namespace tessera {

namespace detail {
template <class... T>
struct promote_all;
template <class T>
struct promote_all<T> {
  using type = T;
};
template <class T, class U, class... R>
struct promote_all<T, U, R...> : promote_all<promote_t<T, U>, R...> {};

struct concat_layout {
  int axis = 0;
  struct piece {
    int type;           // which of C...
    std::size_t index;  // in that type's list
    index_t offset;     // first output index along the axis
  };
  std::vector<piece> pieces;              // non-empty children, in order
  std::vector<std::vector<index_t>> cuts;  // piece boundaries on the axis; [0, n) elsewhere
};
}  // namespace detail

template <class... C>
class concatenated : public expression<concatenated<C...>> {
 public:
  using value_type = typename detail::promote_all<typename C::value_type...>::type;
  using parts_type = std::tuple<std::vector<C>...>;
  using operand_types = std::tuple<C...>;  // diagnostics/graph.hpp

  /// `order` lists the children in output order as (type, index in that type's list).
  concatenated(parts_type parts, const std::vector<std::pair<int, std::size_t>>& order, index_t axis)
      : parts_(std::move(parts)) {
    if (order.empty()) throw_invalid("concatenate needs at least one array");
    std::vector<const chunk_grid*> grids;
    for (auto [t, i] : order) grids.push_back(&grid_of(t, i));
    const int r = grids[0]->rank();
    if (r == 0) throw_invalid("concatenate: zero-dimensional arrays cannot be concatenated");
    const int ax = detail::normalize_axis(axis, r, "concatenate axis");
    auto layout = std::make_shared<detail::concat_layout>();
    layout->axis = ax;
    shape_t shape = grids[0]->shape();
    chunks_t chunks = grids[0]->chunks();
    chunks[std::size_t(ax)].clear();
    shape[std::size_t(ax)] = 0;
    for (std::size_t k = 0; k < grids.size(); ++k) {
      const chunk_grid& g = *grids[k];
      if (g.rank() != r)
        throw_invalid("concatenate: array ", k, " has dimension ", g.rank(), " (shape ", g.shape(),
                      ") but array 0 has dimension ", r, " (shape ", grids[0]->shape(), ")");
      for (int d = 0; d < r; ++d) {
        if (d == ax) continue;
        if (g.shape()[std::size_t(d)] != grids[0]->shape()[std::size_t(d)])
          throw_invalid("concatenate: array ", k, " has shape ", g.shape(), " but array 0 has shape ",
                        grids[0]->shape(), " (they differ on axis ", d, ", which is not the axis ", ax,
                        " being joined)");
        chunks[std::size_t(d)] = detail::refine(chunks[std::size_t(d)], g.chunks()[std::size_t(d)]);
      }
      const index_t n = g.shape()[std::size_t(ax)];
      if (n == 0) continue;
      layout->pieces.push_back({order[k].first, order[k].second, shape[std::size_t(ax)]});
      for (index_t c : g.chunks()[std::size_t(ax)]) chunks[std::size_t(ax)].push_back(c);
      shape[std::size_t(ax)] += n;
    }
    if (chunks[std::size_t(ax)].empty()) chunks[std::size_t(ax)].push_back(0);
    for (int d = 0; d < r; ++d) {
      if (d != ax) {
        layout->cuts.push_back({0, shape[std::size_t(d)]});
        continue;
      }
      std::vector<index_t> cut{0};
      for (std::size_t p = 1; p < layout->pieces.size(); ++p) cut.push_back(layout->pieces[p].offset);
      cut.push_back(shape[std::size_t(d)]);
      layout->cuts.push_back(std::move(cut));
    }
    layout_ = std::move(layout);
    grid_ = chunk_grid(std::move(shape), std::move(chunks));
  }

  const chunk_grid& grid() const { return grid_; }
  const parts_type& parts() const { return parts_; }
  int axis() const { return layout_->axis; }
  /// f(child) for every child in output order (diagnostics/graph.hpp: for_each_operand).
  template <class F>
  void for_each_part(F&& f) const {
    for (const auto& pc : layout_->pieces)
      visit_part(pc.type, pc.index, f, std::index_sequence_for<C...>{});
  }

  template <class P>
  decltype(auto) lower(const P& p) const {
    if constexpr ((std::is_same_v<std::remove_cvref_t<decltype(std::declval<const C&>().lower(p))>, C> && ...)) {
      return static_cast<const concatenated&>(*this);
    } else {
      using out_t = concatenated<std::remove_cvref_t<decltype(std::declval<const C&>().lower(p))>...>;
      typename out_t::parts_type lowered;
      lower_each(p, lowered, std::index_sequence_for<C...>{});
      return out_t(std::move(lowered), *this);
    }
  }

  template <class Ctx>
  auto bind(const box& b, Ctx& ctx) const {
    return bind_in(b, ctx, std::index_sequence_for<C...>{});
  }

 private:
  template <class...>
  friend class concatenated;
  template <class... D>
  concatenated(parts_type parts, const concatenated<D...>& like)
      : parts_(std::move(parts)), layout_(like.layout_), grid_(like.grid_) {}

  template <class F, std::size_t... I>
  void visit_part(int type, std::size_t index, F& f, std::index_sequence<I...>) const {
    ((type == int(I) ? (void)f(std::get<I>(parts_)[index]) : (void)0), ...);
  }
  template <class P, class Out, std::size_t... I>
  void lower_each(const P& p, Out& out, std::index_sequence<I...>) const {
    ((std::get<I>(out).reserve(std::get<I>(parts_).size()),
      [&] {
        for (const auto& c : std::get<I>(parts_)) std::get<I>(out).push_back(c.lower(p));
      }()),
     ...);
  }

  const chunk_grid& grid_of(int t, std::size_t i) const {
    const chunk_grid* g = nullptr;
    std::size_t k = 0;
    std::apply([&](const auto&... v) { ((k++ == std::size_t(t) ? (void)(g = &v.at(i).grid()) : (void)0), ...); }, parts_);
    return *g;
  }

  template <class Ctx, std::size_t... I>
  auto bind_in(const box& b, Ctx& ctx, std::index_sequence<I...>) const {
    using T = value_type;
    using acc_t = piece_accessor<
        T, remap_accessor<decltype(std::get<I>(parts_).front().bind(b, ctx))>..., stored_accessor<T>>;
    const int ax = layout_->axis;
    return detail::bind_cells<T, acc_t>(b, layout_->cuts, ctx, [&](const box& sub) {
      const auto& pc = layout_->pieces[detail::cell_of(layout_->cuts[std::size_t(ax)], sub.lo[ax])];
      affine_map m;
      m.out_rank = sub.rank();
      m.base.n = sub.rank();
      for (int d = 0; d < sub.rank(); ++d) {
        m.src[d] = d;
        m.step[d] = 1;
      }
      m.base[ax] = -pc.offset;
      const box cb = m.map_box(sub);
      acc_t a;
      ((pc.type == int(I) ? a.source.template emplace<int(I)>(
                                remap_accessor<decltype(std::get<I>(parts_).front().bind(b, ctx))>{
                                    std::get<I>(parts_)[pc.index].bind(cb, ctx), m})
                          : void()),
       ...);
      return a;
    });
  }

  parts_type parts_;
  std::shared_ptr<const detail::concat_layout> layout_;
  chunk_grid grid_;
};

}  // namespace tessera
