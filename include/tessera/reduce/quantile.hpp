// Order statistics along axes (NumPy's median, quantile, percentile and their nan-variants):
// exact, by selection (std::nth_element) within each lane.
//
// How, and what it costs. As Dask does, the reduced axes are rechunked to one chunk each, so a
// block holds whole lanes; a map_blocks (blocks.hpp) selects within each lane on the host and
// writes the quantiles. Memory: one block with the reduced axes whole per task in flight (a
// median over every axis holds the whole array in one block); time: O(lane length) per
// quantile per lane. On ts::cuda the selection runs on the host too (f is host code), the
// result is copied to the device.
//
// Semantics (NumPy's, method "linear"): quantile q of a lane of n values is
// v = (n - 1) q, lerp(sorted[floor v], sorted[floor v + 1], v - floor v) with NumPy's two-sided
// lerp (b - (b - a)(1 - t) when t >= 0.5, in double, rounded once to the result type); median is the middle value or the mean of the two
// middle values, as np.median computes it ((a + b) / 2). A lane holding NaN gives NaN; the nan-
// variants skip NaN and give NaN for a lane with nothing left (NumPy warns there), as does an
// empty lane. Result type: float and double stay, integers and bool give double. Several
// quantiles (a list) add a leading axis of that length, as NumPy.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xmanipulation.hpp>

#include "../blocks.hpp"
#include "../core/host_isa.hpp"
#include "../manipulation.hpp"
#include "../nodes/rechunk.hpp"
#include "reduction.hpp"

namespace tessera {

namespace detail {

/// Which statistic, and whether NaN is skipped.
struct order_statistic {
  bool median = false;  // np.median's mean of the two middle values; else quantiles q
  bool nan_skip = false;
  std::shared_ptr<const std::vector<double>> q;  // in [0, 1]
};

template <class T>
using order_result_t = std::conditional_t<std::is_floating_point_v<T>, T, double>;

/// The statistic of one lane (reordered in place), for quantile index k (median: ignored).
template <class T, class R = order_result_t<T>>
TESSERA_NO_CONTRACT R lane_statistic(T* v, index_t n, const order_statistic& s, double q) {
  if constexpr (std::is_floating_point_v<T>) {
    if (s.nan_skip) {
      n = index_t(std::remove_if(v, v + n, [](T x) { return x != x; }) - v);
    } else {
      for (index_t i = 0; i < n; ++i)
        if (v[i] != v[i]) return std::numeric_limits<R>::quiet_NaN();
    }
  }
  if (n == 0) return std::numeric_limits<R>::quiet_NaN();
  auto nth = [&](index_t k) {
    std::nth_element(v, v + k, v + n);
    return v[k];
  };
  if (s.median) {
    const index_t h = n / 2;
    const T b = nth(h);
    if (n % 2) return R(b);
    const T a = *std::max_element(v, v + h);  // the largest of the lower half
    return (R(a) + R(b)) / R(2);
  }
  const double vi = double(n - 1) * q;
  index_t lo = index_t(std::floor(vi));
  lo = std::clamp<index_t>(lo, 0, n - 1);
  const index_t hi = std::min<index_t>(lo + 1, n - 1);
  const T a = nth(lo);
  const T b = hi == lo ? a : *std::min_element(v + lo + 1, v + n);  // the next one up
  // NumPy's lerp: b - a in T (integers wrap there), then in double with t, rounded once to R
  // (float32 too: NumPy 1.24's float64 interpolation, the closer result)
  const double t = vi - double(lo);
  double d;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    d = double(T(U(b) - U(a)));
  } else if constexpr (std::is_same_v<T, bool>) {
    d = double(b) - double(a);
  } else {
    d = double(T(b - a));
  }
  // two roundings, as NumPy: separate statements (Clang contracts within one expression only)
  // and TESSERA_NO_CONTRACT (GCC contracts across them)
  const double step = t >= 0.5 ? d * (1 - t) : d * t;
  return R(t >= 0.5 ? double(b) - step : double(a) + step);
}

/// The block function: blocks have a leading axis of length 1 (the quantile axis to be) and
/// the reduced axes whole; the result has the quantiles along axis 0 and 1 on reduced axes.
struct order_statistic_blocks {
  order_statistic stat;
  std::vector<int> reduced;  // axes of the block (leading axis counted) that are reduced

  template <class B>
  auto operator()(const B& b) const {
    using T = typename B::value_type;
    using R = order_result_t<T>;
    const std::size_t r = b.dimension();
    std::vector<std::size_t> perm, out_shape(b.shape().begin(), b.shape().end());
    std::size_t lane = 1, lanes = 1;
    for (std::size_t d = 0; d < r; ++d)
      if (std::find(reduced.begin(), reduced.end(), int(d)) == reduced.end()) {
        perm.push_back(d);
        lanes *= b.shape()[d];
      }
    for (int d : reduced) {
      perm.push_back(std::size_t(d));
      lane *= b.shape()[std::size_t(d)];
      out_shape[std::size_t(d)] = 1;
    }
    const std::size_t nq = stat.median ? 1 : stat.q->size();
    out_shape[0] = nq;
    xt::xarray<T> t = xt::transpose(b, perm);  // lanes contiguous, in the kept axes' order
    xt::xarray<R> out = xt::zeros<R>(out_shape);
    std::vector<T> work(lane);
    for (std::size_t m = 0; m < lanes; ++m) {
      for (std::size_t k = 0; k < nq; ++k) {
        std::copy(t.data() + m * lane, t.data() + (m + 1) * lane, work.begin());
        out.flat(k * lanes + m) =
            lane_statistic<T>(work.data(), index_t(lane), stat, stat.median ? 0.5 : (*stat.q)[k]);
      }
    }
    return out;
  }
};

/// The statistic over `axes` (all when none): VectorQ keeps the quantile axis in front, Keep
/// keeps reduced axes as length 1.
template <bool VectorQ, bool Keep, expression_type X>
auto order_statistic_over(const X& x, order_statistic stat, const std::optional<std::vector<index_t>>& axes,
                          const char* name) {
  const int r = x.dimension();
  std::vector<int> ax;
  if (axes) {
    for (index_t a : *axes) {
      const int k = normalize_axis(a, r, "axis");
      if (std::find(ax.begin(), ax.end(), k) != ax.end())
        throw_invalid(name, ": axis ", a, " repeats in axes ", *axes);
      ax.push_back(k);
    }
    std::sort(ax.begin(), ax.end());
  } else {
    for (int d = 0; d < r; ++d) ax.push_back(d);
  }
  chunks_t whole = x.chunks();  // the reduced axes in one chunk each
  for (int d : ax) whole[std::size_t(d)] = {x.shape()[std::size_t(d)]};
  auto lanes = expand_dims(rechunk(x, whole), 0);
  chunks_t out = lanes.chunks();
  const index_t nq = stat.median ? 1 : index_t(stat.q->size());
  out[0] = {nq};
  order_statistic_blocks f{stat, {}};
  for (int d : ax) {
    f.reduced.push_back(d + 1);
    out[std::size_t(d + 1)] = {1};
  }
  auto m = map_blocks(f, out_chunks(out), lanes);
  std::vector<index_t> drop;
  if constexpr (!VectorQ) drop.push_back(0);
  if constexpr (!Keep)
    for (int d : ax) drop.push_back(d + 1);
  if constexpr (VectorQ && Keep) return m;
  else return squeeze(m, drop);
}

inline std::vector<index_t> one_axis(index_t a) { return {a}; }
inline std::shared_ptr<const std::vector<double>> quantiles(std::vector<double> q, double scale,
                                                            const char* name) {
  for (double& v : q) {
    if (!(v >= 0 && v <= scale))
      throw_invalid(name, ": q = ", v, " is outside [0, ", scale, "]");
    v = scale == 1 ? v : v / scale;  // percentiles: q / 100, as NumPy
  }
  return std::make_shared<const std::vector<double>>(std::move(q));
}

}  // namespace detail

// median / nanmedian: over all axes, one axis or a list; ts::keepdims keeps them as length 1.
#define TESSERA_MEDIAN(fn, skip)                                                                  \
  template <expression_type X>                                                                    \
  auto fn(const X& x) {                                                                           \
    return detail::order_statistic_over<false, false>(x, {true, skip, nullptr}, std::nullopt, #fn); \
  }                                                                                               \
  template <expression_type X>                                                                    \
  auto fn(const X& x, index_t axis) {                                                             \
    return detail::order_statistic_over<false, false>(x, {true, skip, nullptr}, detail::one_axis(axis), #fn); \
  }                                                                                               \
  template <expression_type X>                                                                    \
  auto fn(const X& x, const std::vector<index_t>& axes) {                                         \
    return detail::order_statistic_over<false, false>(x, {true, skip, nullptr}, axes, #fn);      \
  }                                                                                               \
  template <expression_type X>                                                                    \
  auto fn(const X& x, const std::vector<index_t>& axes, keep_dims_t) {                            \
    return detail::order_statistic_over<false, true>(x, {true, skip, nullptr}, axes, #fn);       \
  }
TESSERA_MEDIAN(median, false)
TESSERA_MEDIAN(nanmedian, true)
#undef TESSERA_MEDIAN

// quantile / percentile and nan-variants: q a number (the result has the reduced shape) or a
// list (a leading axis of its length); over all axes, one axis or a list; ts::keepdims.
#define TESSERA_QUANTILE(fn, skip, scale)                                                          \
  template <expression_type X>                                                                     \
  auto fn(const X& x, double q) {                                                                  \
    return detail::order_statistic_over<false, false>(x, {false, skip, detail::quantiles({q}, scale, #fn)}, std::nullopt, #fn); \
  }                                                                                                \
  template <expression_type X>                                                                     \
  auto fn(const X& x, double q, index_t axis) {                                                    \
    return detail::order_statistic_over<false, false>(x, {false, skip, detail::quantiles({q}, scale, #fn)}, detail::one_axis(axis), #fn); \
  }                                                                                                \
  template <expression_type X>                                                                     \
  auto fn(const X& x, double q, const std::vector<index_t>& axes) {                                \
    return detail::order_statistic_over<false, false>(x, {false, skip, detail::quantiles({q}, scale, #fn)}, axes, #fn); \
  }                                                                                                \
  template <expression_type X>                                                                     \
  auto fn(const X& x, double q, const std::vector<index_t>& axes, keep_dims_t) {                   \
    return detail::order_statistic_over<false, true>(x, {false, skip, detail::quantiles({q}, scale, #fn)}, axes, #fn); \
  }                                                                                                \
  template <expression_type X>                                                                     \
  auto fn(const X& x, const std::vector<double>& q) {                                              \
    return detail::order_statistic_over<true, false>(x, {false, skip, detail::quantiles(q, scale, #fn)}, std::nullopt, #fn); \
  }                                                                                                \
  template <expression_type X>                                                                     \
  auto fn(const X& x, const std::vector<double>& q, index_t axis) {                                \
    return detail::order_statistic_over<true, false>(x, {false, skip, detail::quantiles(q, scale, #fn)}, detail::one_axis(axis), #fn); \
  }                                                                                                \
  template <expression_type X>                                                                     \
  auto fn(const X& x, const std::vector<double>& q, const std::vector<index_t>& axes) {            \
    return detail::order_statistic_over<true, false>(x, {false, skip, detail::quantiles(q, scale, #fn)}, axes, #fn); \
  }                                                                                                \
  template <expression_type X>                                                                     \
  auto fn(const X& x, const std::vector<double>& q, const std::vector<index_t>& axes, keep_dims_t) { \
    return detail::order_statistic_over<true, true>(x, {false, skip, detail::quantiles(q, scale, #fn)}, axes, #fn); \
  }
TESSERA_QUANTILE(quantile, false, 1)
TESSERA_QUANTILE(nanquantile, true, 1)
TESSERA_QUANTILE(percentile, false, 100)
TESSERA_QUANTILE(nanpercentile, true, 100)
#undef TESSERA_QUANTILE

}  // namespace tessera
