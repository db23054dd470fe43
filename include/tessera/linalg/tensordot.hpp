// tensordot (NumPy's): the sum of products over pairs of axes of two chunked arrays, as one
// chunked matmul. a's free axes and b's free axes become the rows and columns of a matrix
// product: a is transposed to (free, contracted) and b to (contracted, free), each group of axes
// is merged by a reshape (rechunked first so that every axis of a group but its first is whole,
// so each merged chunk reads one chunk: Dask's rule), the chunked matmul multiplies them, and
// the result is reshaped to a's free axes followed by b's. Without a policy everything is lazy
// (linalg/matrix_product.hpp); with one, the product is computed at the call (the eager
// ts::matmul(a, b, pol)) and the reshape is a lazy view of it. ts::dot (NumPy's, any ranks) is
// the tensordot over a's last axis and b's second-to-last (its only axis when 1-d).
#pragma once
#include <algorithm>
#include <utility>
#include <vector>

#include "../manipulation.hpp"
#include "../reshape.hpp"
#include "matmul.hpp"

namespace tessera {

namespace linalg::detail {

/// x transposed to `order`, rechunked so that in each of the two groups of axes ([0, split)
/// and [split, rank)) every axis but the first is whole, then merged into a matrix.
template <expression_type X>
auto as_matrix(const X& x, const std::vector<index_t>& order, std::size_t split) {
  auto t = transpose(x, order);
  chunks_t c = t.chunks();
  const shape_t& s = t.shape();
  index_t rows = 1, cols = 1;
  for (std::size_t d = 0; d < s.size(); ++d) {
    if (d != 0 && d != split) c[d] = {s[d]};
    (d < split ? rows : cols) *= s[d];
  }
  return reshape(rechunk(t, c), shape_t{rows, cols});
}

}  // namespace linalg::detail

namespace linalg::detail {
/// tensordot's matrices and result shape: mul(a_matrix, b_matrix) reshaped to a's free axes,
/// then b's.
template <expression_type A, expression_type B, class Mul>
auto tensordot_with(const A& a, const B& b, const std::vector<index_t>& a_axes,
                    const std::vector<index_t>& b_axes, Mul mul) {
  if (a_axes.size() != b_axes.size())
    throw_invalid("tensordot: axes ", a_axes, " and ", b_axes, " have different lengths");
  const int ra = a.dimension(), rb = b.dimension();
  std::vector<index_t> ca, cb;
  for (std::size_t i = 0; i < a_axes.size(); ++i) {
    const int x = tessera::detail::normalize_axis(a_axes[i], ra, "tensordot axis of a");
    const int y = tessera::detail::normalize_axis(b_axes[i], rb, "tensordot axis of b");
    if (std::find(ca.begin(), ca.end(), x) != ca.end() || std::find(cb.begin(), cb.end(), y) != cb.end())
      throw_invalid("tensordot: repeated axis in ", a_axes, " or ", b_axes);
    if (a.shape()[std::size_t(x)] != b.shape()[std::size_t(y)])
      throw_invalid("tensordot: shape-mismatch for sum: a's axis ", a_axes[i], " has length ",
                    a.shape()[std::size_t(x)], ", b's axis ", b_axes[i], " has ", b.shape()[std::size_t(y)]);
    ca.push_back(x);
    cb.push_back(y);
  }
  std::vector<index_t> oa, ob;  // a: free then contracted; b: contracted then free
  shape_t out;
  for (int d = 0; d < ra; ++d)
    if (std::find(ca.begin(), ca.end(), d) == ca.end()) {
      oa.push_back(d);
      out.push_back(a.shape()[std::size_t(d)]);
    }
  const std::size_t free_a = oa.size();
  oa.insert(oa.end(), ca.begin(), ca.end());
  ob = cb;
  for (int d = 0; d < rb; ++d)
    if (std::find(cb.begin(), cb.end(), d) == cb.end()) {
      ob.push_back(d);
      out.push_back(b.shape()[std::size_t(d)]);
    }
  return reshape(mul(as_matrix(a, oa, free_a), as_matrix(b, ob, cb.size())), out);
}

inline void check_tensordot_n(index_t n, int ra, int rb) {
  if (n < 0 || n > ra || n > rb)
    throw_invalid("tensordot: axes = ", n, " for arrays of ", ra, " and ", rb, " dimensions");
}
/// a's last n axes and b's first n.
inline std::pair<std::vector<index_t>, std::vector<index_t>> last_and_first(index_t n, int ra) {
  std::vector<index_t> x, y;
  for (index_t k = 0; k < n; ++k) {
    x.push_back(ra - n + k);
    y.push_back(k);
  }
  return {x, y};
}
}  // namespace linalg::detail

/// NumPy's tensordot(a, b, axes=(a_axes, b_axes)): a's axes a_axes[i] contracted with b's
/// b_axes[i] (equal lengths); the result has a's other axes, then b's. Lazy (no policy).
template <expression_type A, expression_type B>
auto tensordot(const A& a, const B& b, const std::vector<index_t>& a_axes, const std::vector<index_t>& b_axes) {
  return linalg::detail::tensordot_with(a, b, a_axes, b_axes,
                                        [](const auto& x, const auto& y) { return linalg::matmul(x, y); });
}
/// The same computed at the call with `pol` (float or double; the eager chunked matmul).
template <expression_type A, expression_type B, class P>
auto tensordot(const A& a, const B& b, const std::vector<index_t>& a_axes, const std::vector<index_t>& b_axes,
               const P& pol) {
  return linalg::detail::tensordot_with(a, b, a_axes, b_axes,
                                        [&pol](const auto& x, const auto& y) { return matmul(x, y, pol); });  // ADL: ts::mpi's too
}

/// tensordot over the last n axes of a and the first n of b (NumPy's axes=n; 2 by default).
template <expression_type A, expression_type B>
auto tensordot(const A& a, const B& b, index_t n = 2) {
  linalg::detail::check_tensordot_n(n, a.dimension(), b.dimension());
  const auto [x, y] = linalg::detail::last_and_first(n, a.dimension());
  return tensordot(a, b, x, y);
}
template <expression_type A, expression_type B, class P>
auto tensordot(const A& a, const B& b, index_t n, const P& pol) {
  linalg::detail::check_tensordot_n(n, a.dimension(), b.dimension());
  const auto [x, y] = linalg::detail::last_and_first(n, a.dimension());
  return tensordot(a, b, x, y, pol);
}

/// NumPy's dot, lazy: a 0-d operand multiplies; otherwise the sum over a's last axis and b's
/// second-to-last (b's only axis when 1-d): for 1-d and 2-d operands the same as matmul, for
/// N-d a.shape[:-1] + b.shape[:-2] + b.shape[-1:] (not matmul's broadcast batches).
template <expression_type A, expression_type B>
auto dot(const A& a, const B& b) {
  const int ra = a.dimension(), rb = b.dimension();
  if (ra == 0 || rb == 0) return tensordot(a, b, std::vector<index_t>{}, std::vector<index_t>{});
  return tensordot(a, b, std::vector<index_t>{-1}, std::vector<index_t>{rb >= 2 ? -2 : 0});
}
/// The same computed at the call with `pol`.
template <expression_type A, expression_type B, class P>
auto dot(const A& a, const B& b, const P& pol) {
  const int ra = a.dimension(), rb = b.dimension();
  if (ra == 0 || rb == 0) return tensordot(a, b, std::vector<index_t>{}, std::vector<index_t>{}, pol);
  return tensordot(a, b, std::vector<index_t>{-1}, std::vector<index_t>{rb >= 2 ? -2 : 0}, pol);
}

}  // namespace tessera
