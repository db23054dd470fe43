// Fixed-capacity index vector and index box: plain data usable in host and device code.
#pragma once
#include "../config.hpp"

namespace tessera {

/// An N-d index (N <= max_rank) stored inline; trivially copyable.
struct ivec {
  int n = 0;
  index_t v[max_rank] = {};

  TESSERA_HD constexpr index_t& operator[](int i) { return v[i]; }
  TESSERA_HD constexpr const index_t& operator[](int i) const { return v[i]; }
  TESSERA_HD constexpr int size() const { return n; }
};

/// A half-open index box [lo, hi) in some array's global index space.
struct box {
  ivec lo, hi;
  TESSERA_HD constexpr int rank() const { return lo.n; }
  TESSERA_HD constexpr index_t extent(int d) const { return hi[d] - lo[d]; }
  TESSERA_HD constexpr index_t count() const {
    index_t c = 1;
    for (int d = 0; d < lo.n; ++d) c *= hi[d] - lo[d];
    return c;
  }
};

}  // namespace tessera
