// topk / argtopk (Dask's): the k largest elements along an axis, sorted largest first (k > 0),
// or the |k| smallest, smallest first (k < 0), and their indices along the axis.
//
// Two block passes (blocks.hpp), as Dask's tree with one level: each chunk keeps its own best
// min(|k|, chunk length) candidates along the axis (with their global indices for argtopk),
// then the candidates, rechunked to one chunk along the axis (|k| x number of chunks elements
// per lane), are selected again. Order: NaN counts as the largest value (np.sort's order); ties
// go to the lower index, so the result does not depend on the chunking. Runs on the host on
// every backend (a block function).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include <xtensor/xarray.hpp>

#include "../blocks.hpp"
#include "../nodes/rechunk.hpp"

namespace tessera {

namespace detail {

/// (value, index) pairs ordered best first for topk's k (> 0: largest; < 0: smallest); NaN is
/// the largest value; equal values: lower index first.
template <class T>
struct topk_order {
  bool largest;
  static bool is_nan(T v) {
    if constexpr (std::is_floating_point_v<T>) return v != v;
    else return false;
  }
  bool operator()(const std::pair<T, index_t>& a, const std::pair<T, index_t>& b) const {
    const bool an = is_nan(a.first), bn = is_nan(b.first);
    if (an != bn) return largest ? an : bn;  // NaN first when largest, last when smallest
    if (!an && a.first != b.first) return largest ? a.first > b.first : a.first < b.first;
    return a.second < b.second;
  }
};

/// Selects the best min(|k|, lane length) of every lane along `axis` of a block of values, with
/// their global indices (the block's position; in the second pass, the second input); writes
/// values (Index false) or indices (Index true).
template <bool Index>
struct topk_blocks {
  index_t k = 0;   // signed, as the user's
  int axis = 0;

  template <class V, class... I>
    requires(sizeof...(I) <= 1)
  auto operator()(const block_info& info, const V& v, const I&... idx) const {
    using T = typename V::value_type;
    using R = std::conditional_t<Index, index_t, T>;
    const auto& s = v.shape();
    std::size_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= s[std::size_t(d)];
    for (std::size_t d = std::size_t(axis) + 1; d < v.dimension(); ++d) inner *= s[d];
    const std::size_t len = s[std::size_t(axis)];
    const std::size_t keep = std::min<std::size_t>(len, std::size_t(std::abs(k)));
    std::vector<std::size_t> out_shape(s.begin(), s.end());
    out_shape[std::size_t(axis)] = keep;
    xt::xarray<R> out = xt::zeros<R>(out_shape);
    const index_t base = info.inputs[0].array_location[std::size_t(axis)].first;
    std::vector<std::pair<T, index_t>> lane(len);
    const topk_order<T> order{k > 0};
    for (std::size_t o = 0; o < outer; ++o)
      for (std::size_t i = 0; i < inner; ++i) {
        for (std::size_t j = 0; j < len; ++j) {
          const std::size_t at = (o * len + j) * inner + i;
          index_t g = base + index_t(j);
          if constexpr (sizeof...(I) == 1) g = index_t((idx.data()[at], ...));
          lane[j] = {v.data()[at], g};
        }
        std::partial_sort(lane.begin(), lane.begin() + std::ptrdiff_t(keep), lane.end(), order);
        for (std::size_t j = 0; j < keep; ++j) {
          const std::size_t at = (o * keep + j) * inner + i;
          if constexpr (Index) out.data()[at] = lane[j].second;
          else out.data()[at] = lane[j].first;
        }
      }
    return out;
  }
};

template <bool Index, expression_type X>
auto topk_of(const X& x, index_t k, index_t axis, const char* name) {
  const int r = x.dimension();
  if (r == 0) throw_invalid(name, ": a 0-d array has no axis");
  const int ax = normalize_axis(axis, r, "axis");
  const index_t n = x.shape()[std::size_t(ax)];
  if (k == 0 || std::abs(k) > n)
    throw_invalid(name, ": k = ", k, " must be nonzero and at most the length ", n, " of axis ", axis,
                  " in absolute value");
  const index_t m = std::abs(k);
  // pass 1: each chunk's best min(m, chunk length) candidates (values, and global indices)
  chunks_t c1 = x.chunks();
  for (auto& len : c1[std::size_t(ax)]) len = std::min(len, m);
  auto vals = map_blocks(topk_blocks<false>{k, ax}, out_chunks(c1), x);
  // pass 2: the candidates of a lane in one chunk, selected again
  chunks_t whole = c1;
  index_t candidates = 0;
  for (index_t len : c1[std::size_t(ax)]) candidates += len;
  whole[std::size_t(ax)] = {candidates};
  chunks_t c2 = x.chunks();
  c2[std::size_t(ax)] = {m};
  if constexpr (!Index) {
    return map_blocks(topk_blocks<false>{k, ax}, out_chunks(c2), rechunk(vals, whole));
  } else {
    auto idx = map_blocks(topk_blocks<true>{k, ax}, out_chunks(c1), x);
    return map_blocks(topk_blocks<true>{k, ax}, out_chunks(c2), rechunk(vals, whole),
                      rechunk(idx, whole));
  }
}

}  // namespace detail

/// The k largest elements along `axis`, largest first (k < 0: the |k| smallest, smallest
/// first); Dask's topk. Lazy; the axis becomes |k| long (one chunk).
template <expression_type X>
auto topk(const X& x, index_t k, index_t axis = -1) {
  return detail::topk_of<false>(x, k, axis, "topk");
}
/// The indices along `axis` of topk's elements (int64), in the same order; Dask's argtopk.
template <expression_type X>
auto argtopk(const X& x, index_t k, index_t axis = -1) {
  return detail::topk_of<true>(x, k, axis, "argtopk");
}

}  // namespace tessera
