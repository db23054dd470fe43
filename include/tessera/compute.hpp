// Evaluation entry points: compute (to xt::xarray), compute_into (into the caller's memory:
// NumPy's out=), persist (to the policy's chunked storage), item, and from_xtensor.
#pragma once
#include <xtensor/xarray.hpp>

#include <span>
#include <type_traits>

#include "backend/host.hpp"
#include "exec/drivers.hpp"
#include "nodes/stored.hpp"
#include "ops/arith.hpp"

namespace tessera {

namespace detail {
template <class U, execution_policy P, expression_type X>
void compute_to(const X& x, const P& policy, U* out) {
  backend<P>::check(policy);
  if constexpr (!std::is_same_v<U, typename X::value_type>) {
    compute_to(cast<U>(x), policy, out);
  } else {
    detail::observation observe(policy, [&] { return detail::compute_task_count<P>(x); });
    detail::compute_dense(x, policy, out);
    observe.finish();
  }
}
}  // namespace detail

/// NumPy's out=: evaluates x with `policy` into `out`, an xtensor container (xt::xarray,
/// xt::xtensor, an adaptor of the caller's memory) of x's shape, row-major; returns out. No
/// allocation of the result; an element type other than x's is converted as ts::cast. A shape
/// that differs throws, naming both (out is not resized, as NumPy).
template <expression_type X, class C, execution_policy P = host>
  requires requires(C& c) {
    typename C::value_type;
    c.data();
    c.shape();
    c.layout();
  }
C& compute_into(const X& x, C& out, const P& policy = P{}) {
  const shape_t want = x.shape();
  shape_t got(out.shape().begin(), out.shape().end());
  if (got != want) throw_invalid("compute_into: out has shape ", got, ", the array has shape ", want);
  if (out.layout() != xt::layout_type::row_major)
    throw_invalid("compute_into: out must be row-major (xt::layout_type::row_major)");
  detail::compute_to<std::remove_const_t<typename C::value_type>>(x, policy, out.data());
  return out;
}

/// compute_into a flat span of x.size() elements (row-major order): the caller's own buffer.
template <expression_type X, class U, std::size_t N, execution_policy P = host>
std::span<U, N> compute_into(const X& x, std::span<U, N> out, const P& policy = P{}) {
  if (index_t(out.size()) != x.size())
    throw_invalid("compute_into: out has ", out.size(), " elements, the array of shape ", x.shape(),
                  " has ", x.size());
  detail::compute_to<U>(x, policy, out.data());
  return out;
}

/// Copies an xtensor expression into a new chunked array.
template <class E>
auto from_xtensor(const xt::xexpression<E>& e, const chunks_arg& chunks = {}) {
  using T = typename E::value_type;
  xt::xarray<T> a = e.derived_cast();
  shape_t shape(a.shape().begin(), a.shape().end());
  array<T> out(chunk_grid::make(shape, chunks, sizeof(T)));
  const chunk_grid& g = out.grid();
  const box whole = g.whole();
  for (index_t b = 0; b < g.block_count(); ++b) {
    box bx = g.block_box(b);
    T* dst = out.block_data(b);
    if (bx.count() > 0) detail::copy_box_overlap(a.data(), whole, dst, bx);
  }
  return out;
}

}  // namespace tessera
