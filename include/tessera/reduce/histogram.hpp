// Histograms with fixed bins (NumPy's histogram, histogram2d) and bincount, lazy and chunked:
// each block counts into its own bins (a map_blocks, blocks.hpp, on the host), and the
// per-block counts are summed by a reduction (int64 counts: exact for any chunking; weighted
// sums: the reduction's compensated pairwise sum, so within a few ulp of NumPy's sequential
// one).
//
// Bins as NumPy: `bins` equal bins over `range` (edges linspace(lo, hi, bins + 1) in the edge
// type: float for float input, else double), or explicit increasing edges. A value v falls in
// bin i when edges[i] <= v < edges[i + 1]; the last bin includes its right edge; values outside
// (and NaN) are not counted. Equal bins use NumPy's arithmetic ((v - lo) * (bins / (hi - lo)),
// truncated, then corrected against the edges), so every value lands in NumPy's bin.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <xtensor/xarray.hpp>

#include "../blocks.hpp"
#include "../core/host_isa.hpp"
#include "../manipulation.hpp"
#include "reduction.hpp"

namespace tessera {

/// A histogram: the counts (a lazy array) and the bin edges.
template <class H, class E>
struct histogram_result {
  H hist;
  std::vector<E> edges;
};

namespace detail {

template <class T>
using edge_type_t = std::conditional_t<std::is_same_v<T, float>, float, double>;

/// Bin finder for one axis: NumPy's equal-bin arithmetic or a search of explicit edges.
template <class E>
struct binning {
  std::vector<E> edges;
  bool uniform = false;
  E lo{}, norm{};  // uniform: (v - lo) * norm, as NumPy computes it in the edge type

  /// The bin of v, or -1 when it is not counted.
  TESSERA_NO_CONTRACT index_t operator()(E v) const {
    const index_t n = index_t(edges.size()) - 1;
    if (!(v >= edges.front() && v <= edges.back())) return -1;  // outside, or NaN
    if (uniform) {
      const E f = (v - lo) * norm;
      index_t i = index_t(f);
      if (i == n) --i;
      if (v < edges[std::size_t(i)]) --i;
      else if (i != n - 1 && v >= edges[std::size_t(i + 1)]) ++i;
      return i;
    }
    // explicit edges: the last edge <= v (side right), the last bin closed
    const auto it = std::upper_bound(edges.begin(), edges.end(), v);
    const index_t i = index_t(it - edges.begin()) - 1;
    return std::min(i, n - 1);
  }
};

template <class E>
binning<E> equal_bins(index_t bins, std::pair<double, double> range, const char* name) {
  if (bins < 1) throw_invalid(name, ": bins = ", bins, " must be at least 1");
  double lo = range.first, hi = range.second;
  if (!(std::isfinite(lo) && std::isfinite(hi)))
    throw_invalid(name, ": range (", lo, ", ", hi, ") is not finite");
  if (lo > hi) throw_invalid(name, ": range (", lo, ", ", hi, "): max must be larger than min");
  if (lo == hi) {  // NumPy widens an empty range by 0.5 on either side
    lo -= 0.5;
    hi += 0.5;
  }
  binning<E> b;
  b.uniform = true;
  b.edges.resize(std::size_t(bins + 1));
  const double step = (hi - lo) / double(bins);  // NumPy's linspace: i * step + lo, in double
  for (index_t i = 0; i < bins; ++i) {
    const double s = double(i) * step;
    b.edges[std::size_t(i)] = E(s + lo);
  }
  b.edges[std::size_t(bins)] = E(hi);
  b.lo = E(lo);
  b.norm = E(double(bins) / (hi - lo));
  return b;
}

template <class E>
binning<E> edge_bins(const std::vector<double>& edges, const char* name) {
  if (edges.size() < 2) throw_invalid(name, ": bin edges ", edges.size(), " given, at least 2 needed");
  for (std::size_t i = 1; i < edges.size(); ++i)
    if (!(edges[i] >= edges[i - 1]))
      throw_invalid(name, ": bin edges must increase monotonically (edge ", i, " = ", edges[i],
                    " after ", edges[i - 1], ")");
  binning<E> b;
  for (double e : edges) b.edges.push_back(E(e));
  return b;
}

/// Per-block counting: blocks of x (and weights) with trailing axes of length 1 appended; the
/// result has 1 on x's axes and the bins on the trailing ones.
template <class E, int D, class C>
struct block_counts {
  std::shared_ptr<const std::vector<binning<E>>> bins;  // one per histogram axis (D)
  int rank = 0;                                         // the inputs' own rank

  template <class... B>
    requires(!std::is_same_v<B, block_info> && ...)
  xt::xarray<C> operator()(const B&... b) const {
    const auto& first = std::get<0>(std::forward_as_tuple(b...));
    std::vector<std::size_t> shape(std::size_t(rank), 1);
    for (int d = 0; d < D; ++d) shape.push_back((*bins)[std::size_t(d)].edges.size() - 1);
    xt::xarray<C> out = xt::zeros<C>(shape);
    const std::size_t n = first.size();
    count(out, n, b...);
    return out;
  }

 private:
  // D coordinate arrays, then optional weights
  template <class O, class... B>
  void count(O& out, std::size_t n, const B&... b) const {
    auto arrays = std::forward_as_tuple(b...);
    for (std::size_t k = 0; k < n; ++k) {
      index_t flat = 0;
      bool in = true;
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        ((in = in && place<I>(std::get<I>(arrays).data()[k], flat)), ...);
      }(std::make_index_sequence<std::size_t(D)>{});
      if (!in) continue;
      if constexpr (sizeof...(B) > std::size_t(D)) out.data()[flat] += C(std::get<D>(arrays).data()[k]);
      else out.data()[flat] += 1;
    }
  }
  template <std::size_t I, class V>
  bool place(V v, index_t& flat) const {
    const binning<E>& bn = (*bins)[I];
    const index_t i = bn(E(v));
    if (i < 0) return false;
    flat = flat * index_t(bn.edges.size() - 1) + i;
    return true;
  }
};

/// The lazy counts of D coordinate arrays xs (same shape; one histogram axis each) with
/// optional weights: per-block counts summed over the blocks.
template <class C, class E, int D, class... X>
auto histogram_counts(std::vector<binning<E>> bins, const char* name, const X&... xs) {
  const auto& x0 = std::get<0>(std::forward_as_tuple(xs...));
  const int r = x0.dimension();
  ((xs.shape() != x0.shape()
        ? throw_invalid(name, ": the arrays have shapes ", x0.shape(), " and ", xs.shape(),
                        "; they must have the same shape")
        : void()),
   ...);
  std::vector<index_t> at;  // trailing axes for the bins
  for (int d = 0; d < D; ++d) at.push_back(r + d);
  chunks_t out;
  std::vector<index_t> reduce_axes;
  // unify the inputs' chunks first, so each block is the same region of every input
  const chunk_grid& g = x0.grid();
  for (int d = 0; d < r; ++d) {
    std::vector<index_t> c = g.chunks()[std::size_t(d)];
    ((c = refine(c, xs.chunks()[std::size_t(d)])), ...);
    out.push_back(std::vector<index_t>(c.size(), 1));
    reduce_axes.push_back(d);
  }
  for (int d = 0; d < D; ++d) out.push_back({index_t(bins[std::size_t(d)].edges.size() - 1)});
  block_counts<E, D, C> f{std::make_shared<const std::vector<binning<E>>>(std::move(bins)), r};
  auto per_block = map_blocks(f, out_chunks(out), expand_dims(xs, at)...);
  return sum(per_block, reduce_axes);
}

/// Per-block bincount: blocks of x (and weights) with a trailing axis of length 1; the result
/// is 1 on x's axis and `length` counts. A value outside [0, length) throws, naming it.
template <class C>
struct block_bincount {
  index_t length = 0;
  template <class B, class... W>
    requires(!std::is_same_v<B, block_info>)
  xt::xarray<C> operator()(const B& b, const W&... w) const {
    xt::xarray<C> out = xt::zeros<C>({std::size_t(1), std::size_t(length)});
    for (std::size_t k = 0; k < b.size(); ++k) {
      const auto v = b.data()[k];
      if (v < 0 || index_t(v) >= length)
        throw_invalid("bincount: value ", +v, (v < 0 ? " is negative" : " is not below minlength "),
                      (v < 0 ? std::string() : std::to_string(length)),
                      v < 0 ? "" : " (pass a minlength above the largest value)");
      if constexpr (sizeof...(W) == 0) out.data()[v] += 1;
      else out.data()[v] += C((w.data()[k], ...));
    }
    return out;
  }
};

template <class C, expression_type X, class... W>
auto bincount_of(const X& x, index_t minlength, const W&... w) {
  static_assert(std::is_integral_v<typename X::value_type>, "bincount counts integers (and bool)");
  if (x.dimension() != 1)
    throw_invalid("bincount: x has shape ", x.shape(), "; it must be one-dimensional (ravel it first)");
  if (minlength < 1)
    throw_invalid("bincount: minlength = ", minlength, " must be positive (the result's length)");
  ((w.shape() != x.shape() ? throw_invalid("bincount: weights of shape ", w.shape(),
                                           " for x of shape ", x.shape()) : void()), ...);
  std::vector<index_t> c = x.chunks()[0];
  ((c = refine(c, w.chunks()[0])), ...);
  chunks_t out{std::vector<index_t>(c.size(), 1), {minlength}};
  auto per_block = map_blocks(block_bincount<C>{minlength}, out_chunks(out), expand_dims(x, 1),
                              expand_dims(w, 1)...);
  return sum(per_block, std::vector<index_t>{0});
}

}  // namespace detail

/// NumPy's bincount of the non-negative integers x (1-d): counts (int64) of each value in
/// [0, minlength). Lazy, so the length is given: a value at or above minlength (or negative)
/// throws when computed, naming it. bincount(x, policy) finds the length first (max + 1).
template <expression_type X>
auto bincount(const X& x, index_t minlength) {
  return detail::bincount_of<std::int64_t>(x, minlength);
}
/// Weighted: each value adds its weight (double, as NumPy).
template <expression_type X, expression_type W>
auto bincount(const X& x, const W& weights, index_t minlength) {
  return detail::bincount_of<double>(x, minlength, weights);
}
/// NumPy's length max(x) + 1, found by one pass over x with `policy` before the lazy counts.
template <expression_type X, class P>
  requires(!std::is_integral_v<P>)
auto bincount(const X& x, const P& policy) {
  const index_t n = x.size() == 0 ? 1 : index_t(amax(x).item(policy)) + 1;
  return detail::bincount_of<std::int64_t>(x, std::max<index_t>(n, 1));
}

/// NumPy's histogram of x with `bins` equal bins over `range`: {counts (int64), edges}.
template <expression_type X>
auto histogram(const X& x, index_t bins, std::pair<double, double> range) {
  using E = detail::edge_type_t<typename X::value_type>;
  auto b = detail::equal_bins<E>(bins, range, "histogram");
  auto edges = b.edges;
  auto h = detail::histogram_counts<std::int64_t, E, 1>({std::move(b)}, "histogram", x);
  return histogram_result<decltype(h), E>{h, std::move(edges)};
}
/// The same with explicit, increasing bin edges (compared in double, as NumPy's search).
template <expression_type X>
auto histogram(const X& x, const std::vector<double>& edges) {
  using E = double;
  auto b = detail::edge_bins<E>(edges, "histogram");
  auto e = b.edges;
  auto h = detail::histogram_counts<std::int64_t, E, 1>({std::move(b)}, "histogram", x);
  return histogram_result<decltype(h), E>{h, std::move(e)};
}
/// Weighted: each value adds its weight (same shape as x); counts of the weights' type.
template <expression_type X, expression_type W>
auto histogram(const X& x, index_t bins, std::pair<double, double> range, const W& weights) {
  using E = detail::edge_type_t<typename X::value_type>;
  using C = std::conditional_t<std::is_floating_point_v<typename W::value_type>, typename W::value_type, std::int64_t>;
  auto b = detail::equal_bins<E>(bins, range, "histogram");
  auto edges = b.edges;
  auto h = detail::histogram_counts<C, E, 1>({std::move(b)}, "histogram", x, weights);
  return histogram_result<decltype(h), E>{h, std::move(edges)};
}

/// The result of histogram2d: counts (double, as NumPy; bins.first x bins.second) and both
/// axes' edges.
template <class H, class E>
struct histogram2d_result {
  H hist;
  std::vector<E> xedges, yedges;
};
/// NumPy's histogram2d of the points (x[i], y[i]) (x and y of one shape) in equal bins over
/// range.first x range.second (a value on the last edge counts in the last bin).
template <expression_type X, expression_type Y>
auto histogram2d(const X& x, const Y& y, std::pair<index_t, index_t> bins,
                 std::pair<std::pair<double, double>, std::pair<double, double>> range) {
  using E = double;  // NumPy's histogramdd: float64 edges, values found by searchsorted
  auto bx = detail::equal_bins<E>(bins.first, range.first, "histogram2d");
  auto by = detail::equal_bins<E>(bins.second, range.second, "histogram2d");
  bx.uniform = by.uniform = false;
  auto ex = bx.edges, ey = by.edges;
  // float64 counts, as NumPy's histogram2d
  auto h = detail::histogram_counts<double, E, 2>({std::move(bx), std::move(by)}, "histogram2d", x, y);
  return histogram2d_result<decltype(h), E>{h, std::move(ex), std::move(ey)};
}

}  // namespace tessera
