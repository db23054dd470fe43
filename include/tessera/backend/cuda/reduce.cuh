// Reductions on the CUDA backend: execute_reduction(const cuda&, ...) (found by
// argument-dependent lookup from reduction::lower). One fused fold kernel per INPUT chunk:
// thread blocks fold contiguous segments of the chunk's reduced elements for one output
// element each (every thread a contiguous sub-range; the thread states are combined by a CUB
// block reduce, a fixed tree that keeps operand order, of the same accumulator state the host
// uses); the segment partials of a chunk are
// merged in order on the host, and the per-chunk partials go through the same fixed combine
// tree (fan-in split_every) as the host path. The schedule depends only on the chunking, so
// results are bitwise identical run to run.
#pragma once
#include <cub/block/block_reduce.cuh>

#include <memory>
#include <vector>

#include "../../reduce/reduction.hpp"
#include "evaluate.cuh"

namespace tessera::detail::cu {

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
    for (index_t j = 0; j < run; ++j) op.add(st, T(line(j)), g + j * dg);
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

/// Segments per partial: enough thread blocks to fill the devices for few partials, at least
/// 4096 elements per block, at most 1024 segments.
inline index_t fold_segments(index_t P, index_t Q) {
  index_t S = std::max<index_t>(1, Q / 4096);
  S = std::min<index_t>(S, 1024);
  while (S > 1 && P * S > (index_t(1) << 22)) S /= 2;
  return S;
}

}  // namespace tessera::detail::cu

namespace tessera {

/// Runs a reduction of the lowered expression `e` on the policy's devices (see the top of
/// this file); the result is a host ts::array, as on the host backend.
template <class Op, class E>
array<typename Op::result_type> execute_reduction(const cuda& pol, const E& e, const Op& op,
                                                  const reduce_spec& spec,
                                                  const chunk_grid& out_grid) {
  using R = typename Op::result_type;
  using state = typename Op::state;
  namespace cu = detail::cu;
  const auto devs = cu::policy_devices(pol);
  array<R> out(out_grid);
  if (out_grid.size() == 0) return out;

  const detail::reduction_plan plan(e.grid(), spec);
  const index_t nK = plan.nK, nR = plan.nR;
  for (index_t k = 0; k < nK; ++k) out.block_data(k);
  const ivec& istride = plan.istride;
  auto task_box = [&](index_t t) { return plan.task_box(t); };
  const index_t ntask = nK * nR;
  // Per-task partials (arrays, not std::vector: a bool state must stay addressable).
  std::vector<std::unique_ptr<state[]>> parts(static_cast<std::size_t>(ntask));

  // Assignment: by work and where device-resident inputs live.
  std::vector<std::int64_t> work(static_cast<std::size_t>(ntask));
  std::vector<std::vector<std::int64_t>> affinity(static_cast<std::size_t>(ntask));
  for (index_t t = 0; t < ntask; ++t) {
    const box bx = task_box(t);
    work[std::size_t(t)] = bx.count();
    if (bx.count() == 0) continue;
    cu::probe_context probe;
    (void)e.bind(bx, probe);
    auto& a = affinity[std::size_t(t)];
    a.assign(devs.size(), 0);
    for (std::size_t k = 0; k < devs.size(); ++k)
      if (std::size_t(devs[k]) < probe.bytes.size()) a[k] = probe.bytes[std::size_t(devs[k])];
  }
  const auto assignment = cu::assign_blocks(work, affinity, int(devs.size()));

  cu::run_on_devices(
      devs, pol.streams_per_device, cu::blocks_per_device(assignment, devs.size()),
      [&](int dev, cu::stream_slot& slot, index_t t) -> std::function<void()> {
        const box bx = task_box(t);
        const cu::fold_layout L = cu::make_fold_layout(bx, spec, istride);
        auto& part = parts[std::size_t(t)];
        part.reset(new state[std::size_t(std::max<index_t>(L.P, 1))]);
        for (index_t p = 0; p < L.P; ++p) part[std::size_t(p)] = op.identity();
        if (bx.count() == 0) return {};
        const index_t S = cu::fold_segments(L.P, L.Q);
        state* h = nullptr;
        {
          cu::device_context ctx(dev, slot.stream, slot.arena);
          auto acc = e.bind(bx, ctx);
          state* d = ctx.template device_scratch<state>(L.P * S);
          const index_t blocks = std::min<index_t>(L.P * S, index_t(1) << 20);
          cu::fold_kernel<<<unsigned(blocks), cu::fold_threads, 0, slot.stream>>>(op, acc, L, S, d);
          TESSERA_CUDA_CHECK(cudaGetLastError());
          h = ctx.template pinned<state>(L.P * S);
          TESSERA_CUDA_CHECK(cudaMemcpyAsync(h, d, std::size_t(L.P * S) * sizeof(state),
                                             cudaMemcpyDeviceToHost, slot.stream));
        }
        return [h, S, p_out = part.get(), op, P = L.P] {
          for (index_t p = 0; p < P; ++p) {
            state st = h[p * S];
            for (index_t s = 1; s < S; ++s) op.merge(st, h[p * S + s]);
            p_out[p] = st;
          }
        };
      });

  // The host's combine tree: fan-in split_every over R, children merged left to right.
  const index_t fan = spec.split_every;
  for (index_t K = 0; K < nK; ++K) {
    const index_t P = out_grid.block_box(K).count();
    std::vector<state*> level;
    for (index_t R_ = 0; R_ < nR; ++R_) level.push_back(parts[std::size_t(K * nR + R_)].get());
    while (level.size() > 1) {
      std::vector<state*> next;
      for (std::size_t i = 0; i < level.size(); i += std::size_t(fan)) {
        state* a = level[i];
        for (std::size_t k = i + 1; k < std::min(level.size(), i + std::size_t(fan)); ++k)
          for (index_t j = 0; j < P; ++j) op.merge(a[j], level[k][j]);
        next.push_back(a);
      }
      level.swap(next);
    }
    R* dst = out.block_data(K);
    for (index_t j = 0; j < P; ++j) dst[j] = op.finalize(level[0][j]);
  }
  return out;
}

}  // namespace tessera
