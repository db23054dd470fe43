// Per-device resources kept for the process: streams created once and reused, each with its
// pinned staging arena; the mutex serializes evaluations that use one device.
#pragma once
#include <cuda_runtime.h>

#include <memory>
#include <mutex>
#include <vector>

#include "devices.cuh"
#include "staging.cuh"

namespace tessera::detail::cuda_backend {

/// One stream with its pinned staging arena.
struct stream_slot {
  cudaStream_t stream = nullptr;
  int index = 0;  // its place among the device's slots (traces show it as the lane)
  pinned_arena arena;
};

/// Per-device resources kept for the process (streams are created once and reused); the mutex
/// serializes evaluations that use the same device.
struct device_resources {
  std::mutex m;
  std::vector<std::unique_ptr<stream_slot>> slots;
  void ensure(int dev, int n) {
    while (int(slots.size()) < n) {
      auto s = std::make_unique<stream_slot>();
      s->index = int(slots.size());
      device_guard g(dev);
      TESSERA_CUDA_CHECK(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
      slots.push_back(std::move(s));
    }
  }
};

inline device_resources& resources(int dev) {
  // Intentionally never destroyed: streams and pinned memory must not be released after the
  // CUDA runtime has shut down at process exit.
  static device_resources* r = new device_resources[max_devices];
  return r[dev];
}

}  // namespace tessera::detail::cuda_backend
