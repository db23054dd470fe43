// ts::auto_backend (alias ts::best): the CUDA policy when a usable device exists, otherwise the
// host policy, with a one-line notice on stderr (printed once per process).
#pragma once
#include <cstdio>
#include <mutex>

#include "backend.cuh"

namespace tessera {

/// The policy it picks is used as it is, so progress, trace and on_chunk_done are set on the
/// one that runs: ts::auto_backend{.gpu = {.progress = true}, .cpu = {.progress = true}}, or a
/// ts::progress_bar for both.
struct auto_backend {
  cuda gpu{};
  host cpu{};
};
using best = auto_backend;

namespace detail::cuda_backend {

/// The notice printed when auto_backend falls back to the host.
inline std::string fallback_notice() {
  return "tessera: no usable CUDA device (" + cuda::unavailable_reason() +
         "); ts::auto_backend runs on the host";
}

/// True when auto_backend runs on the GPU; prints the notice once otherwise.
inline bool auto_uses_gpu() {
  if (cuda::available()) return true;
  static std::once_flag once;
  std::call_once(once, [] { std::fprintf(stderr, "%s\n", fallback_notice().c_str()); });
  return false;
}

}  // namespace detail::cuda_backend

namespace detail::cuda_backend {
/// Whether this translation unit has the MPI layer (backend/mpi/auto_backend.cuh): its
/// auto_backend_on_ranks, found by argument-dependent lookup, runs an evaluation on MPI ranks
/// when the program was started by mpirun.
template <class X>
concept auto_backend_ranks_layer = requires(const X& x, const auto_backend& p) {
  auto_backend_on_ranks(x, p, [](const auto&) { return 0; });
};
}  // namespace detail::cuda_backend

template <expression_type X>
xt::xarray<typename X::value_type> compute(const X& x, const auto_backend& policy) {
  if constexpr (detail::cuda_backend::auto_backend_ranks_layer<X>) {
    if (auto r = auto_backend_on_ranks(x, policy, [&](const auto& ranks) { return compute(x, ranks); }))
      return std::move(*r);
  }
  if (detail::cuda_backend::auto_uses_gpu()) return compute(x, policy.gpu);
  return compute(x, policy.cpu);
}

/// Device-resident chunks when on the GPU, host chunks (same type) otherwise. Under mpirun (with
/// the MPI layer): evaluated by the ranks, the whole array on every rank.
template <expression_type X>
device_array<typename X::value_type> persist(const X& x, const auto_backend& policy) {
  using T = typename X::value_type;
  if constexpr (detail::cuda_backend::auto_backend_ranks_layer<X>) {
    if (auto r = auto_backend_on_ranks(x, policy, [&](const auto& ranks) { return compute(x, ranks); })) {
      auto whole = from_xtensor(std::move(*r), x.chunks());
      if (detail::cuda_backend::auto_uses_gpu()) return persist(whole, policy.gpu);
      return device_array<T>::on_host(std::move(whole));
    }
  }
  if (detail::cuda_backend::auto_uses_gpu()) return persist(x, policy.gpu);
  return device_array<T>::on_host(persist(x, policy.cpu));
}

}  // namespace tessera
