// The host's reduction body: folds one input box, row by row in batches, into per-output-element
// partial states (never materializing the box), at the CPU's instruction-set level
// (core/host_isa.hpp).
#pragma once
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "../../reduce/spec.hpp"
#include "kernel.hpp"

namespace tessera::detail {

/// Ops with add_rows(p, rows, nr, m): fold rows[k][e] (k < nr) into partials p[e], e < m, one
/// column per partial (reduce/accumulators.hpp).
template <class Op>
concept row_folding_op =
    requires(const Op& op, typename Op::state* p, const typename Op::input_type* const* v) {
      op.add_rows(p, v, 1, index_t(1));
    };

/// Ops with add_rows(p, rows, nr, m, idx0, didx): as above, row k's elements having index
/// idx0 + k didx (argmin / argmax over one axis).
template <class Op>
concept indexed_row_folding_op =
    requires(const Op& op, typename Op::state* p, const typename Op::input_type* const* v) {
      op.add_rows(p, v, 1, index_t(1), index_t(0), index_t(1));
    };

/// A last-axis fold of line L that takes its values as they are computed (sums and means of an
/// elementwise op: elementwise_line::with_values, reducers' add_values) instead of through a
/// batch buffer.
template <class Op, class L>
concept folds_values = requires(const L& l, const Op& op, typename Op::state& st,
                                typename Op::input_type* buf, void (*f)(const typename Op::input_type*)) {
  l.with_values(index_t(0), index_t(1), buf, f);
  op.add_values(st, static_cast<const typename Op::input_type*>(buf), index_t(1));
};

/// Whether fold_row_groups evaluates runs of chunks (run_accessor) in short row pieces too:
/// Op::short_pieces_in_runs where the op sets it (sum and mean: a plain column sum keeps up with
/// the short pieces' extra lines), else false.
template <class Op>
constexpr bool short_pieces_in_runs_of() {
  if constexpr (requires { Op::short_pieces_in_runs; }) return Op::short_pieces_in_runs;
  else return false;
}

/// Whether Op::add_batch gives the same state for a row in one call as batch by batch
/// (Op::any_batch_length: the extremes and their indices, not the sums, whose batches are
/// pairwise trees): then fold_box passes a stored row's rest in one call.
template <class Op>
constexpr bool any_batch_length_of() {
  if constexpr (requires { Op::any_batch_length; }) return Op::any_batch_length;
  else return false;
}

/// Whether the last-axis fold prefetches stored memory two batches ahead (fold_box). Measured
/// per CPU: on Zen 5 it doubled a stored sum's streaming rate when the batch sum read each batch
/// as two streams, and lifted variance's sequential pass 5.8 -> 8.6 GB/s (2026-11-27); on Zen 4
/// (AMD family 19h with AVX-512), with the batch sum read in order, it only slowed every fold:
/// one thread, stored 8192^2, ns per element, mean 0.31 -> 0.28, variance 0.37 -> 0.30, amax
/// 0.33 -> 0.27, argmax 0.45 -> 0.37 without it (2026-11-29, docs/benchmarks.md). Off there,
/// on elsewhere (CPUs not measured keep it); TESSERA_FOLD_PREFETCH=0 / 1 in the environment
/// decides instead (read once).
inline bool fold_prefetches() {
  static const bool on = [] {
    if (const char* e = std::getenv("TESSERA_FOLD_PREFETCH"); e && *e) {
      const std::string_view v(e);
      if (v == "0") return false;
      if (v == "1") return true;
      throw std::invalid_argument("TESSERA_FOLD_PREFETCH: expected 0 or 1, got '" +
                                  std::string(v) + "'");
    }
#if TESSERA_X86_LEVELS
    __builtin_cpu_init();
    if (__builtin_cpu_is("amdfam19h") && __builtin_cpu_supports("avx512f")) return false;  // Zen 4
#endif
    return true;
  }();
  return on;
}

template <class Acc>
struct run_accessor;  // exec/chunk_run.hpp
template <class Acc>
struct is_run_accessor : std::false_type {};
template <class Acc>
struct is_run_accessor<run_accessor<Acc>> : std::true_type {};

/// Rows per group of fold_row_groups: Op::row_group where the op sets it, else 16. Each group
/// ends in one partial update per column (a compensated add, a Chan merge); the rows inside a
/// group are combined in plain arithmetic, so the group size is the op's precision choice too.
template <class Op>
constexpr int row_group_of() {
  if constexpr (requires { Op::row_group; }) return Op::row_group;
  else return 16;
}

/// fold_box when the last axis is kept and some earlier axis `axis` reduced (a sum over axis 0
/// of a matrix, or of a 3-d array): up to `group` consecutive rows along `axis` go into the same
/// row of partials, so they are evaluated into a [group x span] block (each row piece one
/// sequential read; stored rows are read in place) and folded column-wise by the op's add_rows:
/// one partial update per column and group instead of one per element. Every partial still
/// receives its elements in row-major order of the reduced indices (`axis` is the innermost
/// reduced one, and the rows outside it are walked in row-major order).
/// When the axis before the last is kept too, consecutive rows along it are consecutive in the
/// partials and (in a stored chunk) in memory: up to `span` elements of them are folded as one
/// long row. The rows of a group are often a power of two apart (2 MiB in a 16 x 512 x 512
/// chunk); read in step, a few KiB at a time, they compete for the same cache sets and their
/// prefetched lines are evicted before use (measured: half the streaming rate), so each row's
/// piece is made long (16-32 KiB). `group` is row_group_of<Op>() (the block [group x span]
/// stays 64 Ki elements, 512 KiB of doubles, whatever the group).
/// A group whose rows are all read in place goes to the op's add_rows as `in_memory` (short
/// such rows are folded one per pass: reduce/accumulators.hpp, one_row_pass_columns).
/// Indexed ops (argmin / argmax) get each row's element index: `istride` is the index step per
/// input axis, zero on the kept ones (fold_box checks).
template <class Op, class Acc>
void fold_row_groups(const Op& op, const Acc& acc, const box& b, const ivec& pstride,
                     const ivec& istride, int axis, typename Op::state* part) {
  using T = typename Op::input_type;
  constexpr int group = row_group_of<Op>();
  // Rows that are evaluated into the block (not read in place), 16 to a group: pieces of half
  // a batch, so the [16 x 128] block (16 KiB of doubles) stays in L1 between its fill and the
  // column pass (Zen 5, one thread, lazy sums over axis 0 in pieces of a batch: 2-d in 4096^2
  // chunks 6.6 -> 5.1 ms, 1024^2 7.3 -> 6.2-6.8, 3-d 7.9 -> 6.9; half a batch, for Zen 4's 32
  // KiB L1: 2-d 0.206 -> 0.194 ns per element); each row's line is made once per group, not
  // once per piece. For runs of chunks (run_accessor) only where the op asks for it
  // (short_pieces_in_runs_of: sums and means; a line per group; Zen 4, one thread, lazy
  // `full * 2` summed over axis 0, best of 30, alternately: 64 x 1024 x 1024 in 16 x 512 x 512
  // chunks 0.214-0.217 -> 0.191-0.193 ns per element, 8192^2 in 16 x 8192 chunks 0.217-0.221 ->
  // 0.185-0.188; amax 0.230-0.231 -> 0.246-0.255, and with a line per piece sums had been slower
  // too: 8.7 -> 9.9 ms, Zen 5); not for the 32-row variance groups (no gain).
  using line_type = decltype(acc.line(std::declval<const ivec&>(), 0, index_t(1)));
  constexpr bool in_place = requires(const line_type& l) { l.contiguous(index_t(0)); };
  constexpr bool short_pieces = !in_place && (!is_run_accessor<Acc>::value || short_pieces_in_runs_of<Op>()) && group == 16;
  constexpr index_t max_span = short_pieces ? batch_size / 2 : 16 * 16 * batch_size / group;  // group * max_span: 64 Ki
  const int r = b.rank(), last = r - 1;
  const index_t n = b.extent(last), rows = b.extent(axis);
  // The kept axis before the last whose rows are folded together (-1: none).
  const int flat = last - 1 > axis && pstride[last - 1] == n ? last - 1 : -1;
  const index_t per = flat >= 0 ? std::max<index_t>(1, std::min(b.extent(flat), max_span / n)) : 1;
  const index_t span = per > 1 ? per * n : std::min(n, max_span);
  std::unique_ptr<T[]> block;  // rows that are not in memory already (allocated when needed)
  std::optional<line_type> lines[group];  // (rows not in place, one row per piece: the group's lines)
  // the block's rows a few cache lines more than span apart: span is often a power of two, and
  // rows that far apart map to the same L1 sets (a pass over eight of them missed: lazy 3-d
  // amax over axis 0 0.28 -> 0.24 ns per element, Zen 4, one thread)
  const index_t row_stride = span + index_t(192 / sizeof(T));
  box outer = b;  // one row per group start: `axis` walked below, and `flat` in steps of `per`
  outer.hi[axis] = outer.lo[axis] + 1;
  if (flat >= 0) outer.hi[flat] = outer.lo[flat] + 1;
  const index_t flat_lo = flat >= 0 ? b.lo[flat] : 0, flat_hi = flat >= 0 ? b.hi[flat] : 1;
  for_each_row(outer, pstride, [&](const ivec& start0, index_t off0) {
    index_t idx0 = 0;  // indexed ops: the index of the row at start0 (kept axes step 0)
    if constexpr (indexed_row_folding_op<Op>)
      for (int d = 0; d < r; ++d) idx0 += start0[d] * istride[d];
    for (index_t f0 = flat_lo; f0 < flat_hi; f0 += per) {
      const index_t nf = std::min(per, flat_hi - f0);  // rows along `flat` in this piece
      const index_t len = nf * n, off = off0 + (f0 - flat_lo) * n;
      for (index_t g0 = 0; g0 < rows; g0 += group) {
        const int gr = int(std::min<index_t>(group, rows - g0));
        const auto row_start = [&](int k) {
          ivec start = start0;
          start[axis] += g0 + k;
          if (flat >= 0) start[flat] = f0;
          return start;
        };
        if constexpr (!in_place)  // one line per row of the group, for all its pieces
          if (nf == 1)
            for (int k = 0; k < gr; ++k) lines[k].emplace(acc.line(row_start(k), last, 1));
        for (index_t c0 = 0; c0 < len; c0 += span) {
          const index_t m = std::min(span, len - c0);
          const T* rowp[group];
          int stored_rows = 0;  // rows read in place
          for (int k = 0; k < gr; ++k) {
            if constexpr (in_place) {  // stored rows: read in place
              const ivec start = row_start(k);
              const auto line = acc.line(start, last, 1);
              if (nf == 1) {
                // (no software prefetch of the row's next piece, here or below: the group's
                // rows are long sequential reads the hardware prefetcher follows; prefetches
                // only filled the miss queue, neutral on Zen 5 and 5-12% slower on Zen 4, one
                // thread and two: 3-d stored sum, variance, amax and wide 2-d variance)
                if ((rowp[k] = line.contiguous(c0))) {
                  ++stored_rows;
                  continue;
                }
              } else if (const T* p0 = line.contiguous(0)) {
                ivec end = start;  // in place when the nf rows are consecutive in memory
                end[flat] += nf - 1;
                if (acc.line(end, last, 1).contiguous(0) == p0 + (nf - 1) * n) {
                  rowp[k] = p0;
                  ++stored_rows;
                  continue;
                }
              }
            }
            if (!block) block.reset(new T[std::size_t(group * row_stride)]);
            T* row = block.get() + k * row_stride;
            const auto fill = [&](const line_type& l, index_t j1, index_t w, T* out) {
              for (index_t j0 = 0; j0 < w; j0 += batch_size) l.fill(j1 + j0, std::min(batch_size, w - j0), out + j0);
            };
            if (!in_place && nf == 1) {
              fill(*lines[k], c0, m, row);  // the piece c0 .. c0 + m of the row
            } else {
              const ivec start = row_start(k);
              for (index_t q = 0; q < nf; ++q) {  // (nf == 1: the piece c0 .. c0 + m of one row)
                ivec at = start;
                if (flat >= 0) at[flat] += q;
                const index_t j1 = nf == 1 ? c0 : 0, w = nf == 1 ? m : n;
                fill(acc.line(at, last, 1), j1, w, row + q * n);
              }
            }
            rowp[k] = row;
          }
          if constexpr (indexed_row_folding_op<Op>) {
            const index_t i0 = idx0 + g0 * istride[axis], di = istride[axis];
            if constexpr (requires { op.add_rows(part, rowp, gr, m, i0, di, true); })
              op.add_rows(part + off + c0, rowp, gr, m, i0, di, stored_rows == gr);  // (in_memory)
            else op.add_rows(part + off + c0, rowp, gr, m, i0, di);
          } else if constexpr (requires { op.add_rows(part, rowp, gr, m, true); }) {
            op.add_rows(part + off + c0, rowp, gr, m, stored_rows == gr);  // (in_memory)
          } else {
            op.add_rows(part + off + c0, rowp, gr, m);
          }
        }
      }
    }
  });
}

/// Folds the rows of input box `b` (accessor `acc`) into partial states `part`, laid out
/// row-major over the kept axes of b.
template <class Op, class Acc>
void fold_box(const Op& op, const Acc& acc, const box& b, const reduce_spec& spec,
              const ivec& istride, typename Op::state* part) {
  using T = typename Op::input_type;
  const int r = b.rank();
  if (r == 0) {
    op.add(part[0], T(acc.line(b.lo, -1, 0)(0)), 0);  // host code: not element_at (HD)
    return;
  }
  const bool prefetch = fold_prefetches();
  run_host_kernel<dispatched_kernel<Acc>>([&] {
    ivec pstride;  // partial offset per input axis (0 on reduced axes)
    pstride.n = r;
    index_t s = 1;
    for (int d = r - 1; d >= 0; --d) {
      if (spec.reduced(d)) pstride[d] = 0;
      else {
        pstride[d] = s;
        s *= b.extent(d);
      }
    }
    const int last = r - 1;
    const index_t n = b.extent(last);
    const bool last_reduced = spec.reduced(last);
    const index_t didx = istride[last];
    if constexpr (row_folding_op<Op> || indexed_row_folding_op<Op>) {
      bool rows_ok = !last_reduced;
      if constexpr (indexed_row_folding_op<Op>)  // one index per row: no index step on kept axes
        for (int d = 0; d < r; ++d) rows_ok &= spec.reduced(d) || istride[d] == 0;
      if (rows_ok) {
        int axis = last - 1;  // the innermost reduced axis that has more than one row
        while (axis >= 0 && !(spec.reduced(axis) && b.extent(axis) > 1)) --axis;
        if (axis >= 0) {
          fold_row_groups(op, acc, b, pstride, istride, axis, part);
          return;
        }
      }
    }
    for_each_row(b, pstride, [&](const ivec& start, index_t off) {
      auto line = acc.line(start, last, 1);
      index_t idx0 = 0;
      for (int d = 0; d < r; ++d) idx0 += start[d] * istride[d];
      alignas(64) T buf[batch_size];
      for (index_t j0 = 0; j0 < n; j0 += batch_size) {
        const index_t m = std::min(batch_size, n - j0);
        // (as much as this batch reads: rows shorter than a batch had prefetched a whole
        // batch's lines each, 32 per row of 100, a fifth of argmax's samples over such rows)
        if (prefetch) prefetch_line(line, j0 + prefetch_distance, m);
        // Stored rows are read in place (with the prefetch above, Zen 5: as fast as copying
        // them into L1 first, 2026-11-27); other lines are evaluated into buf, per element when
        // they have no batched fill. (The per-element copy of a stored row, with its stride a
        // run-time value, had stayed a scalar loop in the dispatched kernel copies of a plain
        // build: 16 against 28 GB/s for ts::sum of a stored array, one core, Zen 5.)
        const T* src = nullptr;
        if constexpr (requires { line.contiguous(j0); }) src = line.contiguous(j0);
        if constexpr (folds_values<Op, decltype(line)>) {  // an elementwise op, read by the fold
          if (last_reduced) {
            line.with_values(j0, m, buf, [&](const auto& values) { op.add_values(part[off], values, m); });
            continue;
          }
        }
        if (!src) {
          if constexpr (std::remove_cvref_t<decltype(line)>::batched) line.fill(j0, m, buf);
          else
            for (index_t k = 0; k < m; ++k) buf[k] = line(j0 + k);
          src = buf;
        }
        if constexpr (any_batch_length_of<Op>()) {
          // the rest of a stored row at once (the fold's per-batch steps, a lane fold and a
          // state update, cost argmax over rows of 1000 doubles a fifth of its time: 0.32 ->
          // 0.26 ns per element, 8192 0.33 -> 0.27, amax 0.27 -> 0.26; Zen 4, one thread);
          // batch by batch where the fold prefetches (and for rows past 2^30 elements: the
          // float ops' lane indices are 32-bit)
          if (last_reduced && src != buf && !prefetch && n - j0 <= (index_t(1) << 30)) {
            op.add_batch(part[off], src, n - j0, idx0 + j0 * didx, didx);
            break;
          }
        }
        if (last_reduced) {
          op.add_batch(part[off], src, m, idx0 + j0 * didx, didx);
        } else {
          typename Op::state* p = part + off + j0;
          for (index_t k = 0; k < m; ++k) op.add(p[k], src[k], idx0);
        }
      }
    });
  });
}

}  // namespace tessera::detail
