// The device chunk kernel: one fused kernel per output chunk, evaluating the bound expression
// (the same accessor/line element code as the host) over the chunk's box.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>

#include "check.cuh"
#include "plan.cuh"

namespace tessera::detail::cuda_backend {

/// Rows of 32 or more elements: blockDim.x threads stride along a row, blockDim.y rows per
/// block (narrow rows share a block), rows grid-strided over the blocks in x, gridDim.y blocks
/// per row (long rows). Each thread binds its row's line once.
template <class Acc, class T>
__global__ void eval_rows_kernel(Acc acc, box b, T* out, ivec ostride, index_t rows) {
  const index_t t = index_t(blockIdx.y) * blockDim.x + threadIdx.x;
  const index_t nt = index_t(gridDim.y) * blockDim.x;
  const index_t step = index_t(gridDim.x) * blockDim.y;
  for (index_t row = index_t(blockIdx.x) * blockDim.y + threadIdx.y; row < rows; row += step)
    eval_row(acc, b, row, out, ostride, t, nt);
}

/// Short rows (fewer than 32 elements, and 0-d boxes): one thread per row.
template <class Acc, class T>
__global__ void eval_short_rows_kernel(Acc acc, box b, T* out, ivec ostride, index_t rows) {
  const index_t stride = index_t(gridDim.x) * blockDim.x;
  for (index_t row = index_t(blockIdx.x) * blockDim.x + threadIdx.x; row < rows; row += stride)
    eval_row(acc, b, row, out, ostride, 0, 1);
}

/// Launch shape of the chunk kernel for box b: {short_rows, blocks (x), threads (per row),
/// segments (y: blocks per long row), rows per block}.
struct launch_shape {
  bool short_rows;
  unsigned blocks, threads, segments = 1, rows_per_block = 1;
};
inline launch_shape plan_launch(const box& b) {
  const index_t rows = box_rows(b), n = box_row_length(b);
  constexpr index_t max_blocks = 1 << 20;  // grid-stride beyond this
  constexpr index_t fill_blocks = 1024;    // enough resident blocks for a large GPU (132 SMs)
  constexpr index_t block_threads = 256;
  if (n < 32) {
    const unsigned threads = 128;
    index_t blocks = std::min<index_t>((rows + threads - 1) / threads, max_blocks);
    return {true, unsigned(std::max<index_t>(blocks, 1)), threads, 1, 1};
  }
  const index_t threads = std::min<index_t>(block_threads, (n + 31) / 32 * 32);
  if (threads < block_threads) {
    // Narrow rows: several per block, and a block walks many rows (grid-stride), so that the
    // device is not bound by starting one small block per row (1e5 rows of 64 doubles took
    // 226 us a chunk, 0.45 TB/s, on an H200 with one 64-thread block per row).
    constexpr index_t narrow_blocks = 4096;
    const index_t per_block = block_threads / threads;
    const index_t blocks = std::min<index_t>((rows + per_block - 1) / per_block, narrow_blocks);
    return {false, unsigned(std::max<index_t>(blocks, 1)), unsigned(threads), 1, unsigned(per_block)};
  }
  index_t segments = 1;
  if (rows < fill_blocks)  // split rows over blocks, each thread keeping at least one element
    segments = std::min<index_t>({(fill_blocks + rows - 1) / rows, (n + threads - 1) / threads, 65535});
  return {false, unsigned(std::min<index_t>(rows, max_blocks)), unsigned(threads), unsigned(segments), 1};
}

/// Enqueues the evaluation of `acc` over box b into out (row-major with strides `ostride`,
/// last stride 1) on `stream`.
template <class Acc, class T>
void launch_eval(const Acc& acc, const box& b, T* out, const ivec& ostride, cudaStream_t stream) {
  if (b.count() == 0) return;
  const launch_shape s = plan_launch(b);
  const index_t rows = box_rows(b);
  if (s.short_rows) eval_short_rows_kernel<<<s.blocks, s.threads, 0, stream>>>(acc, b, out, ostride, rows);
  else
    eval_rows_kernel<<<dim3(s.blocks, s.segments), dim3(s.threads, s.rows_per_block), 0, stream>>>(acc, b, out, ostride, rows);
  TESSERA_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tessera::detail::cuda_backend
