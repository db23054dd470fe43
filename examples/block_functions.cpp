// Block functions and order statistics: a host function per block (ts::map_blocks with
// ts::block_info), a heat-equation step with halos (ts::map_overlap, periodic boundary) and
// medians/percentiles per row. Each result is checked against a direct computation. Run by ctest.
#include <tessera/tessera.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <xtensor/xview.hpp>

namespace ts = tessera;

int main() {
  // 1. A per-block function that needs the block's location: each block subtracts its own
  //    mean and records which block it was (block number * 1000).
  auto x = ts::linspace<double>(0.0, 1.0, 12, {4}).reshape({3, 4}).rechunk({{1, 2}, {2, 2}});
  auto centred = ts::map_blocks(
      [](const ts::block_info& info, const auto& b) {
        const double tag = double(info.chunk_location[0] * info.num_chunks[1] + info.chunk_location[1]);
        return xt::xarray<double>(b - xt::mean(b)() + 1000.0 * tag);
      },
      x);
  const auto c = ts::compute(centred);
  // block (1, 1) covers rows 1..2, columns 2..3: its elements minus their mean, plus 3000
  const auto xd = ts::compute(x);
  const double m11 = (xd(1, 2) + xd(1, 3) + xd(2, 2) + xd(2, 3)) / 4;
  if (std::abs(c(2, 3) - (xd(2, 3) - m11 + 3000.0)) > 1e-12) {
    std::fprintf(stderr, "block_functions: map_blocks gave %.15f\n", c(2, 3));
    return EXIT_FAILURE;
  }

  // 2. Explicit heat-equation steps on a periodic 1-d rod: each block sees one neighbour cell
  //    on either side, across block boundaries and around the ends.
  const ts::index_t n = 64;
  auto rod = ts::from_function<double, 1>([](ts::index_t i) { return i == 0 ? 1.0 : 0.0; }, {n}, {16});
  auto step = [](const auto& u) {
    xt::xarray<double> r = u;
    const std::size_t k = u.size();
    for (std::size_t i = 1; i + 1 < k; ++i) r(i) = u(i) + 0.25 * (u(i - 1) - 2 * u(i) + u(i + 1));
    return r;  // the halo cells (0 and k - 1) are cut off by map_overlap
  };
  ts::array<double> u = ts::persist(rod);
  for (int t = 0; t < 20; ++t) u = ts::persist(ts::map_overlap(step, u, 1, "periodic"));
  const auto ud = ts::compute(u);
  const double total = ts::sum(u).item();
  // heat is conserved, spreads symmetrically around cell 0 (wrapping to cell n - 1)
  if (std::abs(total - 1.0) > 1e-12 || std::abs(ud(1) - ud(n - 1)) > 1e-15) {
    std::fprintf(stderr, "block_functions: heat total %.15f, u(1) %.15f, u(n-1) %.15f\n", total,
                 ud(1), ud(n - 1));
    return EXIT_FAILURE;
  }

  // 3. Medians and percentiles along rows (exact, NumPy's definitions).
  auto samples = ts::from_function<double, 2>(
      [](ts::index_t i, ts::index_t j) { return double((j * 7 + i) % 10); }, {4, 10}, {2, 5});
  const auto med = ts::compute(ts::median(samples, 1));                     // 4.5 per row
  const auto p90 = ts::compute(ts::percentile(samples, std::vector<double>{10, 90}, 1));
  if (med(0) != 4.5 || std::abs(p90(0, 0) - 0.9) > 1e-12 || std::abs(p90(1, 3) - 8.1) > 1e-12) {
    std::fprintf(stderr, "block_functions: median %.3f, p10 %.3f, p90 %.3f\n", med(0), p90(0, 0), p90(1, 3));
    return EXIT_FAILURE;
  }
  std::printf("map_blocks block (1,1): %.6f; heat after 20 steps: u(0) %.6f u(1) %.6f (total %.12f);"
              " row medians %.1f, p10 %.1f, p90 %.1f\n",
              c(2, 3), ud(0), ud(1), total, med(0), p90(0, 0), p90(1, 0));
  return EXIT_SUCCESS;
}
