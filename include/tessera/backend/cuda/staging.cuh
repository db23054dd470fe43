// Page-locked host staging memory for copies between host and device.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "check.cuh"

namespace tessera::detail::cuda_backend {

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

}  // namespace tessera::detail::cuda_backend
