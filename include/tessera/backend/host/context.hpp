// Host binding context: what a node needs while bound to one chunk on the CPU. Reads chunks in
// host memory in place; gathers boxes that span chunks (or live elsewhere) into task scratch.
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

#include "../../store/chunk_store.hpp"
#include "../../store/copy.hpp"
#include "../../store/evaluated_boxes.hpp"
#include "kernel.hpp"

namespace tessera {

/// Scratch lives until the context is destroyed (the end of the chunk task).
class host_context {
 public:
  memory_space space() const { return memory_space::on_host(); }
  bool can_read(memory_space m) const { return m.is_host(); }

  template <class T>
  T* scratch(index_t n) {
    buffers_.emplace_back(new std::byte[std::size_t(std::max<index_t>(n, 1)) * sizeof(T) + 64]);
    return reinterpret_cast<T*>(buffers_.back().get());
  }

  /// Evaluates bound accessor acc over box b into dst (strides `stride`, last one 1): the
  /// nodes that assemble a box from several pieces (nodes/pieces.hpp).
  template <class Acc, class T>
  void evaluate(const Acc& acc, const box& b, T* dst, const ivec& stride) {
    write_box(acc, b, dst, stride);
  }

  /// Box b of store s, row-major, in host scratch: chunks in host memory are copied from in
  /// place, others are read whole (read_block) and their overlap copied.
  template <chunk_store S>
  const typename S::value_type* gather(const S& s, const box& b) {
    using T = typename S::value_type;
    const chunk_grid& g = s.grid();
    T* dst = scratch<T>(b.count());
    T* tmp = nullptr;
    index_t tmp_n = 0;
    g.for_each_block_in(b, [&](index_t f) {
      const box blk = g.block_box(f);
      const T* p = s.block_pointer(f);
      if (p && can_read(s.block_space(f))) {
        detail::copy_box_overlap(p, blk, dst, b);
      } else if constexpr (reads_overlap<S>) {
        s.read_overlap(f, b, dst);  // a store that reads the overlap itself (store/remote.hpp)
      } else if (contains(b, blk) && contains(blk, b)) {
        s.read_block(f, dst);  // the box is this block
      } else {
        if (tmp_n < blk.count()) tmp = scratch<T>(tmp_n = blk.count());
        s.read_block(f, tmp);
        detail::copy_box_overlap(static_cast<const T*>(tmp), blk, dst, b);
      }
    });
    return dst;
  }

  /// Boxes evaluated into this context's scratch by key (a shared ts::lazy piece: nodes/lazy.hpp).
  detail::evaluated_boxes& evaluated() { return evaluated_; }

 private:
  std::vector<std::unique_ptr<std::byte[]>> buffers_;
  detail::evaluated_boxes evaluated_;
};

}  // namespace tessera
