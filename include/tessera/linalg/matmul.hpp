// The eager matrix product with a policy, ts::matmul(a, b, pol): c = a b computed at the call
// into an in-memory ts::array (the lazy ts::matmul(a, b) is linalg/matrix_product.hpp). For 2-D
// operands of one float type, c has chunks (a's row chunks, b's column chunks). The
// contraction axis of both operands is brought to the common refinement of their chunks and
// each operand is evaluated once (by the policy's backend, into host chunks), then every
// output block is the sum of dense gemms (dense<P>::gemm: OpenBLAS or cuBLAS) over the
// contraction chunks, output blocks in parallel on the policy's threads or devices.
#pragma once
#include "common.hpp"
#include "matrix_product.hpp"

namespace tessera::linalg {

namespace detail {
/// The eager 2-D product of one float type (see the header comment).
template <class T, expression_type A, expression_type B, linalg_policy P>
array<T> matmul_2d(const A& a, const B& b, const P& pol) {
  if (a.shape()[1] != b.shape()[0])
    throw_invalid("matmul: shapes ", a.shape(), " and ", b.shape(),
                  " are not aligned (", a.shape()[1], " != ", b.shape()[0], ")");
  const index_t m = a.shape()[0], n = b.shape()[1];
  const auto common = tessera::detail::refine(a.chunks()[1], b.chunks()[0]);
  auto ap = materialize(rechunk(a, chunks_t{a.chunks()[0], common}), pol);
  auto bp = materialize(rechunk(b, chunks_t{common, b.chunks()[1]}), pol);
  array<T> out(chunk_grid({m, n}, chunks_t{a.chunks()[0], b.chunks()[1]}));
  const chunk_grid& g = out.grid();
  const index_t nb = index_t(b.chunks()[1].size()), np = index_t(common.size());
  for (index_t blk = 0; blk < g.block_count(); ++blk) out.block_data(blk);
  typename dense<P>::threads_guard guard(blas_threads_for(pol, g.block_count()));
  dense<P>::parallel(pol, g.block_count(), [&](index_t blk) {
    const box bx = g.block_box(blk);
    const index_t i = blk / nb, j = blk % nb, mi = bx.extent(0), nj = bx.extent(1);
    T* c = out.block_data(blk);
    if (mi * nj == 0) return;
    std::fill(c, c + mi * nj, T(0));
    for (index_t p = 0; p < np; ++p) {
      const index_t pk = common[static_cast<std::size_t>(p)];
      if (pk == 0) continue;
      const T* ab = ap.block_data(i * np + p);  // row-major mi x pk
      const T* bb = bp.block_data(p * nb + j);  // row-major pk x nj
      // row-major c = a b  <=>  column-major c' = b' a'
      dense<P>::gemm(false, false, nj, mi, pk, T(1), bb, nj, ab, pk, T(1), c, nj);
    }
  });
  return out;
}
}  // namespace detail

/// a b computed at the call with `pol` (NumPy's matmul rules, as the lazy ts::matmul(a, b)).
/// 2-D operands of one float type: each operand evaluated once by the policy's backend, the
/// blocks multiplied by its dense gemm (OpenBLAS or cuBLAS); other ranks and element types:
/// the lazy product evaluated with pol.
template <expression_type A, expression_type B, linalg_policy P>
auto matmul(const A& a, const B& b, const P& pol) {
  using T = promote_t<typename A::value_type, typename B::value_type>;
  if constexpr (std::is_floating_point_v<T> && std::is_same_v<T, typename A::value_type> &&
                std::is_same_v<T, typename B::value_type>) {
    if (a.dimension() == 2 && b.dimension() == 2) return detail::matmul_2d<T>(a, b, pol);
  }
  return detail::materialize(matmul(a, b), pol);
}

}  // namespace tessera::linalg
