// Joining arrays (NumPy / Dask semantics, lazy): concatenate, stack, hstack, vstack, dstack,
// column_stack, block, append, and the atleast_1d/2d/3d views they use. One node,
// concatenated<C...> (nodes/concatenated.hpp): arrays of one node type are passed as a
// std::vector (any run-time count) or a braced list; arrays of different node types as a
// std::tuple. The result's element type is the NumPy result type of the inputs'.
#pragma once
#include <initializer_list>
#include <tuple>
#include <vector>

#include "manipulation.hpp"
#include "nodes/concatenated.hpp"
#include "reshape.hpp"

namespace tessera {

/// x viewed with at least 1 (2, 3) dimensions, as NumPy's atleast_1d / atleast_2d /
/// atleast_3d (a 1-d x of length n becomes 1 x n, then 1 x n x 1; a 2-d m x n becomes
/// m x n x 1). The same node type for every input rank (a remap).
template <expression_type X>
auto atleast_1d(const X& x) {
  return dynamic_view(x, x.dimension() == 0 ? slice_vector{slice(newaxis())} : slice_vector{});
}
template <expression_type X>
auto atleast_2d(const X& x) {
  slice_vector s;
  if (x.dimension() == 0) s = {slice(newaxis()), slice(newaxis())};
  else if (x.dimension() == 1) s = {slice(newaxis()), slice(all())};
  return dynamic_view(x, s);
}
template <expression_type X>
auto atleast_3d(const X& x) {
  slice_vector s;
  if (x.dimension() == 0) s = {slice(newaxis()), slice(newaxis()), slice(newaxis())};
  else if (x.dimension() == 1) s = {slice(newaxis()), slice(all()), slice(newaxis())};
  else if (x.dimension() == 2) s = {slice(all()), slice(all()), slice(newaxis())};
  return dynamic_view(x, s);
}

/// Joins arrays of one node type along `axis` (NumPy's concatenate): equal shapes except on
/// the axis; the output chunks along the axis are the inputs' chunks in order.
template <expression_type X>
concatenated<X> concatenate(const std::vector<X>& xs, index_t axis = 0) {
  std::vector<std::pair<int, std::size_t>> order;
  for (std::size_t i = 0; i < xs.size(); ++i) order.push_back({0, i});
  return concatenated<X>(std::tuple<std::vector<X>>{xs}, order, axis);
}
template <expression_type X>
concatenated<X> concatenate(std::initializer_list<X> xs, index_t axis = 0) {
  return concatenate(std::vector<X>(xs), axis);
}
/// Joins arrays of different node types along `axis`, e.g.
/// `ts::concatenate(std::tuple{a, ts::zeros<double>({2, 3})}, 0)`.
template <expression_type... X>
concatenated<X...> concatenate(const std::tuple<X...>& xs, index_t axis = 0) {
  std::vector<std::pair<int, std::size_t>> order;
  for (int i = 0; i < int(sizeof...(X)); ++i) order.push_back({i, 0});
  return std::apply(
      [&](const X&... x) {
        return concatenated<X...>(std::tuple<std::vector<X>...>{std::vector<X>{x}...}, order, axis);
      },
      xs);
}

namespace detail {
template <class X, class F>
auto transform_all(const std::vector<X>& xs, F&& f) {
  std::vector<std::remove_cvref_t<decltype(f(xs.front()))>> out;
  out.reserve(xs.size());
  for (const X& x : xs) out.push_back(f(x));
  return out;
}
template <class... X, class F>
auto transform_all(const std::tuple<X...>& xs, F&& f) {
  return std::apply([&](const X&... x) { return std::make_tuple(f(x)...); }, xs);
}
template <class Xs>
int count_of(const Xs& xs) {
  if constexpr (requires { xs.size(); }) return int(xs.size());
  else return int(std::tuple_size_v<Xs>);
}
/// The shape of the first input (the rules of hstack and stack look at it).
template <class X>
shape_t first_shape(const std::vector<X>& xs) {
  if (xs.empty()) throw_invalid("need at least one array to join");
  return xs.front().shape();
}
template <class... X>
shape_t first_shape(const std::tuple<X...>& xs) {
  if constexpr (sizeof...(X) == 0) throw_invalid("need at least one array to join");
  else return std::get<0>(xs).shape();
}
}  // namespace detail

/// Joins equal-shape arrays along a new axis `axis` of the result (NumPy's stack).
template <class Xs>
auto stack(const Xs& xs, index_t axis = 0) {
  const shape_t first = detail::first_shape(xs);
  const int r = int(first.size()) + 1;
  const int ax = detail::normalize_axis(axis, r, "stack axis");
  auto parts = detail::transform_all(xs, [&](const auto& x) {
    if (x.shape() != first)
      throw_invalid("stack: all input arrays must have the same shape; got ", x.shape(), " next to ", first);
    return expand_dims(x, ax);
  });
  return concatenate(parts, ax);
}
template <expression_type X>
auto stack(std::initializer_list<X> xs, index_t axis = 0) {
  return stack(std::vector<X>(xs), axis);
}

/// Joins along axis 1, or axis 0 for 1-d inputs (NumPy's hstack).
template <class Xs>
auto hstack(const Xs& xs) {
  const int r = int(detail::first_shape(xs).size());
  auto parts = detail::transform_all(xs, [](const auto& x) { return atleast_1d(x); });
  return concatenate(parts, r <= 1 ? 0 : 1);
}
template <expression_type X>
auto hstack(std::initializer_list<X> xs) {
  return hstack(std::vector<X>(xs));
}
/// Joins along axis 0 after atleast_2d (NumPy's vstack: 1-d inputs become rows).
template <class Xs>
auto vstack(const Xs& xs) {
  auto parts = detail::transform_all(xs, [](const auto& x) { return atleast_2d(x); });
  return concatenate(parts, 0);
}
template <expression_type X>
auto vstack(std::initializer_list<X> xs) {
  return vstack(std::vector<X>(xs));
}
/// Joins along axis 2 after atleast_3d (NumPy's dstack).
template <class Xs>
auto dstack(const Xs& xs) {
  auto parts = detail::transform_all(xs, [](const auto& x) { return atleast_3d(x); });
  return concatenate(parts, 2);
}
template <expression_type X>
auto dstack(std::initializer_list<X> xs) {
  return dstack(std::vector<X>(xs));
}
/// 1-d inputs become columns, others join along axis 1 (NumPy's column_stack).
template <class Xs>
auto column_stack(const Xs& xs) {
  auto parts = detail::transform_all(xs, [](const auto& x) {
    if (x.dimension() > 2)
      throw_invalid("column_stack: inputs must be at most 2-d for this spelling, got shape ", x.shape());
    slice_vector s;
    if (x.dimension() == 0) s = {slice(newaxis()), slice(newaxis())};
    else if (x.dimension() == 1) s = {slice(all()), slice(newaxis())};
    return dynamic_view(x, s);
  });
  return concatenate(parts, 1);
}
template <expression_type X>
auto column_stack(std::initializer_list<X> xs) {
  return column_stack(std::vector<X>(xs));
}

/// Assembles an array from a nested list of blocks (NumPy's block, depth 1 or 2): the inner
/// lists join along the last axis, the outer list along the second-to-last; inputs of lower
/// dimension than the depth gain leading axes first.
template <expression_type X>
auto block(const std::vector<X>& row) {
  auto parts = detail::transform_all(row, [](const X& x) { return atleast_1d(x); });
  return concatenate(parts, -1);
}
template <expression_type X>
auto block(const std::vector<std::vector<X>>& rows) {
  if (rows.empty()) throw_invalid("block: need at least one row of blocks");
  int r = 2;
  for (const auto& row : rows)
    for (const X& x : row) r = std::max(r, x.dimension());
  std::vector<concatenated<decltype(dynamic_view(std::declval<const X&>(), {}))>> joined;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].empty()) throw_invalid("block: row ", i, " has no blocks");
    auto parts = detail::transform_all(rows[i], [&](const X& x) {
      slice_vector s;
      for (int d = x.dimension(); d < r; ++d) s.push_back(slice(newaxis()));
      return dynamic_view(x, s);
    });
    joined.push_back(concatenate(parts, -1));
  }
  return concatenate(joined, -2);
}

/// x followed by `values` along `axis` (NumPy's append with an axis).
template <expression_type X, expression_type V>
auto append(const X& x, const V& values, index_t axis) {
  return concatenate(std::tuple<X, V>{x, values}, axis);
}
/// Both flattened, then joined (NumPy's append without an axis).
template <expression_type X, expression_type V>
auto append(const X& x, const V& values) {
  return concatenate(std::tuple{ravel(x), ravel(values)}, 0);
}

}  // namespace tessera
