// NumPy's shape manipulation that is a view (an affine index remap: no data moves, nothing is
// evaluated): squeeze, expand_dims, flip / flipud / fliplr, moveaxis, rot90; broadcast_to and
// broadcast_arrays (an elementwise node that reads its operand at the broadcast index); tril
// and triu (a where against a generated triangle). All lazy; a view of a view is one remap.
#pragma once
#include <algorithm>
#include <tuple>
#include <vector>

#include "nodes/generated.hpp"
#include "nodes/remap.hpp"
#include "ops/arith.hpp"
#include "view.hpp"

namespace tessera {

namespace detail {
/// Normalized, distinct axes (NumPy's normalize_axis_tuple), for an array of dimension rank.
inline std::vector<int> normalize_axes(const std::vector<index_t>& axes, int rank, const char* what) {
  std::vector<int> out;
  for (index_t a : axes) {
    const int k = normalize_axis(a, rank, what);
    if (std::find(out.begin(), out.end(), k) != out.end())
      throw_invalid("repeated axis ", a, " in ", what, " ", axes);
    out.push_back(k);
  }
  return out;
}
/// The whole axis, reversed.
inline range_t reversed() {
  range_t r;
  r.step = -1;
  return r;
}
}  // namespace detail

/// Removes the given axes of length 1 (NumPy's squeeze; every length-1 axis when axes is
/// empty). An axis whose length is not 1 throws, naming it.
template <expression_type X>
auto squeeze(const X& x, const std::vector<index_t>& axes = {}) {
  const int r = x.dimension();
  std::vector<bool> drop(std::size_t(r), false);
  if (axes.empty()) {
    for (int d = 0; d < r; ++d) drop[std::size_t(d)] = x.shape()[std::size_t(d)] == 1;
  } else {
    for (int d : detail::normalize_axes(axes, r, "squeeze axis")) {
      if (x.shape()[std::size_t(d)] != 1)
        throw_invalid("squeeze: axis ", d, " has length ", x.shape()[std::size_t(d)],
                      ", not 1 (shape ", x.shape(), ")");
      drop[std::size_t(d)] = true;
    }
  }
  slice_vector s;
  for (int d = 0; d < r; ++d) s.push_back(drop[std::size_t(d)] ? slice(0) : slice(all()));
  return dynamic_view(x, s);
}
template <expression_type X>
auto squeeze(const X& x, index_t axis) {
  return squeeze(x, std::vector<index_t>{axis});
}

/// Inserts axes of length 1 at the given positions of the result (NumPy's expand_dims).
template <expression_type X>
auto expand_dims(const X& x, const std::vector<index_t>& axes) {
  const int out = x.dimension() + int(axes.size());
  auto at = detail::normalize_axes(axes, out, "expand_dims axis");
  slice_vector s;
  for (int d = 0; d < out; ++d)
    s.push_back(std::find(at.begin(), at.end(), d) != at.end() ? slice(newaxis()) : slice(all()));
  return dynamic_view(x, s);
}
template <expression_type X>
auto expand_dims(const X& x, index_t axis) {
  return expand_dims(x, std::vector<index_t>{axis});
}

/// Reverses the order of elements along the given axes (every axis when axes is empty; NumPy's
/// flip).
template <expression_type X>
auto flip(const X& x, const std::vector<index_t>& axes = {}) {
  const int r = x.dimension();
  std::vector<int> at;
  if (axes.empty())
    for (int d = 0; d < r; ++d) at.push_back(d);
  else at = detail::normalize_axes(axes, r, "flip axis");
  slice_vector s;
  for (int d = 0; d < r; ++d)
    s.push_back(std::find(at.begin(), at.end(), d) != at.end() ? slice(detail::reversed()) : slice(all()));
  return dynamic_view(x, s);
}
template <expression_type X>
auto flip(const X& x, index_t axis) {
  return flip(x, std::vector<index_t>{axis});
}
/// flip along axis 0 (NumPy's flipud: at least 1-D).
template <expression_type X>
auto flipud(const X& x) {
  if (x.dimension() < 1) throw_invalid("flipud: the array must be at least 1-d");
  return flip(x, 0);
}
/// flip along axis 1 (NumPy's fliplr: at least 2-D).
template <expression_type X>
auto fliplr(const X& x) {
  if (x.dimension() < 2) throw_invalid("fliplr: the array must be at least 2-d, not ", x.dimension(), "-d");
  return flip(x, 1);
}

/// Moves axes `source` to positions `destination`, the others keeping their order (NumPy's
/// moveaxis).
template <expression_type X>
auto moveaxis(const X& x, const std::vector<index_t>& source, const std::vector<index_t>& destination) {
  const int r = x.dimension();
  if (source.size() != destination.size())
    throw_invalid("moveaxis: source ", source, " and destination ", destination,
                  " must have the same number of elements");
  auto src = detail::normalize_axes(source, r, "moveaxis source");
  auto dst = detail::normalize_axes(destination, r, "moveaxis destination");
  std::vector<index_t> order;
  for (int d = 0; d < r; ++d)
    if (std::find(src.begin(), src.end(), d) == src.end()) order.push_back(d);
  std::vector<std::pair<int, int>> moves;
  for (std::size_t i = 0; i < src.size(); ++i) moves.push_back({dst[i], src[i]});
  std::sort(moves.begin(), moves.end());
  for (auto [to, from] : moves) order.insert(order.begin() + to, from);
  return transpose(x, order);
}
template <expression_type X>
auto moveaxis(const X& x, index_t source, index_t destination) {
  return moveaxis(x, std::vector<index_t>{source}, std::vector<index_t>{destination});
}

/// Rotates by 90 degrees k times in the plane of `axes`, from the first axis toward the second
/// (NumPy's rot90).
template <expression_type X>
auto rot90(const X& x, int k = 1, std::pair<index_t, index_t> axes = {0, 1}) {
  const int r = x.dimension();
  if (r < 2) throw_invalid("rot90: the array must be at least 2-d, not ", r, "-d");
  const auto ax = detail::normalize_axes({axes.first, axes.second}, r, "rot90 axes");
  k = ((k % 4) + 4) % 4;
  std::vector<index_t> perm(static_cast<std::size_t>(r));
  for (int d = 0; d < r; ++d) perm[std::size_t(d)] = d;
  std::swap(perm[std::size_t(ax[0])], perm[std::size_t(ax[1])]);
  if (k == 0) return dynamic_view(x, {});
  if (k == 2) return flip(x, {ax[0], ax[1]});
  if (k == 1) return transpose(flip(x, ax[1]), perm);
  return flip(transpose(x, perm), ax[1]);
}

namespace ops {
/// Its first operand (the others only take part in broadcasting).
struct first {
  template <class A, class... B>
  TESSERA_HD A operator()(A a, B...) const {
    return a;
  }
};
}  // namespace ops

/// x broadcast to `shape` (NumPy's broadcast_to; lazy, read at the broadcast index). The
/// broadcast axes get `chunks` (auto by default), the others keep x's. Throws when x does not
/// broadcast to exactly `shape`.
template <expression_type X>
auto broadcast_to(const X& x, const shape_t& shape, const chunks_arg& chunks = {}) {
  const int r = int(shape.size()), xr = x.dimension();
  bool ok = xr <= r;
  for (int d = 0; ok && d < xr; ++d) {
    const index_t n = x.shape()[std::size_t(d)], m = shape[std::size_t(r - xr + d)];
    ok = n == m || n == 1;
  }
  if (!ok) throw_invalid("broadcast_to: an array of shape ", x.shape(), " cannot be broadcast to ", shape);
  auto grid = chunk_grid::make(shape, chunks, sizeof(typename X::value_type));
  chunks_t ch = grid.chunks();
  for (int d = 0; d < xr; ++d)  // x's own chunks where it is not broadcast
    if (x.shape()[std::size_t(d)] == shape[std::size_t(r - xr + d)])
      ch[std::size_t(r - xr + d)] = x.chunks()[std::size_t(d)];
  auto target = zeros<bool>(shape, chunks_t(ch));
  return elementwise<ops::first, X, decltype(target)>(ops::first{}, x, target);
}

/// The operands broadcast against each other (NumPy's broadcast_arrays), as a tuple.
template <expression_type... X>
auto broadcast_arrays(const X&... x) {
  shape_t shape;
  auto grow = [&](const shape_t& s) {
    if (s.size() > shape.size()) shape.insert(shape.begin(), s.size() - shape.size(), 1);
    for (std::size_t d = 0; d < s.size(); ++d) {
      index_t& n = shape[shape.size() - s.size() + d];
      const index_t m = s[d];
      if (n == 1) n = m;
      else if (m != 1 && m != n)
        throw_invalid("broadcast_arrays: shape ", s, " cannot be broadcast against ", shape);
    }
  };
  (grow(x.shape()), ...);
  return std::make_tuple(broadcast_to(x, shape)...);
}

namespace detail {
/// The bool mask of the elements at and below diagonal k of x's last two axes (chunked as
/// those axes), for tril/triu (`what` names the caller in errors).
template <expression_type X>
auto lower_triangle(const X& x, index_t k, const char* what) {
  const int r = x.dimension();
  if (r < 2) throw_invalid(what, ": the array must be at least 2-d, not ", r, "-d");
  const auto& s = x.shape();
  const auto& c = x.chunks();
  return tri<bool>(s[std::size_t(r - 2)], s[std::size_t(r - 1)], k,
                   chunks_t{c[std::size_t(r - 2)], c[std::size_t(r - 1)]});
}
}  // namespace detail

/// Lower triangle of the last two axes: elements above diagonal k set to 0 (NumPy's tril).
template <expression_type X>
auto tril(const X& x, index_t k = 0) {
  return where(detail::lower_triangle(x, k, "tril"), x, typename X::value_type(0));
}
/// Upper triangle of the last two axes: elements below diagonal k set to 0 (NumPy's triu).
template <expression_type X>
auto triu(const X& x, index_t k = 0) {
  return where(detail::lower_triangle(x, k - 1, "triu"), typename X::value_type(0), x);
}

}  // namespace tessera
