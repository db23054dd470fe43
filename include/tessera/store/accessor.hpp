// The accessor a stored box binds to: strided memory in the binding context's memory space
// (a chunk read in place, or a gathered copy of the box). Plain data for host and device code.
#pragma once
#include <cstdint>
#include <cstring>

#include "../core/expression.hpp"

namespace tessera {

/// Line over strided memory.
template <class T>
struct strided_line : line_base<strided_line<T>> {
  using value_type = T;
  const T* p;
  index_t s;
  TESSERA_HD T operator()(index_t j) const { return p[j * s]; }
  /// Elements j0, j0 + 1, ... in place when the line is contiguous, else nullptr.
  const T* contiguous(index_t j0) const { return s == 1 ? p + j0 : nullptr; }
  /// Prefetches elements j0 .. j0 + n - 1 when the line is contiguous (host; they may lie past
  /// the chunk's end: a prefetch never faults). The reduction folds call it two batches ahead
  /// (docs/benchmarks.md, "Software prefetch in the host folds"); the chunk kernel does not (it
  /// made persist slower).
  void prefetch(index_t j0, index_t n) const {
#if defined(__GNUC__)
    if (s != 1) return;
    const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p) + std::uintptr_t(j0) * sizeof(T);
    for (std::uintptr_t k = 0; k < std::uintptr_t(n) * sizeof(T); k += 64)
      __builtin_prefetch(reinterpret_cast<const void*>(a + k));
#else
    (void)j0;
    (void)n;
#endif
  }
  void fill(index_t j0, index_t n, T* out) const {
    const T* q = p + j0 * s;
    if (s == 1) std::memcpy(out, q, std::size_t(n) * sizeof(T));
    else
      for (index_t k = 0; k < n; ++k) out[k] = q[k * s];
  }
};

/// Accessor over row-major memory (a chunk or a gathered box) whose first element has global
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

}  // namespace tessera
