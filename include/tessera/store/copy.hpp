// Host copies between row-major boxes (gathering a box from the chunks it overlaps).
#pragma once
#include <algorithm>
#include <cstring>

#include "../core/ivec.hpp"

namespace tessera::detail {

/// Copies the intersection of `src_box` (data at src, row-major) and `dst_box` into dst.
template <class T>
void copy_box_overlap(const T* src, const box& src_box, T* dst, const box& dst_box) {
  const int r = src_box.rank();
  const box ov = intersect(src_box, dst_box);
  if (ov.count() == 0) return;
  if (r == 0) {
    dst[0] = src[0];
    return;
  }
  const ivec ss = row_major_strides(src_box), ds = row_major_strides(dst_box);
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

}  // namespace tessera::detail
