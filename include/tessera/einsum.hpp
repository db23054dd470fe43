// einsum (NumPy's subscripts, explicit "ij,jk->ik" or implicit "ij,jk"): a blockwise
// (blocks.hpp) over the output's letters whose block function sums the products over every
// combination of the letters, the contracted ones seen whole. Lazy, chunked along the output's
// letters, host code per block; the work per output block is the product of its extents and
// the contracted lengths, about 1 ns per term (2 operands, the contracted letter innermost;
// for large matrix-like contractions the BLAS path of ts::matmul / ts::tensordot is faster).
// Not supported: "..." (ellipsis) and a letter repeated within one operand (diagonals, traces).
#pragma once
#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
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

  /// The product of the operands' elements at offsets off (left to right, from 1).
  template <class D, std::size_t K, std::size_t... I>
  static R term(const D& data, const std::array<std::size_t, K>& off, std::index_sequence<I...>) {
    return (R(1) * ... * R(std::get<I>(data)[off[I]]));
  }

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
    if (total == 0) return out;
    // The letters walked as an odometer (row-major: output letters, then the contracted ones),
    // each operand's offset and the output's moved by strides; the last letter is the inner
    // loop. Terms are added in the same order as a plain walk over every combination.
    constexpr std::size_t K = sizeof...(B);
    const auto data = std::make_tuple(b.data()...);
    std::vector<std::size_t> os(nl, 0);  // the output's stride per letter (0: contracted)
    for (std::size_t l = no, acc = 1; l-- > 0;) {
      os[l] = acc;
      acc *= ext[l];
    }
    std::array<std::size_t, K> off{};
    std::size_t oo = 0;
    if (nl == 0) {  // every operand 0-d
      out.data()[0] = term(data, off, std::make_index_sequence<K>{});
      return out;
    }
    const std::size_t last = nl - 1, n = ext[last], ol = os[last];
    std::array<std::size_t, K> sl{};
    for (std::size_t k = 0; k < K; ++k) sl[k] = strides[k][last];
    std::vector<std::size_t> at(nl, 0);
    for (std::size_t f = 0, outer = total / n; f < outer; ++f) {
      R* o = out.data() + oo;
      std::array<std::size_t, K> o2 = off;
      if (ol == 0) {  // a contracted letter innermost: one output element
        R acc = *o;
        for (std::size_t t = 0; t < n; ++t) {
          acc += term(data, o2, std::make_index_sequence<K>{});
          for (std::size_t k = 0; k < K; ++k) o2[k] += sl[k];
        }
        *o = acc;
      } else {
        for (std::size_t t = 0; t < n; ++t) {
          o[t * ol] += term(data, o2, std::make_index_sequence<K>{});
          for (std::size_t k = 0; k < K; ++k) o2[k] += sl[k];
        }
      }
      for (std::size_t l = last; l-- > 0;) {  // the next combination of the other letters
        if (++at[l] < ext[l]) {
          for (std::size_t k = 0; k < K; ++k) off[k] += strides[k][l];
          oo += os[l];
          break;
        }
        for (std::size_t k = 0; k < K; ++k) off[k] -= (ext[l] - 1) * strides[k][l];
        oo -= (ext[l] - 1) * os[l];
        at[l] = 0;
      }
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
