// memory_store<T>: chunks in host memory (the store behind ts::array).
#pragma once
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "../core/huge_pages.hpp"
#include "chunk_store.hpp"

namespace tessera {

template <class T>
class memory_store {
 public:
  using value_type = T;

  memory_store() : blocks_(1) { blocks_[0].reset(new T[1]()); }  // 0-d, one zero element
  /// Uninitialized blocks of g, allocated on first use.
  explicit memory_store(chunk_grid g) : grid_(std::move(g)), blocks_(std::size_t(grid_.block_count())) {}

  const chunk_grid& grid() const { return grid_; }
  memory_space block_space(index_t) const { return memory_space::on_host(); }
  const T* block_pointer(index_t b) const { return blocks_[std::size_t(b)].get(); }
  void read_block(index_t b, T* out) const {
    const index_t n = grid_.block_box(b).count();
    if (const T* p = block_pointer(b)) std::memcpy(out, p, std::size_t(n) * sizeof(T));
    else std::fill(out, out + n, T{});
  }

  /// Block b (row-major), allocated on first use (large blocks with the huge-page hint, see
  /// core/huge_pages.hpp). Distinct blocks may be allocated concurrently.
  T* block_data(index_t b) {
    auto& blk = blocks_[std::size_t(b)];
    if (!blk) {
      const std::size_t count = std::size_t(std::max<index_t>(grid_.block_box(b).count(), 1));
      blk.reset(new T[count]);
      detail::advise_huge_pages(blk.get(), count * sizeof(T));
    }
    return blk.get();
  }

 private:
  chunk_grid grid_;
  std::vector<std::unique_ptr<T[]>> blocks_;  // row-major block order, each block row-major
};

}  // namespace tessera
