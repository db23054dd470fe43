// ts::store(x, target): evaluates x chunk task by chunk task and hands each finished block to a
// writable store (a Zarr array, a .npy file, the user's own), as Dask's da.store. Written once
// over the backend primitives (exec/backend.hpp), so every policy writes the same bytes.
//
// A writable store models
//   value_type
//   write_grid() -> const chunk_grid&       the units it writes (Zarr chunks or shards, ...)
//   write_block(b, const value_type* data)  replace write block b with `data` (row-major, the
//                                           block's box); called from chunk tasks, distinct
//                                           blocks concurrently
//   load_write_block(b, value_type* out)    the current values of write block b (its fill value
//                                           where never written), for blocks x covers partly
//
// One task per write block that the target region touches: memory in flight is one block per
// running task, whatever the size of x. Several sources at once (Dask's store(sources,
// targets)): ts::store(std::tie(x, y), std::tie(tx, ty), pol) writes each source into its
// target, one after another.
#pragma once
#include <concepts>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "../core/expression.hpp"
#include "backend.hpp"
#include "observe.hpp"
#include "placement.hpp"

namespace tessera {

template <class S>
concept writable_store = requires(S& s, const S& cs, index_t b, const typename S::value_type* in,
                                  typename S::value_type* out) {
  typename S::value_type;
  { cs.write_grid() } -> std::convertible_to<const chunk_grid&>;
  s.write_block(b, in);
  cs.load_write_block(b, out);
};

/// Writes x into `target` with `policy`, x's element (i0, i1, ...) at target position
/// (region_start[0] + i0, ...); region_start empty means the origin. The region must lie inside
/// the target's shape. x's value_type must be the target's (convert with ts::cast).
template <expression_type X, writable_store S, execution_policy P = host>
void store(const X& x, S& target, const P& policy = P{}, std::vector<index_t> region_start = {}) {
  using T = typename X::value_type;
  static_assert(std::is_same_v<T, typename S::value_type>,
                "ts::store: the expression's value_type differs from the store's; convert it "
                "with ts::cast<T>(x)");
  using B = backend<P>;
  B::check(policy);
  const chunk_grid& g = target.write_grid();
  const int r = g.rank();
  if (int(x.shape().size()) != r)
    throw_invalid("ts::store: an array of shape ", x.shape(), " cannot be written into a store of ",
                  "shape ", g.shape(), " (", x.shape().size(), " dimensions against ", r, ")");
  if (region_start.empty()) region_start.assign(std::size_t(r), 0);
  if (int(region_start.size()) != r)
    throw_invalid("ts::store: region start ", region_start, " has ", region_start.size(),
                  " entries for a store of ", r, " dimensions");
  box region;
  region.lo.n = region.hi.n = r;
  for (int d = 0; d < r; ++d) {
    const index_t s = region_start[std::size_t(d)], n = x.shape()[std::size_t(d)];
    if (s < 0 || s > g.shape()[std::size_t(d)] || n > g.shape()[std::size_t(d)] - s)
      throw_invalid("ts::store: an array of shape ", x.shape(), " at ", region_start,
                    " does not fit a store of shape ", g.shape(), " (axis ", d, ")");
    region.lo[d] = s;
    region.hi[d] = s + n;
  }
  if (region.count() == 0) return;

  std::vector<index_t> blocks;  // write blocks the region touches, in row-major order
  g.for_each_block_in(region, [&](index_t b) { blocks.push_back(b); });
  // Task t evaluates the part of x inside write block blocks[t] (in x's coordinates).
  auto x_box = [&](index_t t) {
    box b = intersect(g.block_box(blocks[std::size_t(t)]), region);
    for (int d = 0; d < r; ++d) {
      b.lo[d] -= region.lo[d];
      b.hi[d] -= region.lo[d];
    }
    return b;
  };
  // One observation (progress, trace) for x's inner stages and the write tasks.
  detail::observation observe(policy, [&] {
    return detail::inner_tasks(x) + index_t(blocks.size());
  });
  const auto& low = x.lower(policy);
  auto tasks = detail::make_tasks(low, index_t(blocks.size()), x_box);
  auto out_bytes = [&](index_t t) {  // the write block
    return g.block_box(blocks[std::size_t(t)]).count() * index_t(sizeof(T));
  };
  detail::run_tasks(policy, tasks, "store", out_bytes, [&](auto& env, index_t t) {
    if (!detail::keep_outputs_on_owner(env)) return;  // ts::mpi: the block's owner writes it
    const index_t wb = blocks[std::size_t(t)];
    const box blk = g.block_box(wb);
    const box bx = x_box(t);
    std::shared_ptr<T[]> buf(new T[std::size_t(std::max<index_t>(blk.count(), 1))]);
    if (bx.count() != blk.count()) target.load_write_block(wb, buf.get());
    const ivec st = row_major_strides(blk);
    index_t off = 0;
    for (int d = 0; d < r; ++d) off += (bx.lo[d] + region.lo[d] - blk.lo[d]) * st[d];
    auto acc = low.bind(bx, env.context());
    B::eval_to_host(env, acc, bx, buf.get() + off, st);
    env.then([&target, wb, buf] { target.write_block(wb, buf.get()); });
  });
  observe.finish();
}

/// Dask's da.store(sources, targets): source i written into target i (tuples of equal length,
/// e.g. std::tie(x, y) and std::tie(tx, ty)), one after another with `policy`. A subexpression
/// two sources share is computed for each (persist it first to compute it once). A failure
/// stops at the source it happens in: the sources before it are written.
template <class... X, class... S, execution_policy P = host>
  requires(sizeof...(X) == sizeof...(S) && (expression_type<X> && ...))
void store(const std::tuple<X...>& sources, const std::tuple<S...>& targets, const P& policy = P{}) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (store(std::get<I>(sources), std::get<I>(targets), policy), ...);
  }(std::index_sequence_for<X...>{});
}

}  // namespace tessera
