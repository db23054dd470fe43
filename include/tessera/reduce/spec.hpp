// What a reduction reduces (reduce_spec, built and validated by the node) and how it is cut
// into chunk tasks (reduction_plan), shared by every backend.
#pragma once
#include <vector>

#include "../core/grid.hpp"

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
}  // namespace tessera
