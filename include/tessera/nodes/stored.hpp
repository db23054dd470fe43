// ts::array<T>: an in-memory chunked array (result of persist / from_xtensor); a leaf node.
#pragma once
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "../core/context.hpp"
#include "../core/expression.hpp"

namespace tessera {

namespace detail {

/// Row-major strides (in elements) of an index box.
inline ivec box_strides(const box& b) {
  ivec s;
  s.n = b.rank();
  index_t acc = 1;
  for (int d = b.rank() - 1; d >= 0; --d) {
    s[d] = acc;
    acc *= b.extent(d);
  }
  return s;
}

/// Copies the intersection of `src_box` (data at src, row-major) and `dst_box` into dst.
template <class T>
void copy_box_overlap(const T* src, const box& src_box, T* dst, const box& dst_box) {
  const int r = src_box.rank();
  box ov;
  ov.lo.n = ov.hi.n = r;
  for (int d = 0; d < r; ++d) {
    ov.lo[d] = std::max(src_box.lo[d], dst_box.lo[d]);
    ov.hi[d] = std::min(src_box.hi[d], dst_box.hi[d]);
    if (ov.hi[d] <= ov.lo[d]) return;
  }
  const ivec ss = box_strides(src_box), ds = box_strides(dst_box);
  if (r == 0) {
    dst[0] = src[0];
    return;
  }
  const index_t row = ov.extent(r - 1);
  ivec i = ov.lo;
  while (true) {
    index_t so = 0, doff = 0;
    for (int d = 0; d < r; ++d) {
      so += (i[d] - src_box.lo[d]) * ss[d];
      doff += (i[d] - dst_box.lo[d]) * ds[d];
    }
    std::memcpy(dst + doff, src + so, std::size_t(row) * sizeof(T));
    int d = r - 2;
    for (; d >= 0; --d) {
      if (++i[d] < ov.hi[d]) break;
      i[d] = ov.lo[d];
    }
    if (d < 0) return;
  }
}

}  // namespace detail

/// Line over strided memory.
template <class T>
struct strided_line : line_base<strided_line<T>> {
  using value_type = T;
  const T* p;
  index_t s;
  TESSERA_HD T operator()(index_t j) const { return p[j * s]; }
  void fill(index_t j0, index_t n, T* out) const {
    const T* q = p + j0 * s;
    if (s == 1) std::memcpy(out, q, std::size_t(n) * sizeof(T));
    else
      for (index_t k = 0; k < n; ++k) out[k] = q[k * s];
  }
};

/// Accessor over one row-major block (or a gathered copy) whose first element has global
/// index `origin`.
template <class T>
struct stored_accessor {
  using value_type = T;
  const T* p = nullptr;
  ivec origin, stride;
  TESSERA_HD strided_line<T> line(const ivec& start, int axis, index_t step) const {
    index_t off = 0;
    for (int d = 0; d < start.n; ++d) off += (start[d] - origin[d]) * stride[d];
    strided_line<T> l;
    l.p = p + off;
    l.s = axis >= 0 ? step * stride[axis] : 0;
    return l;
  }
};

/// Chunk storage shared by copies of an array.
template <class T>
struct chunk_store {
  chunk_grid grid;
  std::vector<std::unique_ptr<T[]>> blocks;  // row-major block order, each block row-major
};

/// An in-memory chunked array. Copies share the chunks (like a persisted Dask array).
template <class T>
class array : public expression<array<T>> {
 public:
  using value_type = T;

  array() : store_(std::make_shared<chunk_store<T>>()) {
    store_->blocks.emplace_back(new T[1]());
  }
  /// Allocates uninitialized chunks for `g`.
  explicit array(chunk_grid g) : store_(std::make_shared<chunk_store<T>>()) {
    store_->grid = std::move(g);
    store_->blocks.resize(std::size_t(store_->grid.block_count()));
  }

  const chunk_grid& grid() const { return store_->grid; }

  /// Pointer to block b (row-major), allocating it on first use.
  T* block_data(index_t b) {
    auto& blk = store_->blocks[std::size_t(b)];
    if (!blk) blk.reset(new T[std::size_t(std::max<index_t>(grid().block_box(b).count(), 1))]);
    return blk.get();
  }
  const T* block_data(index_t b) const { return store_->blocks[std::size_t(b)].get(); }

  template <class Ctx>
  stored_accessor<T> bind(const box& b, Ctx& ctx) const {
    if constexpr (!Ctx::on_host) return ctx.bind_stored(*this, b);  // device: staged by ctx
    else return bind_host(b, ctx);
  }

  template <class Ctx>
  stored_accessor<T> bind_host(const box& b, Ctx& ctx) const {
    const chunk_grid& g = grid();
    stored_accessor<T> a;
    const int r = g.rank();
    if (b.count() == 0) return a;
    // Fast path: the box lies inside one block.
    index_t flat = 0;
    bool inside = true;
    for (int d = 0; d < r; ++d) {
      index_t k = g.block_along(d, b.lo[d]);
      if (b.hi[d] > g.offsets(d)[std::size_t(k) + 1]) inside = false;
      flat = flat * index_t(g.chunks()[d].size()) + k;
    }
    if (inside) {
      box blk = g.block_box(flat);
      a.p = block_data(flat);
      a.origin = blk.lo;
      a.stride = detail::box_strides(blk);
      return a;
    }
    // Gather path: copy the box from every block it overlaps into task scratch.
    static_assert(Ctx::on_host, "device gathering is provided by the device context");
    T* dst = ctx.template scratch<T>(b.count());
    ivec lo_blk, hi_blk;
    lo_blk.n = hi_blk.n = r;
    for (int d = 0; d < r; ++d) {
      lo_blk[d] = g.block_along(d, b.lo[d]);
      hi_blk[d] = g.block_along(d, b.hi[d] - 1) + 1;
    }
    ivec k = lo_blk;
    while (true) {
      index_t f = 0;
      for (int d = 0; d < r; ++d) f = f * index_t(g.chunks()[d].size()) + k[d];
      detail::copy_box_overlap(block_data(f), g.block_box(f), dst, b);
      int d = r - 1;
      for (; d >= 0; --d) {
        if (++k[d] < hi_blk[d]) break;
        k[d] = lo_blk[d];
      }
      if (d < 0) break;
    }
    a.p = dst;
    a.origin = b.lo;
    a.stride = detail::box_strides(b);
    return a;
  }

 private:
  std::shared_ptr<chunk_store<T>> store_;
};

}  // namespace tessera
