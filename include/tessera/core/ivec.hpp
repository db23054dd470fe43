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

/// Row-major strides (in elements) of an index box: the layout of a chunk or a gathered box.
TESSERA_HD constexpr ivec row_major_strides(const box& b) {
  ivec s;
  s.n = b.rank();
  index_t acc = 1;
  for (int d = b.rank() - 1; d >= 0; --d) {
    s[d] = acc;
    acc *= b.extent(d);
  }
  return s;
}

/// Intersection of two boxes of one rank (empty extents when disjoint).
TESSERA_HD constexpr box intersect(const box& a, const box& b) {
  box o;
  o.lo.n = o.hi.n = a.rank();
  for (int d = 0; d < a.rank(); ++d) {
    o.lo[d] = a.lo[d] > b.lo[d] ? a.lo[d] : b.lo[d];
    const index_t hi = a.hi[d] < b.hi[d] ? a.hi[d] : b.hi[d];
    o.hi[d] = hi > o.lo[d] ? hi : o.lo[d];
  }
  return o;
}

/// True when `inner` lies inside `outer`.
TESSERA_HD constexpr bool contains(const box& outer, const box& inner) {
  for (int d = 0; d < outer.rank(); ++d)
    if (inner.lo[d] < outer.lo[d] || inner.hi[d] > outer.hi[d]) return false;
  return true;
}

}  // namespace tessera
