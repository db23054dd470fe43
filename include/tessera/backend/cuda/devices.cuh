// Device discovery (once per process, never throwing: failures become reasons), peer access,
// and the RAII guard that makes a device current.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "check.cuh"
#include "plan.cuh"

namespace tessera::detail::cuda_backend {


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

}  // namespace tessera::detail::cuda_backend
