// Host-side planning for the CUDA backend, free of CUDA runtime calls so that it runs (and is
// tested) on machines without a GPU: device-list resolution, memory limits, chunk-to-device
// assignment, and the per-row index mapping every evaluation kernel uses.
#pragma once
#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../../core/errors.hpp"
#include "../../core/expression.hpp"

namespace tessera {

/// A per-device memory limit: absolute bytes (integer) or a fraction of the device's memory
/// (floating point in (0, 1]).
class memory_size {
 public:
  memory_size() = default;
  template <std::integral I>
  memory_size(I bytes) : bytes_(std::int64_t(bytes)), fraction_(0) {
    if (bytes <= 0) throw_invalid("memory_limit of ", std::int64_t(bytes), " bytes must be positive");
  }
  template <std::floating_point F>
  memory_size(F fraction) : bytes_(0), fraction_(double(fraction)) {
    if (!(fraction_ > 0.0 && fraction_ <= 1.0))
      throw_invalid("memory_limit fraction ", fraction_, " must be in (0, 1]");
  }
  bool is_fraction() const { return bytes_ == 0; }
  double fraction() const { return fraction_; }
  std::int64_t bytes() const { return bytes_; }
  /// The limit in bytes on a device with `total` bytes of memory (never above total).
  std::size_t resolve(std::size_t total) const {
    if (is_fraction()) return std::size_t(double(total) * fraction_);
    return std::min<std::size_t>(std::size_t(bytes_), total);
  }

 private:
  std::int64_t bytes_ = 0;
  double fraction_ = 0.9;  // default: 90% of each device
};

namespace detail::cuda_backend {

/// Most devices one process drives (per-device tables are sized by it).
inline constexpr int max_devices = 64;

/// The devices a policy uses: `requested` (indices into the visible devices, which already
/// respect CUDA_VISIBLE_DEVICES) or, when empty, all `visible` devices. Duplicates and
/// out-of-range indices are invalid arguments naming the value.
inline std::vector<int> resolve_devices(const std::vector<int>& requested, int visible) {
  std::vector<int> out;
  if (requested.empty()) {
    for (int d = 0; d < visible; ++d) out.push_back(d);
    return out;
  }
  for (int d : requested) {
    if (d < 0 || d >= visible)
      throw_invalid("cuda device ", d, " is not visible: ", visible,
                    " device(s) are visible (CUDA_VISIBLE_DEVICES renumbers them from 0)");
    if (std::find(out.begin(), out.end(), d) != out.end())
      throw_invalid("cuda device ", d, " is listed twice in cuda::devices");
    out.push_back(d);
  }
  return out;
}

/// Chunk-to-device assignment. For every output block: its work (elements) and the bytes of
/// device-resident input it reads on each of the policy's devices (affinity[b][k], k indexing
/// the policy's device list). A block goes to the device holding most of its input unless that
/// device is already `slack` times over its fair share of the total work; the rest go, in
/// block order, to the least-loaded device (lowest index on ties). Deterministic.
inline std::vector<int> assign_blocks(const std::vector<std::int64_t>& work,
                                      const std::vector<std::vector<std::int64_t>>& affinity,
                                      int ndev, double slack = 1.25) {
  const std::size_t n = work.size();
  std::vector<int> out(n, -1);
  if (ndev <= 0) return out;
  std::vector<double> load(std::size_t(ndev), 0.0);
  double total = 0;
  for (auto w : work) total += double(std::max<std::int64_t>(w, 1));
  const double cap = slack * total / ndev;
  for (std::size_t b = 0; b < n; ++b) {
    if (b >= affinity.size()) break;
    const auto& a = affinity[b];
    int best = -1;
    std::int64_t most = 0;
    for (int k = 0; k < ndev && k < int(a.size()); ++k)
      if (a[std::size_t(k)] > most) most = a[std::size_t(k)], best = k;
    const double w = double(std::max<std::int64_t>(work[b], 1));
    if (best >= 0 && load[std::size_t(best)] + w <= cap) {
      out[b] = best;
      load[std::size_t(best)] += w;
    }
  }
  for (std::size_t b = 0; b < n; ++b) {
    if (out[b] >= 0) continue;
    int k = int(std::min_element(load.begin(), load.end()) - load.begin());
    out[b] = k;
    load[std::size_t(k)] += double(std::max<std::int64_t>(work[b], 1));
  }
  return out;
}

/// Placement of persisted chunks under per-device limits: `used` and `limit` in bytes per
/// device. place(k, bytes) keeps a chunk on its assigned device k when it fits, otherwise moves
/// it to the device with the most room that fits, otherwise returns -1.
struct memory_ledger {
  std::vector<std::size_t> used, limit;
  int place(int k, std::size_t bytes) {
    auto fits = [&](int d) { return used[std::size_t(d)] + bytes <= limit[std::size_t(d)]; };
    int d = -1;
    if (k >= 0 && k < int(used.size()) && fits(k)) d = k;
    else {
      std::size_t room = 0;
      for (int j = 0; j < int(used.size()); ++j)
        if (fits(j) && (d < 0 || limit[std::size_t(j)] - used[std::size_t(j)] > room))
          d = j, room = limit[std::size_t(j)] - used[std::size_t(j)];
    }
    if (d >= 0) used[std::size_t(d)] += bytes;
    return d;
  }
};

/// Rows of a box: all axes but the last (a 0-d box has one row of one element).
TESSERA_HD inline index_t box_rows(const box& b) {
  index_t r = 1;
  for (int d = 0; d + 1 < b.rank(); ++d) r *= b.extent(d);
  return r;
}
TESSERA_HD inline index_t box_row_length(const box& b) {
  return b.rank() == 0 ? 1 : b.extent(b.rank() - 1);
}

/// The evaluation kernel's body for one row: row number `row` of box b (row-major over the
/// leading axes) is evaluated from accessor `acc` at elements j = j0, j0 + dj, ... and written
/// to out[sum_d (i[d] - lo[d]) * ostride[d]] (ostride of the last axis is 1). The device kernel
/// calls it with j0 = threadIdx.x, dj = blockDim.x; the CPU tests call it with (0, 1).
template <class Acc, class T>
TESSERA_HD void eval_row(const Acc& acc, const box& b, index_t row, T* out, const ivec& ostride,
                         index_t j0, index_t dj) {
  const int r = b.rank();
  if (r == 0) {
    if (j0 == 0) out[0] = T(element_at(acc, b.lo));
    return;
  }
  ivec start = b.lo;
  index_t off = 0, rem = row;
  for (int d = r - 2; d >= 0; --d) {
    const index_t e = b.extent(d);
    const index_t i = rem % e;
    rem /= e;
    start[d] = b.lo[d] + i;
    off += i * ostride[d];
  }
  const index_t n = b.extent(r - 1);
  auto line = acc.line(start, r - 1, 1);
  T* dst = out + off;
  for (index_t j = j0; j < n; j += dj) dst[j] = T(line(j));
}

}  // namespace detail::cuda_backend
}  // namespace tessera
