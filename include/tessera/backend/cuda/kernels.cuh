// The device chunk kernel: one fused kernel per output chunk, evaluating the bound expression
// (the same accessor/line element code as the host) over the chunk's box.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>

#include "check.cuh"
#include "plan.cuh"

namespace tessera::detail::cu {

/// Long rows: one thread block per row (grid-stride over rows), threads stride along the row;
/// each thread binds the row's line once.
template <class Acc, class T>
__global__ void eval_rows_kernel(Acc acc, box b, T* out, ivec ostride, index_t rows) {
  for (index_t row = blockIdx.x; row < rows; row += gridDim.x)
    eval_row(acc, b, row, out, ostride, index_t(threadIdx.x), index_t(blockDim.x));
}

/// Short rows (fewer than 32 elements, and 0-d boxes): one thread per row.
template <class Acc, class T>
__global__ void eval_short_rows_kernel(Acc acc, box b, T* out, ivec ostride, index_t rows) {
  const index_t stride = index_t(gridDim.x) * blockDim.x;
  for (index_t row = index_t(blockIdx.x) * blockDim.x + threadIdx.x; row < rows; row += stride)
    eval_row(acc, b, row, out, ostride, 0, 1);
}

/// Launch shape of the chunk kernel for box b: {short_rows, blocks, threads}.
struct launch_shape {
  bool short_rows;
  unsigned blocks, threads;
};
inline launch_shape plan_launch(const box& b) {
  const index_t rows = box_rows(b), n = box_row_length(b);
  constexpr index_t max_blocks = 1 << 20;  // grid-stride beyond this
  if (n < 32) {
    const unsigned threads = 128;
    index_t blocks = std::min<index_t>((rows + threads - 1) / threads, max_blocks);
    return {true, unsigned(std::max<index_t>(blocks, 1)), threads};
  }
  const unsigned threads = unsigned(std::min<index_t>(256, (n + 31) / 32 * 32));
  return {false, unsigned(std::min<index_t>(rows, max_blocks)), threads};
}

/// Enqueues the evaluation of `acc` over box b into out (row-major with strides `ostride`,
/// last stride 1) on `stream`.
template <class Acc, class T>
void launch_eval(const Acc& acc, const box& b, T* out, const ivec& ostride, cudaStream_t stream) {
  if (b.count() == 0) return;
  const launch_shape s = plan_launch(b);
  const index_t rows = box_rows(b);
  if (s.short_rows) eval_short_rows_kernel<<<s.blocks, s.threads, 0, stream>>>(acc, b, out, ostride, rows);
  else eval_rows_kernel<<<s.blocks, s.threads, 0, stream>>>(acc, b, out, ostride, rows);
  TESSERA_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tessera::detail::cu
