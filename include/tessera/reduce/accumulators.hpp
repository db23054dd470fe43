// Per-element reduction accumulators: plain-data states with TESSERA_HD fold / merge /
// finalize, shared by the host fold (backend/host/fold.hpp) and a device block reduce.
//
// Every op Op<T> (T = input element type) provides
//   state                          plain data, one per output element of a partial
//   identity()                     the empty partial
//   add(state&, v, idx)            folds one element (idx: its index for argmin/argmax)
//   merge(state& a, const state& b)   a := a (+) b, where a covers the earlier elements
//   finalize(const state&)         the output element (uses count / ddof members)
//   add_batch(state&, buf, n, idx0, didx)   host: folds n contiguous values (the k-th has
//                                  index idx0 + k*didx) into one state; vectorizable
// and sum / mean also
//   add_values(state&, values, n)  host: as add_batch, the k-th value being values(k), computed
//                                  where it is read (an elementwise op folded without a buffer
//                                  pass between: backend/host/fold.hpp)
// Numerics: float sums add per-batch pairwise sums into a Neumaier-compensated total, so the
// error does not grow with the element count; variance uses (n, mean, M2) with Chan's merge;
// integer sums/products wrap in 64 bits (int64 result, uint64 for unsigned inputs), as NumPy.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "../config.hpp"
#include "../core/host_isa.hpp"
#include "../core/math.hpp"
#include "pairwise_sum.hpp"

namespace tessera {

/// Result element types (NumPy's rules).
template <class T>
using sum_result_t = std::conditional_t<
    std::is_floating_point_v<T>, T,
    std::conditional_t<std::is_unsigned_v<T> && !std::is_same_v<T, bool>, std::uint64_t,
                       std::int64_t>>;
template <class T>
using mean_result_t = std::conditional_t<std::is_floating_point_v<T>, T, double>;

namespace reducers {

/// Parameters every op carries (plain data).
struct params {
  index_t count = 0;  // elements reduced into each output element
  index_t ddof = 0;   // variance / stddev
};

/// Neumaier-compensated running sum. The rounding error of each s + x comes from Knuth's
/// TwoSum: exact, as Neumaier's branch on |s| >= |x| is (the same c, bitwise, for finite sums),
/// but branch-free, so loops over many sums vectorize.
template <class F>
struct compensated {
  F s = 0, c = 0;
  TESSERA_HD void add(F x) {
    const F t = s + x;
    const F z = t - s;
    c += (s - (t - z)) + (x - z);
    s = t;
  }
  TESSERA_HD void merge(const compensated& o) {
    add(o.s);
    c += o.c;
  }
  /// s + c, except when s is inf or NaN (then c is meaningless).
  TESSERA_HD F value() const { return (s - s == F(0)) ? s + c : s; }
};

// Column-wise row folds. Each takes the rows v[0..nr) and runs them four at a time through
// one loop along the row, adding in row order: s = (((s + q0) + q1) + q2) + q3 rounds exactly as
// four separate passes would, with a quarter of the loads and stores of s. The row loops carry
// TESSERA_NO_UNROLL_AND_JAM (config.hpp): jammed by GCC at -O3, the second row was read through
// per-element address arithmetic, a scalar gather.

/// Walks rows v[k] + c0 for k0 <= k < nr: four(q0, q1, q2, q3) for each run of four rows (in
/// order), then one(q) for each row left. Each call is one pass along the rows, behind an empty
/// asm that keeps GCC from jamming two passes together.
template <class T, class Four, class One>
TESSERA_INLINE void for_rows_by_four(const T* const* v, int k0, int nr, index_t c0, Four&& four,
                                     One&& one) {
  int k = k0;
  for (; k + 4 <= nr; k += 4) {
    TESSERA_NO_UNROLL_AND_JAM();
    four(v[k] + c0, v[k + 1] + c0, v[k + 2] + c0, v[k + 3] + c0);
  }
  for (; k < nr; ++k) {
    TESSERA_NO_UNROLL_AND_JAM();
    one(v[k] + c0);
  }
}

/// Rows the host's fold reads where they are stored (`in_memory`: a stored chunk's rows, not
/// rows it evaluated into a block in L1) of at most this many columns are folded one row per
/// pass (sum_rows, shifted_moment_sums, extremum::add_rows, argext::add_rows_keyed): the same
/// operations in the same order as passes over four or eight rows, which keep the partial sums'
/// loads and stores down but, on short rows in memory, read several rows of a few cache lines
/// each in step, which the hardware prefetcher does not follow. Tall, narrow stored arrays reduced over axis 0 (Zen 4,
/// one thread, 800 MB, rows of 100 doubles): mean 0.90 -> 0.46 ns per element, amax 1.06 ->
/// 0.41; rows of 400 0.55 -> 0.45, of 1000 0.42 -> 0.41. Rows in L1 keep the wider passes
/// (lazy sums over axis 0 in pieces of 128: 0.19 ns per element, 0.23 in passes of one).
inline constexpr index_t one_row_pass_columns = 1024;

/// s[e] = sum over k < nr of q_k[e] in k order (e < w): one batch of column sums.
/// The first pass takes rows 0..3 (s = ((q0 + q1) + q2) + q3, the same roundings as copying
/// row 0 and adding the rest), so 16 rows are four passes over s, not a copy, three passes of
/// four and three single rows.
template <class T>
TESSERA_INLINE void sum_rows(double* __restrict s, const T* const* v, int nr, index_t c0,
                             index_t w, bool in_memory) {
  if (in_memory && w <= one_row_pass_columns) {  // short rows in memory: one per pass
    const T* __restrict q = v[0] + c0;
    for (index_t e = 0; e < w; ++e) s[e] = double(q[e]);
    for (int k = 1; k < nr; ++k) {
      TESSERA_NO_UNROLL_AND_JAM();
      const T* __restrict r = v[k] + c0;
      for (index_t e = 0; e < w; ++e) s[e] += double(r[e]);
    }
    return;
  }
  // four rows into s, or (First) four rows starting s
  const auto four = [&]<bool First>(std::bool_constant<First>, const T* __restrict q0,
                                    const T* __restrict q1, const T* __restrict q2,
                                    const T* __restrict q3) {
    for (index_t e = 0; e < w; ++e) {
      const double a = First ? double(q0[e]) : s[e] + double(q0[e]);
      s[e] = ((a + double(q1[e])) + double(q2[e])) + double(q3[e]);
    }
  };
  int k0 = 1;
  if (nr >= 4) {
    TESSERA_NO_UNROLL_AND_JAM();
    four(std::true_type{}, v[0] + c0, v[1] + c0, v[2] + c0, v[3] + c0);
    k0 = 4;
  } else {
    const T* __restrict q = v[0] + c0;
    for (index_t e = 0; e < w; ++e) s[e] = double(q[e]);
  }
  for_rows_by_four(
      v, k0, nr, c0,
      [&](const T* q0, const T* q1, const T* q2, const T* q3) {
        four(std::false_type{}, q0, q1, q2, q3);
      },
      [&](const T* __restrict q) {
        for (index_t e = 0; e < w; ++e) s[e] += double(q[e]);
      });
}

/// Columns the add_rows folds take per pass along a row: long enough for each row to be one
/// sequential read of 16 KiB (rows of a group read in step a few KiB at a time compete for the
/// same cache sets when they are a power of two apart: backend/host/fold.hpp).
inline constexpr index_t column_batch = 8 * batch_size;

/// p[e].add(sum of v[k][e] over k < nr, in k order) for e < m: the column sums of nr rows,
/// vectorized across columns (host; in_memory: one_row_pass_columns).
template <class T>
inline void column_sums(compensated<double>* p, const T* const* v, int nr, index_t m, bool in_memory) {
  alignas(64) double s[column_batch];
  for (index_t c0 = 0; c0 < m; c0 += column_batch) {
    const index_t w = m - c0 < column_batch ? m - c0 : column_batch;
    sum_rows(s, v, nr, c0, w, in_memory);
    for (index_t e = 0; e < w; ++e) p[c0 + e].add(s[e]);
  }
}

/// s[e] = sum over k < nr of d, m2[e] = sum of d^2, d = q_k[e] - shift[e], in k order (e < w):
/// variance's one pass over a group of rows. Rows 0..3 start the sums (no pass that zeroes
/// them; the same values).
template <class T>
TESSERA_INLINE void shifted_moment_sums(double* __restrict s, double* __restrict m2,
                                        const double* __restrict shift, const T* const* v,
                                        int nr, index_t c0, index_t w, bool in_memory) {
  // short rows in memory: one per pass (half as many columns as sums: each pass loads and
  // stores two arrays; rows of 800 and 1000 doubles were slower in passes of one, 400 faster)
  if (in_memory && w <= one_row_pass_columns / 2 && nr > 0) {
    const T* __restrict q = v[0] + c0;
    for (index_t e = 0; e < w; ++e) {
      const double d = double(q[e]) - shift[e];
      s[e] = d;
      m2[e] = d * d;
    }
    for (int k = 1; k < nr; ++k) {
      TESSERA_NO_UNROLL_AND_JAM();
      const T* __restrict r = v[k] + c0;
      for (index_t e = 0; e < w; ++e) {
        const double d = double(r[e]) - shift[e];
        s[e] += d;
        m2[e] += d * d;
      }
    }
    return;
  }
  // four rows into s and m2, or (First) four rows starting them
  const auto four = [&]<bool First>(std::bool_constant<First>, const T* __restrict q0,
                                    const T* __restrict q1, const T* __restrict q2,
                                    const T* __restrict q3) {
    for (index_t e = 0; e < w; ++e) {
      const double h = shift[e];
      const double d0 = double(q0[e]) - h, d1 = double(q1[e]) - h;
      const double d2 = double(q2[e]) - h, d3 = double(q3[e]) - h;
      const double a = First ? d0 : s[e] + d0, b = First ? d0 * d0 : m2[e] + d0 * d0;
      s[e] = ((a + d1) + d2) + d3;
      m2[e] = ((b + d1 * d1) + d2 * d2) + d3 * d3;
    }
  };
  // eight rows into s and m2 (First: starting them); the same roundings as two passes of four,
  // with half the loads and stores of s, m2 and shift
  const auto eight = [&]<bool First>(std::bool_constant<First>, const T* const* q) {
    const T* __restrict q0 = q[0] + c0;
    const T* __restrict q1 = q[1] + c0;
    const T* __restrict q2 = q[2] + c0;
    const T* __restrict q3 = q[3] + c0;
    const T* __restrict q4 = q[4] + c0;
    const T* __restrict q5 = q[5] + c0;
    const T* __restrict q6 = q[6] + c0;
    const T* __restrict q7 = q[7] + c0;
    for (index_t e = 0; e < w; ++e) {
      const double h = shift[e];
      const double d0 = double(q0[e]) - h, d1 = double(q1[e]) - h;
      const double d2 = double(q2[e]) - h, d3 = double(q3[e]) - h;
      const double d4 = double(q4[e]) - h, d5 = double(q5[e]) - h;
      const double d6 = double(q6[e]) - h, d7 = double(q7[e]) - h;
      const double a = First ? d0 : s[e] + d0, b = First ? d0 * d0 : m2[e] + d0 * d0;
      s[e] = ((((((a + d1) + d2) + d3) + d4) + d5) + d6) + d7;
      m2[e] = ((((((b + d1 * d1) + d2 * d2) + d3 * d3) + d4 * d4) + d5 * d5) + d6 * d6) + d7 * d7;
    }
  };
  int k0 = 0;
  if (nr >= 8) {
    TESSERA_NO_UNROLL_AND_JAM();
    eight(std::true_type{}, v);
    for (k0 = 8; k0 + 8 <= nr; k0 += 8) {
      TESSERA_NO_UNROLL_AND_JAM();
      eight(std::false_type{}, v + k0);
    }
  } else if (nr >= 4) {
    TESSERA_NO_UNROLL_AND_JAM();
    four(std::true_type{}, v[0] + c0, v[1] + c0, v[2] + c0, v[3] + c0);
    k0 = 4;
  } else {
    for (index_t e = 0; e < w; ++e) s[e] = m2[e] = 0;
  }
  for_rows_by_four(
      v, k0, nr, c0,
      [&](const T* q0, const T* q1, const T* q2, const T* q3) {
        four(std::false_type{}, q0, q1, q2, q3);
      },
      [&](const T* __restrict q) {
        for (index_t e = 0; e < w; ++e) {
          const double d = double(q[e]) - shift[e];
          s[e] += d;
          m2[e] += d * d;
        }
      });
}

template <class T>
inline constexpr bool is_float = std::is_floating_point_v<T>;

// ---------------------------------------------------------------- sum / mean
template <class T>
struct sum : params {
  using input_type = T;
  using result_type = sum_result_t<T>;
  static constexpr bool float_acc = is_float<T>;
  using acc_t = std::conditional_t<float_acc, double, std::uint64_t>;  // ints wrap mod 2^64
  using state = std::conditional_t<float_acc, compensated<double>, acc_t>;
  /// The host's column fold evaluates runs of thin chunks in short row pieces that stay in L1
  /// (backend/host/fold.hpp, short_pieces_in_runs_of): a column sum keeps up with them.
  static constexpr bool short_pieces_in_runs = true;

  TESSERA_HD state identity() const { return state{}; }
  TESSERA_HD void add(state& st, T v, index_t) const {
    if constexpr (float_acc) st.add(double(v));
    else st += acc_t(v);
  }
  TESSERA_HD void merge(state& a, const state& b) const {
    if constexpr (float_acc) a.merge(b);
    else a += b;
  }
  TESSERA_HD result_type finalize(const state& st) const {
    if constexpr (float_acc) return result_type(st.value());
    else return result_type(st);
  }
  /// Rows v[k], k < nr, into p[e], e < m: each column summed in row order, then added to its
  /// compensated partial (host; the fold over a non-last axis; in_memory: the rows are where
  /// they are stored, one_row_pass_columns).
  void add_rows(state* p, const T* const* v, int nr, index_t m, bool in_memory = false) const
    requires float_acc
  {
    column_sums(p, v, nr, m, in_memory);
  }
  void add_batch(state& st, const T* v, index_t n, index_t, index_t) const {
    if constexpr (float_acc) st.add(pairwise_sum(v, n));
    else {
      acc_t s = 0;
      for (index_t k = 0; k < n; ++k) s += acc_t(v[k]);
      st += s;
    }
  }
  /// As add_batch, the k-th value being values(k) (pairwise_sum; float sums only).
  template <class V>
  void add_values(state& st, const V& values, index_t n) const
    requires float_acc
  {
    st.add(pairwise_sum(values, n));
  }
};

template <class T>
struct mean : params {
  using input_type = T;
  using result_type = mean_result_t<T>;
  using state = compensated<double>;
  static constexpr bool short_pieces_in_runs = true;  // as sum's
  TESSERA_HD state identity() const { return state{}; }
  TESSERA_HD void add(state& st, T v, index_t) const { st.add(double(v)); }
  TESSERA_HD void merge(state& a, const state& b) const { a.merge(b); }
  TESSERA_HD result_type finalize(const state& st) const {
    return result_type(st.value() / double(count));  // count 0 -> NaN, as NumPy
  }
  void add_batch(state& st, const T* v, index_t n, index_t, index_t) const {
    st.add(pairwise_sum(v, n));
  }
  /// As sum::add_values.
  template <class V>
  void add_values(state& st, const V& values, index_t n) const {
    st.add(pairwise_sum(values, n));
  }
  /// As sum::add_rows.
  void add_rows(state* p, const T* const* v, int nr, index_t m, bool in_memory = false) const {
    column_sums(p, v, nr, m, in_memory);
  }
};

// ---------------------------------------------------------------- variance / stddev
/// Count, mean and sum of squared deviations of a set, the mean held relative to a shift
/// (the set's first element), so data far from zero (1e9 + small noise) keeps its precision.
struct moments {
  index_t n = 0;
  double shift = 0, mean = 0, m2 = 0;  // mean of (x - shift)
  /// Chan et al.: merges the moments of a disjoint set b into this one.
  TESSERA_HD void merge(const moments& b) {
    if (b.n == 0) return;
    if (n == 0) {
      *this = b;
      return;
    }
    merge_nonempty(b, double(b.n) / double(n + b.n));
  }
  /// merge(b) for n > 0 and b.n > 0, with fb = b.n / (n + b.n) given (a caller merging many
  /// states of the same counts divides once).
  TESSERA_HD void merge_nonempty(const moments& b, double fb) {
    const double d = ((b.shift - shift) + b.mean) - mean;
    mean += d * fb;
    m2 += b.m2 + d * d * double(n) * fb;
    n += b.n;
  }
  TESSERA_HD void add(double x) {  // Welford
    if (n == 0) shift = x;
    ++n;
    const double y = x - shift, d = y - mean;
    mean += d / double(n);
    m2 += d * (y - mean);
  }
};

template <class T, bool Sqrt>
struct variance_base : params {
  using input_type = T;
  using result_type = mean_result_t<T>;
  using state = moments;
  /// Rows per add_rows call in the host's column fold (backend/host/fold.hpp): each group ends
  /// in a Chan merge per column, and 32 rows pay it half as often as the default 16 (Zen 5,
  /// one thread, variance over axis 0 of 8192^2 in 2048^2 chunks: lazy 0.205 -> 0.16 ns per
  /// element, stored 0.39 -> 0.34); the precision cost is bounded below (add_rows).
  static constexpr int row_group = 32;
  TESSERA_HD state identity() const { return state{}; }
  TESSERA_HD void add(state& st, T v, index_t) const { st.add(double(v)); }
  TESSERA_HD void merge(state& a, const state& b) const { a.merge(b); }
  TESSERA_HD result_type finalize(const state& st) const {
    const double dof = double(st.n) - double(ddof);  // (in double: any ddof, no overflow)
    double v = st.m2 / (dof > 0 ? dof : 0.0);  // NumPy: divisor max(n - ddof, 0)
    if constexpr (Sqrt) v = portable_math::sqrt(v);
    return result_type(v);
  }
  /// Two passes over the batch (shifted mean, then squared deviations), merged by Chan's
  /// formula.
  void add_batch(state& st, const T* v, index_t n, index_t, index_t) const {
    if (n <= 0) return;
    moments b;
    b.n = n;
    b.shift = double(v[0]);
    constexpr int L = 16;  // independent lanes (several vector registers in flight)
    double l[L] = {};
    index_t k = 0;
    for (; k + L <= n; k += L)
      for (int j = 0; j < L; ++j) l[j] += double(v[k + j]) - b.shift;
    double s = 0;
    for (; k < n; ++k) s += double(v[k]) - b.shift;
    for (int j = 0; j < L; ++j) s += l[j];
    b.mean = s / double(n);
    for (int j = 0; j < L; ++j) l[j] = 0;
    for (k = 0; k + L <= n; k += L)
      for (int j = 0; j < L; ++j) {
        double d = (double(v[k + j]) - b.shift) - b.mean;
        l[j] += d * d;
      }
    double m2 = 0;
    for (; k < n; ++k) {
      double d = (double(v[k]) - b.shift) - b.mean;
      m2 += d * d;
    }
    for (int j = 0; j < L; ++j) m2 += l[j];
    b.m2 = m2;
    st.merge(b);
  }
  /// Rows v[k], k < nr, into p[e], e < m: per column the moments of its nr values in one pass
  /// (sums of d and d^2, d = x - h, the shift h the column's running mean, or its first value
  /// in the first group), merged by Chan's formula; vectorized across columns (host; the fold
  /// over a non-last axis). m2 = sum d^2 - (sum d)^2 / nr loses about log2(1 + nr (mean -
  /// h)^2 / m2) bits; with h a value of the group that is at most log2(nr^2) (10 bits for the
  /// 32-row groups of the host fold), with h the running mean of earlier groups next to none.
  /// in_memory: as sum::add_rows.
  void add_rows(state* p, const T* const* v, int nr, index_t m, bool in_memory = false) const {
    alignas(64) double shift[column_batch], sum[column_batch], m2[column_batch];
    const double inv = 1.0 / double(nr);
    for (index_t c0 = 0; c0 < m; c0 += column_batch) {
      const index_t w = m - c0 < column_batch ? m - c0 : column_batch;
      moments* a = p + c0;
      // A box's partials have all seen the same rows (the fold adds whole groups to every
      // column): then shift setup and merge are branch-free loops that vectorize.
      const index_t n0 = a[0].n;
      index_t differ = 0;  // (an integer or-reduction vectorizes; `uniform &=` did not)
      for (index_t e = 1; e < w; ++e) differ |= a[e].n ^ n0;
      const bool uniform = differ == 0;
      if (uniform && n0 == 0) {
        for (index_t e = 0; e < w; ++e) shift[e] = double(v[0][c0 + e]);
      } else if (uniform) {
        for (index_t e = 0; e < w; ++e) shift[e] = a[e].shift + a[e].mean;
      } else {
        for (index_t e = 0; e < w; ++e)
          shift[e] = a[e].n > 0 ? a[e].shift + a[e].mean : double(v[0][c0 + e]);
      }
      shifted_moment_sums(sum, m2, shift, v, nr, c0, w, in_memory);
      for (index_t e = 0; e < w; ++e) {  // the group's moments: mean in sum, m2 in m2
        const double mean = sum[e] * inv, q = m2[e] - sum[e] * mean;
        sum[e] = mean;
        m2[e] = q < 0 ? 0.0 : q;  // (rounding below 0 clamped; NaN kept)
      }
      if (uniform && n0 == 0) {
        for (index_t e = 0; e < w; ++e) {
          a[e].n = nr;
          a[e].shift = shift[e];
          a[e].mean = sum[e];
          a[e].m2 = m2[e];
        }
      } else if (uniform) {  // moments::merge_nonempty, column by column
        const double fb = double(nr) / double(n0 + nr), fn = double(n0) * fb;
        for (index_t e = 0; e < w; ++e) {
          const double d = ((shift[e] - a[e].shift) + sum[e]) - a[e].mean;
          a[e].n = n0 + nr;
          a[e].mean += d * fb;
          a[e].m2 += m2[e] + d * d * fn;
        }
      } else {
        for (index_t e = 0; e < w; ++e) {
          moments b;
          b.n = nr;
          b.shift = shift[e];
          b.mean = sum[e];
          b.m2 = m2[e];
          a[e].merge(b);
        }
      }
    }
  }
};
template <class T>
using variance = variance_base<T, false>;
template <class T>
using stddev = variance_base<T, true>;

// ---------------------------------------------------------------- prod
template <class T>
struct prod : params {
  using input_type = T;
  using result_type = sum_result_t<T>;
  using state = std::conditional_t<is_float<T>, double, std::uint64_t>;
  TESSERA_HD state identity() const { return state(1); }
  TESSERA_HD void add(state& st, T v, index_t) const { st *= state(v); }
  TESSERA_HD void merge(state& a, const state& b) const { a *= b; }
  TESSERA_HD result_type finalize(const state& st) const { return result_type(st); }
  void add_batch(state& st, const T* v, index_t n, index_t, index_t) const {
    for (index_t k = 0; k < n; ++k) st *= state(v[k]);
  }
};

// ---------------------------------------------------------------- amin / amax
template <class T, bool Max>
struct extremum : params {
  /// add_batch takes a batch of any length (backend/host/fold.hpp: a stored row in one call).
  static constexpr bool any_batch_length = true;
  using input_type = T;
  using result_type = T;
  using state = T;
  TESSERA_HD state identity() const { return identity_value(); }
  /// identity() for the static batch code: the least (amax) / greatest (amin) value of T,
  /// -inf / +inf for floats.
  TESSERA_HD static T identity_value() {
    if constexpr (is_float<T>)
      return Max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    else return Max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
  TESSERA_HD static bool better(T v, T cur) { return Max ? v > cur : v < cur; }
  TESSERA_HD void add(state& st, T v, index_t) const {
    if (portable_math::isnan(st)) return;
    if (portable_math::isnan(v) || better(v, st)) st = v;
  }
  TESSERA_HD void merge(state& a, const state& b) const { add(a, b, 0); }
  TESSERA_HD result_type finalize(const state& st) const { return st; }
  /// Whether x replaces lane value l: for floats NaN-sticky (a NaN replaces the lane and
  /// nothing replaces a NaN, since x > NaN and x != x are both false), one compare-and-blend.
  static bool takes(T x, T l) {
    if constexpr (is_float<T>) return better(x, l) | (x != x);
    else return better(x, l);
  }
  /// a where t, else b, as a bit select: the batch's last steps (the tail, the NaN result, the
  /// state) must not branch on the data. GCC had made the small lane folds (NaN-sticky compares)
  /// and the state's update branches, which mispredicted on random data: a last-axis amax of a
  /// stored 8192^2 array of uniform values took 0.28-0.65 ns per element (by build) against
  /// 0.22 on constant data (Zen 5, one thread); now 0.22 on either.
  static T select(bool t, T a, T b) {
    if constexpr (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) {
      using U = std::conditional_t<sizeof(T) == 8, std::uint64_t,
                                   std::conditional_t<sizeof(T) == 4, std::uint32_t,
                                                      std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint8_t>>>;
      const U m = U(U(0) - U(t));
      return std::bit_cast<T>(U((std::bit_cast<U>(a) & m) | (std::bit_cast<U>(b) & U(~m))));
    } else {
      return t ? a : b;
    }
  }
  /// 32 lanes, folded in halves at the end (constant bounds: GCC vectorizes both at every
  /// level; with 8 lanes and a separate `nan |= x != x` it kept them scalar: a lazy last-axis
  /// amax took 0.28 ns per element, now 0.15, a sum 0.08; Zen 5, one thread); a NaN anywhere
  /// gives the quiet NaN, as before. The state takes the result as add() would.
  void add_batch(state& st, const T* v, index_t n, index_t, index_t) const {
    const T best = batch_extreme<true>(v, n);
    bool sticky = false;  // add(): nothing replaces a NaN state
    if constexpr (is_float<T>) sticky = st != st;
    st = select(!sticky & takes(best, st), best, st);
  }
  /// add(s, x) as one compare-and-blend (takes(): a NaN state stays NaN; when x is NaN too, x's
  /// NaN replaces it, where add() keeps the first: the payload is the only difference).
  TESSERA_INLINE static T step(T s, T x) { return takes(x, s) ? x : s; }
  /// Rows v[k], k < nr, into p[e], e < m (the host's fold over a non-last axis): each column's
  /// add() in row order, eight rows per pass along the row, vectorized across columns. (Without
  /// it the fold called add() per element: amax over axis 0 of a stored 8192^2 array took 0.54
  /// ns per element against 0.33 over the last axis, Zen 4, one thread.)
  /// in_memory: as sum::add_rows (short rows in memory: one per pass).
  void add_rows(state* p, const T* const* v, int nr, index_t m, bool in_memory = false) const {
    int k = 0;
    for (; k + 8 <= nr && !(in_memory && m <= one_row_pass_columns); k += 8) {
      TESSERA_NO_UNROLL_AND_JAM();
      const T* __restrict q0 = v[k];
      const T* __restrict q1 = v[k + 1];
      const T* __restrict q2 = v[k + 2];
      const T* __restrict q3 = v[k + 3];
      const T* __restrict q4 = v[k + 4];
      const T* __restrict q5 = v[k + 5];
      const T* __restrict q6 = v[k + 6];
      const T* __restrict q7 = v[k + 7];
      T* __restrict s = p;
      // two chains of four, the second's result b taking the first's place as step() would:
      // b is NaN when one of its rows is (tested on the rows: GCC 12 vectorizes NaN tests of
      // loaded values, not of selects). The element add() keeps, but for a NaN's payload, with
      // chains half as long (rows in cache: one chain of eight was slower than four per pass).
      for (index_t e = 0; e < m; ++e) {
        const T a = step(step(step(step(s[e], q0[e]), q1[e]), q2[e]), q3[e]);
        const T b = step(step(step(q4[e], q5[e]), q6[e]), q7[e]);
        bool b_nan = false;
        if constexpr (is_float<T>) b_nan = (q4[e] != q4[e]) | (q5[e] != q5[e]) | (q6[e] != q6[e]) | (q7[e] != q7[e]);
        s[e] = (better(b, a) | b_nan) ? b : a;
      }
    }
    for (; k < nr; ++k) {
      TESSERA_NO_UNROLL_AND_JAM();
      const T* __restrict q = v[k];
      T* __restrict s = p;
      for (index_t e = 0; e < m; ++e) s[e] = step(s[e], q[e]);
    }
  }
  /// The extreme of v[0 .. n) (identity() when n == 0). NanSticky: a NaN anywhere gives the
  /// quiet NaN; else NaN is never taken (nanargmin / nanargmax: identity() when all are NaN).
  /// 32 lanes, taking blocks of 32, then the last 32 elements again (n >= 32: some of them seen
  /// already, and an extreme seen twice is the same extreme), or (8 <= n < 32) one block made
  /// of four overlapping runs of 8 that cover the batch, or (n < 8) the elements one by one
  /// into lane 0; the lanes are checked for NaN once and folded with plain compares. (The
  /// tail had gone element by element into lane 0, a chain of NaN-sticky compares: on rows of
  /// 25 doubles 4.5 ns per element, NumPy 1.9; 8 lanes stayed scalar, as below; Zen 4, one
  /// thread.)
  template <bool NanSticky>
  static T batch_extreme(const T* v, index_t n) {
    constexpr int L = 32;
    const auto take = [](T x, T l) {
      if constexpr (NanSticky) return takes(x, l);
      else return better(x, l);
    };
    T l[L];
    for (int j = 0; j < L; ++j) l[j] = identity_value();
    const auto block = [&](const T* __restrict q) {
      for (int j = 0; j < L; ++j) l[j] = take(q[j], l[j]) ? q[j] : l[j];
    };
    index_t k = 0;
    for (; k + L <= n; k += L) block(v + k);
    if (k < n) {
      if (n >= L) {
        block(v + n - L);
      } else if (n >= 8) {
        T q[L];
        for (int r = 0; r < 4; ++r) std::memcpy(q + 8 * r, v + std::min<index_t>(8 * r, n - 8), 8 * sizeof(T));
        block(q);
      } else {
        for (const T* q = v; q < v + n; ++q) l[0] = select(take(*q, l[0]), *q, l[0]);
      }
    }
    // a NaN in any lane gives the quiet NaN; else the lanes fold with plain compares, which
    // compile to max/min instructions (no branch on the data). (NaN lanes counted: GCC left
    // `nan |= l[j] != l[j]` a scalar loop of 32 compares.)
    bool nan = false;
    if constexpr (NanSticky && is_float<T>) {
      int nans = 0;
      for (int j = 0; j < L; ++j) nans += l[j] != l[j] ? 1 : 0;
      nan = nans != 0;
    }
    fold_lanes<L / 2>(l);
    if constexpr (NanSticky && is_float<T>) return select(nan, std::numeric_limits<T>::quiet_NaN(), l[0]);
    else return l[0];
  }
  /// Lanes j and j + H into j, halving down to lane 0 (plain compares: max/min instructions
  /// without a branch; a NaN lane's outcome is discarded by add_batch).
  template <int H>
  TESSERA_INLINE static void fold_lanes(T* l) {
    for (int j = 0; j < H; ++j) l[j] = better(l[j + H], l[j]) ? l[j + H] : l[j];
    if constexpr (H > 1) fold_lanes<H / 2>(l);
  }
};
template <class T>
using amin = extremum<T, false>;
template <class T>
using amax = extremum<T, true>;

#if defined(__GNUC__) && !defined(__CUDACC__)
#define TESSERA_ARG_BY_VALUE 1
/// A GNU vector of N elements E (host batch code; gcc and clang, not nvcc).
template <class E, int N>
struct gnu_vector {
  typedef E type __attribute__((vector_size(N * sizeof(E))));
};
#endif

// ---------------------------------------------------------------- argmin / argmax
template <class T>
struct arg_state {
  T v;
  index_t i;  // -1: empty
};
template <class T, bool Max, bool NanSkip = false>
struct argext : params {
  /// add_batch takes a batch of any length (backend/host/fold.hpp: a stored row in one call, up
  /// to 2^30 elements: the lanes' indices are key_type, 32-bit for float).
  static constexpr bool any_batch_length = true;
  using input_type = T;
  using result_type = index_t;
  using state = arg_state<T>;
  TESSERA_HD state identity() const { return state{T(0), -1}; }
  /// True when (v, i) should replace (cur, ci): NaN wins (first NaN), then the extreme value,
  /// ties to the lower index. Commutative, so merge order cannot change the answer.
  /// NanSkip (nanargmin / nanargmax): NaN never wins; a lane of NaN only keeps index -1.
  TESSERA_HD static bool better(T v, index_t i, const state& c) {
    if constexpr (NanSkip) {
      if (portable_math::isnan(v)) return false;
    }
    if (c.i < 0) return true;
    const bool vn = portable_math::isnan(v), cn = portable_math::isnan(c.v);
    if (vn || cn) return vn && (!cn || i < c.i);
    if (Max ? v > c.v : v < c.v) return true;
    return v == c.v && i < c.i;
  }
  TESSERA_HD void add(state& st, T v, index_t idx) const {
    if (better(v, idx, st)) st = state{v, idx};
  }
  TESSERA_HD void merge(state& a, const state& b) const {
    if (b.i >= 0 && better(b.v, b.i, a)) a = b;
  }
  TESSERA_HD result_type finalize(const state& st) const { return st.i; }
  /// Float and double with AVX-512 or AVX2: add_batch_by_value, one pass, unless the batch is
  /// short or holds a NaN; then add_batch_keyed, one pass (AVX2: batches shorter than
  /// batch_size). Otherwise two passes over the batch (host): its extreme value in 32 lanes
  /// (extremum's batch_extreme; for nanargmin / nanargmax NaN is never taken), then the first
  /// element equal to it (the first NaN where it is NaN), looked for 32 at a time; only that
  /// element goes to add(). better() orders NaN, then value, then index, and the batch's indices grow with k, so
  /// that element is the one the element-by-element fold keeps: the same state. (The fold was
  /// a branch per element: argmax over the last axis of a stored uniform 8192^2 array 0.83 ->
  /// 0.35 ns per element, Zen 5, one thread; amax 0.22.)
  void add_batch(state& st, const T* v, index_t n, index_t idx0, index_t didx) const {
    if (n <= 0) return;
    if constexpr (is_float<T> && (sizeof(T) == 8 || sizeof(T) == 4)) {
      // (the keyed pass needs integer compares on vector lanes: at the x86-64 baseline (SSE2)
      // it ran 3.5-4.6x slower than the two passes, and with AVX2 8% slower on whole batches
      // of 256, 20% faster on rows of 100; Zen 4, one thread)
      const host_isa isa = host_isa_in_use();
      if (isa == host_isa::avx512 || isa == host_isa::avx2) {
#if defined(TESSERA_ARG_BY_VALUE)
        if (add_batch_by_value(st, v, n, idx0, didx)) return;
#endif
        if (isa == host_isa::avx512 || n < batch_size) return add_batch_keyed(st, v, n, idx0, didx);
      }
    }
    const T m = extremum<T, Max>::template batch_extreme<!NanSkip>(v, n);
    constexpr int L = 32;
    index_t k = 0;
    const auto first = [&](auto hit) {
      for (; k + L <= n; k += L) {
        int hits = 0;  // (a count, not a bool: GCC vectorizes this one)
        for (int j = 0; j < L; ++j) hits += hit(v[k + j]) ? 1 : 0;
        if (hits) break;
      }
      for (; k < n; ++k)
        if (hit(v[k])) break;
    };
    if (is_float<T> && m != m) first([](T x) { return x != x; });
    else first([m](T x) { return x == m; });
    if (k < n) add(st, v[k], idx0 + k * didx);  // none: all NaN (nanargmin / nanargmax)
  }
  /// add_batch for float and double batches without NaN of at least L = 2 W values (16 doubles,
  /// 32 floats), in one pass comparing the values themselves: the first best element of each of
  /// L lanes by compare-and-blend (lane j starting as element j with the worst value, -inf for
  /// argmax; a NaN is never taken), NaN counted on the way, then (n not a multiple of L) the
  /// last L elements again, each lane's new element later than all it has seen, then the lanes
  /// (fold_keyed_lanes on values: the better value, on equal values the lower element). -0 and
  /// +0 compare equal, as their keys do, so it is the element add_batch_keyed finds. Returns
  /// false, the state untouched, when the batch is shorter or holds a NaN. (About half the
  /// vector operations of the keyed pass: argmax over the last axis of stored rows of 1000
  /// doubles 0.38 -> 0.31 ns per element, rows of 100 0.57 -> 0.45-0.52, batch by batch; Zen 4,
  /// one thread.)
#if defined(TESSERA_ARG_BY_VALUE)
  bool add_batch_by_value(state& st, const T* v, index_t n, index_t idx0, index_t didx) const {
    using K = key_type;
    // two GNU vectors of 64 bytes, W lanes each (on arrays GCC made the selects branches
    // around masked stores; vectors of 16 doubles it made scalar code)
    constexpr int W = int(64 / sizeof(T)), L = 2 * W;
    using values = typename gnu_vector<T, W>::type;
    using indices = typename gnu_vector<K, W>::type;
    if (n < L) return false;
    values best0 = values{} + extremum<T, Max>::identity_value(), best1 = best0;
    indices lane, nans0 = indices{}, nans1 = indices{};
    for (int j = 0; j < W; ++j) lane[j] = K(j);
    indices at0 = lane, at1 = lane + K(W);
    const auto step = [&](index_t k) {  // elements k .. k + L - 1, lane j taking k + j
      values x0, x1;
      std::memcpy(&x0, v + k, sizeof x0);
      std::memcpy(&x1, v + k + W, sizeof x1);
      const indices t0 = Max ? x0 > best0 : x0 < best0, t1 = Max ? x1 > best1 : x1 < best1;
      best0 = t0 ? x0 : best0;
      best1 = t1 ? x1 : best1;
      at0 = t0 ? lane + K(k) : at0;
      at1 = t1 ? lane + K(k + W) : at1;
      nans0 -= x0 != x0;  // (true is -1)
      nans1 -= x1 != x1;
    };
    index_t k = 0;
    for (; k + L <= n; k += L) step(k);
    if (k < n) step(n - L);
    const indices nans = nans0 | nans1;
    K any = 0;
    for (int j = 0; j < W; ++j) any |= nans[j];
    if (any) return false;
    T bv[L];
    K bi[L];
    std::memcpy(bv, &best0, sizeof best0);
    std::memcpy(bv + W, &best1, sizeof best1);
    std::memcpy(bi, &at0, sizeof at0);
    std::memcpy(bi + W, &at1, sizeof at1);
    fold_keyed_lanes<W>(bv, bi);
    add(st, v[bi[0]], idx0 + index_t(bi[0]) * didx);
    return true;
  }
#endif
  /// add_batch for float and double, in one pass over keys (key()): the first best element of
  /// each of 16 lanes by compare-and-blend, then of the lanes (ties to the lower index), then
  /// the tail: the element the two passes find (the first NaN, else the first extreme;
  /// nanargmin / nanargmax: none when all are NaN). (The two passes cost their setup and a
  /// branch on where the extreme lies: argmax over the last axis of a stored 10^6 x 100 array
  /// 0.99 -> 0.67 ns per element, 100000 x 1000 0.57 -> 0.46, 12207 x 8192 0.53 -> 0.42; Zen 4,
  /// one thread.)
  void add_batch_keyed(state& st, const T* v, index_t n, index_t idx0, index_t didx) const {
    using K = key_type;
    constexpr int L = 16;
    K best, at;  // the best key and its element
    if (n >= L) {
      // lane j starts as element j with the worst key: the first block's step() takes each
      // element (or keeps its key, the worst one, NaN's for nanargmin / nanargmax), the same
      // state as starting from the elements' keys (which GCC vectorized only in -march builds)
      K bk[L], bi[L];
      for (int j = 0; j < L; ++j) {
        bk[j] = Max ? std::numeric_limits<K>::min() : std::numeric_limits<K>::max();
        bi[j] = K(j);
      }
      const auto step = [&](index_t k) {  // elements k .. k + L - 1, lane j taking k + j
        for (int j = 0; j < L; ++j) {
          const K x = key(v[k + j]);
          const bool t = Max ? x > bk[j] : x < bk[j];
          bk[j] = t ? x : bk[j];
          bi[j] = t ? K(k + j) : bi[j];
        }
      };
      index_t k = 0;
      for (; k + L <= n; k += L) step(k);
      // the last L elements, some already seen: each lane's new element is later than all it
      // has seen, so it still keeps its first best (an element seen twice changes nothing)
      if (k < n) step(n - L);
      // the lanes by halves: the best key, ties to the lower element
      fold_keyed_lanes<L / 2>(bk, bi);
      best = bk[0];
      at = bi[0];
    } else {
      best = key(v[0]);
      at = 0;
      for (index_t k = 1; k < n; ++k) {  // (ties keep the earlier)
        const K x = key(v[k]);
        if (Max ? x > best : x < best) {
          best = x;
          at = K(k);
        }
      }
    }
    if (NanSkip && best == nan_key) return;  // all NaN
    add(st, v[at], idx0 + index_t(at) * didx);
  }
  /// Lanes j and j + H of (key or value, element) into j, halving down to lane 0: the better
  /// key, on equal keys the lower element (selects on whole halves, which vectorize; lane by
  /// lane, GCC made the ties a chain of branches). Values: no NaN among them.
  template <int H, class V, class K>
  TESSERA_INLINE static void fold_keyed_lanes(V* bk, K* bi) {
    for (int j = 0; j < H; ++j) {
      const bool t = (Max ? bk[j + H] > bk[j] : bk[j + H] < bk[j]) | ((bk[j + H] == bk[j]) & (bi[j + H] < bi[j]));
      bk[j] = t ? bk[j + H] : bk[j];
      bi[j] = t ? bi[j + H] : bi[j];
    }
    if constexpr (H > 1) fold_keyed_lanes<H / 2>(bk, bi);
  }
  /// Rows v[k], k < nr, into p[e], e < m, row k's elements having index idx0 + k didx (the
  /// host's fold over a non-last axis): per column the first best of the nr values, kept in
  /// value and row arrays by compare-and-blend across columns (vectorized), then one
  /// add_unbranched() per column. Rows come in index order and ties keep the earlier row, so each state is the one
  /// the element-by-element fold gives. (That fold was a branch per element: argmax over axis 0
  /// of a stored uniform 8192^2 array 1.0 -> 0.53 ns per element, Zen 5, one thread; four rows
  /// per pass, as the sums do, left GCC 12 with scalar code and branches: 1.75.)
  void add_rows(state* p, const T* const* v, int nr, index_t m, index_t idx0, index_t didx,
                bool in_memory = false) const {
    if constexpr (is_float<T> && (sizeof(T) == 8 || sizeof(T) == 4)) {
      add_rows_keyed(p, v, nr, m, idx0, didx, in_memory);
    } else {
      alignas(64) T best[column_batch];
      alignas(64) std::int64_t row[column_batch];
      for (index_t c0 = 0; c0 < m; c0 += column_batch) {
        const index_t w = m - c0 < column_batch ? m - c0 : column_batch;
        const T* __restrict q0 = v[0] + c0;
        for (index_t e = 0; e < w; ++e) {
          best[e] = q0[e];
          row[e] = 0;
        }
        for (int k = 1; k < nr; ++k) {
          TESSERA_NO_UNROLL_AND_JAM();  // (jammed by GCC, the second row was read by a gather)
          const T* __restrict q = v[k] + c0;
          for (index_t e = 0; e < w; ++e) {
            const bool t = replaces(q[e], best[e]);
            best[e] = t ? q[e] : best[e];
            row[e] = t ? std::int64_t(k) : row[e];
          }
        }
        for (index_t e = 0; e < w; ++e) add_unbranched(p[c0 + e], best[e], idx0 + index_t(row[e]) * didx);
      }
    }
  }
  /// Floating-point values as integers in the order add_rows compares them: the value's order
  /// (-0 as +0: they tie), NaN above everything for argmax and below for argmin (the first NaN
  /// wins), or (nanargmin / nanargmax) on the other side, where it never wins.
  using key_type = std::conditional_t<sizeof(T) == 8, std::int64_t, std::int32_t>;
  static constexpr key_type nan_key =
      (Max != NanSkip) ? std::numeric_limits<key_type>::max() : std::numeric_limits<key_type>::min();
  TESSERA_INLINE static key_type key(T x) {
    using K = key_type;
    const K u = std::bit_cast<K>(T(x + T(0)));  // (-0 + 0 is +0)
    const K k = u ^ K((u >> (8 * sizeof(K) - 1)) & std::numeric_limits<K>::max());
    const K nan = -K(x != x);  // (integer masks: with a select, GCC 12 left add_rows scalar)
    return (k & ~nan) | (nan_key & nan);
  }
  /// The value of a key (NaN's: the quiet NaN; a zero's: +0, which ties with -0 as add() sees it).
  TESSERA_INLINE static T unkey(key_type k) {
    using K = key_type;
    const T x = std::bit_cast<T>(K(k ^ K((k >> (8 * sizeof(K) - 1)) & std::numeric_limits<K>::max())));
    return k == nan_key ? std::numeric_limits<T>::quiet_NaN() : x;
  }
  /// add_rows for float and double: the first best of each column's rows by integer keys
  /// (key()), eight rows per pass along the row with the key and row kept in registers. A
  /// strict compare keeps the earlier row on ties, and NaN has one key, so the row is the one
  /// replaces() picks; its value comes back from the key (unkey(): a state's value is only ever
  /// compared, where -0 ties +0 and a NaN is a NaN). (Row by row with replaces(), argmax
  /// over axis 0 of a stored uniform 8192^2 array took 0.86 ns per element against 0.55 over
  /// the last axis, Zen 4, one thread: a row per pass reads memory slowly, and GCC 12 leaves
  /// several rows of replaces() per pass scalar.) Short rows in memory (in_memory): one per
  /// pass, as sum::add_rows.
  void add_rows_keyed(state* p, const T* const* v, int nr, index_t m, index_t idx0, index_t didx,
                      bool in_memory) const {
    using K = key_type;
    alignas(64) K best[column_batch];
    alignas(64) K row[column_batch];
    // rows k .. k + R - 1 into best and row (First: row k starts them)
    const auto pass = [&]<int R, bool First>(std::integral_constant<int, R>, std::bool_constant<First>,
                                             int k, index_t c0, index_t w) {
      const T* __restrict q[R];
      for (int j = 0; j < R; ++j) q[j] = v[k + j] + c0;
      K* __restrict b = best;
      K* __restrict r = row;
      for (index_t e = 0; e < w; ++e) {
        K bk = First ? key(q[0][e]) : b[e], rk = First ? K(k) : r[e];
        for (int j = First ? 1 : 0; j < R; ++j) {
          const K x = key(q[j][e]);
          const bool t = Max ? x > bk : x < bk;
          bk = t ? x : bk;
          rk = t ? K(k + j) : rk;
        }
        b[e] = bk;
        r[e] = rk;
      }
    };
    using eight = std::integral_constant<int, 8>;
    using one = std::integral_constant<int, 1>;
    for (index_t c0 = 0; c0 < m; c0 += column_batch) {
      const index_t w = m - c0 < column_batch ? m - c0 : column_batch;
      const int by = in_memory && w <= one_row_pass_columns ? 1 : 8;  // rows per pass
      int k = 0;
      if (nr >= 8 && by == 8) {
        TESSERA_NO_UNROLL_AND_JAM();
        pass(eight{}, std::true_type{}, 0, c0, w);
        k = 8;
      } else {
        TESSERA_NO_UNROLL_AND_JAM();
        pass(one{}, std::true_type{}, 0, c0, w);
        k = 1;
      }
      for (; k + 8 <= nr && by == 8; k += 8) {
        TESSERA_NO_UNROLL_AND_JAM();
        pass(eight{}, std::false_type{}, k, c0, w);
      }
      for (; k < nr; ++k) {
        TESSERA_NO_UNROLL_AND_JAM();
        pass(one{}, std::false_type{}, k, c0, w);
      }
      // add_unbranched() by keys: a NaN state compares as its key, ties (equal keys) go to the
      // lower index; nanargmin / nanargmax never take a NaN (its key, nan_key)
      for (index_t e = 0; e < w; ++e) {
        state& c = p[c0 + e];
        const K bk = best[e], ck = key(c.v);
        const index_t i = idx0 + index_t(row[e]) * didx;
        bool t = (c.i < 0) | (Max ? bk > ck : bk < ck) | ((bk == ck) & (i < c.i));
        if constexpr (NanSkip) t &= bk != nan_key;
        c.v = t ? unkey(bk) : c.v;
        c.i = t ? i : c.i;
      }
    }
  }
  /// add() as bit operations and selects (one per column and row group in add_rows, where the
  /// branches of better() mispredicted on random data: with add(), argmax over axis 0 of the
  /// uniform matrix took 0.60-0.68 ns per element instead of 0.54-0.57).
  static void add_unbranched(state& c, T v, index_t i) {
    bool vn = false, cn = false;
    if constexpr (is_float<T>) {
      vn = v != v;
      cn = c.v != c.v;
    }
    const bool earlier = i < c.i, either_nan = vn | cn;
    const bool by_nan = vn & (!cn | earlier);
    const bool by_value = (Max ? v > c.v : v < c.v) | ((v == c.v) & earlier);
    bool t = (c.i < 0) | ((either_nan & by_nan) | (!either_nan & by_value));
    if constexpr (NanSkip) t &= !vn;
    c.v = extremum<T, Max>::select(t, v, c.v);
    c.i = extremum<index_t, true>::select(t, i, c.i);
  }
  /// Whether a later row's x replaces the best b so far in add_rows: strictly better, or the
  /// first NaN (nanargmin / nanargmax: the first value that is not NaN replaces a NaN).
  static bool replaces(T x, T b) {
    const bool better_value = Max ? x > b : x < b;
    if constexpr (!is_float<T>) {
      return better_value;
    } else if constexpr (NanSkip) {
      return better_value | ((b != b) & (x == x));
    } else {
      return ((x != x) | better_value) & (b == b);
    }
  }
};
template <class T>
using argmin = argext<T, false>;
template <class T>
using argmax = argext<T, true>;
template <class T>
using nanargmin = argext<T, false, true>;
template <class T>
using nanargmax = argext<T, true, true>;

// ---------------------------------------------------------------- any / all / count_nonzero
template <class T>
struct any : params {
  using input_type = T;
  using result_type = bool;
  using state = bool;
  TESSERA_HD state identity() const { return false; }
  TESSERA_HD void add(state& st, T v, index_t) const { st = st || (v != T(0)); }
  TESSERA_HD void merge(state& a, const state& b) const { a = a || b; }
  TESSERA_HD result_type finalize(const state& st) const { return st; }
  void add_batch(state& st, const T* v, index_t n, index_t, index_t) const {
    bool r = false;
    for (index_t k = 0; k < n; ++k) r |= (v[k] != T(0));
    st = st || r;
  }
  /// Rows v[k], k < nr, into p[e], e < m (host; the fold over a non-last axis): vectorized
  /// along the row.
  void add_rows(state* p, const T* const* v, int nr, index_t m) const {
    for (int k = 0; k < nr; ++k) {
      const T* q = v[k];
      for (index_t e = 0; e < m; ++e) p[e] = p[e] | (q[e] != T(0));
    }
  }
};
template <class T>
struct all : params {
  using input_type = T;
  using result_type = bool;
  using state = bool;
  TESSERA_HD state identity() const { return true; }
  TESSERA_HD void add(state& st, T v, index_t) const { st = st && (v != T(0)); }
  TESSERA_HD void merge(state& a, const state& b) const { a = a && b; }
  TESSERA_HD result_type finalize(const state& st) const { return st; }
  void add_batch(state& st, const T* v, index_t n, index_t, index_t) const {
    bool r = true;
    for (index_t k = 0; k < n; ++k) r &= (v[k] != T(0));
    st = st && r;
  }
  /// As any::add_rows.
  void add_rows(state* p, const T* const* v, int nr, index_t m) const {
    for (int k = 0; k < nr; ++k) {
      const T* q = v[k];
      for (index_t e = 0; e < m; ++e) p[e] = p[e] & (q[e] != T(0));
    }
  }
};
template <class T>
struct count_nonzero : params {
  using input_type = T;
  using result_type = std::int64_t;
  using state = std::int64_t;
  TESSERA_HD state identity() const { return 0; }
  TESSERA_HD void add(state& st, T v, index_t) const { st += (v != T(0)); }
  TESSERA_HD void merge(state& a, const state& b) const { a += b; }
  TESSERA_HD result_type finalize(const state& st) const { return st; }
  void add_batch(state& st, const T* v, index_t n, index_t, index_t) const {
    std::int64_t c = 0;
    for (index_t k = 0; k < n; ++k) c += (v[k] != T(0));
    st += c;
  }
};

}  // namespace reducers
}  // namespace tessera
