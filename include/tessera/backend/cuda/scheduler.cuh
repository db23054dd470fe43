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

#include "../../exec/placement.hpp"
#include "policy.cuh"

namespace tessera::detail::cuda_backend {

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

/// Assigns chunk tasks to the policy's devices: affinity to where their stored inputs live
/// (the shared placement probe, exec/placement.hpp), balanced by elements.
template <class Tasks>
std::vector<int> plan_assignment(const Tasks& tasks, const std::vector<int>& devs) {
  const index_t n = tasks.count();
  std::vector<std::int64_t> work(static_cast<std::size_t>(n));
  std::vector<std::vector<std::int64_t>> affinity(static_cast<std::size_t>(n));
  for (index_t t = 0; t < n; ++t) {
    work[std::size_t(t)] = tasks.work(t);
    if (work[std::size_t(t)] == 0) continue;
    const placement_probe probe = tasks.where(t);
    auto& a = affinity[std::size_t(t)];
    a.assign(devs.size(), 0);
    for (std::size_t k = 0; k < devs.size(); ++k)
      a[k] = probe.bytes_in(memory_space::on_device(devs[k]));
  }
  return assign_blocks(work, affinity, int(devs.size()));
}

/// plan_assignment over the output chunks of a lowered expression.
template <expression_type E>
std::vector<int> plan_assignment(const E& e, const std::vector<int>& devs) {
  const chunk_grid& g = e.grid();
  return plan_assignment(make_tasks(e, g.block_count(), [&g](index_t b) { return g.block_box(b); }),
                         devs);
}

inline std::vector<std::vector<index_t>> blocks_per_device(const std::vector<int>& assignment,
                                                           std::size_t ndev) {
  std::vector<std::vector<index_t>> out(ndev);
  for (std::size_t b = 0; b < assignment.size(); ++b)
    out[std::size_t(assignment[b])].push_back(index_t(b));
  return out;
}

}  // namespace tessera::detail::cuda_backend

