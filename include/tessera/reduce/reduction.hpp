// reduced<Op, X>: a lazy reduction node (Op: an accumulator of reduce/accumulators.hpp, or a
// user reducer adapted by reduce/custom.hpp) and the user functions (ts::sum, ts::mean, ...).
//
// The node's grid keeps the input's chunks on kept axes; reduced axes become one chunk of
// length 1 (keep-dims) or vanish. lower(policy) runs the reduction (execute_reduction, found
// by argument-dependent lookup for the policy type) and returns a stored ts::array, so a
// reduction can be computed, persisted, used in further expressions and reduced again.
#pragma once
#include <concepts>
#include <ranges>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include "../core/expression.hpp"
#include "../nodes/remap.hpp"
#include "accumulators.hpp"
#include "../exec/drivers.hpp"
#include "../reduce/spec.hpp"
#include "dtype.hpp"

namespace tessera {

/// Tag: keep reduced axes as length-1 axes (`ts::sum(x, {0}, ts::keep_dims)`).
struct keep_dims_t {};
inline constexpr keep_dims_t keep_dims{};
/// NumPy's spelling of the same tag (`ts::sum(x, {0}, ts::keepdims)`).
inline constexpr keep_dims_t keepdims{};

/// Options of a reduction (`ts::variance(x, {1}, {.ddof = 1, .split_every = 8})`).
struct reduce_options {
  bool keep_dims = false;  // keep reduced axes as length-1 axes
  index_t ddof = 0;        // variance / stddev divisor is count - ddof
  int split_every = 4;     // fan-in of the combine tree (>= 2)
};

/// Options with the variance divisor count - n (NumPy's ddof=n): `ts::variance(x, {1}, ts::ddof(1))`.
inline reduce_options ddof(index_t n) { return reduce_options{.ddof = n}; }

template <class Op, class X>
class reduced : public expression<reduced<Op, X>> {
 public:
  using op_type = Op;
  static_assert(std::is_same_v<typename Op::input_type, typename X::value_type>,
                "tessera: a reduction's op folds the element type of its input");
  using value_type = typename op_type::result_type;

  reduced(X child, op_type op, reduce_spec spec)
      : child_(std::move(child)), op_(op), spec_(spec) {
    const chunk_grid& g = child_.grid();
    shape_t shape;
    chunks_t ch;
    for (int d = 0; d < g.rank(); ++d) {
      if (!spec_.reduced(d)) {
        shape.push_back(g.shape()[std::size_t(d)]);
        ch.push_back(g.chunks()[std::size_t(d)]);
      } else if (spec_.keep_dims) {
        shape.push_back(1);
        ch.push_back({1});
      }
    }
    grid_ = chunk_grid(std::move(shape), std::move(ch));
  }

  const chunk_grid& grid() const { return grid_; }
  const X& child() const { return child_; }
  const op_type& op() const { return op_; }
  const reduce_spec& spec() const { return spec_; }

  /// Runs the reduction: the result is a stored array.
  template <class P>
  auto lower(const P& policy) const {
    return execute_reduction(policy, child_.lower(policy), op_, spec_, grid_);
  }
  /// Runs the reduction into `out`, row-major over the result's shape in host memory (compute,
  /// compute_into): the combine tree's roots are finalized there, with no stored result.
  template <class P>
    requires detail::reduces_into_host_memory<P>
  void lower_into(const P& policy, value_type* out) const {
    execute_reduction_into(policy, child_.lower(policy), op_, spec_, grid_, out);
  }

 private:
  X child_;
  op_type op_;
  reduce_spec spec_;
  chunk_grid grid_;
};

namespace detail {

/// Any range of integers other than std::vector<index_t> (std::vector<int>, std::array,
/// std::span, a view): axes given at run time, converted once.
template <class V>
concept other_integer_range = std::ranges::input_range<V> && !std::is_same_v<V, std::vector<index_t>> &&
                              std::integral<std::ranges::range_value_t<V>> &&
                              !std::is_same_v<std::ranges::range_value_t<V>, bool>;
template <class V>
std::vector<index_t> axes_of(const V& v) {
  std::vector<index_t> a;
  for (auto x : v) a.push_back(index_t(x));
  return a;
}
/// An axes argument of the keep-dims overloads: a list, a range of integers or one axis.
template <class A>
concept axes_like = std::is_convertible_v<A, std::vector<index_t>> || std::is_integral_v<A> || other_integer_range<A>;

/// Axes argument: all axes (none given) or an explicit list.
struct axes_arg {
  bool all = true;
  std::vector<index_t> axes;
};

/// plain/variance: any axes, an identity; extremum: no identity (empty -> error); arg: element
/// indices along one axis or flat, no identity; indexed: element indices, an identity.
enum class reduce_family { plain, variance, extremum, arg, indexed };

/// The spec of a reduction over `ax` of x (validated; `name` for messages) and the number of
/// elements reduced into each output element.
template <reduce_family F, expression_type X>
reduce_spec make_reduce_spec(const X& x, const axes_arg& ax, const reduce_options& o,
                             const char* name, index_t& count) {
  const int r = x.dimension();
  reduce_spec spec;
  spec.keep_dims = o.keep_dims;
  if (o.split_every < 2)
    throw_invalid(name, ": split_every must be at least 2, got ", o.split_every);
  spec.split_every = o.split_every;
  constexpr bool with_index = F == reduce_family::arg || F == reduce_family::indexed;
  if (ax.all) {
    spec.mask = r == 0 ? 0u : (r >= 32 ? ~0u : (1u << r) - 1u);
    if constexpr (with_index) spec.flat_index = true;
  } else {
    if constexpr (with_index)
      if (ax.axes.size() != 1)
        throw_invalid(name, " takes one axis or none, got axes ", ax.axes);
    for (index_t a : ax.axes) {
      const int d = normalize_axis(a, r);
      if (spec.reduced(d)) throw_invalid(name, ": repeated axis ", a, " in axes ", ax.axes);
      spec.mask |= 1u << d;
    }
    if constexpr (with_index) spec.index_axis = normalize_axis(ax.axes[0], r);
  }
  count = 1;
  for (int d = 0; d < r; ++d)
    if (spec.reduced(d)) count *= x.shape()[std::size_t(d)];
  if constexpr (F == reduce_family::extremum || F == reduce_family::arg)
    if (count == 0)
      throw_invalid(name, ": zero-size reduction over an empty axis of shape ", x.shape(),
                    " has no identity");
  return spec;
}

template <template <class> class Op, reduce_family F, expression_type X>
auto make_reduction(const X& x, const axes_arg& ax, const reduce_options& o, const char* name) {
  index_t count = 0;
  const reduce_spec spec = make_reduce_spec<F>(x, ax, o, name, count);
  Op<typename X::value_type> op;
  op.count = count;
  op.ddof = o.ddof;
  return reduced<Op<typename X::value_type>, X>(x, op, spec);
}

}  // namespace detail

// Each reduction f accepts (and, where NumPy has dtype=, f<R>(...) with the same arguments:
// the elements converted to R and accumulated in R; reduce/dtype.hpp)
//   f(x), f(x, ts::keep_dims), f(x, options)                      all axes
//   f(x, {a, b, ...} | std::vector<index_t> | any range of integers | axis
//     [, ts::keep_dims | bool | options])
// The keep flag must be a bool: `ts::variance(x, {1}, 1)` does not compile (an int there is
// NumPy's ddof to a NumPy user: write ts::variance(x, {1}, ts::ddof(1))).
#define TESSERA_REDUCTION(fname, opname, family, rule)                                      \
  template <class R = void, expression_type X>                                              \
  auto fname(const X& x, const reduce_options& o = {}) {                                    \
    detail::check_dtype<R, detail::dtype_rule::rule>();                                     \
    return detail::in_dtype<R>(detail::make_reduction<reducers::opname, detail::reduce_family::family>( \
        detail::in_dtype<R>(x), detail::axes_arg{}, o, #fname));                            \
  }                                                                                         \
  template <class R = void, expression_type X>                                              \
  auto fname(const X& x, keep_dims_t) {                                                     \
    return fname<R>(x, reduce_options{.keep_dims = true});                                  \
  }                                                                                         \
  template <class R = void, expression_type X, class V>                                     \
    requires std::is_same_v<V, std::vector<index_t>>                                        \
  auto fname(const X& x, const V& axes, const reduce_options& o = {}) {                     \
    detail::check_dtype<R, detail::dtype_rule::rule>();                                     \
    return detail::in_dtype<R>(detail::make_reduction<reducers::opname, detail::reduce_family::family>( \
        detail::in_dtype<R>(x), detail::axes_arg{false, axes}, o, #fname));                 \
  }                                                                                         \
  template <class R = void, expression_type X, detail::other_integer_range V>               \
  auto fname(const X& x, const V& axes, const reduce_options& o = {}) {                     \
    return fname<R>(x, detail::axes_of(axes), o);                                           \
  }                                                                                         \
  template <class R = void, expression_type X>                                              \
  auto fname(const X& x, std::initializer_list<index_t> axes, const reduce_options& o = {}) { \
    return fname<R>(x, std::vector<index_t>(axes), o);                                      \
  }                                                                                         \
  template <class R = void, expression_type X>                                              \
  auto fname(const X& x, index_t axis, const reduce_options& o = {}) {                      \
    return fname<R>(x, std::vector<index_t>{axis}, o);                                      \
  }                                                                                         \
  template <class R = void, expression_type X, detail::axes_like A>                         \
  auto fname(const X& x, const A& axes, keep_dims_t) {                                      \
    return fname<R>(x, axes, reduce_options{.keep_dims = true});                            \
  }                                                                                         \
  template <class R = void, expression_type X>                                              \
  auto fname(const X& x, std::initializer_list<index_t> axes, keep_dims_t) {                \
    return fname<R>(x, std::vector<index_t>(axes), reduce_options{.keep_dims = true});      \
  }                                                                                         \
  template <class R = void, expression_type X, detail::axes_like A, std::same_as<bool> B>   \
  auto fname(const X& x, const A& axes, B keep) {                                           \
    return fname<R>(x, axes, reduce_options{.keep_dims = keep});                            \
  }                                                                                         \
  template <class R = void, expression_type X, std::same_as<bool> B>                        \
  auto fname(const X& x, std::initializer_list<index_t> axes, B keep) {                     \
    return fname<R>(x, std::vector<index_t>(axes), reduce_options{.keep_dims = keep});      \
  }

/// Sum (int64 for signed integers and bool, uint64 for unsigned, else the float type).
TESSERA_REDUCTION(sum, sum, plain, arithmetic)
/// Product (same result types as sum).
TESSERA_REDUCTION(prod, prod, plain, arithmetic)
/// Arithmetic mean (double for integer inputs); NaN for an empty reduction.
TESSERA_REDUCTION(mean, mean, plain, floating)
/// Variance, divisor count - ddof (single pass, Chan's merge).
TESSERA_REDUCTION(variance, variance, variance, floating)
/// Standard deviation, sqrt(variance).
TESSERA_REDUCTION(stddev, stddev, variance, floating)
/// Minimum (NaN propagates; an empty reduction throws).
TESSERA_REDUCTION(amin, amin, extremum, none)
/// Maximum (NaN propagates; an empty reduction throws).
TESSERA_REDUCTION(amax, amax, extremum, none)
/// Index of the minimum along one axis, or flat index over all axes (first NaN wins).
TESSERA_REDUCTION(argmin, argmin, arg, none)
/// Index of the maximum along one axis, or flat index over all axes (first NaN wins).
TESSERA_REDUCTION(argmax, argmax, arg, none)
/// Whether any element is nonzero.
TESSERA_REDUCTION(any, any, plain, none)
/// Whether all elements are nonzero.
TESSERA_REDUCTION(all, all, plain, none)
/// Number of nonzero elements (int64).
TESSERA_REDUCTION(count_nonzero, count_nonzero, plain, none)
#undef TESSERA_REDUCTION

}  // namespace tessera
