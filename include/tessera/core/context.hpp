// Per-task binding context: scratch memory a node may need while bound to one chunk (for
// instance a stored array gathering a box that spans several of its chunks).
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

#include "../config.hpp"

namespace tessera {

/// Host binding context. Scratch lives until the context is destroyed (end of the task).
class host_context {
 public:
  static constexpr bool on_host = true;
  template <class T>
  T* scratch(index_t n) {
    buffers_.emplace_back(new std::byte[std::size_t(n) * sizeof(T) + 64]);
    return reinterpret_cast<T*>(buffers_.back().get());
  }

 private:
  std::vector<std::unique_ptr<std::byte[]>> buffers_;
};

}  // namespace tessera
