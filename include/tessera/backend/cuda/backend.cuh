// backend<cuda>: the CUDA backend's primitives (exec/backend.hpp). Chunk tasks run on one host
// worker per device with streams_per_device streams, placed where their stored inputs live;
// kernels are the fused chunk kernel (kernels.cuh) and the fold kernel (fold.cuh); a stage's
// result is a device_array, so the next stage reads it on the device.
#pragma once
#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../../exec/backend.hpp"
#include "../host/kernel.hpp"
#include "context.cuh"
#include "device_array.cuh"
#include "fold.cuh"
#include "kernels.cuh"
#include "policy.cuh"
#include "scheduler.cuh"

namespace tessera {

template <>
struct backend<cuda> {
  static constexpr bool defined = true;
  template <class T>
  using array_type = device_array<T>;

  /// One chunk task's environment: its device, stream, binding context, and the host work to
  /// run once the stream has completed the task's kernels and copies.
  class task_env {
   public:
    task_env(int device, cudaStream_t stream, detail::cuda_backend::pinned_arena& arena,
             std::vector<std::function<void()>>& after, int lane = 0)
        : ctx_(device, stream, arena), after_(&after), lane_(lane) {}
    detail::cuda_backend::device_context& context() { return ctx_; }
    int device() const { return ctx_.device(); }
    cudaStream_t stream() const { return ctx_.stream(); }
    /// The stream slot of the device running the task (a trace's thread lane).
    int lane() const { return lane_; }
    template <class F>
    void then(F&& f) {
      after_->emplace_back(std::forward<F>(f));
    }

   private:
    detail::cuda_backend::device_context ctx_;
    std::vector<std::function<void()>>* after_;
    int lane_;
  };

  static void check(const cuda& pol) { (void)detail::cuda_backend::policy_devices(pol); }

  template <class T>
  static device_array<T> make_array(const cuda&, const chunk_grid& g) {
    return device_array<T>(g);
  }

  template <class Tasks, class Body>
  static void run_tasks(const cuda& pol, const Tasks& tasks, Body&& body) {
    namespace cuda_backend = detail::cuda_backend;
    const std::vector<int> devs = cuda_backend::policy_devices(pol);
    std::vector<int> assignment = cuda_backend::plan_assignment(tasks, devs);
    if (tasks.output_itemsize > 0) place_under_limits(pol, devs, tasks, assignment);
    cuda_backend::run_on_devices(devs, pol.streams_per_device, cuda_backend::blocks_per_device(assignment, devs.size()),
                       [&](int dev, cuda_backend::stream_slot& slot, index_t t) -> std::function<void()> {
                         std::vector<std::function<void()>> after;
                         {
                           task_env env(dev, slot.stream, slot.arena, after, slot.index);
                           body(env, t);
                         }  // scratch returned to the pool, ordered after the task's work
                         if (after.empty()) return {};
                         return [after = std::move(after)] {
                           for (auto& f : after) f();
                         };
                       });
  }

  template <class Acc, class T>
  static void eval(task_env& env, const Acc& acc, const box& b, T* dst, const ivec& stride) {
    detail::cuda_backend::launch_eval(acc, b, dst, stride, env.stream());
  }

  /// The chunk kernel into device scratch, one copy into pinned memory, and (after the
  /// stream completes) rows copied to host_dst with strides `stride`.
  template <class Acc, class T>
  static void eval_to_host(task_env& env, const Acc& acc, const box& b, T* host_dst,
                           const ivec& stride) {
    const index_t n = b.count();
    auto& ctx = env.context();
    T* d = ctx.template device_scratch<T>(n);
    detail::cuda_backend::launch_eval(acc, b, d, row_major_strides(b), env.stream());
    T* h = ctx.template pinned<T>(n);
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(h, d, std::size_t(n) * sizeof(T), cudaMemcpyDeviceToHost,
                                       env.stream()));
    env.then([h, b, host_dst, stride] { copy_rows(h, b, host_dst, stride); });
  }

  template <class Op, class Acc>
  static void fold(task_env& env, const Op& op, const Acc& acc, const box& b,
                   const reduce_spec& spec, const ivec& istride, typename Op::state* partials) {
    namespace cuda_backend = detail::cuda_backend;
    using state = typename Op::state;
    const cuda_backend::fold_layout L = cuda_backend::make_fold_layout(b, spec, istride);
    const index_t S = cuda_backend::fold_segments(L.P, L.Q);
    auto& ctx = env.context();
    state* d = ctx.template device_scratch<state>(L.P * S);
    const index_t blocks = std::min<index_t>(L.P * S, index_t(1) << 20);
    cuda_backend::fold_kernel<<<unsigned(blocks), cuda_backend::fold_threads, 0, env.stream()>>>(op, acc, L, S, d);
    TESSERA_CUDA_CHECK(cudaGetLastError());
    state* h = ctx.template pinned<state>(L.P * S);
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(h, d, std::size_t(L.P * S) * sizeof(state),
                                       cudaMemcpyDeviceToHost, env.stream()));
    env.then([h, S, partials, op, P = L.P] {  // segment partials merged in order
      for (index_t p = 0; p < P; ++p) {
        state st = h[p * S];
        for (index_t s = 1; s < S; ++s) op.merge(st, h[p * S + s]);
        partials[p] = st;
      }
    });
  }

  template <class T>
  static T* block_destination(task_env& env, device_array<T>& out, index_t b) {
    return out.allocate_block(b, env.device(), env.stream());
  }

  /// A block computed on the host (a reduction's result) copied to the current device (the
  /// worker's device when called from a task's then()).
  template <class T, class Fill>
  static void write_block(const cuda&, device_array<T>& out, index_t b, Fill&& fill) {
    const index_t n = out.grid().block_box(b).count();
    std::unique_ptr<T[]> h(new T[std::size_t(std::max<index_t>(n, 1))]);
    fill(h.get());
    int dev = 0;
    TESSERA_CUDA_CHECK(cudaGetDevice(&dev));
    T* d = out.allocate_block(b, dev, nullptr);
    if (n == 0) return;
    // A cudaMemcpy from pageable memory can return before its DMA lands, and the next stage's
    // kernels run on non-blocking streams that do not wait for the legacy stream: wait for it
    // (without this, reductions read stale pool memory on an H100).
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(d, h.get(), std::size_t(n) * sizeof(T), cudaMemcpyHostToDevice,
                                       nullptr));
    TESSERA_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  }

 private:
  /// Rows of the contiguous box copy src into dst (strides `stride`, last stride 1).
  template <class T>
  static void copy_rows(const T* src, const box& b, T* dst, const ivec& stride) {
    if (b.rank() == 0) {
      dst[0] = src[0];
      return;
    }
    const index_t row = b.extent(b.rank() - 1);
    index_t k = 0;
    for_each_row(b, stride, [&](const ivec&, index_t off) {
      std::memcpy(dst + off, src + k, std::size_t(row) * sizeof(T));
      k += row;
    });
  }

  /// Persist: keeps every task's output chunk under cuda::memory_limit (moving it to the
  /// device with most room when its assigned device is full).
  template <class Tasks>
  static void place_under_limits(const cuda& pol, const std::vector<int>& devs,
                                 const Tasks& tasks, std::vector<int>& assignment) {
    namespace cuda_backend = detail::cuda_backend;
    cuda_backend::memory_ledger ledger;
    for (int d : devs) {
      ledger.used.push_back(std::size_t(std::max<std::int64_t>(cuda_backend::persisted_bytes(d).load(), 0)));
      ledger.limit.push_back(pol.memory_limit.resolve(cuda_backend::devices().devices[std::size_t(d)].total));
    }
    for (std::size_t t = 0; t < assignment.size(); ++t) {
      const std::size_t bytes = std::size_t(tasks.output_bytes(index_t(t)));
      const int k = ledger.place(assignment[t], bytes);
      if (k < 0) {
        std::string state;
        for (std::size_t j = 0; j < devs.size(); ++j)
          state += detail::cat(" device ", devs[j], ": ", ledger.used[j], " of ", ledger.limit[j],
                               " bytes;");
        throw std::runtime_error(detail::cat(
            "tessera: ts::persist on ts::cuda: chunk ", t, " (", bytes,
            " bytes) does not fit under cuda::memory_limit on any device:", state));
      }
      assignment[t] = k;
    }
  }
};

}  // namespace tessera
