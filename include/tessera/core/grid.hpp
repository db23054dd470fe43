// Shapes and chunk grids: normalization of the user's chunks argument, auto chunking,
// block enumeration and chunk-boundary unification.
#pragma once
#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <numeric>
#include <variant>
#include <vector>

#include "errors.hpp"
#include "ivec.hpp"

namespace tessera {

using shape_t = std::vector<index_t>;
/// Per-axis list of chunk lengths, e.g. {{1000, 1000, 500}, {7, 7}}.
using chunks_t = std::vector<std::vector<index_t>>;

/// Target bytes per chunk for automatic chunking (Dask's default, 128 MiB).
inline constexpr std::size_t auto_chunk_bytes = std::size_t(128) << 20;

/// The chunks argument accepted everywhere:
///   - nothing / `ts::auto_chunks{}`: automatic (about 128 MiB per chunk),
///   - `{c0, c1, ...}`: one length per axis (the last chunk of an axis may be shorter;
///     -1 means the whole axis),
///   - `chunks_t{{...}, {...}}`: explicit per-axis lists (irregular allowed).
struct auto_chunks {};
class chunks_arg {
 public:
  chunks_arg() = default;
  chunks_arg(auto_chunks) {}
  chunks_arg(std::initializer_list<index_t> per_axis) : v_(std::vector<index_t>(per_axis)) {}
  chunks_arg(std::vector<index_t> per_axis) : v_(std::move(per_axis)) {}
  chunks_arg(std::initializer_list<std::vector<index_t>> lists) : v_(chunks_t(lists)) {}
  chunks_arg(chunks_t lists) : v_(std::move(lists)) {}

  bool is_auto() const { return std::holds_alternative<std::monostate>(v_); }
  const std::variant<std::monostate, std::vector<index_t>, chunks_t>& value() const { return v_; }

 private:
  std::variant<std::monostate, std::vector<index_t>, chunks_t> v_;
};

namespace detail {

/// Element count of shape s. Throws for a negative dimension, and, as NumPy ("array is too
/// big"), when the product of the nonzero dimensions exceeds the index type (2^63 - 1).
inline index_t checked_size(const shape_t& s) {
  index_t n = 1;
  bool empty = false;
  for (std::size_t d = 0; d < s.size(); ++d) {
    if (s[d] < 0) throw_invalid("negative dimension ", s[d], " at axis ", d, " of shape ", s);
    if (s[d] == 0) {
      empty = true;
      continue;
    }
    if (__builtin_mul_overflow(n, s[d], &n))
      throw_invalid("array is too big: shape ", s, " has more than 2^63 - 1 elements");
  }
  return empty ? 0 : n;
}

/// Element count of shape s, also checking that its bytes (itemsize each) fit the index type.
inline index_t checked_size(const shape_t& s, std::size_t itemsize) {
  const index_t n = checked_size(s);
  index_t bytes;
  if (__builtin_mul_overflow(n, index_t(itemsize), &bytes))
    throw_invalid("array is too big: shape ", s, " of ", itemsize,
                  "-byte elements needs more than 2^63 - 1 bytes");
  return n;
}

inline void check_rank(const shape_t& s) {
  if (s.size() > std::size_t(max_rank))
    throw_invalid("shape ", s, " has ", s.size(), " dimensions; at most ", max_rank,
                  " are supported");
}

/// Regular chunks of length c over an axis of length n (c > 0); n == 0 gives one empty chunk.
inline std::vector<index_t> regular(index_t n, index_t c) {
  std::vector<index_t> out;
  if (n == 0) return {0};
  for (index_t o = 0; o < n;) {  // (o + c may not fit the index type near its limit)
    const index_t len = std::min(c, n - o);
    out.push_back(len);
    o += len;
  }
  return out;
}

/// Automatic chunks: balanced, roughly cubic chunks of at most `target` bytes.
inline chunks_t auto_chunk(const shape_t& shape, std::size_t itemsize,
                           std::size_t target = auto_chunk_bytes) {
  std::vector<index_t> c(shape.begin(), shape.end());
  for (auto& x : c) x = std::max<index_t>(x, 1);
  auto bytes = [&] {
    double b = double(itemsize);
    for (auto x : c) b *= double(x);
    return b;
  };
  while (bytes() > double(target)) {
    auto it = std::max_element(c.begin(), c.end());
    *it = (*it + 1) / 2;
  }
  chunks_t out;
  for (std::size_t d = 0; d < shape.size(); ++d) out.push_back(regular(shape[d], c[d]));
  return out;
}

}  // namespace detail

/// Shape plus chunk lengths per axis, with cumulative offsets for block lookup.
class chunk_grid {
 public:
  chunk_grid() = default;  // 0-d, one block

  /// Validates `chunks` against `shape`.
  chunk_grid(shape_t shape, chunks_t chunks) : shape_(std::move(shape)), chunks_(std::move(chunks)) {
    detail::check_rank(shape_);
    detail::checked_size(shape_);
    if (chunks_.size() != shape_.size())
      throw_invalid("chunks have ", chunks_.size(), " axes but shape ", shape_, " has ",
                    shape_.size());
    for (std::size_t d = 0; d < shape_.size(); ++d) {
      index_t sum = 0;
      if (chunks_[d].empty()) throw_invalid("no chunks given for axis ", d);
      for (auto c : chunks_[d]) {
        if (c < 0 || (c == 0 && shape_[d] != 0))
          throw_invalid("chunk length ", c, " on axis ", d, " must be positive");
        if (__builtin_add_overflow(sum, c, &sum))  // (a wrapped sum could equal the length)
          throw_invalid("chunks ", chunks_[d], " on axis ", d,
                        " sum to more than 2^63 - 1 but the axis has length ", shape_[d]);
      }
      if (sum != shape_[d])
        throw_invalid("chunks ", chunks_[d], " on axis ", d, " sum to ", sum,
                      " but the axis has length ", shape_[d]);
    }
    build_offsets();
  }

  /// Normalizes a user chunks argument for `shape`.
  static chunk_grid make(const shape_t& shape, const chunks_arg& arg, std::size_t itemsize) {
    detail::check_rank(shape);
    detail::checked_size(shape, itemsize);
    const auto& v = arg.value();
    if (std::holds_alternative<std::monostate>(v))
      return chunk_grid(shape, detail::auto_chunk(shape, itemsize));
    if (auto* per = std::get_if<std::vector<index_t>>(&v)) {
      if (per->size() != shape.size())
        throw_invalid("chunks ", *per, " have ", per->size(), " entries but shape ", shape,
                      " has ", shape.size(), " dimensions");
      chunks_t out;
      for (std::size_t d = 0; d < shape.size(); ++d) {
        index_t c = (*per)[d];
        if (c == -1) c = std::max<index_t>(shape[d], 1);
        if (c <= 0) throw_invalid("chunk length ", (*per)[d], " on axis ", d, " must be positive");
        out.push_back(detail::regular(shape[d], c));
      }
      return chunk_grid(shape, std::move(out));
    }
    return chunk_grid(shape, std::get<chunks_t>(v));
  }

  const shape_t& shape() const { return shape_; }
  const chunks_t& chunks() const { return chunks_; }
  int rank() const { return int(shape_.size()); }
  index_t size() const { return detail::checked_size(shape_); }
  /// Number of blocks per axis.
  shape_t numblocks() const {
    shape_t nb;
    for (auto& c : chunks_) nb.push_back(index_t(c.size()));
    return nb;
  }
  index_t block_count() const {
    index_t n = 1;
    for (auto& c : chunks_) n *= index_t(c.size());
    return n;
  }
  /// Start offsets of the blocks of axis d, plus the axis length at the end.
  const std::vector<index_t>& offsets(int d) const { return offsets_[d]; }

  /// Multi-index of flat block number b (row-major over numblocks()).
  ivec block_index(index_t b) const {
    ivec bi;
    bi.n = rank();
    for (int d = rank() - 1; d >= 0; --d) {
      index_t nb = index_t(chunks_[d].size());
      bi[d] = b % nb;
      b /= nb;
    }
    return bi;
  }
  /// Index box of flat block number b.
  box block_box(index_t b) const {
    ivec bi = block_index(b);
    box bx;
    bx.lo.n = bx.hi.n = rank();
    for (int d = 0; d < rank(); ++d) {
      bx.lo[d] = offsets_[d][bi[d]];
      bx.hi[d] = offsets_[d][bi[d] + 1];
    }
    return bx;
  }
  /// Block number along axis d that contains position i (0 <= i < shape[d]).
  index_t block_along(int d, index_t i) const {
    const auto& o = offsets_[d];
    return index_t(std::upper_bound(o.begin() + 1, o.end() - 1, i) - (o.begin() + 1));
  }

  /// Flat number of the block that contains index i (every i[d] inside the shape).
  index_t block_containing(const ivec& i) const {
    index_t flat = 0;
    for (int d = 0; d < rank(); ++d) flat = flat * index_t(chunks_[d].size()) + block_along(d, i[d]);
    return flat;
  }
  /// Calls f(flat block number) for every block overlapping box b (b.count() > 0), in
  /// row-major block order; a 0-d grid has one block.
  template <class F>
  void for_each_block_in(const box& b, F&& f) const {
    const int r = rank();
    ivec lo, hi;
    lo.n = hi.n = r;
    for (int d = 0; d < r; ++d) {
      lo[d] = block_along(d, b.lo[d]);
      hi[d] = block_along(d, b.hi[d] - 1) + 1;
    }
    ivec k = lo;
    while (true) {
      index_t flat = 0;
      for (int d = 0; d < r; ++d) flat = flat * index_t(chunks_[d].size()) + k[d];
      f(flat);
      int d = r - 1;
      for (; d >= 0; --d) {
        if (++k[d] < hi[d]) break;
        k[d] = lo[d];
      }
      if (d < 0) return;
    }
  }
  /// The box covering the whole array.
  box whole() const {
    box b;
    b.lo.n = b.hi.n = rank();
    for (int d = 0; d < rank(); ++d) b.hi[d] = shape_[std::size_t(d)];
    return b;
  }

  bool operator==(const chunk_grid& o) const { return shape_ == o.shape_ && chunks_ == o.chunks_; }

 private:
  void build_offsets() {
    offsets_.assign(shape_.size(), {});
    for (std::size_t d = 0; d < shape_.size(); ++d) {
      offsets_[d].push_back(0);
      for (auto c : chunks_[d]) offsets_[d].push_back(offsets_[d].back() + c);
    }
  }
  shape_t shape_;
  chunks_t chunks_;
  std::vector<std::vector<index_t>> offsets_;
};

namespace detail {

/// The common refinement of two chunkings of one axis: every boundary of either.
inline std::vector<index_t> refine(const std::vector<index_t>& a, const std::vector<index_t>& b) {
  if (a == b) return a;
  std::vector<index_t> bounds;
  index_t s = 0;
  for (auto c : a) bounds.push_back(s += c);
  s = 0;
  for (auto c : b) bounds.push_back(s += c);
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  std::vector<index_t> out;
  index_t prev = 0;
  for (auto x : bounds)
    if (x > prev) out.push_back(x - prev), prev = x;
  if (out.empty()) out.push_back(0);
  return out;
}

}  // namespace detail
}  // namespace tessera
