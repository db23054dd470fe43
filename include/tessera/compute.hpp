// Evaluation entry points: compute (to xt::xarray), persist (to ts::array), item.
#pragma once
#include <xtensor/xarray.hpp>

#include "backend/host.hpp"
#include "core/context.hpp"
#include "core/kernel.hpp"
#include "nodes/stored.hpp"

namespace tessera {

namespace detail {

inline ivec row_major_strides(const shape_t& s) {
  ivec st;
  st.n = int(s.size());
  index_t acc = 1;
  for (int d = st.n - 1; d >= 0; --d) {
    st[d] = acc;
    acc *= s[std::size_t(d)];
  }
  return st;
}

/// Evaluates a lowered expression chunk by chunk into a dense row-major buffer.
template <class E, class T>
void evaluate_into(const E& e, const host& pol, T* out) {
  const chunk_grid& g = e.grid();
  const ivec st = row_major_strides(g.shape());
  for_each_block(pol, g.block_count(), [&](index_t b) {
    box bx = g.block_box(b);
    if (bx.count() == 0) return;
    host_context ctx;
    auto acc = e.bind(bx, ctx);
    index_t off = 0;
    for (int d = 0; d < bx.rank(); ++d) off += bx.lo[d] * st[d];
    write_box(acc, bx, out + off, st);
  });
}

/// Evaluates a lowered expression into a new chunked array with the same grid.
template <class E>
array<typename E::value_type> persist_lowered(const E& e, const host& pol) {
  using T = typename E::value_type;
  array<T> out(e.grid());
  const chunk_grid& g = e.grid();
  for_each_block(pol, g.block_count(), [&](index_t b) {
    box bx = g.block_box(b);
    T* dst = out.block_data(b);
    if (bx.count() == 0) return;
    host_context ctx;
    auto acc = e.bind(bx, ctx);
    write_box(acc, bx, dst, box_strides(bx));
  });
  return out;
}

}  // namespace detail

/// Evaluates x with `policy` and returns a dense xt::xarray.
template <expression_type X>
xt::xarray<typename X::value_type> compute(const X& x, const host& policy = {}) {
  using T = typename X::value_type;
  auto low = x.lower(policy);
  std::vector<std::size_t> sh(x.shape().begin(), x.shape().end());
  auto out = xt::xarray<T>::from_shape(sh);
  if (x.size() > 0) detail::evaluate_into(low, policy, out.data());
  return out;
}

/// Evaluates x into an in-memory chunked array (same chunks) usable in new expressions.
template <expression_type X>
array<typename X::value_type> persist(const X& x, const host& policy = {}) {
  return detail::persist_lowered(x.lower(policy), policy);
}

/// The single element of a one-element expression.
template <expression_type X, class P = host>
typename X::value_type item(const X& x, const P& policy = P{}) {
  if (x.size() != 1)
    throw_invalid("item() needs an array of exactly one element, got shape ", x.shape());
  return *compute(x, policy).data();
}

namespace detail {
// Unqualified call: overloads for other policies (e.g. ts::cuda) are found by ADL.
template <class X, class P>
auto compute_adl(const X& x, const P& policy) {
  return compute(x, policy);
}
}  // namespace detail

template <class D>
template <class P>
auto expression<D>::compute(const P& policy) const {
  return detail::compute_adl(derived(), policy);
}
template <class D>
template <class P>
auto expression<D>::item(const P& policy) const {
  return tessera::item(derived(), policy);
}

/// Copies an xtensor expression into a new chunked array.
template <class E>
auto from_xtensor(const xt::xexpression<E>& e, const chunks_arg& chunks = {}) {
  using T = typename E::value_type;
  xt::xarray<T> a = e.derived_cast();
  shape_t shape(a.shape().begin(), a.shape().end());
  array<T> out(chunk_grid::make(shape, chunks, sizeof(T)));
  const chunk_grid& g = out.grid();
  box whole;
  whole.lo.n = whole.hi.n = g.rank();
  for (int d = 0; d < g.rank(); ++d) whole.hi[d] = shape[std::size_t(d)];
  for (index_t b = 0; b < g.block_count(); ++b) {
    box bx = g.block_box(b);
    T* dst = out.block_data(b);
    if (bx.count() > 0) detail::copy_box_overlap(a.data(), whole, dst, bx);
  }
  return out;
}

}  // namespace tessera
