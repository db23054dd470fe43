// Diagonals (NumPy semantics, lazy): diagonal, trace, diag (a 1-d input on a diagonal of a
// square result), diagflat. diagonal is one node (nodes/diagonal.hpp); trace sums it; diag
// builds its square from a where over a generated band (nothing stored).
#pragma once
#include "manipulation.hpp"
#include "nodes/diagonal.hpp"
#include "pad.hpp"
#include "reduce.hpp"

namespace tessera {

/// The diagonal at `offset` of axes axis1 and axis2 as the last axis of the result, the other
/// axes first in order (NumPy's diagonal).
template <expression_type X>
auto diagonal(const X& x, index_t offset = 0, index_t axis1 = 0, index_t axis2 = 1) {
  const int r = x.dimension();
  if (r < 2) throw_invalid("diagonal: the array must be at least 2-d, not ", r, "-d");
  const int a1 = detail::normalize_axis(axis1, r, "diagonal axis1");
  const int a2 = detail::normalize_axis(axis2, r, "diagonal axis2");
  if (a1 == a2) throw_invalid("diagonal: axis1 and axis2 cannot be the same (both are axis ", a1, ")");
  return diagonal_of<X>(x, offset, a1, a2);
}

/// Sum along the diagonal (NumPy's trace; the result type of ts::sum).
template <expression_type X>
auto trace(const X& x, index_t offset = 0, index_t axis1 = 0, index_t axis2 = 1) {
  return sum(diagonal(x, offset, axis1, axis2), index_t(-1));
}

/// A 1-d v on diagonal k of a square 2-d array, zeros elsewhere (NumPy's diag of a 1-d
/// input; for the diagonal of a 2-d array use ts::diagonal, which NumPy's diag returns there).
/// Chunks: v's on both axes, padded by |k|.
template <expression_type X>
auto diag(const X& v, index_t k = 0) {
  if (v.dimension() != 1)
    throw_invalid("diag: the input must be 1-d here, not ", v.dimension(), "-d (shape ", v.shape(),
                  "); the diagonal of a 2-d array is ts::diagonal(x, k)");
  using T = typename X::value_type;
  const index_t a = k < 0 ? -k : k;
  // row i of the result holds v[i - max(0, -k)] on its diagonal element
  auto rows = pad(v, {{k < 0 ? a : 0, k < 0 ? 0 : a}});
  const index_t n = rows.shape()[0];
  auto band = eye<bool>(n, chunks_t{rows.chunks()[0], rows.chunks()[0]}, n, k);
  return where(band, view(rows, all(), newaxis()), T(0));
}
/// The flattened input on diagonal k (NumPy's diagflat).
template <expression_type X>
auto diagflat(const X& v, index_t k = 0) {
  return diag(ravel(v), k);
}

}  // namespace tessera
