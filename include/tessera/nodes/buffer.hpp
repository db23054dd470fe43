// from_buffer(data, shape, chunks[, strides]): a lazy array over memory the user owns (a
// std::vector, a buffer from another library, a memory-mapped file), without a copy. Host
// tasks read the buffer in place (the accessor carries the buffer's strides, row-major by
// default, any element strides allowed, negative included); a context that cannot read host
// memory in place (a device) gathers the boxes it needs through buffer_store, a chunk store
// whose read_block copies one chunk out of the strided buffer. The memory must stay valid and
// unchanged while expressions over it are evaluated.
#pragma once
#include <string>
#include <vector>

#include "../core/errors.hpp"
#include "../core/expression.hpp"
#include "../store/chunk_store.hpp"

namespace tessera {

namespace detail {

/// The chunks of a strided host buffer as a chunk store (block b copied out on read).
template <class T>
struct buffer_store {
  using value_type = T;
  chunk_grid g;
  const T* data = nullptr;
  ivec strides;  // elements

  const chunk_grid& grid() const { return g; }
  memory_space block_space(index_t) const { return memory_space::on_host(); }
  const T* block_pointer(index_t) const { return nullptr; }  // blocks are not contiguous
  void read_block(index_t b, T* out) const {
    const box bx = g.block_box(b);
    const int r = bx.rank();
    if (bx.count() == 0) return;
    if (r == 0) {
      *out = *data;
      return;
    }
    ivec i = bx.lo;  // row by row along the last axis
    const index_t len = bx.extent(r - 1), s = strides[r - 1];
    for (;;) {
      index_t off = 0;
      for (int d = 0; d < r; ++d) off += i[d] * strides[d];
      const T* src = data + off;
      for (index_t k = 0; k < len; ++k) *out++ = src[k * s];
      int d = r - 2;
      while (d >= 0 && ++i[d] == bx.hi[d]) i[d] = bx.lo[d], --d;
      if (d < 0) return;
    }
  }
};

}  // namespace detail

/// A lazy array over a user's host buffer (see the header comment).
template <class T>
class buffer_array : public expression<buffer_array<T>> {
 public:
  using value_type = T;
  buffer_array(chunk_grid g, const T* data, ivec strides) : store_{std::move(g), data, strides} {}

  const chunk_grid& grid() const { return store_.g; }
  const T* data() const { return store_.data; }
  const ivec& strides() const { return store_.strides; }
  std::string node_label() const { return "from_buffer"; }  // diagnostics/graph.hpp

  template <class Ctx>
  stored_accessor<T> bind(const box& b, Ctx& ctx) const {
    stored_accessor<T> a;
    if (b.count() == 0) return a;
    if (ctx.can_read(memory_space::on_host())) {  // in place, with the buffer's strides
      a.p = store_.data;
      a.origin.n = b.rank();
      for (int d = 0; d < b.rank(); ++d) a.origin[d] = 0;
      a.stride = store_.strides;
      return a;
    }
    a.p = ctx.gather(store_, b);
    a.origin = b.lo;
    a.stride = row_major_strides(b);
    return a;
  }

 private:
  detail::buffer_store<T> store_;
};

/// A lazy array over `data` (host memory the caller keeps valid), of `shape`, cut into
/// `chunks`; `strides` in elements per axis (default row-major; e.g. {1, rows} for a
/// column-major matrix). Nothing is copied: host tasks read the buffer in place.
template <class T>
buffer_array<T> from_buffer(const T* data, const shape_t& shape, const chunks_arg& chunks = {},
                            const std::vector<index_t>& strides = {}) {
  chunk_grid g = chunk_grid::make(shape, chunks, sizeof(T));
  if (!data && g.size() > 0) throw_invalid("from_buffer: data is a null pointer for shape ", shape);
  ivec s;
  s.n = int(shape.size());
  if (strides.empty()) {
    index_t acc = 1;
    for (int d = s.n - 1; d >= 0; --d) {
      s[d] = acc;
      acc *= shape[std::size_t(d)];
    }
  } else {
    if (strides.size() != shape.size())
      throw_invalid("from_buffer: strides ", strides, " have ", strides.size(), " entries but shape ",
                    shape, " has ", shape.size(), " dimensions");
    for (int d = 0; d < s.n; ++d) s[d] = strides[std::size_t(d)];
  }
  return buffer_array<T>(std::move(g), data, s);
}

}  // namespace tessera
