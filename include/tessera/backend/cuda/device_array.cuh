// ts::device_array<T>: a chunked array whose chunks live in device memory, spread over the
// devices (the result of ts::persist(x, ts::cuda{})). A leaf node: under the cuda policy it
// binds to its device pointers; under the host policy a bound box is copied to host scratch.
// An array persisted by ts::auto_backend on a machine without a device keeps host chunks.
#pragma once
#include <cuda_runtime.h>

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "../../nodes/stored.hpp"
#include "devices.cuh"

namespace tessera {

namespace detail::cuda_backend {

/// Bytes of device_array chunks alive per device (what memory_limit is checked against).
inline std::atomic<std::int64_t>& persisted_bytes(int dev) {
  static std::atomic<std::int64_t> bytes[max_devices] = {};
  return bytes[dev];
}

/// The chunk store behind device_array: chunks in device memory (one device per chunk), or
/// host chunks (auto_backend's fallback on a machine without a device).
template <class T>
struct device_store {
  using value_type = T;
  chunk_grid grid_;
  std::vector<int> device;   // per block
  std::vector<T*> pointer;   // per block, device memory (stream-ordered pool)
  std::optional<array<T>> host;  // set instead when the chunks live on the host

  device_store() = default;
  device_store(const device_store&) = delete;
  device_store& operator=(const device_store&) = delete;
  ~device_store() {
    for (std::size_t b = 0; b < pointer.size(); ++b) {
      if (!pointer[b]) continue;
      int prev = 0;
      if (cudaGetDevice(&prev) != cudaSuccess) continue;
      if (cudaSetDevice(device[b]) == cudaSuccess) {
        // Every evaluation synchronizes its streams before returning, so no kernel still
        // reads the chunk; the free is ordered on the legacy stream.
        (void)cudaFreeAsync(pointer[b], 0);
        persisted_bytes(device[b]) -= grid_.block_box(index_t(b)).count() * index_t(sizeof(T));
      }
      (void)cudaSetDevice(prev);
    }
  }

  // --- the chunk store concept (store/chunk_store.hpp) ---
  const chunk_grid& grid() const { return host ? host->grid() : grid_; }
  memory_space block_space(index_t b) const {
    return host ? memory_space::on_host() : memory_space::on_device(device[std::size_t(b)]);
  }
  const T* block_pointer(index_t b) const {
    return host ? host->block_data(b) : pointer[std::size_t(b)];
  }
  /// Block b into host memory (a synchronous copy from its device).
  void read_block(index_t b, T* out) const {
    if (host) return host->store().read_block(b, out);
    const index_t n = grid_.block_box(b).count();
    if (n == 0) return;
    device_guard guard(device[std::size_t(b)]);
    TESSERA_CUDA_CHECK(cudaMemcpy(out, pointer[std::size_t(b)], std::size_t(n) * sizeof(T),
                                  cudaMemcpyDeviceToHost));
  }
};

}  // namespace detail::cuda_backend

/// Chunks in device memory, spread over the devices; a leaf node over device_store. Under the
/// cuda policy a box binds to device pointers; under the host policy it is copied to host
/// scratch (view_box and the binding contexts decide).
template <class T>
class device_array : public expression<device_array<T>> {
 public:
  using value_type = T;

  device_array() : store_(std::make_shared<detail::cuda_backend::device_store<T>>()) {
    store_->host.emplace();
  }
  /// A grid with no chunks allocated yet (filled by persist).
  explicit device_array(chunk_grid g) : store_(std::make_shared<detail::cuda_backend::device_store<T>>()) {
    store_->grid_ = std::move(g);
    const auto n = std::size_t(store_->grid_.block_count());
    store_->device.assign(n, -1);
    store_->pointer.assign(n, nullptr);
  }
  /// Wraps host chunks (auto_backend's fallback).
  static device_array on_host(array<T> a) {
    device_array d;
    d.store_->host.emplace(std::move(a));
    return d;
  }

  const chunk_grid& grid() const { return store_->grid(); }
  const detail::cuda_backend::device_store<T>& store() const { return *store_; }
  /// True when the chunks are in device memory.
  bool on_device() const { return !store_->host.has_value(); }
  /// Device holding block b (-1 for host chunks).
  int block_device(index_t b) const {
    return on_device() ? store_->device[std::size_t(b)] : -1;
  }
  /// Device pointer of block b (row-major block); null for host chunks and empty blocks.
  const T* block_pointer(index_t b) const {
    return on_device() ? store_->pointer[std::size_t(b)] : nullptr;
  }
  /// Bytes of this array's chunks on each device (index = visible device id).
  std::vector<std::size_t> bytes_per_device() const {
    std::vector<std::size_t> out;
    if (!on_device()) return out;
    for (index_t b = 0; b < grid().block_count(); ++b) {
      int d = block_device(b);
      if (d < 0 || !block_pointer(b)) continue;
      if (out.size() <= std::size_t(d)) out.resize(std::size_t(d) + 1, 0);
      out[std::size_t(d)] += std::size_t(grid().block_box(b).count()) * sizeof(T);
    }
    return out;
  }

  /// Used by persist: allocates block b on `dev` (stream-ordered on `stream`).
  T* allocate_block(index_t b, int dev, cudaStream_t stream) {
    const index_t n = grid().block_box(b).count();
    store_->device[std::size_t(b)] = dev;
    if (n == 0) return nullptr;
    void* p = nullptr;
    TESSERA_CUDA_CHECK(cudaMallocAsync(&p, std::size_t(n) * sizeof(T), stream));
    store_->pointer[std::size_t(b)] = static_cast<T*>(p);
    detail::cuda_backend::persisted_bytes(dev) += n * index_t(sizeof(T));
    return static_cast<T*>(p);
  }

  template <class Ctx>
  stored_accessor<T> bind(const box& b, Ctx& ctx) const {
    return view_box(*store_, b, ctx);
  }

 private:
  std::shared_ptr<detail::cuda_backend::device_store<T>> store_;
};

}  // namespace tessera
