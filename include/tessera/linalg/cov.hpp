// Covariance and correlation matrices (NumPy's cov, corrcoef) of chunked variables: the centred
// observations (lazy) multiplied by their transpose with the chunked matmul (linalg/matmul.hpp:
// BLAS per block pair, contraction over the observations' chunks), then scaled by 1 / (N - ddof)
// as NumPy does (a multiplication by the reciprocal). In double, as NumPy's result type.
#pragma once
#include <vector>

#include "../diagonal.hpp"
#include "../lazy.hpp"
#include "../manipulation.hpp"
#include "../reshape.hpp"
#include "matmul.hpp"

namespace tessera {

/// NumPy's cov / corrcoef arguments: rows are variables (rowvar) or columns are; the divisor
/// is N - ddof (NumPy's default ddof 1; bias=True is ddof 0).
struct cov_options {
  bool rowvar = true;
  index_t ddof = 1;
};

namespace linalg::detail {

/// m as a 2-d double array of variables x observations (NumPy's cov preamble).
template <expression_type M>
lazy<double> observations(const M& m, bool rowvar, const char* name) {
  if (m.dimension() > 2) throw_invalid(name, ": m has shape ", m.shape(), "; it must be 1-d or 2-d");
  lazy<double> x(cast<double>(m));
  if (m.dimension() < 2) x = reshape(x, shape_t{1, m.dimension() == 1 ? m.shape()[0] : 1});
  if (!rowvar && x.shape()[0] != 1) x = transpose(x);
  return x;
}

template <class P>
auto covariance(const lazy<double>& x, index_t ddof, const P& pol) {
  const index_t n = x.shape()[1];
  const double fact = n - ddof > 0 ? double(n - ddof) : 0.0;  // NumPy warns and divides by 0
  lazy<double> centred = x - mean(x, {1}, keep_dims);
  auto c = matmul(centred, transpose(centred), pol);  // ts::mpi: a distributed array (found by ADL)
  return c * (1.0 / fact);
}

}  // namespace linalg::detail

/// NumPy's cov(m): the covariance matrix of m's variables (squeezed: a 0-d array for one).
template <expression_type M, class P = host>
auto cov(const M& m, const cov_options& o = {}, const P& pol = {}) {
  return squeeze(linalg::detail::covariance(linalg::detail::observations(m, o.rowvar, "cov"), o.ddof, pol));
}
/// NumPy's cov(m, y): y's variables appended to m's.
template <expression_type M, expression_type Y, class P = host>
auto cov(const M& m, const Y& y, const cov_options& o = {}, const P& pol = {}) {
  auto a = linalg::detail::observations(m, o.rowvar, "cov");
  auto b = linalg::detail::observations(y, o.rowvar, "cov");
  if (a.shape()[1] != b.shape()[1])
    throw_invalid("cov: m has ", a.shape()[1], " observations but y has ", b.shape()[1]);
  return squeeze(linalg::detail::covariance(lazy<double>(concatenate(std::vector<lazy<double>>{a, b}, 0)), o.ddof, pol));
}

/// NumPy's corrcoef(m): cov(m) / (s_i s_j), clipped to [-1, 1] (ddof cancels).
template <expression_type M, class P = host>
auto corrcoef(const M& m, const cov_options& o = {}, const P& pol = {}) {
  const auto c = persist(linalg::detail::covariance(linalg::detail::observations(m, o.rowvar, "corrcoef"), o.ddof, pol), pol);
  const index_t n = c.shape()[0];
  auto s = sqrt(diagonal(c));
  return squeeze(clip(c / reshape(s, shape_t{n, 1}) / reshape(s, shape_t{1, n}), -1.0, 1.0));
}

}  // namespace tessera
