// ts::compute / ts::persist with the ts::cuda policy: one fused kernel per output chunk.
#pragma once
#include <xtensor/xarray.hpp>

#include "../../compute.hpp"
#include "device_array.cuh"
#include "kernels.cuh"
#include "scheduler.cuh"

namespace tessera {

namespace detail::cu {

/// Evaluates a lowered expression on the devices into a dense row-major host buffer.
template <class E, class T>
void evaluate_into(const E& e, const cuda& pol, const std::vector<int>& devs, T* out) {
  const chunk_grid& g = e.grid();
  box whole;
  whole.lo.n = whole.hi.n = g.rank();
  for (int d = 0; d < g.rank(); ++d) whole.hi[d] = g.shape()[std::size_t(d)];
  const auto assignment = plan_assignment(e, devs);
  run_on_devices(devs, pol.streams_per_device, blocks_per_device(assignment, devs.size()),
                 [&](int dev, stream_slot& slot, index_t b) -> std::function<void()> {
                   const box bx = g.block_box(b);
                   const index_t n = bx.count();
                   if (n == 0) return {};
                   T* h = nullptr;
                   {
                     device_context ctx(dev, slot.stream, slot.arena);
                     auto acc = e.bind(bx, ctx);
                     T* d = ctx.template device_scratch<T>(n);
                     launch_eval(acc, bx, d, detail::box_strides(bx), slot.stream);
                     h = ctx.template pinned<T>(n);
                     TESSERA_CUDA_CHECK(cudaMemcpyAsync(h, d, std::size_t(n) * sizeof(T),
                                                        cudaMemcpyDeviceToHost, slot.stream));
                   }  // scratch returned to the pool, ordered after the copy
                   return [h, bx, whole, out] { detail::copy_box_overlap(h, bx, out, whole); };
                 });
}

/// Evaluates a lowered expression into device-resident chunks placed under memory_limit.
template <class E>
device_array<typename E::value_type> persist_lowered(const E& e, const cuda& pol,
                                                     const std::vector<int>& devs) {
  using T = typename E::value_type;
  const chunk_grid& g = e.grid();
  device_array<T> out(g);
  auto assignment = plan_assignment(e, devs);
  memory_ledger ledger;
  for (int d : devs) {
    ledger.used.push_back(std::size_t(std::max<std::int64_t>(persisted_bytes(d).load(), 0)));
    ledger.limit.push_back(pol.memory_limit.resolve(devices().devices[std::size_t(d)].total));
  }
  for (std::size_t b = 0; b < assignment.size(); ++b) {
    const std::size_t bytes = std::size_t(g.block_box(index_t(b)).count()) * sizeof(T);
    const int k = ledger.place(assignment[b], bytes);
    if (k < 0) {
      std::string state;
      for (std::size_t j = 0; j < devs.size(); ++j)
        state += detail::cat(" device ", devs[j], ": ", ledger.used[j], " of ", ledger.limit[j],
                             " bytes;");
      throw std::runtime_error(detail::cat(
          "tessera: ts::persist on ts::cuda: chunk ", b, " (", bytes,
          " bytes) does not fit under cuda::memory_limit on any device:", state));
    }
    assignment[b] = k;
  }
  run_on_devices(devs, pol.streams_per_device, blocks_per_device(assignment, devs.size()),
                 [&](int dev, stream_slot& slot, index_t b) -> std::function<void()> {
                   const box bx = g.block_box(b);
                   T* dst = out.allocate_block(b, dev, slot.stream);
                   if (bx.count() == 0) return {};
                   device_context ctx(dev, slot.stream, slot.arena);
                   auto acc = e.bind(bx, ctx);
                   launch_eval(acc, bx, dst, detail::box_strides(bx), slot.stream);
                   return {};
                 });
  return out;
}

}  // namespace detail::cu

/// Evaluates x on the policy's devices; the result comes back as a host xt::xarray.
template <expression_type X>
xt::xarray<typename X::value_type> compute(const X& x, const cuda& policy) {
  using T = typename X::value_type;
  const auto devs = detail::cu::policy_devices(policy);
  auto low = x.lower(policy);
  std::vector<std::size_t> sh(x.shape().begin(), x.shape().end());
  auto out = xt::xarray<T>::from_shape(sh);
  if (x.size() > 0) detail::cu::evaluate_into(low, policy, devs, out.data());
  return out;
}

/// Evaluates x into device-resident chunks spread over the policy's devices.
template <expression_type X>
device_array<typename X::value_type> persist(const X& x, const cuda& policy) {
  const auto devs = detail::cu::policy_devices(policy);
  return detail::cu::persist_lowered(x.lower(policy), policy, devs);
}

}  // namespace tessera
