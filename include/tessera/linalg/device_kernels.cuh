// Small device kernels of the device-resident linear algebra (linalg/tsqr_cuda.cuh): a tiled
// transpose (row-major row blocks to the column-major layout cuSOLVER factors) and the zeroing
// of the part of a factored block below its diagonal (geqrf leaves reflectors there).
#pragma once
#include <cuda_runtime.h>

#include "../backend/cuda/check.cuh"
#include "../core/grid.hpp"

namespace tessera::linalg::cuda_dense {

inline constexpr int transpose_tile = 32;

/// dst (column-major rows x cols, leading dimension ld_dst) = src (row-major rows x cols,
/// leading dimension ld_src). Blocks of 32 x 8 threads move 32 x 32 tiles through shared
/// memory (padded against bank conflicts), so reads and writes are both coalesced.
template <class T>
__global__ void row_to_col_major_kernel(const T* __restrict__ src, index_t ld_src, index_t rows,
                                        index_t cols, T* __restrict__ dst, index_t ld_dst) {
  __shared__ T tile[transpose_tile][transpose_tile + 1];
  const index_t r0 = index_t(blockIdx.y) * transpose_tile, c0 = index_t(blockIdx.x) * transpose_tile;
  for (int i = int(threadIdx.y); i < transpose_tile; i += int(blockDim.y)) {
    const index_t r = r0 + i, c = c0 + index_t(threadIdx.x);
    if (r < rows && c < cols) tile[i][threadIdx.x] = src[r * ld_src + c];
  }
  __syncthreads();
  for (int j = int(threadIdx.y); j < transpose_tile; j += int(blockDim.y)) {
    const index_t c = c0 + j, r = r0 + index_t(threadIdx.x);
    if (r < rows && c < cols) dst[c * ld_dst + r] = tile[threadIdx.x][j];
  }
}

template <class T>
void row_to_col_major(const T* src, index_t ld_src, index_t rows, index_t cols, T* dst,
                      index_t ld_dst, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  const dim3 threads(transpose_tile, 8);
  const dim3 blocks(unsigned((cols + transpose_tile - 1) / transpose_tile),
                    unsigned((rows + transpose_tile - 1) / transpose_tile));
  row_to_col_major_kernel<<<blocks, threads, 0, stream>>>(src, ld_src, rows, cols, dst, ld_dst);
  TESSERA_CUDA_CHECK(cudaGetLastError());
}

/// Zeroes a(i, j) for i > j (column-major rows x cols, leading dimension ld).
template <class T>
__global__ void zero_below_diagonal_kernel(T* a, index_t ld, index_t rows, index_t cols) {
  const index_t total = rows * cols;
  for (index_t e = index_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += index_t(gridDim.x) * blockDim.x) {
    const index_t i = e % rows, j = e / rows;
    if (i > j) a[j * ld + i] = T(0);
  }
}

template <class T>
void zero_below_diagonal(T* a, index_t ld, index_t rows, index_t cols, cudaStream_t stream) {
  if (rows <= 1 || cols == 0) return;
  const index_t total = rows * cols;
  const unsigned blocks = unsigned(std::min<index_t>((total + 255) / 256, 1024));
  zero_below_diagonal_kernel<<<blocks, 256, 0, stream>>>(a, ld, rows, cols);
  TESSERA_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tessera::linalg::cuda_dense
