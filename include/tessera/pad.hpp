// Padding and periodic rearrangement (NumPy semantics, lazy): pad (constant, edge, reflect,
// symmetric, wrap), roll along given axes, tile. All are one piecewise node
// (nodes/piecewise.hpp): per axis, stretches read from the input forward, backward, at one
// index, or a constant; nothing is copied, and an output chunk reads only the input box it maps to.
#pragma once
#include <string_view>
#include <utility>
#include <vector>

#include "manipulation.hpp"
#include "nodes/piecewise.hpp"
#include "reshape.hpp"

namespace tessera {

/// NumPy's np.pad modes.
enum class pad_mode { constant, edge, reflect, symmetric, wrap };

namespace detail {
inline pad_mode parse_pad_mode(std::string_view m) {
  if (m == "constant") return pad_mode::constant;
  if (m == "edge") return pad_mode::edge;
  if (m == "reflect") return pad_mode::reflect;
  if (m == "symmetric") return pad_mode::symmetric;
  if (m == "wrap") return pad_mode::wrap;
  throw_invalid("pad: mode '", m, "' is not one of constant, edge, reflect, symmetric, wrap");
}

/// The identity stretch of an axis of length n.
inline std::vector<stretch> whole_axis(index_t n) { return {stretch{0, n, 1, 0, false}}; }

/// Stretches of one axis of length n padded by `before` and `after` in `mode`: output index o
/// reads input index f(o - before), f periodic for wrap / reflect / symmetric.
inline std::vector<stretch> pad_axis(index_t n, index_t before, index_t after, pad_mode mode, int axis) {
  std::vector<stretch> out;
  const index_t total = before + n + after;
  auto add = [&](index_t lo, index_t hi, int step, index_t base, bool constant) {
    lo = std::max<index_t>(lo, 0);
    hi = std::min(hi, total);
    if (hi > lo) out.push_back({lo, hi, step, base, constant});
  };
  if (mode == pad_mode::constant || (before == 0 && after == 0)) {
    add(0, before, 0, 0, true);
    add(before, before + n, 1, -before, false);
    add(before + n, total, 0, 0, true);
    return out;
  }
  if (n == 0)
    throw_invalid("pad: cannot extend the empty axis ", axis, " with mode ",
                  mode == pad_mode::edge ? "edge" : mode == pad_mode::wrap ? "wrap"
                  : mode == pad_mode::reflect ? "reflect" : "symmetric",
                  " (only constant pads an empty axis)");
  if (mode == pad_mode::edge || (mode == pad_mode::reflect && n == 1)) {
    add(0, before, 0, 0, false);
    add(before, before + n, 1, -before, false);
    add(before + n, total, 0, n - 1, false);
    return out;
  }
  // Periodic: t = o - before runs over [-before, n + after); period p.
  const index_t p = mode == pad_mode::wrap ? n : mode == pad_mode::symmetric ? 2 * n : 2 * n - 2;
  const index_t k0 = floor_div(-before, p), k1 = floor_div(n + after - 1, p);
  for (index_t k = k0; k <= k1; ++k) {
    const index_t t0 = k * p;  // ascending: input t - t0 over n elements
    add(t0 + before, t0 + n + before, 1, -before - t0, false);
    if (mode == pad_mode::symmetric)  // descending n - 1 .. 0
      add(t0 + n + before, t0 + 2 * n + before, -1, t0 + 2 * n - 1 + before, false);
    else if (mode == pad_mode::reflect)  // descending n - 2 .. 1
      add(t0 + n + before, t0 + p + before, -1, t0 + p + before, false);
  }
  return out;
}
}  // namespace detail

/// x padded by pad_width[d] = (before, after) elements on each axis d (NumPy's np.pad; one
/// pair applies to every axis). Modes: constant (`value`), edge, reflect, symmetric, wrap, with
/// NumPy's results for pads longer than the axis.
template <expression_type X>
auto pad(const X& x, const std::vector<std::pair<index_t, index_t>>& pad_width,
         pad_mode mode = pad_mode::constant, double value = 0) {
  using T = typename X::value_type;
  const int r = x.dimension();
  if (pad_width.size() != 1 && int(pad_width.size()) != r)
    throw_invalid("pad: ", pad_width.size(), " (before, after) pairs for an array of dimension ", r,
                  " (give one pair, or one per axis)");
  std::vector<std::vector<stretch>> axes;
  for (int d = 0; d < r; ++d) {
    const auto [b, a] = pad_width.size() == 1 ? pad_width[0] : pad_width[std::size_t(d)];
    if (b < 0 || a < 0) throw_invalid("pad: widths (", b, ", ", a, ") of axis ", d, " must not be negative");
    axes.push_back(detail::pad_axis(x.shape()[std::size_t(d)], b, a, mode, d));
  }
  return piecewise<X>(x, std::move(axes), detail::creation_value<T>(value));
}
/// The same width before and after on every axis.
template <expression_type X>
auto pad(const X& x, index_t width, pad_mode mode = pad_mode::constant, double value = 0) {
  return pad(x, {{width, width}}, mode, value);
}
/// Mode by NumPy's name ("constant", "edge", "reflect", "symmetric", "wrap").
template <expression_type X>
auto pad(const X& x, const std::vector<std::pair<index_t, index_t>>& pad_width, std::string_view mode,
         double value = 0) {
  return pad(x, pad_width, detail::parse_pad_mode(mode), value);
}
template <expression_type X>
auto pad(const X& x, index_t width, std::string_view mode, double value = 0) {
  return pad(x, {{width, width}}, detail::parse_pad_mode(mode), value);
}

/// Elements shifted by shifts[i] along axes[i], those past the end reappearing at the start
/// (NumPy's roll with axes; shifts of a repeated axis add up).
template <expression_type X>
auto roll(const X& x, const std::vector<index_t>& shifts, const std::vector<index_t>& axes) {
  const int r = x.dimension();
  if (shifts.size() != axes.size() && shifts.size() != 1)
    throw_invalid("roll: ", shifts.size(), " shifts for ", axes.size(), " axes");
  std::vector<index_t> total(std::size_t(r), 0);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const int d = detail::normalize_axis(axes[i], r, "roll axis");
    const index_t n = x.shape()[std::size_t(d)];
    const index_t s = shifts.size() == 1 ? shifts[0] : shifts[i];
    if (n > 0) total[std::size_t(d)] = ((total[std::size_t(d)] + s % n) % n + n) % n;
  }
  std::vector<std::vector<stretch>> st;
  for (int d = 0; d < r; ++d) {
    const index_t n = x.shape()[std::size_t(d)], s = total[std::size_t(d)];
    if (s == 0) st.push_back(detail::whole_axis(n));
    else st.push_back({stretch{0, s, 1, n - s, false}, stretch{s, n, 1, -s, false}});
  }
  return piecewise<X>(x, std::move(st), typename X::value_type{});
}
template <expression_type X>
auto roll(const X& x, index_t shift, index_t axis) {
  return roll(x, std::vector<index_t>{shift}, std::vector<index_t>{axis});
}

/// Shift over the flattened array, reshaped back (NumPy's roll without an axis).
template <expression_type X>
auto roll(const X& x, index_t shift) {
  return reshape(roll(ravel(x), shift, 0), x.shape());
}

/// x repeated reps[d] times along each axis (NumPy's tile: x gains leading axes when reps is
/// longer than its dimension; reps gains leading 1s when shorter).
template <expression_type X>
auto tile(const X& x, const std::vector<index_t>& reps) {
  const int r = std::max<int>(x.dimension(), int(reps.size()));
  slice_vector s;
  for (int d = x.dimension(); d < r; ++d) s.push_back(slice(newaxis()));
  auto v = dynamic_view(x, s);
  std::vector<std::vector<stretch>> st;
  for (int d = 0; d < r; ++d) {
    const int k = d - (r - int(reps.size()));
    const index_t m = k >= 0 ? reps[std::size_t(k)] : 1;
    if (m < 0) throw_invalid("tile: repetition ", m, " of axis ", d, " must not be negative");
    const index_t n = v.shape()[std::size_t(d)];
    std::vector<stretch> axis;
    for (index_t i = 0; i < m && n > 0; ++i) axis.push_back({i * n, (i + 1) * n, 1, -i * n, false});
    st.push_back(std::move(axis));
  }
  return piecewise<decltype(v)>(v, std::move(st), typename X::value_type{});
}
template <expression_type X>
auto tile(const X& x, index_t reps) {
  return tile(x, std::vector<index_t>{reps});
}

}  // namespace tessera
