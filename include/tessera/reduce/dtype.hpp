// NumPy's dtype= of the accumulating reductions, spelled as a leading template argument:
// ts::sum<double>(x), ts::mean<float>(x, {0}), ts::cumsum<std::int64_t>(x, 1),
// ts::nansum<double>(x), x.sum<double>(). As NumPy does, the elements are converted to R first
// (ts::cast: integers wrap, floats to integers truncate and saturate) and accumulated in R; the
// result is R (a sum of int32 in int32 wraps as NumPy's does: the int64 sum is converted back,
// which is the same value modulo 2^32). Without R (R = void) nothing changes.
//
//   sum, prod, nansum, nanprod, cumsum, cumprod, nancumsum, nancumprod   any arithmetic R but bool
//   mean, variance, stddev, nanmean, nanvar, nanstd                        floating R
//   amin, amax, argmin, argmax, any, all, count_nonzero, ...               no dtype (NumPy has none)
#pragma once
#include <type_traits>

#include "../ops/arith.hpp"

namespace tessera::detail {

/// Which result types a reduction accepts as dtype.
enum class dtype_rule { none, arithmetic, floating };

template <class R, dtype_rule Rule>
constexpr void check_dtype() {
  if constexpr (!std::is_void_v<R>) {
    static_assert(Rule != dtype_rule::none,
                  "tessera: this reduction takes no dtype (NumPy's has none); convert the input "
                  "instead: ts::amax(ts::cast<R>(x))");
    static_assert(std::is_arithmetic_v<R> && !std::is_same_v<R, bool>,
                  "tessera: a reduction's dtype must be an arithmetic type other than bool");
    static_assert(Rule != dtype_rule::floating || std::is_floating_point_v<R>,
                  "tessera: mean / variance / stddev (and their nan variants) take a floating "
                  "dtype (float or double)");
  }
}

/// x converted to the dtype R (x itself when R is void or already x's element type).
template <class R, expression_type X>
auto in_dtype(const X& x) {
  if constexpr (std::is_void_v<R> || std::is_same_v<R, typename X::value_type>) return x;
  else return cast<R>(x);
}

}  // namespace tessera::detail
