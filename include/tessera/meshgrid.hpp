// NumPy's meshgrid (lazy): coordinate arrays from 1-d coordinate vectors, each a broadcast view
// of one (flattened) input; nothing is materialized.
#pragma once
#include <string_view>
#include <tuple>

#include "manipulation.hpp"
#include "reshape.hpp"

namespace tessera {

/// One array per input, all of shape (len(x1), len(x0), len(x2), ...) for indexing "xy" (the
/// default, Cartesian) or (len(x0), len(x1), ...) for "ij" (matrix); array i varies along the
/// axis of input i. Chunks along each axis: that input's.
template <expression_type... X>
auto meshgrid(std::string_view indexing, const X&... xs) {
  if (indexing != "xy" && indexing != "ij")
    throw_invalid("meshgrid: indexing '", indexing, "' is not 'xy' or 'ij'");
  const bool xy = indexing == "xy";
  constexpr int n = int(sizeof...(X));
  static_assert(n <= max_rank, "meshgrid: more inputs than ts::max_rank axes");
  shape_t shape;
  chunks_t chunks;
  auto axis_of = [&](int i) { return xy && n >= 2 && i < 2 ? 1 - i : i; };
  const auto flat = std::make_tuple(ravel(xs)...);
  shape.resize(std::size_t(n));
  chunks.resize(std::size_t(n));
  std::apply(
      [&](const auto&... f) {
        int i = 0;
        ((shape[std::size_t(axis_of(i))] = f.shape()[0], chunks[std::size_t(axis_of(i))] = f.chunks()[0], ++i), ...);
      },
      flat);
  int i = 0;
  return std::apply(
      [&](const auto&... f) {
        auto one = [&](const auto& v) {
          const int at = axis_of(i++);
          slice_vector s;
          for (int d = 0; d < n; ++d) s.push_back(d == at ? slice(all()) : slice(newaxis()));
          return broadcast_to(dynamic_view(v, s), shape, chunks);
        };
        return std::tuple{one(f)...};
      },
      flat);
}
/// Cartesian ("xy") indexing.
template <expression_type... X>
auto meshgrid(const X&... xs) {
  return meshgrid("xy", xs...);
}

}  // namespace tessera
