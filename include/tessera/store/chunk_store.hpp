// The chunk store seam: "a grid of chunks that live somewhere". ts::array (host memory),
// ts::device_array (device memory) and user stores (chunks read from a file, produced by a
// callback, owned by another rank) all model it; the stored<S> node turns any store into an
// expression leaf.
//
//   value_type
//   grid() -> const chunk_grid&                      shape and chunks
//   block_space(b) -> memory_space                   where block b lives
//   block_pointer(b) -> const value_type*            block b, row-major, addressable in its
//                                                     space; nullptr when it must be read
//   read_block(b, value_type* out)                   block b, row-major, into host memory `out`
//                                                     (only called for blocks a bound box touches)
//
// Binding contexts (host_context, the CUDA device_context, the placement probe, a new
// backend's) implement the other side and never see a store's type:
//
//   space() -> memory_space                          where the context's kernels run
//   can_read(memory_space) -> bool                   whether memory of that space is read in place
//   gather(store, box) -> const value_type*          the box, row-major, in the context's space
//   scratch<T>(n) -> T*                              n elements of the context's space for the
//                                                     task (nullptr when it evaluates nothing)
//   evaluate(acc, box, T* dst, stride)               a bound accessor over box into dst (in
//                                                     the context's space): the nodes that
//                                                     assemble a box from pieces (nodes/pieces.hpp)
//
// view_box() below is the one place that joins the two: a box inside one chunk the context can
// read is bound in place; any other box is gathered by the context.
#pragma once
#include <concepts>

#include "../core/grid.hpp"
#include "../core/memory_space.hpp"
#include "accessor.hpp"

namespace tessera {

template <class S>
concept chunk_store = requires(const S& s, index_t b, typename S::value_type* out) {
  typename S::value_type;
  { s.grid() } -> std::convertible_to<const chunk_grid&>;
  { s.block_space(b) } -> std::same_as<memory_space>;
  { s.block_pointer(b) } -> std::convertible_to<const typename S::value_type*>;
  s.read_block(b, out);
};

/// Optional: a store that copies the overlap of block f with a box itself (into dst laid out as
/// the box), e.g. from pieces fetched from another rank (store/remote.hpp). Contexts use it for
/// blocks they cannot read in place.
template <class S>
concept reads_overlap = requires(const S& s, index_t f, const box& b, typename S::value_type* dst) {
  s.read_overlap(f, b, dst);
};

/// Binds box b of store s in context ctx: a pointer into the chunk when b lies inside one
/// chunk that ctx can read in place, otherwise ctx's gathered copy of b.
template <chunk_store S, class Ctx>
stored_accessor<typename S::value_type> view_box(const S& s, const box& b, Ctx& ctx) {
  stored_accessor<typename S::value_type> a;
  if (b.count() == 0) return a;
  const chunk_grid& g = s.grid();
  const index_t f = g.block_containing(b.lo);
  const box blk = g.block_box(f);
  if (contains(blk, b)) {
    const auto* p = s.block_pointer(f);
    if (p && ctx.can_read(s.block_space(f))) {
      a.p = p;
      a.origin = blk.lo;
      a.stride = row_major_strides(blk);
      return a;
    }
  }
  a.p = ctx.gather(s, b);
  a.origin = b.lo;
  a.stride = row_major_strides(b);
  return a;
}

}  // namespace tessera
