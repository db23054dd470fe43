// Reshaping (NumPy semantics, lazy): reshape (one -1 inferred), ravel / flatten, and repeat
// (each element n times along an axis: a broadcast, then a reshape merging it in). One node,
// reshaped<C> (nodes/reshaped.hpp); a reshape of a reshape is one reshape.
#pragma once
#include <type_traits>

#include "manipulation.hpp"
#include "nodes/reshaped.hpp"

namespace tessera {

template <class T>
struct is_reshaped : std::false_type {};
template <class C>
struct is_reshaped<reshaped<C>> : std::true_type {};

namespace detail {
/// `shape` with its one -1 resolved for `size` elements; throws naming the shapes otherwise.
inline shape_t resolve_reshape(const shape_t& from, shape_t shape) {
  const index_t size = checked_size(from);
  int unknown = -1;
  index_t known = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      if (unknown >= 0) throw_invalid("reshape: can only specify one unknown dimension (-1) in ", shape);
      unknown = int(d);
    } else if (shape[d] < 0) {
      throw_invalid("reshape: negative dimension ", shape[d], " in ", shape);
    } else {
      known *= shape[d];
    }
  }
  if (unknown >= 0) {
    if (known == 0 || size % known != 0)
      throw_invalid("reshape: cannot reshape an array of size ", size, " (shape ", from, ") into shape ", shape);
    shape[std::size_t(unknown)] = size / known;
  } else if (checked_size(shape) != size) {
    throw_invalid("reshape: cannot reshape an array of size ", size, " (shape ", from, ") into shape ", shape);
  }
  check_rank(shape);
  return shape;
}
}  // namespace detail

/// x's elements in row-major order under `shape` (NumPy's reshape; one length may be -1).
/// Lazy; chunks as Dask chooses them (nodes/reshaped.hpp).
template <expression_type X>
auto reshape(const X& x, const shape_t& shape) {
  const shape_t s = detail::resolve_reshape(x.shape(), shape);
  if constexpr (is_reshaped<X>::value) return reshaped(x.child(), s);
  else return reshaped<X>(x, s);
}
/// x as 1-d, row-major (NumPy's ravel; flatten is the same, lazily).
template <expression_type X>
auto ravel(const X& x) {
  return reshape(x, shape_t{x.size()});
}
template <expression_type X>
auto flatten(const X& x) {
  return ravel(x);
}

/// Each element repeated `repeats` times along `axis` (NumPy's repeat with one count).
template <expression_type X>
auto repeat(const X& x, index_t repeats, index_t axis) {
  const int r = x.dimension();
  const int ax = detail::normalize_axis(axis, r, "repeat axis");
  if (repeats < 0) throw_invalid("repeat: repeats ", repeats, " must not be negative");
  shape_t wide = x.shape();
  wide.insert(wide.begin() + ax + 1, repeats);
  chunks_t ch = x.chunks();
  ch.insert(ch.begin() + ax + 1, std::vector<index_t>{repeats});
  shape_t out = x.shape();
  out[std::size_t(ax)] *= repeats;
  return reshape(broadcast_to(expand_dims(x, ax + 1), wide, ch), out);
}
/// Repeats over the flattened array (NumPy's repeat without an axis).
template <expression_type X>
auto repeat(const X& x, index_t repeats) {
  return repeat(ravel(x), repeats, 0);
}

}  // namespace tessera
