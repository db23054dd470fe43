// Matrix product of chunked 2-D arrays: c = a b with c's chunks (a's row chunks, b's column
// chunks). The contraction axis of both operands is brought to the common refinement of their
// chunks and each operand is evaluated once (by the policy's backend, into host chunks), then
// every output block is the sum of dense gemms (dense<P>::gemm: OpenBLAS or cuBLAS) over the
// contraction chunks, output blocks in parallel on the policy's threads or devices.
#pragma once
#include "common.hpp"

namespace tessera::linalg {

template <expression_type A, expression_type B, linalg_policy P = host>
array<detail::real_of<A>> matmul(const A& a, const B& b, const P& pol = {}) {
  using T = detail::real_of<A>;
  static_assert(std::is_same_v<T, detail::real_of<B>>,
                "matmul needs operands of the same value type; cast one of them");
  detail::check_real_type<T>();
  if (a.dimension() != 2 || b.dimension() != 2)
    throw_invalid("matmul needs 2-D operands, got shapes ", a.shape(), " and ", b.shape());
  if (a.shape()[1] != b.shape()[0])
    throw_invalid("matmul: shapes ", a.shape(), " and ", b.shape(),
                  " are not aligned (", a.shape()[1], " != ", b.shape()[0], ")");
  const index_t m = a.shape()[0], n = b.shape()[1];
  const auto common = tessera::detail::refine(a.chunks()[1], b.chunks()[0]);
  auto ap = detail::materialize(rechunk(a, chunks_t{a.chunks()[0], common}), pol);
  auto bp = detail::materialize(rechunk(b, chunks_t{common, b.chunks()[1]}), pol);
  array<T> out(chunk_grid({m, n}, chunks_t{a.chunks()[0], b.chunks()[1]}));
  const chunk_grid& g = out.grid();
  const index_t nb = index_t(b.chunks()[1].size()), np = index_t(common.size());
  for (index_t blk = 0; blk < g.block_count(); ++blk) out.block_data(blk);
  typename dense<P>::threads_guard guard(detail::blas_threads_for(pol, g.block_count()));
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

}  // namespace tessera::linalg
