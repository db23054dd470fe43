// A reduction task over a run of chunks (reduce/spec.hpp, reduction_plan's runs): its box spans
// several input chunks along the run axis, and each of them is bound on its own, so a stored
// chunk is still read in place; run_accessor joins them into one accessor of the whole task
// box for the backend's fold. Used by the backends whose fold adds into the partials it is
// given (fold_run_limit > 1: the host, and ts::mpi over it).
#pragma once
#include <utility>
#include <vector>

#include "../core/host_isa.hpp"
#include "../core/ivec.hpp"
#include "placement.hpp"

namespace tessera::detail {

/// The most chunks one fold task of backend B may span along a reduced axis: B's
/// fold_run_limit, 1 for a backend that does not say (its fold may overwrite its partials, or
/// run where these host-side accessors cannot go).
template <class B>
constexpr index_t fold_run_limit() {
  if constexpr (requires { B::fold_run_limit; }) return B::fold_run_limit;
  else return 1;
}

/// Output block `b` of `out` in host memory, for a caller that writes it in parts (the tiles of
/// a reduction over runs): B's host_block where it has one, else nullptr (then the block is
/// assembled elsewhere and handed whole to write_block). Calls for one block are serialized by
/// the caller.
template <class B, class P, class Array>
auto* host_block_of(const P& pol, Array& out, index_t b) {
  using T = typename Array::value_type;
  if constexpr (requires { B::host_block(pol, out, b); }) return static_cast<T*>(B::host_block(pol, out, b));
  else return static_cast<T*>(nullptr);
}

/// The accessors of the chunks of a run, one per chunk along `axis`; a line or element is
/// served by the chunk that holds it. Lines along `axis` itself (which would cross chunks) are
/// not served: the folds ask for lines along the last axis, which is kept when runs are used.
template <class Acc>
struct run_accessor {
  std::vector<Acc> parts;
  std::vector<index_t> ends;  // end of each part along axis
  int axis = 0;

  decltype(auto) line(const ivec& start, int along, index_t step) const {
    std::size_t k = 0;
    while (k + 1 < ends.size() && start[axis] >= ends[k]) ++k;
    return parts[k].line(start, along, step);
  }
};

/// Binds box b of expression e in context ctx chunk by chunk along the grid's axis `axis`.
template <class E, class Ctx>
auto bind_run(const E& e, const chunk_grid& g, int axis, const box& b, Ctx& ctx) {
  using Acc = decltype(e.bind(b, ctx));
  run_accessor<Acc> run;
  run.axis = axis;
  const auto& off = g.offsets(axis);
  for (index_t i = g.block_along(axis, b.lo[axis]); i + 1 < index_t(off.size()) && off[std::size_t(i)] < b.hi[axis]; ++i) {
    box piece = b;
    piece.lo[axis] = std::max(b.lo[axis], off[std::size_t(i)]);
    piece.hi[axis] = std::min(b.hi[axis], off[std::size_t(i) + 1]);
    if (piece.count() == 0) continue;
    run.parts.push_back(e.bind(piece, ctx));
    run.ends.push_back(piece.hi[axis]);
  }
  return run;
}

/// Whether a reduction over e may use runs: every stored block e reads is in this process's
/// memory, so that binding a tile of a chunk reads only the tile (a file's chunk is read whole
/// by each binding, and a tile would read it run times).
template <class E>
bool reads_parts_in_place(const E& e) {
  const chunk_grid& g = e.grid();
  if (g.size() == 0) return false;
  placement_probe probe;
  (void)e.bind(g.whole(), probe);
  return probe.reads_parts_in_place();
}

/// The accessor depth of a run is its chunks' (host_isa.hpp: the dispatched kernel copies).
template <class Acc, int cap>
struct type_depth<run_accessor<Acc>, cap> : type_depth<Acc, cap> {};

}  // namespace tessera::detail
