// NumPy's ptp (peak to peak): amax - amin over the axes, in the element type (integers wrap
// as NumPy's). A composition of two reductions (lazy).
#pragma once
#include <type_traits>
#include <vector>

#include "../ops/arith.hpp"
#include "reduction.hpp"

namespace tessera {

template <expression_type X>
auto ptp(const X& x, const reduce_options& o = {}) {
  static_assert(!std::is_same_v<typename X::value_type, bool>, "ptp: NumPy does not subtract booleans; cast first");
  return cast<typename X::value_type>(amax(x, o) - amin(x, o));
}
template <expression_type X>
auto ptp(const X& x, const std::vector<index_t>& axes, const reduce_options& o = {}) {
  static_assert(!std::is_same_v<typename X::value_type, bool>, "ptp: NumPy does not subtract booleans; cast first");
  return cast<typename X::value_type>(amax(x, axes, o) - amin(x, axes, o));
}
template <expression_type X>
auto ptp(const X& x, index_t axis, const reduce_options& o = {}) {
  return ptp(x, std::vector<index_t>{axis}, o);
}

}  // namespace tessera
