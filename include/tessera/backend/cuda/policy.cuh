// The ts::cuda execution policy and device discovery.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "check.cuh"
#include "plan.cuh"

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
/// On a machine without a usable device, evaluating with this policy throws std::runtime_error.
struct cuda {
  std::vector<int> devices{};
  int streams_per_device = 2;
  memory_size memory_limit{};

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

namespace detail::cu {

struct device_info {
  bool usable = false;
  std::string reason;       // why not usable
  std::size_t total = 0;    // bytes of device memory
  std::string name;
};

struct inventory {
  int visible = 0;
  std::string reason;  // why no device can be used at all ("" otherwise)
  std::vector<device_info> devices;
  /// peer[a][b]: kernels and copies on device a may access device b's pool memory directly.
  std::vector<std::vector<bool>> peer;
  bool can_access(int a, int b) const {
    return a == b || peer[std::size_t(a)][std::size_t(b)];
  }
};

inline std::string visible_devices_env() {
  const char* v = std::getenv("CUDA_VISIBLE_DEVICES");
  return v ? detail::cat("CUDA_VISIBLE_DEVICES=\"", v, "\"") : std::string("CUDA_VISIBLE_DEVICES unset");
}

/// Queries the runtime once per process. Never throws: failures are recorded as reasons.
inline inventory probe_devices() {
  inventory inv;
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    inv.reason = detail::cat("cudaGetDeviceCount failed: ", cudaGetErrorName(e), ": ",
                             cudaGetErrorString(e), " (", visible_devices_env(), ")");
    return inv;
  }
  if (n <= 0) {
    inv.reason = detail::cat("cudaGetDeviceCount reports no device (", visible_devices_env(), ")");
    return inv;
  }
  inv.visible = n;
  int previous = 0;
  const bool restore = cudaGetDevice(&previous) == cudaSuccess;
  inv.devices.resize(std::size_t(n));
  int usable = 0;
  for (int d = 0; d < n; ++d) {
    auto& info = inv.devices[std::size_t(d)];
    cudaDeviceProp prop{};
    cudaError_t s = cudaGetDeviceProperties(&prop, d);
    if (s == cudaSuccess) s = cudaSetDevice(d);
    if (s == cudaSuccess) s = cudaFree(nullptr);  // creates the primary context
    int pools = 0;
    if (s == cudaSuccess) s = cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, d);
    if (s == cudaSuccess && !pools) {
      info.reason = detail::cat("device ", d, " (", prop.name, ") has no stream-ordered allocator");
      continue;
    }
    if (s == cudaSuccess) {
      // Keep freed memory cached in the pool (trimmed by cuda::release_memory()).
      cudaMemPool_t pool;
      s = cudaDeviceGetDefaultMemPool(&pool, d);
      std::uint64_t keep = UINT64_MAX;
      if (s == cudaSuccess) s = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    if (s != cudaSuccess) {
      (void)cudaGetLastError();
      info.reason = detail::cat("device ", d, " cannot be initialized: ", cudaGetErrorName(s),
                                ": ", cudaGetErrorString(s));
      continue;
    }
    info.usable = true;
    info.total = prop.totalGlobalMem;
    info.name = prop.name;
    ++usable;
  }
  // Peer access between usable devices, including their stream-ordered pools.
  inv.peer.assign(std::size_t(n), std::vector<bool>(std::size_t(n), false));
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      if (a == b || !inv.devices[std::size_t(a)].usable || !inv.devices[std::size_t(b)].usable) continue;
      int ok = 0;
      if (cudaDeviceCanAccessPeer(&ok, a, b) != cudaSuccess || !ok) continue;
      cudaMemPool_t pool;
      cudaMemAccessDesc desc{};
      desc.location.type = cudaMemLocationTypeDevice;
      desc.location.id = a;
      desc.flags = cudaMemAccessFlagsProtReadWrite;
      if (cudaSetDevice(a) == cudaSuccess) {
        cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled) e = cudaSuccess;
        if (e == cudaSuccess) e = cudaDeviceGetDefaultMemPool(&pool, b);
        if (e == cudaSuccess) e = cudaMemPoolSetAccess(pool, &desc, 1);
        if (e == cudaSuccess) inv.peer[std::size_t(a)][std::size_t(b)] = true;
      }
      (void)cudaGetLastError();
    }
  if (restore) (void)cudaSetDevice(previous);
  if (usable == 0) {
    inv.reason = "no visible device could be initialized:";
    for (auto& i : inv.devices) inv.reason += " " + i.reason + ";";
  }
  return inv;
}

inline const inventory& devices() {
  static const inventory inv = probe_devices();
  return inv;
}

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

/// RAII: makes `dev` current on this thread and restores the previous device.
class device_guard {
 public:
  explicit device_guard(int dev) {
    TESSERA_CUDA_CHECK(cudaGetDevice(&prev_));
    if (prev_ != dev) TESSERA_CUDA_CHECK(cudaSetDevice(dev));
  }
  ~device_guard() { (void)cudaSetDevice(prev_); }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

 private:
  int prev_ = 0;
};

inline std::size_t pool_attribute(int dev, cudaMemPoolAttr attr) {
  cudaMemPool_t pool;
  TESSERA_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, dev));
  std::uint64_t v = 0;
  TESSERA_CUDA_CHECK(cudaMemPoolGetAttribute(pool, attr, &v));
  return std::size_t(v);
}

}  // namespace detail::cu

inline bool cuda::available() { return detail::cu::devices().reason.empty(); }
inline std::string cuda::unavailable_reason() { return detail::cu::devices().reason; }

// cuda::release_memory() is defined in scheduler.cuh (it also frees the staging arenas).

inline std::vector<std::size_t> cuda::memory_in_use() {
  const auto& inv = detail::cu::devices();
  std::vector<std::size_t> out(std::size_t(inv.visible), 0);
  for (int d = 0; d < inv.visible; ++d)
    if (inv.devices[std::size_t(d)].usable)
      out[std::size_t(d)] = detail::cu::pool_attribute(d, cudaMemPoolAttrUsedMemCurrent);
  return out;
}

inline std::vector<std::size_t> cuda::memory_reserved() {
  const auto& inv = detail::cu::devices();
  std::vector<std::size_t> out(std::size_t(inv.visible), 0);
  for (int d = 0; d < inv.visible; ++d)
    if (inv.devices[std::size_t(d)].usable)
      out[std::size_t(d)] = detail::cu::pool_attribute(d, cudaMemPoolAttrReservedMemCurrent);
  return out;
}

}  // namespace tessera
