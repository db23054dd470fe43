// The host's batch sum: pairwise_sum(v, n), the sum of n <= batch_size values as a tree over
// blocks of 8 values, read in ascending order (reduce/accumulators.hpp adds each batch's sum
// into a compensated total: sums and means).
//
// The tree. The values go into blocks of 8 lanes: block b holds values 8b .. 8b + 7. When n is
// not a multiple of 8, the last block holds the last 8 values (n - 8 .. n - 1) with the lanes
// of those already in the block before it set to zero (for n < 8: values 0 .. n - 1 in lanes
// 0 .. n - 1, the rest zero). The blocks are summed lane-wise in adjacent pairs, then pairs of
// pairs, ... (a count of blocks that is not a power of two as if padded with zero blocks, which
// are not added), and the 8 lanes of the total as ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 +
// l7)). Every value passes through at most 8 additions for n <= 256 (log2 n levels), so the
// error is O(log2(batch_size) eps) and sums of 2^k blocks of equal values are exact.
//
// Why this shape (Zen 4, one thread, stored arrays summed over their last axis, rows read in
// place): the tree it replaces paired value k with value k + 128 of a 256-value batch through a
// 1 KiB buffer of halves, which the compiler read as two interleaved streams 1 KiB apart; from
// memory that ran at 0.42 ns per value (8192 x 8192) against 0.32 for amax's sequential pass.
// Here the blocks are summed as they arrive, with at most one pending partial sum per tree level
// in registers: 0.28 ns per value. No partial block is stored and then read wider (the last
// block is one load of the last 8 values and a mask), which had stalled short rows.
#pragma once
#include <bit>
#include <cstdint>
#include <type_traits>

#include "../config.hpp"

namespace tessera::reducers {

/// Element k of a batch given as a pointer (v[k]) or as a value source (v(k): an elementwise
/// op computed where it is read), as a double.
template <class V>
TESSERA_INLINE double batch_value(const V& v, index_t k) {
  if constexpr (std::is_pointer_v<V>) return double(v[k]);
  else return double(v(k));
}

namespace detail_pairwise {

inline constexpr int lanes = 8;
inline constexpr int max_blocks = int(batch_size / lanes);
static_assert(batch_size % lanes == 0 && (max_blocks & (max_blocks - 1)) == 0,
              "pairwise_sum: batch_size must be a power-of-two multiple of 8");
inline constexpr int levels = std::countr_zero(unsigned(max_blocks)) + 1;  // 2^levels > max_blocks

/// The lanes of one block combined: ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)).
template <class B>
TESSERA_INLINE double fold_lanes(const B& a) {
  double r0 = a[0] + a[4], r1 = a[1] + a[5];
  const double r2 = a[2] + a[6], r3 = a[3] + a[7];
  r0 += r2;
  r1 += r3;
  return r0 + r1;
}

/// Values 0 .. n - 1 (n < 8) in lanes 0 .. n - 1 of one block, zeros above.
template <class V>
TESSERA_INLINE double small_sum(const V& v, index_t n) {
  double a[lanes];
  for (int i = 0; i < lanes; ++i) a[i] = i < n ? batch_value(v, i) : 0.0;
  return fold_lanes(a);
}

/// Portable form of the tree (scalar lanes, recursion over block ranges): used where GNU vector
/// types are not (nvcc's host pass), and by the tests as the reference of the vector form.
template <class V>
double tree_sum(const V& v, index_t n) {
  if (n < lanes) return small_sum(v, n);
  const index_t nb = (n + lanes - 1) / lanes, full = n / lanes;
  double block[max_blocks][lanes];
  for (index_t b = 0; b < nb; ++b)
    for (int i = 0; i < lanes; ++i) {
      if (b < full) {
        block[b][i] = batch_value(v, b * lanes + i);
      } else {  // the last block: the last 8 values, those of block b - 1 zeroed
        const index_t k = n - lanes + i;
        block[b][i] = k >= full * lanes ? batch_value(v, k) : 0.0;
      }
    }
  // blocks [lo, lo + w) (w a power of two) summed in adjacent halves into block[lo]; halves
  // at or past nb are absent
  const auto sum_range = [&](auto&& self, index_t lo, index_t w) -> void {
    if (w == 1) return;
    self(self, lo, w / 2);
    if (lo + w / 2 >= nb) return;
    self(self, lo + w / 2, w / 2);
    for (int i = 0; i < lanes; ++i) block[lo][i] = block[lo][i] + block[lo + w / 2][i];
  };
  sum_range(sum_range, 0, max_blocks);
  return fold_lanes(block[0]);
}

#if defined(__GNUC__) && !defined(__CUDACC__)
#define TESSERA_PAIRWISE_VECTOR 1
using block = double __attribute__((vector_size(lanes * sizeof(double))));
using lane_mask = std::int64_t __attribute__((vector_size(lanes * sizeof(double))));

/// Block j0 / 8 (values j0 .. j0 + 7).
template <class V>
TESSERA_INLINE void load(block& x, const V& v, index_t j0) {
  if constexpr (std::is_pointer_v<V> &&
                std::is_same_v<std::remove_cv_t<std::remove_pointer_t<V>>, double>) {
    __builtin_memcpy(&x, v + j0, sizeof x);
  } else {
    double b[lanes];
    for (int i = 0; i < lanes; ++i) b[i] = batch_value(v, j0 + i);
    __builtin_memcpy(&x, b, sizeof x);
  }
}

/// The last block when n % 8 = r > 0 (n > 8): values n - 8 .. n - 1, lanes below 8 - r zeroed.
template <class V>
TESSERA_INLINE void load_last(block& x, const V& v, index_t n) {
  load(x, v, n - lanes);
  const index_t first = lanes - n % lanes;  // the first lane kept
  const lane_mask lane = {0, 1, 2, 3, 4, 5, 6, 7};
  x = block(lane_mask(x) & (lane >= first));
}
#endif

}  // namespace detail_pairwise

/// Pairwise (tree) sum of n <= batch_size values (v: a pointer to them, or a value source v(k),
/// see batch_value), the tree described at the top of this header; each value is computed
/// once, except that a last block of r < 8 values recomputes the 8 - r before them (masked out).
/// Always inlined, so it is compiled at the CPU level of the kernel that calls it
/// (core/host_isa.hpp).
template <class V>
TESSERA_INLINE double pairwise_sum(const V& v, index_t n) {
  using namespace detail_pairwise;
#if defined(TESSERA_PAIRWISE_VECTOR)
  if (n < lanes) return small_sum(v, n);
  const index_t nb = (n + lanes - 1) / lanes, full = n / lanes;
  // level(L): the sum of the latest 2^L blocks not yet paired (separate variables, not an
  // array: GCC kept an array of them on the stack)
  static_assert(levels <= 6, "pairwise_sum: batch_size above 256 needs more levels");
  block l0 = {}, l1 = {}, l2 = {}, l3 = {}, l4 = {}, l5 = {};
  const auto level = [&](int L) -> block& {
    switch (L) {
      case 0: return l0;
      case 1: return l1;
      case 2: return l2;
      case 3: return l3;
      case 4: return l4;
      default: return l5;
    }
  };
  // One block at a time, in order: block j completes the groups of 2^L blocks for each trailing
  // one bit L of j (a binary counter), so the loop, unrolled, has no run-time indexing and keeps
  // the pending sums in registers.
#pragma GCC unroll 32
  for (int j = 0; j < max_blocks; ++j) {
    if (j == nb) break;
    block x;
    if (j < full) load(x, v, index_t(j) * lanes);
    else load_last(x, v, n);
#if defined(__x86_64__) || defined(__i386__)
    // the blocks read in order: an empty asm that takes the block's first lane (no
    // instruction) keeps GCC from scheduling later blocks' loads ahead of it. Left to the
    // scheduler, stored 8192-value rows read from memory took 0.33 ns per value, in order 0.27
    // (Zen 4, one thread; in cache the two are equal)
    __asm__ volatile("" : : "x"(x[0]));
#endif
    int L = 0;
    for (; (j >> L) & 1; ++L) x = level(L) + x;
    level(L) = x;
  }
  // the groups left (the set bits of nb), smallest first: as if padded with zero blocks
  block total = {};
  bool any = false;
#pragma GCC unroll 8
  for (int L = 0; L < levels; ++L)
    if ((nb >> L) & 1) {
      total = any ? level(L) + total : level(L);
      any = true;
    }
  return fold_lanes(total);
#else
  return tree_sum(v, n);
#endif
}

}  // namespace tessera::reducers
