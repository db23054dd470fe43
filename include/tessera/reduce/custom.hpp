// User-defined reductions: ts::reduce(x, r, axes, options) folds x with a reducer r written
// outside the library (as a Kokkos reducer), through the same fused per-chunk fold and the
// same fixed combine tree as ts::sum; reducers::custom<R, T> adapts r onto the accumulator
// interface of reduce/accumulators.hpp.
//
// A reducer R for elements of type T (plain data, trivially copyable; each member TESSERA_HD
// for ts::cuda):
//   S init() const                     the empty partial (S: plain data, trivially copyable)
//   void add(S&, T v) const            folds one element; or add(S&, T v, index_t i) to also
//                                      get its index (the position along the one reduced axis,
//                                      or the flat row-major index when all axes are reduced)
//   void merge(S& a, const S& b) const a := a (+) b, b covering the elements after a's; init()
//                                      must be its identity (merge(a, init()) and
//                                      merge(init(), b) change nothing: ts::cuda's fold merges
//                                      the partials of threads that saw no element)
//   R' final(const S&) const           optional; or final(const S&, index_t count) (count:
//                                      elements reduced into this output element). Without
//                                      it, the result is S itself (S must be an element type)
// Within one chunk, elements reach add in row-major order; the chunks' partials merge in a
// fixed tree, in chunk order (fixed by the chunking alone, so results are the same for any
// thread or stream count). merge must be associative for the result not to depend on the
// chunking. Over one axis, chunk order is element order, so merge need not be commutative; over
// several chunked axes, chunks interleave in flat order, so merge must also be commutative (a
// reducer that needs order decides by the element index, as argmin does).
#pragma once
#include <concepts>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include "../core/promote.hpp"
#include "reduction.hpp"

namespace tessera {

namespace detail {
template <class R>
using reducer_state_t = std::remove_cvref_t<decltype(std::declval<const R&>().init())>;

/// The result element type of reducer R with state S: what final returns, else S.
template <class R, class S>
struct reducer_result {
  using type = S;
};
template <class R, class S>
  requires requires(const R& r, const S& s) { r.final(s); }
struct reducer_result<R, S> {
  using type = std::remove_cvref_t<decltype(std::declval<const R&>().final(std::declval<const S&>()))>;
};
template <class R, class S>
  requires(!requires(const R& r, const S& s) { r.final(s); }) &&
          requires(const R& r, const S& s, index_t n) { r.final(s, n); }
struct reducer_result<R, S> {
  using type = std::remove_cvref_t<decltype(std::declval<const R&>().final(
      std::declval<const S&>(), index_t(0)))>;
};
}  // namespace detail

/// Whether R folds elements of type T: init, add (with or without the index) and merge, and
/// either a final member returning an element type or a state that is one.
template <class R, class T>
concept reducer =
    std::is_trivially_copyable_v<R> && requires(const R& r) { r.init(); } &&
    std::is_trivially_copyable_v<detail::reducer_state_t<R>> &&
    std::is_default_constructible_v<detail::reducer_state_t<R>> &&
    requires(const R& r, detail::reducer_state_t<R>& a, const detail::reducer_state_t<R>& b) {
      r.merge(a, b);
    } &&
    (requires(const R& r, detail::reducer_state_t<R>& s, T v) { r.add(s, v); } ||
     requires(const R& r, detail::reducer_state_t<R>& s, T v, index_t i) { r.add(s, v, i); }) &&
    (requires(const R& r, const detail::reducer_state_t<R>& s) {
      { r.final(s) } -> element;
    } || requires(const R& r, const detail::reducer_state_t<R>& s, index_t n) {
      { r.final(s, n) } -> element;
    } || element<detail::reducer_state_t<R>>);

namespace reducers {

/// Reducer R on elements of type T as an accumulator op.
template <class R, class T>
struct custom : params {
  using input_type = T;
  using state = detail::reducer_state_t<R>;
  /// add(state, v, index): the reduction passes element indices (as argmin does).
  static constexpr bool indexed = requires(const R& r, state& s, T v, index_t i) {
    r.add(s, v, i);
  };
  static constexpr bool final_counted = requires(const R& r, const state& s, index_t n) {
    r.final(s, n);
  };
  static constexpr bool final_plain = requires(const R& r, const state& s) { r.final(s); };
  using result_type = typename detail::reducer_result<R, state>::type;

  R reducer{};

  TESSERA_HD state identity() const { return reducer.init(); }
  TESSERA_HD void add(state& st, T v, index_t idx) const {
    if constexpr (indexed) reducer.add(st, v, idx);
    else reducer.add(st, v);
  }
  TESSERA_HD void merge(state& a, const state& b) const { reducer.merge(a, b); }
  TESSERA_HD result_type finalize(const state& st) const {
    if constexpr (final_plain) return reducer.final(st);
    else if constexpr (final_counted) return reducer.final(st, count);
    else return st;
  }
  void add_batch(state& st, const T* v, index_t n, index_t idx0, index_t didx) const {
    for (index_t k = 0; k < n; ++k) add(st, v[k], idx0 + k * didx);
  }
};

}  // namespace reducers

namespace detail {

template <expression_type X, class R>
auto make_custom_reduction(const X& x, const R& r, const axes_arg& ax, const reduce_options& o) {
  using T = typename X::value_type;
  static_assert(reducer<R, T>,
                "tessera::reduce: the reducer must be trivially copyable and have init(), "
                "add(state&, T) or add(state&, T, index_t), merge(state&, const state&), and "
                "final(const state&) [or final(const state&, index_t)] returning an element "
                "type unless the state is one (include/tessera/reduce/custom.hpp)");
  using op_t = reducers::custom<R, T>;
  index_t count = 0;
  const reduce_spec spec =
      op_t::indexed ? make_reduce_spec<reduce_family::indexed>(x, ax, o, "reduce", count)
                    : make_reduce_spec<reduce_family::plain>(x, ax, o, "reduce", count);
  return reduced<op_t, X>(x, op_t{{count, o.ddof}, r}, spec);
}

}  // namespace detail

/// Reduces x with a user reducer r over all axes, or the given axes (a list, or one axis);
/// options as the built-in reductions take (keep_dims, split_every). A reducer whose add takes
/// the element index reduces over one axis or all of them, as argmin does.
template <expression_type X, class R>
auto reduce(const X& x, const R& r, const reduce_options& o = {}) {
  return detail::make_custom_reduction(x, r, detail::axes_arg{}, o);
}
template <expression_type X, class R>
auto reduce(const X& x, const R& r, keep_dims_t) {
  return reduce(x, r, reduce_options{.keep_dims = true});
}
template <expression_type X, class R>
auto reduce(const X& x, const R& r, const std::vector<index_t>& axes,
            const reduce_options& o = {}) {
  return detail::make_custom_reduction(x, r, detail::axes_arg{false, axes}, o);
}
template <expression_type X, class R>
auto reduce(const X& x, const R& r, std::initializer_list<index_t> axes,
            const reduce_options& o = {}) {
  return reduce(x, r, std::vector<index_t>(axes), o);
}
template <expression_type X, class R>
auto reduce(const X& x, const R& r, index_t axis, const reduce_options& o = {}) {
  return reduce(x, r, std::vector<index_t>{axis}, o);
}
template <expression_type X, class R>
auto reduce(const X& x, const R& r, std::initializer_list<index_t> axes, keep_dims_t) {
  return reduce(x, r, std::vector<index_t>(axes), reduce_options{.keep_dims = true});
}
template <expression_type X, class R, class A>
  requires std::is_same_v<A, std::vector<index_t>> || std::is_integral_v<A>
auto reduce(const X& x, const R& r, const A& axes, keep_dims_t) {
  if constexpr (std::is_integral_v<A>)
    return reduce(x, r, std::vector<index_t>{index_t(axes)}, reduce_options{.keep_dims = true});
  else return reduce(x, r, axes, reduce_options{.keep_dims = true});
}

}  // namespace tessera
