// Boxes a task has already evaluated into its context's scratch, by key: a binding context
// (host_context, the CUDA device_context) keeps one so that a ts::lazy piece read by several
// nodes of one expression is evaluated once per task box (nodes/lazy.hpp). Lives as long as
// the context, like the scratch it points into.
#pragma once
#include <vector>

#include "../core/ivec.hpp"

namespace tessera::detail {

class evaluated_boxes {
 public:
  /// The data evaluated under `key` for box b, or nullptr.
  const void* recall(const void* key, const box& b) const {
    for (const auto& e : entries_)
      if (e.key == key && same(e.b, b)) return e.data;
    return nullptr;
  }
  void remember(const void* key, const box& b, const void* data) { entries_.push_back({key, b, data}); }

 private:
  static bool same(const box& a, const box& b) {
    if (a.rank() != b.rank()) return false;
    for (int d = 0; d < a.rank(); ++d)
      if (a.lo[d] != b.lo[d] || a.hi[d] != b.hi[d]) return false;
    return true;
  }
  struct entry {
    const void* key;
    box b;
    const void* data;
  };
  std::vector<entry> entries_;
};

}  // namespace tessera::detail
