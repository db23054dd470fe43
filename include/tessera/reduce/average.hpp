// NumPy's average: the mean, or with weights sum(x * w) / sum(w) over the axes, in the floating
// type NumPy computes it in (float64 for integer inputs). A composition of ts::sum (lazy).
#pragma once
#include "../manipulation.hpp"
#include "reduction.hpp"

namespace tessera {

/// Unweighted: ts::mean over all axes.
template <expression_type X>
auto average(const X& x) {
  return mean(x);
}
/// Unweighted over the given axes.
template <expression_type X>
auto average(const X& x, const std::vector<index_t>& axes) {
  return mean(x, axes);
}

/// sum(x * w) / sum(w) over `axis` (NumPy's average with weights): w has x's shape, or is 1-d
/// with the length of x along `axis`. Float type: float32 when both are float32 (or smaller
/// floats), else float64. An empty axis throws; weights that sum to
/// zero give inf or NaN (lazy: NumPy raises once it has summed them).
template <expression_type X, expression_type W>
auto average(const X& x, const W& w, index_t axis) {
  const int r = x.dimension();
  const int ax = detail::normalize_axis(axis, r, "average axis");
  using XT = typename X::value_type;
  using R = std::conditional_t<std::is_integral_v<XT>, double, promote_t<XT, typename W::value_type>>;
  shape_t wshape(std::size_t(r), 1);
  slice_vector s;
  if (w.shape() == x.shape()) {
    for (int d = 0; d < r; ++d) s.push_back(slice(all()));
  } else if (w.dimension() == 1 && w.shape()[0] == x.shape()[std::size_t(ax)]) {
    for (int d = 0; d < r; ++d) s.push_back(d == ax ? slice(all()) : slice(newaxis()));
  } else {
    throw_invalid("average: weights of shape ", w.shape(), " do not fit an array of shape ", x.shape(),
                  " averaged over axis ", ax, " (give x's shape, or 1-d of length ", x.shape()[std::size_t(ax)], ")");
  }
  if (x.shape()[std::size_t(ax)] == 0)
    throw_invalid("average: axis ", ax, " of shape ", x.shape(), " is empty, so the weights sum to zero");
  auto wv = cast<R>(dynamic_view(w, s));
  return sum(cast<R>(x) * wv, ax) / sum(broadcast_to(wv, x.shape(), x.chunks()), ax);
}

}  // namespace tessera
