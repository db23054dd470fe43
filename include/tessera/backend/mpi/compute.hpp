// compute and item under ts::mpi: the result to every rank (default) or to policy.root only.
#pragma once
#include <xtensor/xarray.hpp>

#include "../../exec/drivers.hpp"
#include "backend.hpp"

namespace tessera {

/// compute(x, ts::mpi{...}): every rank gets the result, or with .root = r only rank r (the
/// other ranks get an empty array of shape (0,) and never hold the whole result).
template <expression_type X, class L>
xt::xarray<typename X::value_type> compute(const X& x, const mpi<L>& policy) {
  using T = typename X::value_type;
  using B = backend<mpi<L>>;
  B::check(policy);
  detail::observation observe(policy, [&] { return detail::compute_task_count<mpi<L>>(x); });
  const auto& low = x.lower(policy);
  std::vector<std::size_t> sh(x.shape().begin(), x.shape().end());
  xt::xarray<T> out;
  if (policy.root < 0) {
    out = xt::xarray<T>::from_shape(sh);
    detail::evaluate_into(low, policy, out.data());
  } else {
    const bool here = policy.rank() == policy.root;
    out = here ? xt::xarray<T>::from_shape(sh) : xt::xarray<T>::from_shape({0});
    T* base = here ? out.data() : nullptr;
    const chunk_grid& g = low.grid();
    const ivec st = detail::row_major_strides(g.shape());
    auto tasks = detail::make_tasks(low, g.block_count(), [&g](index_t b) { return g.block_box(b); });
    auto body = [&](auto& env, index_t b) {
      const box bx = g.block_box(b);
      if (bx.count() == 0) return;
      auto acc = low.bind(bx, env.context());
      index_t off = 0;
      for (int d = 0; d < bx.rank(); ++d) off += bx.lo[d] * st[d];
      B::eval_to_host(env, acc, bx, base ? base + off : static_cast<T*>(nullptr), st);
    };
    B::run_tasks_to(policy, policy.root, tasks, body);
  }
  observe.finish();
  return out;
}

/// item(x, ts::mpi{...}): on every rank, whatever the policy's root.
template <expression_type X, class L>
typename X::value_type item(const X& x, const mpi<L>& policy) {
  if (x.size() != 1)
    throw_invalid("item() needs an array of exactly one element, got shape ", x.shape());
  mpi<L> every = policy;
  every.root = -1;
  return *compute(x, every).data();
}

}  // namespace tessera
