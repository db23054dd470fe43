// Cumulative operations along an axis (NumPy's cumsum, cumprod, nancumsum, nancumprod):
// scanned<Op, X>, a stage like a reduction. lower(policy) runs execute_scan (exec/drivers.hpp):
// the chunks of each position along the axis are evaluated in parallel, chunk position by
// chunk position, and each is scanned on the host continuing from the running values its
// predecessor left, so every element is NumPy's sequential fl(previous (+|*) x) -- the same
// bits for any chunking, thread count or backend. The result is the backend's stored array.
#pragma once
#include <cstdint>
#include <type_traits>

#include "../core/expression.hpp"
#include "../core/math.hpp"
#include "../exec/drivers.hpp"
#include "../reshape.hpp"
#include "accumulators.hpp"
#include "dtype.hpp"

namespace tessera {

namespace scans {
/// Running sum in R (NumPy's add.accumulate with sum's result type); nan_skip: NaN counts as 0.
template <class T, bool NanSkip>
struct sum {
  using input_type = T;
  using result_type = sum_result_t<T>;
  static constexpr const char* name = NanSkip ? "nancumsum" : "cumsum";
  static result_type first(T x) { return skip(x) ? result_type(0) : result_type(x); }
  static result_type step(result_type a, T x) { return skip(x) ? a : result_type(a + result_type(x)); }
  static bool skip(T x) {
    if constexpr (NanSkip && std::is_floating_point_v<T>) return x != x;
    else return false;
  }
};
/// Running product in R; nan_skip: NaN counts as 1. Integers wrap as NumPy's.
template <class T, bool NanSkip>
struct prod {
  using input_type = T;
  using result_type = sum_result_t<T>;
  static constexpr const char* name = NanSkip ? "nancumprod" : "cumprod";
  static result_type first(T x) { return skip(x) ? result_type(1) : result_type(x); }
  static result_type step(result_type a, T x) {
    if (skip(x)) return a;
    if constexpr (std::is_integral_v<result_type>) {
      using U = std::make_unsigned_t<result_type>;
      return result_type(U(a) * U(result_type(x)));
    } else {
      return a * result_type(x);
    }
  }
  static bool skip(T x) {
    if constexpr (NanSkip && std::is_floating_point_v<T>) return x != x;
    else return false;
  }
};
}  // namespace scans

template <class Op, class X>
class scanned : public expression<scanned<Op, X>> {
 public:
  using op_type = Op;
  using value_type = typename Op::result_type;
  static constexpr bool runs_stage = true;  // diagnostics/graph.hpp counts its tasks
  scanned(X child, int axis) : child_(std::move(child)), axis_(axis) {}

  const chunk_grid& grid() const { return child_.grid(); }
  const X& child() const { return child_; }
  int axis() const { return axis_; }
  /// Task batches and tasks of the stage (one batch per chunk position along the axis).
  index_t stage_count() const { return grid().size() > 0 ? grid().numblocks()[std::size_t(axis_)] : 0; }
  index_t stage_tasks() const { return grid().size() > 0 ? grid().block_count() : 0; }

  template <class P>
  auto lower(const P& policy) const {
    return execute_scan(policy, child_.lower(policy), Op{}, axis_);
  }

 private:
  X child_;
  int axis_;
};

namespace detail {
template <template <class, bool> class S, bool NanSkip, expression_type X>
auto make_scan(const X& x, index_t axis, const char* name) {
  if (x.dimension() == 0) throw_invalid(name, ": a 0-d array has no axis to scan; flatten it first (ts::", name, "(x))");
  const int ax = normalize_axis(axis, x.dimension(), "axis");
  return scanned<S<typename X::value_type, NanSkip>, X>(x, ax);
}
}  // namespace detail

/// Running sum along `axis` (NumPy's cumsum; sum's result type: int64 for signed integers and
/// bool, uint64 for unsigned, else the float type).
template <class R = void, expression_type X>
auto cumsum(const X& x, index_t axis) {
  detail::check_dtype<R, detail::dtype_rule::arithmetic>();
  return detail::in_dtype<R>(detail::make_scan<scans::sum, false>(detail::in_dtype<R>(x), axis, "cumsum"));
}
/// Running sum of the flattened array (NumPy's cumsum without an axis).
template <class R = void, expression_type X>
auto cumsum(const X& x) {
  return cumsum<R>(ravel(x), 0);
}
/// Running product along `axis` (NumPy's cumprod; integers wrap).
template <class R = void, expression_type X>
auto cumprod(const X& x, index_t axis) {
  detail::check_dtype<R, detail::dtype_rule::arithmetic>();
  return detail::in_dtype<R>(detail::make_scan<scans::prod, false>(detail::in_dtype<R>(x), axis, "cumprod"));
}
template <class R = void, expression_type X>
auto cumprod(const X& x) {
  return cumprod<R>(ravel(x), 0);
}
/// cumsum with NaN counted as 0 (NumPy's nancumsum).
template <class R = void, expression_type X>
auto nancumsum(const X& x, index_t axis) {
  detail::check_dtype<R, detail::dtype_rule::arithmetic>();
  return detail::in_dtype<R>(detail::make_scan<scans::sum, true>(detail::in_dtype<R>(x), axis, "nancumsum"));
}
template <class R = void, expression_type X>
auto nancumsum(const X& x) {
  return nancumsum<R>(ravel(x), 0);
}
/// cumprod with NaN counted as 1 (NumPy's nancumprod).
template <class R = void, expression_type X>
auto nancumprod(const X& x, index_t axis) {
  detail::check_dtype<R, detail::dtype_rule::arithmetic>();
  return detail::in_dtype<R>(detail::make_scan<scans::prod, true>(detail::in_dtype<R>(x), axis, "nancumprod"));
}
template <class R = void, expression_type X>
auto nancumprod(const X& x) {
  return nancumprod<R>(ravel(x), 0);
}

}  // namespace tessera
