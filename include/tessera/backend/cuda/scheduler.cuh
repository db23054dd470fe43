// The multi-GPU scheduler: one host worker thread per device, several streams per device, each
// stream running one chunk task at a time (copies of one task overlap kernels of the others).
#pragma once
#include <cuda_runtime.h>

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "context.cuh"
#include "policy.cuh"

namespace tessera::detail::cu {

/// One stream with its pinned staging arena.
struct stream_slot {
  cudaStream_t stream = nullptr;
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

/// A chunk task: enqueues work on the slot's stream and returns what to run on the host once
/// the stream is idle (may be empty).
using task_start = std::function<std::function<void()>(int dev, stream_slot& slot, index_t block)>;

/// The device whose worker the calling thread is (-1: none). A chunk task that started another
/// evaluation on its own device would wait forever for the device's mutex: refused instead.
inline int& worker_device() {
  thread_local int dev = -1;
  return dev;
}

/// Runs every block of blocks[k] on device devs[k], streams_per_device tasks in flight per
/// device; rethrows the first failure after every worker has stopped and drained its streams.
inline void run_on_devices(const std::vector<int>& devs, int streams_per_device,
                           const std::vector<std::vector<index_t>>& blocks, const task_start& start) {
  if (worker_device() >= 0)
    throw std::logic_error(detail::cat(
        "tessera: an evaluation on ts::cuda was started from inside a chunk task running on device ",
        worker_device(), " (nested evaluations are not supported; evaluate it beforehand)"));
  std::atomic<bool> failed{false};
  std::exception_ptr first;
  std::mutex first_m;
  auto worker = [&](std::size_t k) {
    const int dev = devs[k];
    const int S = streams_per_device;
    try {
      device_resources& res = resources(dev);
      std::lock_guard lock(res.m);
      struct mark {
        explicit mark(int d) { worker_device() = d; }
        ~mark() { worker_device() = -1; }
      } marked(dev);
      device_guard guard(dev);
      res.ensure(dev, S);
      std::vector<std::function<void()>> pending(static_cast<std::size_t>(S));
      std::vector<bool> busy(std::size_t(S), false);
      auto finish = [&](int s) {
        if (!busy[std::size_t(s)]) return;
        busy[std::size_t(s)] = false;
        stream_slot& slot = *res.slots[std::size_t(s)];
        TESSERA_CUDA_CHECK(cudaStreamSynchronize(slot.stream));
        auto f = std::move(pending[std::size_t(s)]);
        pending[std::size_t(s)] = nullptr;
        if (f) f();
        slot.arena.reset();
      };
      try {
        const auto& mine = blocks[k];
        for (std::size_t i = 0; i < mine.size() && !failed.load(); ++i) {
          const int s = int(i % std::size_t(S));
          finish(s);
          busy[std::size_t(s)] = true;
          pending[std::size_t(s)] = start(dev, *res.slots[std::size_t(s)], mine[i]);
        }
        for (int s = 0; s < S; ++s) finish(s);
      } catch (...) {
        // Drain the streams so no copy still targets a pinned buffer or scratch; nothing here
        // may throw (after a sticky device error every CUDA call fails), so the original
        // error is the one reported.
        for (int s = 0; s < S; ++s) {
          (void)cudaStreamSynchronize(res.slots[std::size_t(s)]->stream);
          res.slots[std::size_t(s)]->arena.rewind();
        }
        throw;
      }
    } catch (...) {
      std::lock_guard l(first_m);
      if (!first) first = std::current_exception();
      failed = true;
    }
  };
  std::size_t active = 0;
  for (auto& b : blocks) active += !b.empty();
  if (active <= 1) {
    for (std::size_t k = 0; k < devs.size(); ++k)
      if (!blocks[k].empty()) worker(k);
  } else {
    std::vector<std::thread> threads;
    try {
      for (std::size_t k = 0; k < devs.size(); ++k)
        if (!blocks[k].empty()) threads.emplace_back(worker, k);
    } catch (...) {  // a thread could not be started: stop the others before reporting it
      failed = true;
      for (auto& t : threads) t.join();
      throw;
    }
    for (auto& t : threads) t.join();
  }
  if (first) std::rethrow_exception(first);
}

/// Assigns the blocks of a lowered expression to the policy's devices (affinity to where its
/// device-resident inputs live, balanced by elements) and returns the block lists per device.
template <class E>
std::vector<int> plan_assignment(const E& e, const std::vector<int>& devs) {
  const chunk_grid& g = e.grid();
  const index_t n = g.block_count();
  std::vector<std::int64_t> work(static_cast<std::size_t>(n));
  std::vector<std::vector<std::int64_t>> affinity(static_cast<std::size_t>(n));
  for (index_t b = 0; b < n; ++b) {
    const box bx = g.block_box(b);
    work[std::size_t(b)] = bx.count();
    if (bx.count() == 0) continue;
    probe_context probe;
    (void)e.bind(bx, probe);
    auto& a = affinity[std::size_t(b)];
    a.assign(devs.size(), 0);
    for (std::size_t k = 0; k < devs.size(); ++k)
      if (std::size_t(devs[k]) < probe.bytes.size()) a[k] = probe.bytes[std::size_t(devs[k])];
  }
  return assign_blocks(work, affinity, int(devs.size()));
}

inline std::vector<std::vector<index_t>> blocks_per_device(const std::vector<int>& assignment,
                                                           std::size_t ndev) {
  std::vector<std::vector<index_t>> out(ndev);
  for (std::size_t b = 0; b < assignment.size(); ++b)
    out[std::size_t(assignment[b])].push_back(index_t(b));
  return out;
}

}  // namespace tessera::detail::cu

namespace tessera {

inline void cuda::release_memory() {
  const auto& inv = detail::cu::devices();
  for (int d = 0; d < inv.visible && d < detail::cu::max_devices; ++d) {
    if (!inv.devices[std::size_t(d)].usable) continue;
    detail::cu::device_guard g(d);
    TESSERA_CUDA_CHECK(cudaDeviceSynchronize());  // stream-ordered frees must complete first
    {
      // Pinned staging arenas of idle streams (an evaluation in progress keeps its own).
      auto& res = detail::cu::resources(d);
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
