// ts::reduction(x, chunk, combine, aggregate, axes, options): Dask's da.reduction, a tree
// reduction whose steps are the user's host functions over xtensor blocks.
//
//   chunk(block, axes)        a block of x -> its partial: extent 1 along every reduced axis
//   combine(partials, axes)   up to split_every partials along each reduced axis, concatenated
//                             -> one partial (extent 1 along the reduced axes)
//   aggregate(partials, axes) the last partials, concatenated -> the result (extent 1)
//
// axes are the reduced axes as std::vector<std::size_t> (xtensor's reducer argument), so
// `[](const auto& b, const auto& ax) { return xt::xarray<double>(xt::sum(b, ax, xt::keep_dims)); }`
// serves as all three for a sum. Partials have chunk's element type, the result aggregate's.
// Each level is a map_blocks (blocks.hpp) over the previous one rechunked into groups of
// split_every blocks per reduced axis; the levels are held as ts::lazy, so the tree is built at
// run time to the depth the chunk count needs, and nothing is computed until the result is.
#pragma once
#include <cstddef>
#include <type_traits>
#include <vector>

#include "../blocks.hpp"
#include "../nodes/lazy.hpp"  // (not lazy.hpp, which includes tessera.hpp, which includes this)
#include "../nodes/rechunk.hpp"
#include "../view.hpp"
#include "reduction.hpp"

namespace tessera {

namespace detail {

/// A reduction step as a block function: f(block, reduced axes).
template <class R, class F>
struct reduction_step {
  F f;
  std::vector<std::size_t> axes;
  template <class B>
    requires(!std::is_same_v<B, block_info>)
  xt::xarray<R> operator()(const B& b) const {
    return f(b, axes);
  }
};

template <class F, class T>
using step_value_t = typename std::remove_cvref_t<
    std::invoke_result_t<const F&, const block_view<T>&, const std::vector<std::size_t>&>>::value_type;

}  // namespace detail

/// Dask's reduction (see the header comment): over `axes` (all when empty), keep_dims and
/// split_every (>= 2) from the options.
template <expression_type X, class Chunk, class Combine, class Aggregate>
auto reduction(const X& x, Chunk chunk, Combine combine, Aggregate aggregate,
               const std::vector<index_t>& axes = {}, const reduce_options& o = {}) {
  using T = typename X::value_type;
  using S = detail::step_value_t<Chunk, T>;
  using R = detail::step_value_t<Aggregate, S>;
  const int r = x.dimension();
  if (o.split_every < 2) throw_invalid("reduction: split_every = ", o.split_every, " must be at least 2");
  std::vector<bool> reduced(std::size_t(r), axes.empty());
  std::vector<std::size_t> ax;
  for (index_t a : axes) {
    const int d = detail::normalize_axis(a, r, "reduction axis");
    if (reduced[std::size_t(d)]) throw_invalid("reduction: axis ", a, " repeats in ", axes);
    reduced[std::size_t(d)] = true;
  }
  for (int d = 0; d < r; ++d)
    if (reduced[std::size_t(d)]) ax.push_back(std::size_t(d));
  for (std::size_t d : ax)
    if (x.shape()[d] == 0) throw_invalid("reduction: axis ", d, " of shape ", x.shape(), " is empty");
  // level 0: each block's partial
  chunks_t c = x.chunks();
  for (std::size_t d : ax) c[d] = std::vector<index_t>(c[d].size(), 1);
  lazy<S> level = map_blocks(detail::reduction_step<S, Chunk>{chunk, ax}, out_chunks(c), x);
  // combine levels while a reduced axis has more than split_every partials
  const index_t every = o.split_every;
  for (;;) {
    bool more = false;
    for (std::size_t d : ax) more = more || index_t(level.chunks()[d].size()) > every;
    if (!more) break;
    chunks_t grouped = level.chunks(), out = level.chunks();
    for (std::size_t d : ax) {
      const index_t n = level.shape()[d];
      grouped[d].clear();
      for (index_t lo = 0; lo < n; lo += every) grouped[d].push_back(std::min(every, n - lo));
      out[d] = std::vector<index_t>(grouped[d].size(), 1);
    }
    level = map_blocks(detail::reduction_step<S, Combine>{combine, ax}, out_chunks(out), rechunk(level, grouped));
  }
  // the last partials of each lane in one block, aggregated
  chunks_t whole = level.chunks(), last = level.chunks();
  for (std::size_t d : ax) {
    whole[d] = {level.shape()[d]};
    last[d] = {1};
  }
  auto result = map_blocks(detail::reduction_step<R, Aggregate>{aggregate, ax}, out_chunks(last),
                           rechunk(level, whole));
  slice_vector s;
  for (int d = 0; d < r; ++d) s.push_back(reduced[std::size_t(d)] && !o.keep_dims ? slice(0) : slice(all()));
  return dynamic_view(result, s);
}

}  // namespace tessera
