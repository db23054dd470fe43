// Host execution of a reduction: one task per INPUT chunk folds the chunk (bound on its box,
// evaluated row by row in batches, never materialized) into per-output-element partials;
// the partials of one output block are combined in a fixed tree of fan-in split_every over
// the block index along the reduced axes, each tree node merged as soon as its children are
// complete. The tree shape and the merge order depend only on the chunking and split_every,
// so results are bitwise identical for any thread count.
#pragma once
#include <algorithm>
#include <atomic>
#include <memory>
#include <type_traits>
#include <vector>

#include "../backend/host.hpp"
#include "../core/context.hpp"
#include "../core/kernel.hpp"
#include "../nodes/stored.hpp"
#include "accumulators.hpp"

namespace tessera {

/// What a reduction node reduces; plain host data built and validated by the node.
struct reduce_spec {
  unsigned mask = 0;        // bit d: input axis d is reduced
  bool keep_dims = false;   // reduced axes stay as length-1 axes
  int split_every = 4;      // fan-in of the combine tree
  int index_axis = -1;      // argmin/argmax over one axis: that axis
  bool flat_index = false;  // argmin/argmax over all axes: flat row-major index
  TESSERA_HD bool reduced(int d) const { return (mask >> d) & 1u; }
};

namespace detail {

/// Folds the rows of input box `b` (accessor `acc`) into partial states `part`, laid out
/// row-major over the kept axes of b.
template <class Op, class Acc>
void fold_box(const Op& op, const Acc& acc, const box& b, const reduce_spec& spec,
              const ivec& istride, typename Op::state* part) {
  using T = typename Op::input_type;
  const int r = b.rank();
  if (r == 0) {
    op.add(part[0], T(element_at(acc, b.lo)), 0);
    return;
  }
  ivec pstride;  // partial offset per input axis (0 on reduced axes)
  pstride.n = r;
  index_t s = 1;
  for (int d = r - 1; d >= 0; --d) {
    if (spec.reduced(d)) pstride[d] = 0;
    else {
      pstride[d] = s;
      s *= b.extent(d);
    }
  }
  const int last = r - 1;
  const index_t n = b.extent(last);
  const bool last_reduced = spec.reduced(last);
  const index_t didx = istride[last];
  for_each_row(b, pstride, [&](const ivec& start, index_t off) {
    auto line = acc.line(start, last, 1);
    index_t idx0 = 0;
    for (int d = 0; d < r; ++d) idx0 += start[d] * istride[d];
    alignas(64) T buf[batch_size];
    for (index_t j0 = 0; j0 < n; j0 += batch_size) {
      const index_t m = std::min(batch_size, n - j0);
      // Lines without a batched fill are evaluated per element (for a stored array this reads
      // memory directly, cheaper than its memcpy-based fill).
      if constexpr (std::remove_cvref_t<decltype(line)>::batched) line.fill(j0, m, buf);
      else
        for (index_t k = 0; k < m; ++k) buf[k] = line(j0 + k);
      if (last_reduced) {
        op.add_batch(part[off], buf, m, idx0 + j0 * didx, didx);
      } else {
        typename Op::state* p = part + off + j0;
        for (index_t k = 0; k < m; ++k) op.add(p[k], buf[k], idx0);
      }
    }
  });
}

/// How a reduction is cut into tasks, shared by every backend: task t folds the input chunk of
/// kept-axes block K = t / nR and reduced-axes block R = t % nR (consecutive tasks feed one
/// output block), and istride gives the index argmin/argmax record for an element.
struct reduction_plan {
  std::vector<int> kept, red;  // kept and reduced axes of the input
  index_t nK = 1, nR = 1;      // blocks over the kept axes (= output blocks) and reduced axes
  ivec istride;                // index of element i: sum i[d] * istride[d]

  reduction_plan(const chunk_grid& g, const reduce_spec& spec) : g_(&g) {
    const int r = g.rank();
    for (int d = 0; d < r; ++d) (spec.reduced(d) ? red : kept).push_back(d);
    for (int d : kept) nK *= index_t(g.chunks()[std::size_t(d)].size());
    for (int d : red) nR *= index_t(g.chunks()[std::size_t(d)].size());
    istride.n = r;
    index_t acc = 1;
    for (int d = r - 1; d >= 0; --d) {
      istride[d] = spec.flat_index ? acc : (d == spec.index_axis ? 1 : 0);
      acc *= g.shape()[std::size_t(d)];
    }
  }
  index_t tasks() const { return nK * nR; }

  /// The input box folded by task t.
  box task_box(index_t t) const {
    const chunk_grid& g = *g_;
    box bx;
    bx.lo.n = bx.hi.n = g.rank();
    auto place = [&](const std::vector<int>& axes, index_t k) {
      for (int a = int(axes.size()) - 1; a >= 0; --a) {
        const int d = axes[std::size_t(a)];
        const index_t nb = index_t(g.chunks()[std::size_t(d)].size());
        const index_t bi = k % nb;
        k /= nb;
        bx.lo[d] = g.offsets(d)[std::size_t(bi)];
        bx.hi[d] = g.offsets(d)[std::size_t(bi) + 1];
      }
    };
    place(kept, t / nR);
    place(red, t % nR);
    return bx;
  }

 private:
  const chunk_grid* g_;
};

}  // namespace detail

/// Runs a reduction of the lowered expression `e` on the host into a new chunked array with
/// grid `out_grid`. Found by argument-dependent lookup from reduction::lower, so another
/// backend adds its own overload for its policy type.
template <class Op, class E>
array<typename Op::result_type> execute_reduction(const host& pol, const E& e, const Op& op,
                                                  const reduce_spec& spec,
                                                  const chunk_grid& out_grid) {
  using R = typename Op::result_type;
  using state = typename Op::state;
  using part_ptr = std::unique_ptr<state[]>;
  array<R> out(out_grid);
  if (out_grid.size() == 0) return out;

  const detail::reduction_plan plan(e.grid(), spec);
  const index_t nK = plan.nK, nR = plan.nR;
  for (index_t k = 0; k < nK; ++k) out.block_data(k);  // output block k <-> kept block k

  // Combine tree over the reduced-axes block index R, per output block K. A fan-in above the
  // number of blocks builds the same one-node tree: clamped, so split_every = INT_MAX does not
  // allocate INT_MAX slots.
  const index_t fan = std::min<index_t>(spec.split_every, std::max<index_t>(nR, 2));
  std::vector<index_t> level_n{nR}, level_base{0};
  index_t nodes = 0;
  while (level_n.back() > 1) {
    level_base.push_back(nodes);
    level_n.push_back((level_n.back() + fan - 1) / fan);
    nodes += level_n.back();
  }
  std::vector<std::atomic<int>> done(std::size_t(nK * nodes));
  std::vector<part_ptr> slots(std::size_t(nK * nodes * fan));

  auto kept_box = [&](index_t K) {
    // kept-axes extents of output block K (same for every R)
    return out_grid.block_box(K).count();
  };
  auto finish = [&](index_t K, part_ptr p) {
    R* dst = out.block_data(K);
    const index_t P = kept_box(K);
    for (index_t j = 0; j < P; ++j) dst[j] = op.finalize(p[std::size_t(j)]);
  };
  auto deliver = [&](index_t K, part_ptr p, index_t R_) {
    const index_t P = kept_box(K);
    std::size_t lev = 0;
    index_t i = R_;
    while (level_n[lev] > 1) {
      const index_t node = i / fan, slot = i % fan;
      const std::size_t gid = std::size_t(K * nodes + level_base[lev + 1] + node);
      slots[gid * std::size_t(fan) + std::size_t(slot)] = std::move(p);
      const index_t kids = std::min(fan, level_n[lev] - node * fan);
      if (done[gid].fetch_add(1, std::memory_order_acq_rel) + 1 != kids) return;
      p = std::move(slots[gid * std::size_t(fan)]);
      for (index_t k = 1; k < kids; ++k) {
        part_ptr& q = slots[gid * std::size_t(fan) + std::size_t(k)];
        for (index_t j = 0; j < P; ++j) op.merge(p[std::size_t(j)], q[std::size_t(j)]);
        q.reset();
      }
      ++lev;
      i = node;
    }
    finish(K, std::move(p));
  };

  // Task t folds input block (K = t / nR, R = t % nR): consecutive tasks feed one output
  // block, so only a few output blocks have pending partials at any time.
  detail::for_each_block(pol, plan.tasks(), [&](index_t t) {
    const index_t K = t / nR, R_ = t % nR;
    const box bx = plan.task_box(t);
    const index_t P = kept_box(K);
    part_ptr p(new state[std::size_t(std::max<index_t>(P, 1))]);
    for (index_t j = 0; j < P; ++j) p[std::size_t(j)] = op.identity();
    if (bx.count() > 0) {
      host_context ctx;
      auto acc = e.bind(bx, ctx);
      detail::fold_box(op, acc, bx, spec, plan.istride, p.get());
    }
    deliver(K, std::move(p), R_);
  });
  return out;
}

}  // namespace tessera
