// The ts::cuda execution policy: its options, the devices it runs on, and its memory queries.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "devices.cuh"
#include "plan.cuh"
#include "streams.cuh"

namespace tessera {

/// CUDA execution policy.
///   devices             indices into the visible devices (CUDA_VISIBLE_DEVICES applies);
///                       empty: all visible devices
///   streams_per_device  chunk tasks in flight per device (copies of one task overlap the
///                       kernels of the others)
///   memory_limit        per device, bytes or a fraction of its memory: persisted chunks are
///                       kept under it (spilling to other devices). Freed device memory stays
///                       cached in the device's default stream-ordered pool (release
///                       threshold: unlimited) until cuda::release_memory()
///   progress, trace, on_chunk_done
///                       as on ts::host (a progress bar on stderr, a Chrome trace file, a
///                       callback per completed chunk task); a CUDA task is done when its
///                       stream has completed its work and its host callbacks ran
/// On a machine without a usable device, evaluating with this policy throws std::runtime_error.
struct cuda {
  std::vector<int> devices{};
  int streams_per_device = 2;
  memory_size memory_limit{};
  bool progress = false;
  std::string trace{};
  std::function<void(index_t done, index_t total)> on_chunk_done{};

  /// True when at least one device is usable (never throws).
  static bool available();
  /// Why no device is usable ("" when one is).
  static std::string unavailable_reason();
  /// Returns cached, unused memory of every visible device's allocation pool to the driver
  /// (CuPy's free_all_blocks). Synchronizes the devices. A no-op without devices.
  static void release_memory();
  /// Bytes currently allocated from each visible device's pool (index = visible device);
  /// empty without devices.
  static std::vector<std::size_t> memory_in_use();
  /// Bytes held by each visible device's pool, in use or cached.
  static std::vector<std::size_t> memory_reserved();
};

namespace detail::cuda_backend {

/// The device ids a policy runs on; throws std::runtime_error when none is usable and
/// tessera::invalid_argument for bad indices.
inline std::vector<int> policy_devices(const cuda& pol) {
  const inventory& inv = devices();
  if (!inv.reason.empty())
    throw std::runtime_error("tessera: ts::cuda has no usable CUDA device: " + inv.reason +
                             "; use ts::host or ts::auto_backend to run on the CPU");
  if (pol.streams_per_device < 1)
    throw_invalid("cuda::streams_per_device must be at least 1, got ", pol.streams_per_device);
  std::vector<int> ids = resolve_devices(pol.devices, std::min(inv.visible, max_devices));
  for (int d : ids)
    if (!inv.devices[std::size_t(d)].usable)
      throw std::runtime_error("tessera: " + inv.devices[std::size_t(d)].reason);
  return ids;
}

}  // namespace detail::cuda_backend

inline bool cuda::available() { return detail::cuda_backend::devices().reason.empty(); }
inline std::string cuda::unavailable_reason() { return detail::cuda_backend::devices().reason; }

inline std::vector<std::size_t> cuda::memory_in_use() {
  const auto& inv = detail::cuda_backend::devices();
  std::vector<std::size_t> out(std::size_t(inv.visible), 0);
  for (int d = 0; d < inv.visible; ++d)
    if (inv.devices[std::size_t(d)].usable)
      out[std::size_t(d)] = detail::cuda_backend::pool_attribute(d, cudaMemPoolAttrUsedMemCurrent);
  return out;
}

inline std::vector<std::size_t> cuda::memory_reserved() {
  const auto& inv = detail::cuda_backend::devices();
  std::vector<std::size_t> out(std::size_t(inv.visible), 0);
  for (int d = 0; d < inv.visible; ++d)
    if (inv.devices[std::size_t(d)].usable)
      out[std::size_t(d)] = detail::cuda_backend::pool_attribute(d, cudaMemPoolAttrReservedMemCurrent);
  return out;
}

inline void cuda::release_memory() {
  const auto& inv = detail::cuda_backend::devices();
  for (int d = 0; d < inv.visible && d < detail::cuda_backend::max_devices; ++d) {
    if (!inv.devices[std::size_t(d)].usable) continue;
    detail::cuda_backend::device_guard g(d);
    TESSERA_CUDA_CHECK(cudaDeviceSynchronize());  // stream-ordered frees must complete first
    {
      // Pinned staging arenas of idle streams (an evaluation in progress keeps its own).
      auto& res = detail::cuda_backend::resources(d);
      std::unique_lock lock(res.m, std::try_to_lock);
      if (lock.owns_lock())
        for (auto& s : res.slots) s->arena.free_all();
    }
    cudaMemPool_t pool;
    TESSERA_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, d));
    TESSERA_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
  }
}

}  // namespace tessera
