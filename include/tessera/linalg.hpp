// ts::linalg: linear algebra on chunked 2-D arrays (host backend: LAPACKE + OpenBLAS; in .cu
// translation units also ts::cuda and ts::auto_backend: cuSOLVER + cuBLAS).
//   auto [q, r] = ts::linalg::tsqr(a);            auto [q, r] = ts::linalg::qr(a);
//   auto [u, s, vt] = ts::linalg::svd(a);         auto [u, s, vt] = ts::linalg::svd(a, ts::cuda{});
//   auto [u, s, vt] = ts::linalg::svd_compressed(a, k, {.n_power_iter = 2, .seed = 42});
//   auto c = ts::matmul(a, b);  (lazy; ts::matmul(a, b, pol) computes it at the call)
//   auto x = ts::linalg::solve(a, b);  inv, cholesky, solve_triangular, lu, lstsq, norm
// Link the CMake target tessera::linalg (and tessera::cuda for the CUDA policy). See
// docs/linalg.md.
#pragma once
#include "linalg/common.hpp"
#include "linalg/dense_host.hpp"
#include "linalg/matmul.hpp"
#include "linalg/svd.hpp"
#include "linalg/svd_compressed.hpp"
#include "linalg/tsqr.hpp"

#if defined(__CUDACC__)
#include "cuda.hpp"
#include "linalg/auto_backend.cuh"
#include "linalg/dense_cuda.cuh"
#include "linalg/tsqr_cuda.cuh"
#endif

// After the backends' overloads (qr for ts::cuda): lstsq and norm call them.
#include "linalg/norm.hpp"
#include "linalg/solve.hpp"
#include "linalg/cov.hpp"
#include "linalg/tensordot.hpp"

namespace tessera {
/// NumPy's names in ts:: for the chunked matrix product: ts::matmul(a, b) lazy (any ranks,
/// linalg/matrix_product.hpp), ts::matmul(a, b, pol) computed at the call (linalg/matmul.hpp).
/// ts::dot and ts::tensordot: linalg/tensordot.hpp.
using linalg::matmul;
}  // namespace tessera
