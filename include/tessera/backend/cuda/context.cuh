// Device binding context: what a node needs while bound to one output chunk on one device.
// Stored host arrays are staged for the chunk's box through pinned host buffers; device-resident
// arrays bind to their device pointers (gathering through device scratch when the box spans
// chunks or devices); generated leaves need nothing (they evaluate per element on the device).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../../nodes/stored.hpp"
#include "check.cuh"
#include "kernels.cuh"
#include "policy.cuh"

namespace tessera::detail::cu {

/// Calls f(flat block number) for every block of g overlapping box b (count > 0).
template <class F>
void for_each_overlapping_block(const chunk_grid& g, const box& b, F&& f) {
  const int r = g.rank();
  ivec lo, hi;
  lo.n = hi.n = r;
  for (int d = 0; d < r; ++d) {
    lo[d] = g.block_along(d, b.lo[d]);
    hi[d] = g.block_along(d, b.hi[d] - 1) + 1;
  }
  ivec k = lo;
  while (true) {
    index_t flat = 0;
    for (int d = 0; d < r; ++d) flat = flat * index_t(g.chunks()[d].size()) + k[d];
    f(flat);
    int d = r - 1;
    for (; d >= 0; --d) {
      if (++k[d] < hi[d]) break;
      k[d] = lo[d];
    }
    if (d < 0) return;
  }
}

/// Intersection of two boxes (empty extents when disjoint).
inline box intersect(const box& a, const box& b) {
  box o;
  o.lo.n = o.hi.n = a.rank();
  for (int d = 0; d < a.rank(); ++d) {
    o.lo[d] = std::max(a.lo[d], b.lo[d]);
    o.hi[d] = std::max(o.lo[d], std::min(a.hi[d], b.hi[d]));
  }
  return o;
}

inline bool contains(const box& outer, const box& inner) {
  for (int d = 0; d < outer.rank(); ++d)
    if (inner.lo[d] < outer.lo[d] || inner.hi[d] > outer.hi[d]) return false;
  return true;
}

/// Bump allocator over page-locked host memory, reset once the stream that used it is idle.
class pinned_arena {
 public:
  pinned_arena() = default;
  pinned_arena(const pinned_arena&) = delete;
  pinned_arena& operator=(const pinned_arena&) = delete;
  ~pinned_arena() { free_all(); }

  void* get(std::size_t bytes) {
    bytes = (bytes + 255) / 256 * 256;
    if (blocks_.empty() || used_ + bytes > blocks_.back().size) {
      std::size_t cap = std::max<std::size_t>(bytes, blocks_.empty() ? (std::size_t(1) << 20)
                                                                      : 2 * blocks_.back().size);
      void* p = nullptr;
      TESSERA_CUDA_CHECK(cudaMallocHost(&p, cap));
      blocks_.push_back({static_cast<std::byte*>(p), cap});
      used_ = 0;
    }
    void* p = blocks_.back().p + used_;
    used_ += bytes;
    return p;
  }
  /// Forgets the allocations without freeing or coalescing (never throws; for error paths).
  void rewind() noexcept {
    if (!blocks_.empty()) {  // keep only the last (largest) block
      for (std::size_t i = 0; i + 1 < blocks_.size(); ++i) (void)cudaFreeHost(blocks_[i].p);
      blocks_.erase(blocks_.begin(), blocks_.end() - 1);
    }
    used_ = 0;
  }
  /// Call only when no copy using the arena is in flight. Coalesces into one block.
  void reset() {
    if (blocks_.size() > 1) {
      std::size_t total = 0;
      for (auto& b : blocks_) total += b.size;
      free_all();
      void* p = nullptr;
      TESSERA_CUDA_CHECK(cudaMallocHost(&p, total));
      blocks_.push_back({static_cast<std::byte*>(p), total});
    }
    used_ = 0;
  }
  void free_all() {
    for (auto& b : blocks_) (void)cudaFreeHost(b.p);
    blocks_.clear();
    used_ = 0;
  }

 private:
  struct block {
    std::byte* p;
    std::size_t size;
  };
  std::vector<block> blocks_;
  std::size_t used_ = 0;
};

/// Binding context of one chunk task on one device and stream.
class device_context {
 public:
  static constexpr bool on_host = false;

  device_context(int device, cudaStream_t stream, pinned_arena& arena)
      : device_(device), stream_(stream), arena_(&arena) {}
  device_context(const device_context&) = delete;
  device_context& operator=(const device_context&) = delete;
  ~device_context() {
    for (void* p : scratch_) (void)cudaFreeAsync(p, stream_);
  }

  int device() const { return device_; }
  cudaStream_t stream() const { return stream_; }

  /// Device memory for this task, returned to the pool (stream-ordered) when the context ends.
  template <class T>
  T* device_scratch(index_t n) {
    void* p = nullptr;
    TESSERA_CUDA_CHECK(cudaMallocAsync(&p, std::size_t(std::max<index_t>(n, 1)) * sizeof(T), stream_));
    scratch_.push_back(p);
    return static_cast<T*>(p);
  }
  /// Page-locked host memory valid until the task's stream has been synchronized.
  template <class T>
  T* pinned(index_t n) {
    return static_cast<T*>(arena_->get(std::size_t(std::max<index_t>(n, 1)) * sizeof(T)));
  }

  /// Stages box b of a host array into device memory (gathered in a pinned buffer, then one
  /// asynchronous host-to-device copy).
  template <class T>
  stored_accessor<T> bind_stored(const array<T>& a, const box& b) {
    stored_accessor<T> acc;
    if (b.count() == 0) return acc;
    const chunk_grid& g = a.grid();
    const index_t n = b.count();
    T* h = pinned<T>(n);
    if (g.rank() == 0) h[0] = a.block_data(0)[0];
    else
      for_each_overlapping_block(g, b, [&](index_t f) {
        detail::copy_box_overlap(a.block_data(f), g.block_box(f), h, b);
      });
    T* d = device_scratch<T>(n);
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(d, h, std::size_t(n) * sizeof(T), cudaMemcpyHostToDevice, stream_));
    acc.p = d;
    acc.origin = b.lo;
    acc.stride = detail::box_strides(b);
    return acc;
  }

  /// Binds box b of a device-resident array: its chunk's device pointer when the box lies in
  /// one chunk on this device or on a peer this device can read (peer access to its pool is
  /// enabled at discovery), otherwise a gather into device scratch (chunks on peers are read in
  /// place by the gather kernel; chunks on devices without peer access come through a pinned
  /// host buffer).
  template <class A>
  stored_accessor<typename A::value_type> bind_device(const A& a, const box& b) {
    using T = typename A::value_type;
    stored_accessor<T> acc;
    if (b.count() == 0) return acc;
    const chunk_grid& g = a.grid();
    if (g.rank() == 0 || single_local_block(a, b)) {
      index_t f = g.rank() == 0 ? 0 : block_of(g, b.lo);
      box blk = g.block_box(f);
      if (devices().can_access(device_, a.block_device(f))) {
        acc.p = a.block_pointer(f);
        acc.origin = blk.lo;
        acc.stride = detail::box_strides(blk);
        return acc;
      }
    }
    T* dst = device_scratch<T>(b.count());
    const ivec dstride = detail::box_strides(b);
    for_each_overlapping_block(g, b, [&](index_t f) {
      const box blk = g.block_box(f);
      const box ov = intersect(blk, b);
      if (ov.count() == 0) return;
      const T* src = a.block_pointer(f);
      const int from = a.block_device(f);
      if (!devices().can_access(device_, from)) {  // through a pinned host buffer
        const std::size_t bytes = std::size_t(blk.count()) * sizeof(T);
        T* tmp = device_scratch<T>(blk.count());
        T* h = pinned<T>(blk.count());
        {
          device_guard g(from);
          TESSERA_CUDA_CHECK(cudaMemcpy(h, src, bytes, cudaMemcpyDeviceToHost));
        }
        TESSERA_CUDA_CHECK(cudaMemcpyAsync(tmp, h, bytes, cudaMemcpyHostToDevice, stream_));
        src = tmp;
      }
      stored_accessor<T> s;
      s.p = src;
      s.origin = blk.lo;
      s.stride = detail::box_strides(blk);
      index_t off = 0;
      for (int d = 0; d < b.rank(); ++d) off += (ov.lo[d] - b.lo[d]) * dstride[d];
      launch_eval(s, ov, dst + off, dstride, stream_);
    });
    acc.p = dst;
    acc.origin = b.lo;
    acc.stride = dstride;
    return acc;
  }

 private:
  static index_t block_of(const chunk_grid& g, const ivec& i) {
    index_t flat = 0;
    for (int d = 0; d < g.rank(); ++d)
      flat = flat * index_t(g.chunks()[d].size()) + g.block_along(d, i[d]);
    return flat;
  }
  template <class A>
  bool single_local_block(const A& a, const box& b) const {
    const chunk_grid& g = a.grid();
    return contains(g.block_box(block_of(g, b.lo)), b);
  }

  int device_;
  cudaStream_t stream_;
  pinned_arena* arena_;
  std::vector<void*> scratch_;
};

/// Binding context used only to find where an output chunk's device-resident inputs live:
/// binds nothing, records bytes of device-resident input per device (index = device id).
struct probe_context {
  static constexpr bool on_host = false;
  std::vector<std::int64_t> bytes;

  template <class T>
  stored_accessor<T> bind_stored(const array<T>&, const box&) {
    return {};
  }
  template <class A>
  stored_accessor<typename A::value_type> bind_device(const A& a, const box& b) {
    if (b.count() > 0) {
      const chunk_grid& g = a.grid();
      auto add = [&](index_t f, index_t n) {
        const int dev = a.block_device(f);
        if (dev < 0) return;
        if (bytes.size() <= std::size_t(dev)) bytes.resize(std::size_t(dev) + 1, 0);
        bytes[std::size_t(dev)] += n * index_t(sizeof(typename A::value_type));
      };
      if (g.rank() == 0) add(0, 1);
      else
        for_each_overlapping_block(g, b, [&](index_t f) { add(f, intersect(g.block_box(f), b).count()); });
    }
    return {};
  }
};

}  // namespace tessera::detail::cu
