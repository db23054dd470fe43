// What a reduction reduces (reduce_spec, built and validated by the node) and how it is cut
// into chunk tasks (reduction_plan), shared by every backend.
#pragma once
#include <algorithm>
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

/// How a reduction is cut into tasks, shared by every backend: task t folds the input box
/// task_box(t), of kept-axes block K = t / nR and reduced-axes block R = t % nR (consecutive
/// tasks feed one output block), and istride gives the index argmin/argmax record for an
/// element.
///
/// Runs (max_run > 1, for a backend whose fold adds into the partials it is given and inputs a
/// task can read in parts, see exec/chunk_run.hpp): when the last axis is kept and the chunks
/// along the innermost reduced axis are thin (fewer than run_depth rows), each per-chunk partial
/// is a large cross-section that is filled, merged and finalized for a few rows of input. Then
/// `run` consecutive chunks along that axis (run_axis) form one task box, and to keep the same
/// number of tasks each chunk along one kept axis (tile_axis) is cut into `run` tiles: a task
/// folds a run of chunks over one tile into partials `run` times smaller, and a tile is its own
/// output block of the plan (an output block of the result is put together from its tiles,
/// out_block / tile_box). The cut depends on the chunking and max_run alone, so the result is
/// the same for any thread count; run divides the number of chunks along run_axis, so
/// tasks() is the same with or without runs.
struct reduction_plan {
  static constexpr index_t run_depth = 64;      // rows along run_axis a run aims for
  static constexpr index_t min_tile = 1024;     // smallest kept cross-section of a tile
  std::vector<int> kept, red;  // kept and reduced axes of the input
  index_t nK = 1, nR = 1;      // plan blocks over the kept axes (tiles) and reduced axes
  ivec istride;                // index of element i: sum i[d] * istride[d]
  int run_axis = -1;           // runs: the reduced axis a task box spans several chunks of
  int tile_axis = -1;          // runs: the kept axis whose chunks are cut into tiles
  index_t run = 1;             // chunks per run and tiles per chunk (1: one chunk per task)

  reduction_plan(const chunk_grid& g, const reduce_spec& spec, index_t max_run = 1)
      : g_(g), tasks_grid_(g) {
    const int r = g.rank();
    for (int d = 0; d < r; ++d) (spec.reduced(d) ? red : kept).push_back(d);
    istride.n = r;
    index_t acc = 1;
    for (int d = r - 1; d >= 0; --d) {
      istride[d] = spec.flat_index ? acc : (d == spec.index_axis ? 1 : 0);
      acc *= g.shape()[std::size_t(d)];
    }
    if (max_run > 1) plan_runs(spec, max_run);
    for (int d : kept) nK *= index_t(tasks_grid_.chunks()[std::size_t(d)].size());
    for (int d : red) nR *= index_t(tasks_grid_.chunks()[std::size_t(d)].size());
  }
  index_t tasks() const { return nK * nR; }

  /// The input box folded by task t.
  box task_box(index_t t) const {
    const chunk_grid& g = tasks_grid_;
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

  /// The output block (row-major over the kept-axes blocks of the input grid) that plan block
  /// K is part of: K itself without runs, else the block its tile belongs to.
  index_t out_block(index_t K) const {
    if (run == 1) return K;
    index_t out = 0, scale = 1;
    for (int a = int(kept.size()) - 1; a >= 0; --a) {
      const int d = kept[std::size_t(a)];
      const index_t nb = index_t(tasks_grid_.chunks()[std::size_t(d)].size());
      index_t bi = K % nb;
      K /= nb;
      if (d == tile_axis) bi /= run;
      out += bi * scale;
      scale *= index_t(g_.chunks()[std::size_t(d)].size());
    }
    return out;
  }
  /// Kept elements of plan block K (its partials).
  index_t partials(index_t K) const {
    const box bx = task_box(K * nR);
    index_t n = 1;
    for (int d : kept) n *= bx.extent(d);
    return n;
  }

 private:
  void plan_runs(const reduce_spec& spec, index_t max_run) {
    const int r = g_.rank();
    if (r < 2 || spec.reduced(r - 1) || red.empty()) return;
    const int a = red.back();  // the innermost reduced axis: fold_row_groups folds along it
    const auto& ca = g_.chunks()[std::size_t(a)];
    const index_t na = index_t(ca.size());
    index_t depth = 0;
    for (index_t c : ca) depth = std::max(depth, c);
    if (na < 2 || depth <= 0) return;
    const index_t want = std::min<index_t>(max_run, (run_depth + depth - 1) / depth);
    // The cross-section of a tile (of the largest chunks) at least min_tile elements: the
    // longest run that divides the chunks along the axis and leaves tiles that large.
    index_t section = 1;
    for (int d : kept) {
      index_t m = 0;
      for (index_t c : g_.chunks()[std::size_t(d)]) m = std::max(m, c);
      section *= m;
    }
    // The tile axis for a run of k chunks: the outermost kept axis whose every chunk has at
    // least k rows (-1: none).
    const auto tile_axis_for = [&](index_t k) {
      for (int d : kept) {
        const auto& cd = g_.chunks()[std::size_t(d)];
        if (std::all_of(cd.begin(), cd.end(), [k](index_t c) { return c >= k; })) return d;
      }
      return -1;
    };
    index_t L = 1;
    int t = -1;
    for (index_t k = std::min(want, na); k >= 2; --k)
      if (na % k == 0 && section >= min_tile * k && (t = tile_axis_for(k)) >= 0) {
        L = k;
        break;
      }
    if (L < 2) return;
    chunks_t ch = g_.chunks();
    std::vector<index_t> runs;
    for (index_t i = 0; i < na; i += L) {
      index_t n = 0;
      for (index_t k = 0; k < L; ++k) n += ca[std::size_t(i + k)];
      runs.push_back(n);
    }
    ch[std::size_t(a)] = std::move(runs);
    std::vector<index_t> tiles;
    for (index_t c : g_.chunks()[std::size_t(t)])
      for (index_t k = 0; k < L; ++k) tiles.push_back(c / L + (k < c % L ? 1 : 0));
    ch[std::size_t(t)] = std::move(tiles);
    tasks_grid_ = chunk_grid(g_.shape(), std::move(ch));
    run_axis = a;
    tile_axis = t;
    run = L;
  }

  chunk_grid g_;           // the input's chunks
  chunk_grid tasks_grid_;  // the task boxes: g_, or with runs along run_axis and tiles
};

}  // namespace detail
}  // namespace tessera
