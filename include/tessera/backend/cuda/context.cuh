// Device binding context: what a node needs while bound to one chunk on one device and stream.
// Chunks in device memory this device can read (its own, or a peer's with access enabled) are
// read in place; any other box is gathered into device scratch: chunks in host memory (and
// chunks read through the store: files, devices without peer access) through one pinned host
// buffer and one copy, device chunks by the gather kernel.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "../../store/chunk_store.hpp"
#include "../../store/copy.hpp"
#include "check.cuh"
#include "../../store/evaluated_boxes.hpp"
#include "devices.cuh"
#include "kernels.cuh"
#include "staging.cuh"

namespace tessera::detail::cuda_backend {

class device_context {
 public:
  device_context(int device, cudaStream_t stream, pinned_arena& arena)
      : device_(device), stream_(stream), arena_(&arena) {}
  device_context(const device_context&) = delete;
  device_context& operator=(const device_context&) = delete;
  ~device_context() {
    for (void* p : scratch_) (void)cudaFreeAsync(p, stream_);
  }

  int device() const { return device_; }
  cudaStream_t stream() const { return stream_; }
  memory_space space() const { return memory_space::on_device(device_); }
  bool can_read(memory_space m) const {
    return m.where == memory_space::kind::device && devices().can_access(device_, m.id);
  }

  /// Device memory for this task, returned to the pool (stream-ordered) when the context ends.
  template <class T>
  T* device_scratch(index_t n) {
    void* p = nullptr;
    TESSERA_CUDA_CHECK(cudaMallocAsync(&p, std::size_t(std::max<index_t>(n, 1)) * sizeof(T), stream_));
    scratch_.push_back(p);
    return static_cast<T*>(p);
  }
  /// Device scratch (the context seam's name, store/chunk_store.hpp).
  template <class T>
  T* scratch(index_t n) {
    return device_scratch<T>(n);
  }
  /// Evaluates bound accessor acc over box b into device memory dst (strides `stride`), on the
  /// task's stream: the nodes that assemble a box from several pieces (nodes/pieces.hpp).
  template <class Acc, class T>
  void evaluate(const Acc& acc, const box& b, T* dst, const ivec& stride) {
    launch_eval(acc, b, dst, stride, stream_);
  }
  /// Boxes evaluated into this context's scratch by key (a shared ts::lazy piece: nodes/lazy.hpp).
  evaluated_boxes& evaluated() { return evaluated_; }
  /// Page-locked host memory valid until the task's stream has been synchronized.
  template <class T>
  T* pinned(index_t n) {
    return static_cast<T*>(arena_->get(std::size_t(std::max<index_t>(n, 1)) * sizeof(T)));
  }

  /// Box b of store s, row-major, in device scratch.
  template <chunk_store S>
  const typename S::value_type* gather(const S& s, const box& b) {
    using T = typename S::value_type;
    const chunk_grid& g = s.grid();
    const index_t n = b.count();
    T* dst = device_scratch<T>(n);
    const ivec dstride = row_major_strides(b);
    // Chunks not readable in place: gathered on the host, then one host-to-device copy.
    T* h = nullptr;
    g.for_each_block_in(b, [&](index_t f) {
      const T* p = s.block_pointer(f);
      const memory_space m = s.block_space(f);
      if (p && can_read(m)) return;
      if (!h) h = pinned<T>(n);
      const box blk = g.block_box(f);
      if (p && m.is_host()) {
        detail::copy_box_overlap(p, blk, h, b);
      } else if constexpr (reads_overlap<S>) {
        s.read_overlap(f, b, h);  // a store that reads the overlap itself (store/remote.hpp)
      } else {
        T* tmp = pinned<T>(blk.count());
        s.read_block(f, tmp);
        detail::copy_box_overlap(static_cast<const T*>(tmp), blk, h, b);
      }
    });
    if (h) TESSERA_CUDA_CHECK(cudaMemcpyAsync(dst, h, std::size_t(n) * sizeof(T), cudaMemcpyHostToDevice, stream_));
    // Chunks readable in place: the gather kernel copies their overlap (after the copy above).
    g.for_each_block_in(b, [&](index_t f) {
      const T* p = s.block_pointer(f);
      if (!p || !can_read(s.block_space(f))) return;
      const box blk = g.block_box(f);
      const box ov = intersect(blk, b);
      if (ov.count() == 0) return;
      stored_accessor<T> src;
      src.p = p;
      src.origin = blk.lo;
      src.stride = row_major_strides(blk);
      index_t off = 0;
      for (int d = 0; d < b.rank(); ++d) off += (ov.lo[d] - b.lo[d]) * dstride[d];
      launch_eval(src, ov, dst + off, dstride, stream_);
    });
    return dst;
  }

 private:
  int device_;
  cudaStream_t stream_;
  pinned_arena* arena_;
  std::vector<void*> scratch_;
  evaluated_boxes evaluated_;
};

}  // namespace tessera::detail::cuda_backend
