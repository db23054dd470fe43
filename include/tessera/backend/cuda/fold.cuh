// The CUDA backend's reduction body (backend<cuda>::fold): one fused fold kernel per INPUT chunk:
// thread blocks fold contiguous segments of the chunk's reduced elements for one output
// element each (every thread a contiguous sub-range; the thread states are combined by a CUB
// block reduce, a fixed tree that keeps operand order, of the same accumulator state the host
// uses); the segment partials of a chunk are
// merged in order on the host, and the per-chunk partials go through the shared combine tree
// (exec/combine.hpp). The schedule depends only on the chunking, so
// results are bitwise identical run to run.
#pragma once
#include <cub/block/block_reduce.cuh>

#include <algorithm>

#include "../../reduce/spec.hpp"
#include "kernels.cuh"

namespace tessera::detail::cuda_backend {

/// Where the elements of one input chunk go: kept axes (row-major partial index p) and
/// reduced axes (row-major reduced index q, the fold order).
struct fold_layout {
  box b;
  ivec kept, red;  // axis lists (n = count)
  ivec istride;    // element index for argmin/argmax: sum i[d] * istride[d]
  index_t P = 1;   // partials (kept elements of b)
  index_t Q = 1;   // reduced elements per partial
};

inline fold_layout make_fold_layout(const box& b, const reduce_spec& spec, const ivec& istride) {
  fold_layout L;
  L.b = b;
  L.istride = istride;
  for (int d = 0; d < b.rank(); ++d) {
    if (spec.reduced(d)) {
      L.red[L.red.n++] = d;
      L.Q *= b.extent(d);
    } else {
      L.kept[L.kept.n++] = d;
      L.P *= b.extent(d);
    }
  }
  return L;
}

/// Folds reduced elements [q0, q1) of partial p into st, in q order (the device thread body;
/// the CPU tests run it on the host).
template <class Op, class Acc>
TESSERA_HD void fold_segment(const Op& op, const Acc& acc, const fold_layout& L, index_t p,
                             index_t q0, index_t q1, typename Op::state& st) {
  using T = typename Op::input_type;
  if (q0 >= q1) return;
  const box& b = L.b;
  ivec idx = b.lo;
  index_t rem = p;
  for (int a = L.kept.n - 1; a >= 0; --a) {
    const int d = int(L.kept[a]);
    idx[d] = b.lo[d] + rem % b.extent(d);
    rem /= b.extent(d);
  }
  if (L.red.n == 0) {  // one element per partial
    index_t g = 0;
    for (int d = 0; d < b.rank(); ++d) g += idx[d] * L.istride[d];
    op.add(st, T(element_at(acc, idx)), g);
    return;
  }
  rem = q0;
  for (int a = L.red.n - 1; a >= 0; --a) {
    const int d = int(L.red[a]);
    idx[d] = b.lo[d] + rem % b.extent(d);
    rem /= b.extent(d);
  }
  const int la = int(L.red[L.red.n - 1]);  // fastest reduced axis: walked as a line
  index_t q = q0;
  while (q < q1) {
    const index_t run = (q1 - q) < (b.hi[la] - idx[la]) ? (q1 - q) : (b.hi[la] - idx[la]);
    auto line = acc.line(idx, la, 1);
    index_t g = 0;
    for (int d = 0; d < b.rank(); ++d) g += idx[d] * L.istride[d];
    const index_t dg = L.istride[la];
    index_t j = 0;
    if constexpr (paired_line<decltype(line)>) {  // two elements per transform (normals)
      using V = typename decltype(line)::value_type;
      const int phase = line.pair_phase();
      if (phase >= 0) {
        for (; j < phase && j < run; ++j) op.add(st, T(line(j)), g + j * dg);
        if (line.pair_gap() == 1) {  // pairs (j, j + 1)
          for (; j + 1 < run; j += 2) {
            V a, b;
            line.pair(j, a, b);
            op.add(st, T(a), g + j * dg);
            op.add(st, T(b), g + (j + 1) * dg);
          }
        } else {  // pairs (j, j + 2) and (j + 1, j + 3), added in element order
          for (; j + 3 < run; j += 4) {
            V a0, a1, a2, a3;
            line.pair(j, a0, a2);
            line.pair(j + 1, a1, a3);
            op.add(st, T(a0), g + j * dg);
            op.add(st, T(a1), g + (j + 1) * dg);
            op.add(st, T(a2), g + (j + 2) * dg);
            op.add(st, T(a3), g + (j + 3) * dg);
          }
        }
      }
    }
    for (; j < run; ++j) op.add(st, T(line(j)), g + j * dg);
    q += run;
    idx[la] += run;
    for (int a = L.red.n - 1; a > 0; --a) {
      const int d = int(L.red[a]);
      if (idx[d] < b.hi[d]) break;
      idx[d] = b.lo[d];
      ++idx[int(L.red[a - 1])];
    }
  }
}

/// Sub-range [q0, q1) of segment s (of S) of a partial's Q elements, thread t of nt.
TESSERA_HD inline void segment_range(index_t Q, index_t S, index_t s, index_t t, index_t nt,
                                     index_t& q0, index_t& q1) {
  const index_t s0 = Q * s / S, s1 = Q * (s + 1) / S;
  const index_t len = s1 - s0, per = (len + nt - 1) / nt;
  q0 = s0 + t * per;
  q1 = q0 + per;
  if (q0 > s1) q0 = s1;
  if (q1 > s1) q1 = s1;
}

template <class Op>
struct merge_fn {
  Op op;
  TESSERA_HD typename Op::state operator()(const typename Op::state& a,
                                           const typename Op::state& b) const {
    typename Op::state r = a;
    op.merge(r, b);
    return r;
  }
};

inline constexpr int fold_threads = 128;

/// Block (p, s) of the P x S grid folds segment s of partial p into out[p * S + s].
template <class Op, class Acc>
__global__ void fold_kernel(Op op, Acc acc, fold_layout L, index_t S, typename Op::state* out) {
  using state = typename Op::state;
  using reduce_t = cub::BlockReduce<state, fold_threads>;
  __shared__ typename reduce_t::TempStorage tmp;
  for (index_t blk = blockIdx.x; blk < L.P * S; blk += gridDim.x) {
    const index_t p = blk / S, s = blk % S;
    index_t q0, q1;
    segment_range(L.Q, S, s, threadIdx.x, fold_threads, q0, q1);
    state st = op.identity();
    fold_segment(op, acc, L, p, q0, q1, st);
    state r = reduce_t(tmp).Reduce(st, merge_fn<Op>{op});
    if (threadIdx.x == 0) out[blk] = r;
    __syncthreads();
  }
}

/// Segments per partial: for few partials, enough thread blocks for several waves on the
/// device (one wave of equal blocks left SMs idle at its ragged end: 36% achieved occupancy
/// on an H100), at least 2048 elements per block, at most 8192 segments.
inline index_t fold_segments(index_t P, index_t Q) {
  index_t S = std::max<index_t>(1, Q / 2048);
  S = std::min<index_t>(S, 8192);
  while (S > 1 && P * S > (index_t(1) << 22)) S /= 2;
  return S;
}

}  // namespace tessera::detail::cuda_backend

