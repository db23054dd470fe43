// The host's reduction body: folds one input box, row by row in batches, into per-output-element
// partial states (never materializing the box), at the CPU's instruction-set level
// (core/host_isa.hpp).
#pragma once
#include <algorithm>
#include <type_traits>

#include "../../reduce/spec.hpp"
#include "kernel.hpp"

namespace tessera::detail {

/// Folds the rows of input box `b` (accessor `acc`) into partial states `part`, laid out
/// row-major over the kept axes of b.
template <class Op, class Acc>
void fold_box(const Op& op, const Acc& acc, const box& b, const reduce_spec& spec,
              const ivec& istride, typename Op::state* part) {
  using T = typename Op::input_type;
  const int r = b.rank();
  if (r == 0) {
    op.add(part[0], T(element_at(acc, b.lo)), 0);
    return;
  }
  run_host_kernel<dispatched_kernel<Acc>>([&] {
    ivec pstride;  // partial offset per input axis (0 on reduced axes)
    pstride.n = r;
    index_t s = 1;
    for (int d = r - 1; d >= 0; --d) {
      if (spec.reduced(d)) pstride[d] = 0;
      else {
        pstride[d] = s;
        s *= b.extent(d);
      }
    }
    const int last = r - 1;
    const index_t n = b.extent(last);
    const bool last_reduced = spec.reduced(last);
    const index_t didx = istride[last];
    for_each_row(b, pstride, [&](const ivec& start, index_t off) {
      auto line = acc.line(start, last, 1);
      index_t idx0 = 0;
      for (int d = 0; d < r; ++d) idx0 += start[d] * istride[d];
      alignas(64) T buf[batch_size];
      for (index_t j0 = 0; j0 < n; j0 += batch_size) {
        const index_t m = std::min(batch_size, n - j0);
        // Lines without a batched fill are evaluated per element (for a stored array this reads
        // memory directly, cheaper than its memcpy-based fill).
        if constexpr (std::remove_cvref_t<decltype(line)>::batched) line.fill(j0, m, buf);
        else
          for (index_t k = 0; k < m; ++k) buf[k] = line(j0 + k);
        if (last_reduced) {
          op.add_batch(part[off], buf, m, idx0 + j0 * didx, didx);
        } else {
          typename Op::state* p = part + off + j0;
          for (index_t k = 0; k < m; ++k) op.add(p[k], buf[k], idx0);
        }
      }
    });
  });
}

}  // namespace tessera::detail
