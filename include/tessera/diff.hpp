// NumPy's diff (lazy): the n-th discrete difference along an axis, one node
// (nodes/differenced.hpp) for any n up to ts::max_diff_order.
#pragma once
#include "manipulation.hpp"
#include "nodes/differenced.hpp"

namespace tessera {

/// out[i] = n-th difference of x[i .. i + n] along `axis` (NumPy's diff; integers wrap,
/// booleans take not-equal). The axis shortens by n (to 0 when n exceeds it).
template <expression_type X>
auto diff(const X& x, int n = 1, index_t axis = -1) {
  const int r = x.dimension();
  if (r < 1) throw_invalid("diff requires an input that is at least one dimensional");
  const int ax = detail::normalize_axis(axis, r, "diff axis");
  if (n < 0) throw_invalid("diff: order n = ", n, " must be non-negative");
  if (n > max_diff_order) throw_invalid("diff: order n = ", n, " is above the supported ", max_diff_order);
  return differenced<X>(x, n, ax);
}

}  // namespace tessera
