// Products of whole arrays that are compositions (lazy): outer, vdot, inner of 1-d arrays.
// matmul of chunked matrices is ts::linalg::matmul (linalg/matmul.hpp).
#pragma once
#include "ops/arith.hpp"
#include "reduce.hpp"
#include "reshape.hpp"
#include "view.hpp"

namespace tessera {

/// out[i, j] = a.flat[i] * b.flat[j] (NumPy's outer; both inputs flattened). Chunks: a's along
/// the rows, b's along the columns.
template <expression_type A, expression_type B>
auto outer(const A& a, const B& b) {
  return view(ravel(a), all(), newaxis()) * view(ravel(b), newaxis(), all());
}

/// sum(a.flat * b.flat) as a 0-d array in the inputs' promoted type (NumPy's vdot for real
/// inputs: integers accumulate modulo their width as NumPy's dot does).
template <expression_type A, expression_type B>
auto vdot(const A& a, const B& b) {
  if (a.size() != b.size())
    throw_invalid("vdot: the inputs have ", a.size(), " and ", b.size(), " elements (shapes ", a.shape(),
                  " and ", b.shape(), "); they must have as many");
  using T = decltype(std::declval<typename A::value_type>() * std::declval<typename B::value_type>());
  using R = promote_t<typename A::value_type, typename B::value_type>;
  static_assert(std::is_arithmetic_v<T>);
  return cast<R>(sum(ravel(a) * ravel(b)));
}

/// Inner product of two 1-d arrays of one length (NumPy's inner for 1-d inputs).
template <expression_type A, expression_type B>
auto inner(const A& a, const B& b) {
  if (a.dimension() != 1 || b.dimension() != 1 || a.size() != b.size())
    throw_invalid("inner: this spelling takes two 1-d arrays of one length; got shapes ", a.shape(), " and ", b.shape());
  return vdot(a, b);
}

}  // namespace tessera
