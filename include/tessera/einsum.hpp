// einsum (NumPy's subscripts, explicit "ij,jk->ik" or implicit "ij,jk"): a blockwise
// (blocks.hpp) over the output's letters whose block function sums the products over every
// combination of the letters, the contracted ones seen whole. Lazy, chunked along the output's
// letters, host code per block; the work per output block is the product of its extents and
// the contracted lengths (for large matrix-like contractions, tensordot's BLAS path is faster).
// Not supported: "..." (ellipsis) and a letter repeated within one operand (diagonals, traces).
#pragma once
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <xtensor/xarray.hpp>

#include "blocks.hpp"
#include "nodes/concatenated.hpp"  // detail::promote_all

namespace tessera {

namespace detail {

/// The parsed subscripts: one index string per operand and the output's.
struct einsum_spec {
  std::vector<std::string> inputs;
  std::string output;
};

inline einsum_spec parse_einsum(std::string_view subscripts, std::size_t operands) {
  std::string s;
  for (char c : subscripts)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  if (s.find("...") != std::string::npos)
    throw_invalid("einsum: '", subscripts, "': ellipsis (...) is not supported");
  einsum_spec e;
  const auto arrow = s.find("->");
  const std::string lhs = arrow == std::string::npos ? s : s.substr(0, arrow);
  std::size_t start = 0;
  for (;;) {
    const auto comma = lhs.find(',', start);
    e.inputs.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (e.inputs.size() != operands)
    throw_invalid("einsum: '", subscripts, "' names ", e.inputs.size(), " operands but ", operands, " were given");
  for (const auto& in : e.inputs)
    for (char c : in)
      if (!std::isalpha(static_cast<unsigned char>(c)))
        throw_invalid("einsum: '", subscripts, "': '", std::string(1, c), "' is not a letter");
  if (arrow != std::string::npos) {
    e.output = s.substr(arrow + 2);
  } else {  // implicit: the letters that occur once, in alphabetical order
    std::string all;
    for (const auto& in : e.inputs) all += in;
    std::string once;
    for (char c : all)
      if (std::count(all.begin(), all.end(), c) == 1) once += c;
    std::sort(once.begin(), once.end());
    e.output = once;
  }
  return e;
}

/// The block function: out[o...] = sum over the other letters of the product of the operands.
template <class R>
struct einsum_blocks {
  einsum_spec spec;
  std::string letters;  // output letters first, then the contracted ones

  template <class... B>
    requires(!std::is_same_v<B, block_info> && ...)
  xt::xarray<R> operator()(const B&... b) const {
    const std::size_t nl = letters.size(), no = spec.output.size();
    std::vector<std::size_t> ext(nl, 1);
    std::size_t i = 0;
    auto extents = [&](const auto& blk) {  // each letter's extent, from the operands that have it
      const std::string& idx = spec.inputs[i++];
      for (std::size_t d = 0; d < idx.size(); ++d) ext[letters.find(idx[d])] = blk.shape()[d];
    };
    (extents(b), ...);
    std::vector<std::size_t> out_shape(ext.begin(), ext.begin() + std::ptrdiff_t(no));
    xt::xarray<R> out = xt::zeros<R>(out_shape);
    // strides of each operand (and the output) per letter, 0 where it lacks the letter
    std::vector<std::vector<std::size_t>> strides;
    i = 0;
    auto stride_of = [&](const auto& blk) {
      const std::string& idx = spec.inputs[i++];
      std::vector<std::size_t> s(nl, 0);
      std::size_t acc = 1;
      for (std::size_t d = idx.size(); d-- > 0;) {
        s[letters.find(idx[d])] = acc;
        acc *= blk.shape()[d];
      }
      strides.push_back(s);
    };
    (stride_of(b), ...);
    std::size_t total = 1;
    for (auto e : ext) total *= e;
    std::vector<std::size_t> at(nl, 0);
    for (std::size_t f = 0; f < total; ++f) {
      std::size_t r = f;
      for (std::size_t l = nl; l-- > 0;) {
        at[l] = r % ext[l];
        r /= ext[l];
      }
      R prod = R(1);
      std::size_t k = 0;
      auto multiply = [&](const auto& blk) {
        std::size_t off = 0;
        for (std::size_t l = 0; l < nl; ++l) off += at[l] * strides[k][l];
        ++k;
        prod = prod * R(blk.data()[off]);
      };
      (multiply(b), ...);
      std::size_t o = 0;
      for (std::size_t l = 0; l < no; ++l) o = o * ext[l] + at[l];
      out.data()[o] += prod;
    }
    return out;
  }
};

}  // namespace detail

/// NumPy's einsum over chunked arrays (see the header comment): `ts::einsum("ij,jk->ik", a, b)`,
/// `ts::einsum("ii", ...)` is not supported (a repeated letter), `ts::einsum("ij->ji", a)` is a
/// transpose, `ts::einsum("i,i", u, v)` an inner product (a 0-d result).
template <expression_type... X>
  requires(sizeof...(X) > 0)
auto einsum(std::string_view subscripts, const X&... xs) {
  using R = typename detail::promote_all<typename X::value_type...>::type;
  detail::einsum_spec spec = detail::parse_einsum(subscripts, sizeof...(X));
  std::string letters = spec.output;
  for (const auto& in : spec.inputs)
    for (char c : in)
      if (letters.find(c) == std::string::npos) letters += c;
  auto lay = detail::blockwise_layout(spec.output, spec.inputs, {&xs.grid()...});
  lay->name = "einsum";
  detail::einsum_blocks<R> f{spec, letters};
  return detail::make_mapped_blocks(std::move(f), std::move(lay), xs...);
}

}  // namespace tessera
