// affine_map: an axis-wise affine index map from an output index space to an input index
// space, the one form of "where does a row of this node come from" (remap and the views use
// it directly; an elementwise operand's broadcast is the special case bcast, core/expression.hpp).
// Output index o maps to input index
//     in[k] = base[k] + sum over output axes d with src[d] == k of step[d] * o[d].
#pragma once
#include <algorithm>

#include "grid.hpp"

namespace tessera {

/// The plain-data affine map (trivially copyable; host and device).
struct affine_map {
  int out_rank = 0;
  int src[max_rank] = {};       // input axis fed by each output axis, or -1 (new/broadcast axis)
  index_t step[max_rank] = {};  // multiplier per output axis
  ivec base;                    // input index at output index 0 (input rank)

  TESSERA_HD void map_line(const ivec& start, int axis, index_t st, ivec& cstart, int& caxis,
                           index_t& cstep) const {
    cstart = base;
    for (int d = 0; d < out_rank; ++d)
      if (src[d] >= 0) cstart[src[d]] += step[d] * start[d];
    if (axis >= 0 && src[axis] >= 0) {
      caxis = src[axis];
      cstep = st * step[axis];
    } else {
      caxis = -1;
      cstep = 0;
    }
  }

  /// Bounding box in the input of an output box.
  box map_box(const box& b) const {
    box c;
    c.lo = base;
    c.hi = base;
    for (int k = 0; k < base.n; ++k) c.hi[k] = base[k] + 1;
    if (b.count() == 0) {
      c.hi = c.lo;
      return c;
    }
    for (int d = 0; d < out_rank; ++d) {
      if (src[d] < 0) continue;
      index_t a = base[src[d]] + step[d] * b.lo[d], z = base[src[d]] + step[d] * (b.hi[d] - 1);
      c.lo[src[d]] = std::min(a, z);
      c.hi[src[d]] = std::max(a, z) + 1;
    }
    return c;
  }

  /// this ∘ inner: first `this` (output -> middle), then `inner` (middle -> input).
  affine_map then(const affine_map& inner) const {
    affine_map r;
    r.out_rank = out_rank;
    r.base = inner.base;
    for (int j = 0; j < inner.out_rank; ++j)
      if (inner.src[j] >= 0) r.base[inner.src[j]] += inner.step[j] * base[j];
    for (int d = 0; d < out_rank; ++d) {
      int j = src[d];
      int k = j >= 0 ? inner.src[j] : -1;
      r.src[d] = k;
      r.step[d] = k >= 0 ? inner.step[j] * step[d] : 0;
    }
    return r;
  }
};

}  // namespace tessera
