// Indexing by arrays (NumPy / Dask semantics): take (integer arrays along an axis: Dask's
// x[:, [3, 1, 4]]), vindex (pointwise), compress, extract (boolean masks: x[mask]), nonzero,
// flatnonzero, argwhere, choose, isin, searchsorted, digitize.
//
// The gathers are lazy: one node (nodes/taken.hpp) whose chunk reads the bounding box of its
// indices. Where the result's length depends on the data (masks, nonzero), the mask is
// computed first, chunk by chunk with the policy (the counting pass; its flat positions are
// held on the host, 8 bytes per selected element), then the gather is the lazy take of those
// positions: no dense copy of x. isin / searchsorted / digitize look elements up in a small
// sorted host table (nodes/looked_up.hpp).
#pragma once
#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

#include "nodes/looked_up.hpp"
#include "nodes/taken.hpp"
#include "ops/arith.hpp"
#include "reshape.hpp"

namespace tessera {

namespace detail {
/// v as a one-chunk host array (index lists, lookup tables).
template <class T>
array<T> table_array(const std::vector<T>& v) {
  array<T> a(chunk_grid({index_t(v.size())}, chunks_t{{index_t(v.size())}}));
  if (!v.empty()) std::copy(v.begin(), v.end(), a.block_data(0));
  return a;
}
template <class X, class P>
std::vector<typename X::value_type> host_values(const X& x, const P& pol) {
  const auto v = compute(x, pol);
  return std::vector<typename X::value_type>(v.begin(), v.end());
}
}  // namespace detail

/// Elements at `indices` along `axis` (NumPy's take / integer-array indexing; negative indices
/// count from the end). The result's chunks along the axis are x's first chunk length.
template <expression_type X>
auto take(const X& x, const std::vector<index_t>& indices, index_t axis) {
  const int r = x.dimension();
  const int ax = detail::normalize_axis(axis, r, "take axis");
  const index_t n = x.shape()[std::size_t(ax)];
  std::vector<index_t> idx;
  idx.reserve(indices.size());
  for (index_t i : indices) {
    if (i < -n || i >= n)
      throw_invalid("take: index ", i, " is out of bounds for axis ", ax, " with size ", n);
    idx.push_back(i < 0 ? i + n : i);
  }
  const auto& c = x.chunks()[std::size_t(ax)];
  return taken<X>(x, detail::table_array(idx), ax, c.empty() ? 1 : c.front());
}
/// Over the flattened array (NumPy's take without an axis).
template <expression_type X>
auto take(const X& x, const std::vector<index_t>& indices) {
  return take(ravel(x), indices, 0);
}

/// The elements at the points (indices[0][k], indices[1][k], ...) as a 1-d array (Dask's
/// x.vindex[...]; NumPy's x[i, j] with integer arrays).
template <expression_type X>
auto vindex(const X& x, const std::vector<std::vector<index_t>>& indices) {
  const int r = x.dimension();
  if (int(indices.size()) != r)
    throw_invalid("vindex: ", indices.size(), " index arrays for an array of dimension ", r);
  const std::size_t n = indices.empty() ? 0 : indices[0].size();
  std::vector<index_t> flat(n, 0);
  for (int d = 0; d < r; ++d) {
    if (indices[std::size_t(d)].size() != n)
      throw_invalid("vindex: index arrays of lengths ", n, " and ", indices[std::size_t(d)].size(), " do not broadcast");
    const index_t len = x.shape()[std::size_t(d)];
    for (std::size_t k = 0; k < n; ++k) {
      index_t i = indices[std::size_t(d)][k];
      if (i < -len || i >= len) throw_invalid("vindex: index ", i, " is out of bounds for axis ", d, " with size ", len);
      flat[k] = flat[k] * len + (i < 0 ? i + len : i);
    }
  }
  return take(ravel(x), flat, 0);
}

/// The slices along `axis` where `condition` (a host list) is true (NumPy's compress; a
/// shorter condition selects among the first slices).
template <expression_type X>
auto compress(const std::vector<bool>& condition, const X& x, index_t axis) {
  const int ax = detail::normalize_axis(axis, x.dimension(), "compress axis");
  const index_t n = x.shape()[std::size_t(ax)];
  if (index_t(condition.size()) > n)
    throw_invalid("compress: condition of length ", condition.size(), " is longer than axis ", ax, " (", n, ")");
  std::vector<index_t> idx;
  for (std::size_t i = 0; i < condition.size(); ++i)
    if (condition[i]) idx.push_back(index_t(i));
  return take(x, idx, ax);
}
/// The condition as a 1-d boolean expression (computed first: its length decides the result's).
template <expression_type C, expression_type X, class P = host>
auto compress(const C& condition, const X& x, index_t axis, const P& pol = {}) {
  if (condition.dimension() != 1) throw_invalid("compress: the condition must be 1-d, got shape ", condition.shape());
  const auto v = detail::host_values(cast<bool>(condition), pol);
  return compress(std::vector<bool>(v.begin(), v.end()), x, axis);
}

/// Flat (row-major) positions of x's nonzero elements, computed with the policy (NumPy's
/// flatnonzero), as a one-chunk host array.
template <expression_type X, class P = host>
array<index_t> flatnonzero(const X& x, const P& pol = {}) {
  const auto m = compute(cast<bool>(x), pol);
  std::vector<index_t> v;
  for (std::size_t i = 0; i < m.size(); ++i)
    if (m.data()[i]) v.push_back(index_t(i));
  return detail::table_array(v);
}

/// x's elements where mask is true, in row-major order, as a 1-d array (NumPy's x[mask] with a
/// mask of x's shape, and np.extract(mask, x)): the mask is computed (counting pass), then x
/// is gathered lazily at those positions.
template <expression_type M, expression_type X, class P = host>
auto extract(const M& mask, const X& x, const P& pol = {}) {
  if (mask.shape() != x.shape())
    throw_invalid("boolean index: a mask of shape ", mask.shape(), " does not match an array of shape ", x.shape());
  const auto pos = flatnonzero(mask, pol);
  const index_t n = pos.shape()[0];
  std::vector<index_t> idx(pos.block_data(0), pos.block_data(0) + n);
  return take(ravel(x), idx, 0);
}
/// The same, with NumPy's argument order for x[mask].
template <expression_type X, expression_type M, class P = host>
auto boolean_mask(const X& x, const M& mask, const P& pol = {}) {
  return extract(mask, x, pol);
}

/// Indices of x's nonzero elements, one 1-d host array per axis (NumPy's nonzero).
template <expression_type X, class P = host>
std::vector<array<index_t>> nonzero(const X& x, const P& pol = {}) {
  const auto flat = flatnonzero(x, pol);
  const int r = x.dimension();
  const index_t n = flat.shape()[0];
  std::vector<std::vector<index_t>> out(std::size_t(std::max(r, 1)), std::vector<index_t>(std::size_t(n)));
  const index_t* f = flat.block_data(0);
  for (index_t k = 0; k < n; ++k) {
    index_t v = f[k];
    for (int d = r - 1; d >= 0; --d) {
      out[std::size_t(d)][std::size_t(k)] = v % x.shape()[std::size_t(d)];
      v /= x.shape()[std::size_t(d)];
    }
  }
  std::vector<array<index_t>> res;
  for (int d = 0; d < std::max(r, 1); ++d) res.push_back(detail::table_array(out[std::size_t(d)]));
  return res;
}

/// Indices of x's nonzero elements as an n x ndim host array (NumPy's argwhere).
template <expression_type X, class P = host>
array<index_t> argwhere(const X& x, const P& pol = {}) {
  const auto nz = nonzero(x, pol);
  const int r = x.dimension();
  const index_t n = nz[0].shape()[0];
  array<index_t> out(chunk_grid({n, index_t(r)}, chunks_t{{n}, {index_t(r)}}));
  index_t* o = out.block_data(0);
  for (index_t k = 0; k < n; ++k)
    for (int d = 0; d < r; ++d) o[k * r + d] = nz[std::size_t(d)].block_data(0)[k];
  return out;
}

namespace ops {
/// choices[i] for index i, clipped into range (NumPy's choose with mode='clip').
struct choose_clip {
  template <class I, class... C>
  TESSERA_HD auto operator()(I i, C... c) const {
    using R = std::common_type_t<C...>;
    constexpr index_t n = index_t(sizeof...(C));
    index_t k = index_t(i);
    k = k < 0 ? 0 : (k >= n ? n - 1 : k);
    R out{};
    index_t j = 0;
    ((out = (j++ == k ? R(c) : out)), ...);
    return out;
  }
};
}  // namespace ops

/// choices[a] elementwise, broadcast together (NumPy's choose with mode='clip': an index below
/// 0 picks the first choice, past the end the last; a lazy kernel cannot raise as mode='raise').
template <expression_type A, class... C>
auto choose(const A& a, const std::tuple<C...>& choices) {
  static_assert(std::is_integral_v<typename A::value_type>, "choose: the index array must be of an integer type");
  return std::apply([&](const C&... c) { return elementwise<ops::choose_clip, A, C...>(ops::choose_clip{}, a, c...); },
                    choices);
}

/// Whether each element of x is in `values` (NumPy's isin; invert: not in). NaN is in nothing.
template <expression_type X, class V>
auto isin(const X& x, std::vector<V> values, bool invert = false) {
  std::sort(values.begin(), values.end(), [](V a, V b) { return lookups::sort_less(a, b); });
  return looked_up<lookups::isin, X, V>({invert}, x, detail::table_array(values));
}
/// The test values as an expression (computed first).
template <expression_type X, expression_type E, class P = host>
auto isin(const X& x, const E& values, bool invert = false, const P& pol = {}) {
  return isin(x, detail::host_values(ravel(values), pol), invert);
}

/// Where each element of v would be inserted into the sorted a to keep it sorted (NumPy's
/// searchsorted(a, v, side)): side "left" (first such place) or "right" (last).
template <class T, expression_type X>
auto searchsorted(const std::vector<T>& a, const X& v, std::string_view side = "left") {
  if (side != "left" && side != "right") throw_invalid("searchsorted: side '", side, "' is not 'left' or 'right'");
  return looked_up<lookups::searchsorted, X, T>({side == "right"}, v, detail::table_array(a));
}
/// a as a 1-d expression (computed first).
template <expression_type E, expression_type X, class P = host>
auto searchsorted(const E& a, const X& v, std::string_view side = "left", const P& pol = {}) {
  if (a.dimension() != 1) throw_invalid("searchsorted: a must be 1-d, got shape ", a.shape());
  return searchsorted(detail::host_values(a, pol), v, side);
}

/// The index of the bin of each element (NumPy's digitize): bins monotonic (increasing or
/// decreasing); right: bins closed on the right.
template <expression_type X, class T>
auto digitize(const X& x, std::vector<T> bins, bool right = false) {
  bool inc = true, dec = true;
  for (std::size_t i = 1; i < bins.size(); ++i) {
    inc = inc && !lookups::sort_less(bins[i], bins[i - 1]);
    dec = dec && !lookups::sort_less(bins[i - 1], bins[i]);
  }
  if (!inc && !dec) throw_invalid("digitize: bins must be monotonically increasing or decreasing");
  const bool decreasing = !inc;
  if (decreasing) std::reverse(bins.begin(), bins.end());
  return looked_up<lookups::digitize, X, T>({right, decreasing}, x, detail::table_array(bins));
}

}  // namespace tessera
