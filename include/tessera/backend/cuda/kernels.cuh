// The device chunk kernel: one fused kernel per output chunk, evaluating the bound expression
// (the same accessor/line element code as the host) over the chunk's box.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>

#include "check.cuh"
#include "plan.cuh"

namespace tessera::detail::cuda_backend {

/// Long rows: gridDim.y thread blocks per row (grid-stride over rows in x), the threads of a
/// row's blocks stride along it; each thread binds the row's line once. Few long rows (1-D
/// chunks) are split over several blocks so that they still fill the device.
template <class Acc, class T>
__global__ void eval_rows_kernel(Acc acc, box b, T* out, ivec ostride, index_t rows) {
  const index_t t = index_t(blockIdx.y) * blockDim.x + threadIdx.x;
  const index_t nt = index_t(gridDim.y) * blockDim.x;
  for (index_t row = blockIdx.x; row < rows; row += gridDim.x) eval_row(acc, b, row, out, ostride, t, nt);
}

/// Short rows (fewer than 32 elements, and 0-d boxes): one thread per row.
template <class Acc, class T>
__global__ void eval_short_rows_kernel(Acc acc, box b, T* out, ivec ostride, index_t rows) {
  const index_t stride = index_t(gridDim.x) * blockDim.x;
  for (index_t row = index_t(blockIdx.x) * blockDim.x + threadIdx.x; row < rows; row += stride)
    eval_row(acc, b, row, out, ostride, 0, 1);
}

/// Launch shape of the chunk kernel for box b: {short_rows, blocks (x), threads, segments
/// (y: blocks per long row)}.
struct launch_shape {
  bool short_rows;
  unsigned blocks, threads, segments = 1;
};
inline launch_shape plan_launch(const box& b) {
  const index_t rows = box_rows(b), n = box_row_length(b);
  constexpr index_t max_blocks = 1 << 20;  // grid-stride beyond this
  constexpr index_t fill_blocks = 1024;    // enough resident blocks for a large GPU (132 SMs)
  if (n < 32) {
    const unsigned threads = 128;
    index_t blocks = std::min<index_t>((rows + threads - 1) / threads, max_blocks);
    return {true, unsigned(std::max<index_t>(blocks, 1)), threads, 1};
  }
  const unsigned threads = unsigned(std::min<index_t>(256, (n + 31) / 32 * 32));
  index_t segments = 1;
  if (rows < fill_blocks)  // split rows over blocks, each thread keeping at least one element
    segments = std::min<index_t>({(fill_blocks + rows - 1) / rows, (n + threads - 1) / threads, 65535});
  return {false, unsigned(std::min<index_t>(rows, max_blocks)), threads, unsigned(segments)};
}

/// Enqueues the evaluation of `acc` over box b into out (row-major with strides `ostride`,
/// last stride 1) on `stream`.
template <class Acc, class T>
void launch_eval(const Acc& acc, const box& b, T* out, const ivec& ostride, cudaStream_t stream) {
  if (b.count() == 0) return;
  const launch_shape s = plan_launch(b);
  const index_t rows = box_rows(b);
  if (s.short_rows) eval_short_rows_kernel<<<s.blocks, s.threads, 0, stream>>>(acc, b, out, ostride, rows);
  else eval_rows_kernel<<<dim3(s.blocks, s.segments), s.threads, 0, stream>>>(acc, b, out, ostride, rows);
  TESSERA_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tessera::detail::cuda_backend
