// NumPy's NaN-ignoring reductions (nansum, nanprod, nanmean, nanvar, nanstd, nanmin, nanmax),
// composed from the plain reductions over a NaN-masked operand: lazy, chunked, the same
// argument forms as ts::sum (axes, keep_dims, options). Integer and bool inputs have no NaN
// and give the plain reduction.
//
//   nansum / nanprod   sum / prod of where(isnan(x), 0 / 1, x)
//   nanmean            sum (in double) / count of non-NaN elements, rounded once to the result
//                      type (float32 stays float32); NaN where every element is NaN
//   nanvar / nanstd    two passes, as NumPy: the mean of the non-NaN elements, then the sum of
//                      squared deviations / (count - ddof); NaN where count - ddof <= 0
//   nanmin / nanmax    amin / amax of where(isnan(x), +inf / -inf, x); NaN where every
//                      element is NaN (NumPy warns there); empty reductions throw as amin
//   nanargmin / max    argmin / argmax whose accumulator never lets NaN win; an all-NaN lane
//                      throws when the result is computed (the small result is read back
//                      once to check), as NumPy's ValueError
#pragma once
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "../ops/arith.hpp"
#include "../ops/logic.hpp"
#include "reduction.hpp"

namespace tessera {

namespace detail {
/// A reduction's axes as given: none (all axes) or a list.
using nan_axes = std::optional<std::vector<index_t>>;

template <class F, expression_type X>
auto reduce_over(F f, const X& x, const nan_axes& axes, const reduce_options& o) {
  if (axes) return f(x, *axes, o);
  return f(x, o);
}
#define TESSERA_REDUCER_OF(fn)                                              \
  [](const auto& x_, const auto&... a_) { return fn(x_, a_...); }

template <expression_type X>
auto isnan_of(const X& x) {
  return elementwise<ops::isnan, X>(ops::isnan{}, x);
}
/// x with NaN replaced by v.
template <expression_type X, class V>
auto nan_replaced(const X& x, V v) {
  using T = typename X::value_type;
  return where(isnan_of(x), T(v), x);
}
/// The number of non-NaN elements (int64), as a reduction with x's axes and options.
template <expression_type X>
auto count_not_nan(const X& x, const nan_axes& axes, const reduce_options& o) {
  reduce_options c = o;
  c.ddof = 0;
  return reduce_over(TESSERA_REDUCER_OF(sum), cast<std::int64_t>(elementwise<ops::logical_not, decltype(isnan_of(x))>(ops::logical_not{}, isnan_of(x))), axes, c);
}

template <expression_type X>
auto nansum(const X& x, const nan_axes& axes, const reduce_options& o) {
  if constexpr (std::is_floating_point_v<typename X::value_type>)
    return reduce_over(TESSERA_REDUCER_OF(sum), nan_replaced(x, 0), axes, o);
  else return reduce_over(TESSERA_REDUCER_OF(sum), x, axes, o);
}
template <expression_type X>
auto nanprod(const X& x, const nan_axes& axes, const reduce_options& o) {
  if constexpr (std::is_floating_point_v<typename X::value_type>)
    return reduce_over(TESSERA_REDUCER_OF(prod), nan_replaced(x, 1), axes, o);
  else return reduce_over(TESSERA_REDUCER_OF(prod), x, axes, o);
}
template <expression_type X>
auto nanmean(const X& x, const nan_axes& axes, const reduce_options& o) {
  using T = typename X::value_type;
  if constexpr (std::is_floating_point_v<T>) {
    auto total = reduce_over(TESSERA_REDUCER_OF(sum), cast<double>(nan_replaced(x, 0)), axes, o);
    return cast<T>(total / count_not_nan(x, axes, o));
  } else {
    return reduce_over(TESSERA_REDUCER_OF(mean), x, axes, o);
  }
}
template <expression_type X>
auto nanvar(const X& x, const nan_axes& axes, const reduce_options& o) {
  using T = typename X::value_type;
  if constexpr (std::is_floating_point_v<T>) {
    reduce_options keep = o;
    keep.keep_dims = true;
    auto mean = reduce_over(TESSERA_REDUCER_OF(sum), cast<double>(nan_replaced(x, 0)), axes, keep) /
                count_not_nan(x, axes, keep);
    auto dev = cast<double>(x) - mean;  // NaN where x is NaN
    auto sq = where(isnan_of(x), 0.0, dev * dev);
    auto dof = count_not_nan(x, axes, o) - o.ddof;
    auto s = reduce_over(TESSERA_REDUCER_OF(sum), sq, axes, o);
    return cast<T>(where(dof > 0, s / dof, std::numeric_limits<double>::quiet_NaN()));
  } else {
    return reduce_over(TESSERA_REDUCER_OF(variance), x, axes, o);
  }
}
template <expression_type X>
auto nanstd(const X& x, const nan_axes& axes, const reduce_options& o) {
  using T = typename X::value_type;
  if constexpr (std::is_floating_point_v<T>) return sqrt(detail::nanvar(x, axes, o));
  else return reduce_over(TESSERA_REDUCER_OF(stddev), x, axes, o);
}
/// nanmin / nanmax: `reduce` (amin or amax) of x with NaN replaced by `fill` (+inf or -inf),
/// NaN where the whole slice is NaN.
template <expression_type X, class R>
auto nan_extremum(const X& x, const nan_axes& axes, const reduce_options& o, R reduce,
                  typename X::value_type fill) {
  using T = typename X::value_type;
  if constexpr (std::is_floating_point_v<T>) {
    auto m = reduce_over(reduce, nan_replaced(x, fill), axes, o);
    auto all_nan = reduce_over(TESSERA_REDUCER_OF(all), isnan_of(x), axes, o);
    return where(all_nan, std::numeric_limits<T>::quiet_NaN(), m);
  } else {
    return reduce_over(reduce, x, axes, o);
  }
}
template <expression_type X>
auto nanmin(const X& x, const nan_axes& axes, const reduce_options& o) {
  using T = typename X::value_type;
  return nan_extremum(x, axes, o, TESSERA_REDUCER_OF(amin), std::numeric_limits<T>::infinity());
}
template <expression_type X>
auto nanmax(const X& x, const nan_axes& axes, const reduce_options& o) {
  using T = typename X::value_type;
  return nan_extremum(x, axes, o, TESSERA_REDUCER_OF(amax), -std::numeric_limits<T>::infinity());
}
#undef TESSERA_REDUCER_OF

/// nanargmin / nanargmax of a float array: the index reduction skipping NaN, checked when it is
/// lowered: its result (one index per output element) is read back once, and a lane that was
/// all NaN (index -1) throws, as NumPy's ValueError.
template <class X>
class all_nan_checked : public expression<all_nan_checked<X>> {
 public:
  using value_type = index_t;
  static constexpr bool lowers_away = true;  // to the reduction's result (diagnostics/graph.hpp)
  all_nan_checked(X child, std::string name) : child_(std::move(child)), name_(std::move(name)) {}
  const chunk_grid& grid() const { return child_.grid(); }
  const X& child() const { return child_; }
  const std::string& node_label() const { return name_; }  // diagnostics/graph.hpp
  template <class P>
  auto lower(const P& policy) const {
    auto lowered = child_.lower(policy);
    const auto h = compute_adl(lowered, policy);
    for (std::size_t k = 0; k < h.size(); ++k)
      if (h.flat(k) < 0) {
        std::vector<index_t> at(h.dimension());
        std::size_t r = k;
        for (std::size_t d = h.dimension(); d-- > 0;) {
          at[d] = index_t(r % h.shape()[d]);
          r /= h.shape()[d];
        }
        throw_invalid(name_, ": all-NaN slice encountered (result index ", at,
                      "); NumPy raises ValueError there");
      }
    return lowered;
  }

 private:
  X child_;
  std::string name_;
};

template <bool Max, expression_type X>
auto nan_arg(const X& x, const nan_axes& axes, const reduce_options& o) {
  using T = typename X::value_type;
  const char* name = Max ? "nanargmax" : "nanargmin";
  const axes_arg ax = axes ? axes_arg{false, *axes} : axes_arg{};
  if constexpr (!std::is_floating_point_v<T>) {
    if constexpr (Max) return make_reduction<reducers::argmax, reduce_family::arg>(x, ax, o, name);
    else return make_reduction<reducers::argmin, reduce_family::arg>(x, ax, o, name);
  } else if constexpr (Max) {
    auto r = make_reduction<reducers::nanargmax, reduce_family::arg>(x, ax, o, name);
    return all_nan_checked<decltype(r)>(r, name);
  } else {
    auto r = make_reduction<reducers::nanargmin, reduce_family::arg>(x, ax, o, name);
    return all_nan_checked<decltype(r)>(r, name);
  }
}
template <expression_type X>
auto nanargmax(const X& x, const nan_axes& axes, const reduce_options& o) {
  return nan_arg<true>(x, axes, o);
}
template <expression_type X>
auto nanargmin(const X& x, const nan_axes& axes, const reduce_options& o) {
  return nan_arg<false>(x, axes, o);
}
}  // namespace detail

// The argument forms of ts::sum (and nansum<R> ... for NumPy's dtype=: reduce/dtype.hpp):
//   f(x), f(x, ts::keep_dims), f(x, options)
//   f(x, {a, b, ...} | std::vector<index_t> | axis [, ts::keep_dims | bool | options])
#define TESSERA_NAN_REDUCTION(fname, rule)                                                     \
  template <class R = void, expression_type X>                                                 \
  auto fname(const X& x, const reduce_options& o = {}) {                                       \
    detail::check_dtype<R, detail::dtype_rule::rule>();                                        \
    return detail::in_dtype<R>(detail::fname(detail::in_dtype<R>(x), std::nullopt, o));        \
  }                                                                                            \
  template <class R = void, expression_type X>                                                 \
  auto fname(const X& x, keep_dims_t) {                                                        \
    return fname<R>(x, reduce_options{.keep_dims = true});                                     \
  }                                                                                            \
  template <class R = void, expression_type X>                                                 \
  auto fname(const X& x, const std::vector<index_t>& axes, const reduce_options& o = {}) {     \
    detail::check_dtype<R, detail::dtype_rule::rule>();                                        \
    return detail::in_dtype<R>(detail::fname(detail::in_dtype<R>(x), axes, o));                \
  }                                                                                            \
  template <class R = void, expression_type X, detail::other_integer_range V>                   \
  auto fname(const X& x, const V& axes, const reduce_options& o = {}) {                        \
    return fname<R>(x, detail::axes_of(axes), o);                                              \
  }                                                                                            \
  template <class R = void, expression_type X>                                                 \
  auto fname(const X& x, std::initializer_list<index_t> axes, const reduce_options& o = {}) {  \
    return fname<R>(x, std::vector<index_t>(axes), o);                                         \
  }                                                                                            \
  template <class R = void, expression_type X>                                                 \
  auto fname(const X& x, index_t axis, const reduce_options& o = {}) {                         \
    return fname<R>(x, std::vector<index_t>{axis}, o);                                         \
  }                                                                                            \
  template <class R = void, expression_type X>                                                 \
  auto fname(const X& x, std::initializer_list<index_t> axes, keep_dims_t) {                   \
    return fname<R>(x, std::vector<index_t>(axes), reduce_options{.keep_dims = true});         \
  }                                                                                            \
  template <class R = void, expression_type X>                                                 \
  auto fname(const X& x, index_t axis, keep_dims_t) {                                          \
    return fname<R>(x, std::vector<index_t>{axis}, reduce_options{.keep_dims = true});         \
  }
TESSERA_NAN_REDUCTION(nansum, arithmetic)
TESSERA_NAN_REDUCTION(nanprod, arithmetic)
TESSERA_NAN_REDUCTION(nanmean, floating)
TESSERA_NAN_REDUCTION(nanvar, floating)
TESSERA_NAN_REDUCTION(nanstd, floating)
TESSERA_NAN_REDUCTION(nanmin, none)
TESSERA_NAN_REDUCTION(nanmax, none)
/// Index of the minimum / maximum skipping NaN (one axis, or the flat index over all axes);
/// an all-NaN lane throws when the result is computed, as NumPy's ValueError.
TESSERA_NAN_REDUCTION(nanargmin, none)
TESSERA_NAN_REDUCTION(nanargmax, none)
#undef TESSERA_NAN_REDUCTION

}  // namespace tessera
