// The host chunk kernel: walks one output box as rows along its last axis and fills each row
// from the bound expression in batches (one fused pass, no per-operation temporaries), at the
// CPU's instruction-set level (core/host_isa.hpp).
#pragma once
#include <algorithm>

#include "../../core/expression.hpp"
#include "../../core/host_isa.hpp"

namespace tessera {

/// Calls f(start, row_offset) for every row of box b (rank >= 1), where `start` is the global
/// index of the row's first element and row_offset the row's offset under `ostride`.
template <class F>
void for_each_row(const box& b, const ivec& ostride, F&& f) {
  const int r = b.rank();
  if (b.count() == 0) return;
  ivec i = b.lo;
  index_t off = 0;
  while (true) {
    f(i, off);
    int d = r - 2;
    for (; d >= 0; --d) {
      off += ostride[d];
      if (++i[d] < b.hi[d]) break;
      off -= ostride[d] * (b.hi[d] - b.lo[d]);
      i[d] = b.lo[d];
    }
    if (d < 0) return;
  }
}

/// Evaluates accessor `acc` over box b into out, where out[sum (i[d]-lo[d]) * ostride[d]]
/// receives element i; ostride of the last axis must be 1.
template <class Acc, class T>
void write_box(const Acc& acc, const box& b, T* out, const ivec& ostride) {
  if (b.rank() == 0) {
    out[0] = T(acc.line(b.lo, -1, 0)(0));  // host code: not element_at (HD)
    return;
  }
  detail::run_host_kernel<detail::dispatched_kernel<Acc>>([&] {
    const int last = b.rank() - 1;
    const index_t n = b.extent(last);
    for_each_row(b, ostride, [&](const ivec& start, index_t off) {
      auto line = acc.line(start, last, 1);
      T* row = out + off;
      for (index_t j0 = 0; j0 < n; j0 += batch_size)
        line.fill(j0, std::min(batch_size, n - j0), row + j0);
    });
  });
}

}  // namespace tessera
