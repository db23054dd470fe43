// Slicing and views: ts::view(x, s0, s1, ...) with NumPy basic-indexing semantics.
//
// A view is a remap<C> (nodes/remap.hpp): an affine map from output indices to input indices,
// evaluated inside the fused per-chunk kernel. A view of a view (or of a transpose) composes
// into one remap, and a strided view of a generated leaf or of an elementwise expression only
// evaluates the selected elements: the kernel asks the child for the line
// start + j * step * e_axis, never for the elements in between.
//
// Output chunks (see docs/views.md): every output chunk comes from exactly one input chunk.
// Along a sliced axis the output chunks are, in output order, the numbers of selected indices
// that fall in each input chunk, input chunks contributing nothing being dropped; an axis of
// length 0 has the single chunk {0}; a new axis has the single chunk {1}.
#pragma once
#include <algorithm>
#include <optional>
#include <concepts>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "core/errors.hpp"
#include "core/expression.hpp"
#include "core/grid.hpp"
#include "nodes/remap.hpp"

namespace tessera {

/// The type of the placeholder `_` (an omitted start, stop or step in ts::range).
struct placeholder_t {
  constexpr bool operator==(const placeholder_t&) const = default;
};
namespace placeholders {
/// `using namespace ts::placeholders;` then `ts::range(_, _, 2)`, `ts::range(5, _)`.
inline constexpr placeholder_t _{};
}  // namespace placeholders

/// A range slice start:stop:step; an omitted bound takes NumPy's default for the step's sign.
struct range_t {
  index_t start = 0, stop = 0, step = 1;
  bool has_start = false, has_stop = false;
};
/// ts::all(): the whole axis.
struct all_t {};
/// ts::newaxis(): inserts an axis of length 1.
struct newaxis_t {};
/// ts::ellipsis(): as many all() as needed to index every axis.
struct ellipsis_t {};

namespace detail {
template <class T>
concept slice_integer = std::integral<T> && !std::same_as<std::remove_cv_t<T>, bool>;
template <class T>
struct is_optional_integer : std::false_type {};
template <slice_integer I>
struct is_optional_integer<std::optional<I>> : std::true_type {};
/// A bound: an integer, the placeholder `_`, or a std::optional integer (empty: the default,
/// for bounds known only at run time).
template <class T>
concept slice_bound = slice_integer<T> || std::same_as<std::remove_cvref_t<T>, placeholder_t> ||
                      is_optional_integer<std::remove_cvref_t<T>>::value;

/// An integer as index_t; unsigned values beyond index_t's range saturate (so a huge stop
/// clips, and a huge index is out of range, instead of wrapping to a negative index).
template <slice_integer T>
constexpr index_t to_index(T v) {
  if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(index_t))
    if (v > T(std::numeric_limits<index_t>::max())) return std::numeric_limits<index_t>::max();
  return index_t(v);
}

template <class T>
constexpr void set_bound(const T& v, index_t& value, bool& has) {
  if constexpr (slice_integer<T>) {
    value = to_index(v);
    has = true;
  } else if constexpr (is_optional_integer<T>::value) {
    value = v ? to_index(*v) : 0;
    has = v.has_value();
  } else {
    value = 0;
    has = false;
  }
}
}  // namespace detail

/// range(start, stop, step): each argument an integer, the placeholder `_`, or a std::optional
/// integer (empty: the default, chosen at run time). A negative step
/// walks backwards; negative start/stop count from the end; out-of-range bounds clip (NumPy).
template <detail::slice_bound A, detail::slice_bound B, detail::slice_bound C>
constexpr range_t range(A start, B stop, C step) {
  range_t r;
  detail::set_bound(start, r.start, r.has_start);
  detail::set_bound(stop, r.stop, r.has_stop);
  bool has_step = false;
  detail::set_bound(step, r.step, has_step);
  if (!has_step) r.step = 1;
  return r;
}
/// range(start, stop): step 1.
template <detail::slice_bound A, detail::slice_bound B>
constexpr range_t range(A start, B stop) {
  return range(start, stop, index_t(1));
}

/// The whole axis. A plain function without arguments (so it cannot collide with reductions
/// named `all` that take an expression).
constexpr all_t all() noexcept { return {}; }
/// A new axis of length 1.
constexpr newaxis_t newaxis() noexcept { return {}; }
/// Stands for as many all() as needed.
constexpr ellipsis_t ellipsis() noexcept { return {}; }

/// One slice of a view, chosen at run time (the element type of a slice_vector).
class slice {
 public:
  enum class kind { index, range, all, newaxis, ellipsis };

  slice() : kind_(kind::all) {}
  template <detail::slice_integer I>
  slice(I i) : kind_(kind::index), index_(detail::to_index(i)) {}
  slice(const range_t& r) : kind_(kind::range), range_(r) {}
  slice(all_t) : kind_(kind::all) {}
  slice(newaxis_t) : kind_(kind::newaxis) {}
  slice(ellipsis_t) : kind_(kind::ellipsis) {}

  kind type() const { return kind_; }
  index_t index() const { return index_; }
  const range_t& range() const { return range_; }

  /// NumPy-like text: "3", "1:-1:2", ":", "None", "...".
  std::string str() const {
    switch (kind_) {
      case kind::index: return std::to_string(index_);
      case kind::all: return ":";
      case kind::newaxis: return "None";
      case kind::ellipsis: return "...";
      case kind::range: break;
    }
    std::string s = range_.has_start ? std::to_string(range_.start) : std::string();
    s += ':';
    if (range_.has_stop) s += std::to_string(range_.stop);
    if (range_.step != 1) s += ':' + std::to_string(range_.step);
    return s;
  }

 private:
  kind kind_;
  index_t index_ = 0;
  range_t range_{};
};

using slice_vector = std::vector<slice>;

/// "[1:-1:2, ..., None]"
inline std::string describe_slices(const slice_vector& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + s[i].str();
  return out + "]";
}

/// A range resolved against an axis of length n: the selected indices are start + j * step,
/// 0 <= j < length (Python's slice.indices).
struct resolved_range {
  index_t start = 0, step = 1, length = 0;
};

namespace detail {

inline index_t floor_div(index_t a, index_t b) {  // b > 0
  index_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
inline index_t ceil_div(index_t a, index_t b) {  // b > 0
  return -floor_div(-a, b);
}

}  // namespace detail

/// Resolves start:stop:step against an axis of length n with NumPy's rules (step != 0).
inline resolved_range resolve(const range_t& r, index_t n) {
  // A step of INT64_MIN cannot be negated; -INT64_MAX selects the same single element of any
  // axis (axes are shorter than 2^63 - 1), as NumPy's x[::-2**63] does.
  const index_t step = r.step == std::numeric_limits<index_t>::min()
                           ? -std::numeric_limits<index_t>::max() : r.step;
  const index_t lower = step > 0 ? 0 : -1, upper = step > 0 ? n : n - 1;
  auto clip = [&](index_t v) {
    if (v < 0) {
      v += n;
      if (v < lower) v = lower;
    } else if (v > upper) {
      v = upper;
    }
    return v;
  };
  const index_t start = r.has_start ? clip(r.start) : (step > 0 ? lower : upper);
  const index_t stop = r.has_stop ? clip(r.stop) : (step > 0 ? upper : lower);
  resolved_range out;
  if (step > 0) out.length = stop > start ? (stop - start - 1) / step + 1 : 0;
  else out.length = start > stop ? (start - stop - 1) / (-step) + 1 : 0;
  out.start = out.length > 0 ? start : 0;
  // The step of a selection of at most one element is irrelevant: 1 keeps the products of
  // later index maps (strides, composed views) from overflowing for huge steps.
  out.step = out.length > 1 ? step : 1;
  return out;
}

/// The output chunks of a resolved range over an axis with the given chunk offsets: the
/// number of selected indices in each input chunk, in output order, zeros dropped ({0} when
/// nothing is selected).
inline std::vector<index_t> slice_chunks(const std::vector<index_t>& offsets,
                                         const resolved_range& r) {
  if (r.length == 0) return {0};
  auto block_of = [&](index_t i) {
    return index_t(std::upper_bound(offsets.begin() + 1, offsets.end() - 1, i) -
                   (offsets.begin() + 1));
  };
  const index_t last = r.start + (r.length - 1) * r.step;
  const index_t b0 = block_of(r.start), b1 = block_of(last);
  std::vector<index_t> out;
  auto count = [&](index_t lo, index_t hi) {  // selected indices in [lo, hi)
    index_t jlo, jhi;
    if (r.step > 0) {
      jlo = detail::ceil_div(lo - r.start, r.step);
      jhi = detail::ceil_div(hi - r.start, r.step);
    } else {
      const index_t s = -r.step;
      jlo = detail::floor_div(r.start - hi, s) + 1;
      jhi = detail::floor_div(r.start - lo, s) + 1;
    }
    jlo = std::max<index_t>(jlo, 0);
    jhi = std::min<index_t>(jhi, r.length);
    return std::max<index_t>(jhi - jlo, 0);
  };
  const index_t dir = r.step > 0 ? 1 : -1;
  for (index_t b = b0;; b += dir) {
    index_t c = count(offsets[std::size_t(b)], offsets[std::size_t(b) + 1]);
    if (c > 0) out.push_back(c);
    if (b == b1) break;
  }
  return out;
}

/// The view of x selected by a run-time list of slices (NumPy basic indexing; xtensor's
/// dynamic_view). Throws std::out_of_range for an integer index outside its axis and
/// std::invalid_argument for a zero step, several ellipses, too many indices or a result of
/// more than max_rank dimensions.
template <expression_type X>
auto dynamic_view(const X& x, const slice_vector& slices) {
  const chunk_grid& g = x.grid();
  const int r = g.rank();
  int consuming = 0, ellipses = 0, newaxes = 0, indices = 0;
  for (const auto& s : slices) {
    switch (s.type()) {
      case slice::kind::ellipsis: ++ellipses; break;
      case slice::kind::newaxis: ++newaxes; break;
      case slice::kind::index: ++indices; ++consuming; break;
      default: ++consuming; break;
    }
  }
  if (ellipses > 1)
    throw_invalid("an index can only have a single ellipsis; got ", ellipses, " in ",
                  describe_slices(slices));
  if (consuming > r)
    throw_invalid("too many indices for an array of dimension ", r, ": ", consuming,
                  " were indexed by ", describe_slices(slices));
  const int out_rank = r - indices + newaxes;
  if (out_rank > max_rank)
    throw_invalid("the view ", describe_slices(slices), " would have ", out_rank,
                  " dimensions; at most ", max_rank, " are supported");

  affine_map m;
  m.out_rank = out_rank;
  m.base.n = r;
  shape_t shape;
  chunks_t chunks;
  int k = 0, d = 0;  // next input axis, next output axis
  auto keep_axis = [&] {
    m.src[d] = k;
    m.step[d] = 1;
    shape.push_back(g.shape()[std::size_t(k)]);
    chunks.push_back(g.chunks()[std::size_t(k)]);
    ++k;
    ++d;
  };
  for (const auto& s : slices) {
    switch (s.type()) {
      case slice::kind::index: {
        const index_t n = g.shape()[std::size_t(k)], i = s.index();
        const index_t j = i < 0 ? i + n : i;
        if (j < 0 || j >= n)
          throw_out_of_range("index ", i, " is out of bounds for axis ", k, " with size ", n);
        m.base[k] = j;
        ++k;
        break;
      }
      case slice::kind::range: {
        const range_t& rg = s.range();
        if (rg.step == 0)
          throw_invalid("slice step cannot be zero (slice ", s.str(), " on axis ", k, ")");
        const resolved_range rr = resolve(rg, g.shape()[std::size_t(k)]);
        m.src[d] = k;
        m.step[d] = rr.step;
        m.base[k] = rr.start;
        shape.push_back(rr.length);
        chunks.push_back(slice_chunks(g.offsets(k), rr));
        ++k;
        ++d;
        break;
      }
      case slice::kind::all: keep_axis(); break;
      case slice::kind::newaxis:
        m.src[d] = -1;
        m.step[d] = 0;
        shape.push_back(1);
        chunks.push_back({1});
        ++d;
        break;
      case slice::kind::ellipsis:
        for (int e = 0; e < r - consuming; ++e) keep_axis();
        break;
    }
  }
  while (k < r) keep_axis();
  return make_remap(x, m, chunk_grid(std::move(shape), std::move(chunks)));
}

namespace detail {
template <class S>
concept slice_argument =
    slice_integer<std::remove_cvref_t<S>> || std::same_as<std::remove_cvref_t<S>, range_t> ||
    std::same_as<std::remove_cvref_t<S>, all_t> || std::same_as<std::remove_cvref_t<S>, newaxis_t> ||
    std::same_as<std::remove_cvref_t<S>, ellipsis_t> || std::same_as<std::remove_cvref_t<S>, slice>;
}  // namespace detail

/// ts::view(x, s0, s1, ...): each s an integer, ts::range(...), ts::all(), ts::newaxis() or
/// ts::ellipsis(). Missing trailing slices are all(). The result is a lazy remap node; a view
/// of a view (or of a transpose) is one remap.
template <expression_type X, detail::slice_argument... S>
auto view(const X& x, const S&... s) {
  return dynamic_view(x, slice_vector{slice(s)...});
}

/// The blocks of x that `s` selects, counted in blocks (Dask's x.blocks[...]): an integer picks
/// one block (negative: from the end) and keeps its axis, as Dask does; a range picks
/// consecutive blocks (step 1); all() or a missing trailing entry, the whole axis. A view: the
/// chunks are the selected blocks'.
template <expression_type X>
auto blocks(const X& x, const slice_vector& s) {
  const int r = x.dimension();
  if (int(s.size()) > r)
    throw_invalid("blocks: ", s.size(), " block indices for an array of ", r, " dimensions");
  slice_vector e;
  for (int d = 0; d < r; ++d) {
    const auto& off = x.grid().offsets(d);
    const index_t n = index_t(off.size()) - 1;  // blocks along d
    index_t lo = 0, hi = n;
    if (std::size_t(d) < s.size()) {
      const slice& k = s[std::size_t(d)];
      if (k.type() == slice::kind::index) {
        lo = k.index() < 0 ? k.index() + n : k.index();
        if (lo < 0 || lo >= n)
          throw_invalid("blocks: block ", k.index(), " is out of range for axis ", d, " with ", n, " blocks");
        hi = lo + 1;
      } else if (k.type() == slice::kind::range) {
        const range_t& rg = k.range();
        if (rg.step != 1) throw_invalid("blocks: block slice ", k.str(), " on axis ", d, " needs step 1");
        auto clip = [n](index_t v) { return std::clamp<index_t>(v < 0 ? v + n : v, 0, n); };
        lo = rg.has_start ? clip(rg.start) : 0;
        hi = std::max(lo, rg.has_stop ? clip(rg.stop) : n);
      } else if (k.type() != slice::kind::all) {
        throw_invalid("blocks: ", k.str(), " on axis ", d, " is not a block index, range or all()");
      }
    }
    e.push_back(slice(range(off[std::size_t(lo)], off[std::size_t(hi)])));
  }
  return dynamic_view(x, e);
}

}  // namespace tessera
