// apply_along_axis(f, axis, x) (NumPy's / Dask's): f applied to every 1-d lane of x along
// `axis`. f is host code taking an xtensor 1-d array (const auto&) and returning a number (the
// axis disappears) or a 1-d xtensor expression of one length m (the axis becomes m long). As
// Dask does, the axis is rechunked to one chunk and each block's lanes are handed to f by a
// map_blocks (blocks.hpp); f's result type and length come from one call on a lane of zeros at
// construction (Dask calls it on ones), so f must accept any values.
#pragma once
#include <type_traits>
#include <vector>

#include <xtensor/xarray.hpp>

#include "blocks.hpp"
#include "manipulation.hpp"
#include "nodes/rechunk.hpp"

namespace tessera {

namespace detail {

template <class T, class F>
using lane_result_t = std::remove_cvref_t<std::invoke_result_t<const F&, const xt::xarray<T>&>>;

/// The block function: each lane along `axis` copied out, given to f, its result written back.
template <class T, class R, class F>
struct lanes_applied {
  F f;
  int axis = 0;
  std::size_t m = 1;  // f's result length (1 for a number)

  template <class B>
    requires(!std::is_same_v<B, block_info>)
  xt::xarray<R> operator()(const B& b) const {
    const auto& s = b.shape();
    std::size_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= s[std::size_t(d)];
    for (std::size_t d = std::size_t(axis) + 1; d < b.dimension(); ++d) inner *= s[d];
    const std::size_t len = s[std::size_t(axis)];
    std::vector<std::size_t> out_shape(s.begin(), s.end());
    out_shape[std::size_t(axis)] = m;
    xt::xarray<R> out = xt::zeros<R>(out_shape);
    xt::xarray<T> lane = xt::zeros<T>({len});
    for (std::size_t o = 0; o < outer; ++o)
      for (std::size_t i = 0; i < inner; ++i) {
        for (std::size_t j = 0; j < len; ++j) lane(j) = b.data()[(o * len + j) * inner + i];
        if constexpr (std::is_arithmetic_v<lane_result_t<T, F>>) {
          out.data()[o * inner + i] = R(f(lane));
        } else {
          const xt::xarray<R> r = f(lane);
          if (r.dimension() != 1 || r.size() != m)
            throw_invalid("apply_along_axis: f returned ", r.size(), " values (", r.dimension(),
                          "-d) for a lane, ", m, " on the first call; f must return one length");
          for (std::size_t k = 0; k < m; ++k) out.data()[(o * m + k) * inner + i] = r(k);
        }
      }
    return out;
  }
};

}  // namespace detail

/// f applied to each 1-d lane of x along `axis` (see the header comment).
template <class F, expression_type X>
auto apply_along_axis(F f, index_t axis, const X& x) {
  using T = typename X::value_type;
  using L = detail::lane_result_t<T, F>;
  if (x.dimension() == 0) throw_invalid("apply_along_axis: a 0-d array has no axis");
  const int ax = detail::normalize_axis(axis, x.dimension(), "axis");
  const index_t n = x.shape()[std::size_t(ax)];
  chunks_t whole = x.chunks();
  whole[std::size_t(ax)] = {n};
  chunks_t out = whole;
  if constexpr (std::is_arithmetic_v<L>) {
    out[std::size_t(ax)] = {1};
    using R = L;
    auto m = map_blocks(detail::lanes_applied<T, R, F>{std::move(f), ax, 1}, out_chunks(out), rechunk(x, whole));
    return squeeze(m, index_t(ax));
  } else {
    using R = typename L::value_type;
    const xt::xarray<T> probe = xt::zeros<T>({std::size_t(n)});
    const xt::xarray<R> first = f(probe);
    if (first.dimension() != 1)
      throw_invalid("apply_along_axis: f returned a ", first.dimension(),
                    "-d result; it must return a number or a 1-d array");
    const std::size_t m = first.size();
    out[std::size_t(ax)] = {index_t(m)};
    return map_blocks(detail::lanes_applied<T, R, F>{std::move(f), ax, m}, out_chunks(out), rechunk(x, whole));
  }
}

}  // namespace tessera
