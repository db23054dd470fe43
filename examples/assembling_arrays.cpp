// Arrays built from arrays, the chunked way: join and pad (concatenate, stack, pad, roll,
// tile), reshape, running sums, integer and boolean indexing, more random distributions, the
// array methods, and small dense solvers. Every result except the solvers' is lazy: nothing
// is evaluated until compute()/item(), one chunk at a time. The checks are NumPy's answers.
// Run by ctest.
#include <tessera/linalg.hpp>
#include <tessera/tessera.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ts = tessera;

#define EXPECT(cond)                                                   \
  do {                                                                 \
    if (!(cond)) {                                                     \
      std::fprintf(stderr, "assembling_arrays: failed: %s\n", #cond);  \
      return EXIT_FAILURE;                                             \
    }                                                                  \
  } while (0)

int main() {
  // 0..11 as a 3 x 4 matrix (a reshape of a generated range: nothing stored).
  auto x = ts::arange<double>(0, 12, 1, {4}).reshape({3, 4});

  // Join: the chunks along the axis are the inputs' chunks; other node types join by tuple.
  auto tall = ts::concatenate(std::tuple{x, x * 10.0}, 0);             // 6 x 4
  auto wide = ts::concatenate(std::tuple{x, ts::ones<int>({3, 1})}, 1);  // 3 x 5, double
  EXPECT(tall.shape() == ts::shape_t({6, 4}) && ts::compute(tall)(5, 3) == 110);
  EXPECT(ts::compute(wide)(2, 4) == 1.0);
  EXPECT(ts::stack({x, x}, 2).shape() == ts::shape_t({3, 4, 2}));

  // Pad, roll, tile: one node each; an output chunk reads only the input box it maps to.
  auto p = ts::compute(ts::pad(x, {{1, 1}, {0, 2}}, "reflect"));      // 5 x 6
  EXPECT(p(0, 0) == 4 && p(4, 5) == 5);                                // rows 1 and 1 reflected
  EXPECT(ts::compute(ts::roll(x, 1, 1))(0, 0) == 3);
  EXPECT(ts::tile(x, {2, 2}).sum().item() == 4 * 66);

  // Reshape and running sums: cumsum continues each chunk from the one before it, so the bits
  // are NumPy's for any chunking.
  auto c = ts::compute(x.ravel().cumsum());
  EXPECT(c(11) == 66 && c(3) == 6);
  EXPECT(ts::compute(ts::repeat(x, 2, 1))(0, 1) == 0);                 // 0 0 1 1 2 2 ...
  EXPECT(ts::compute(ts::diff(x, 1, 1))(1, 2) == 1);

  // Indexing: integer arrays along an axis, points, and a boolean mask (x[x % 5 == 0]).
  EXPECT(ts::compute(ts::take(x, {2, 0}, 0))(0, 0) == 8);
  EXPECT(ts::compute(ts::vindex(x, {{0, 2}, {1, 3}}))(1) == 11);
  auto sel = ts::compute(ts::extract(x % 5.0 == 0.0, x));              // 0, 5, 10
  EXPECT(sel.size() == 3 && sel(2) == 10);
  EXPECT(ts::compute(ts::digitize(x, std::vector<double>{2, 6}))(1, 2) == 2);

  // The array methods NumPy users reach for.
  EXPECT(x.T().shape() == ts::shape_t({4, 3}));
  EXPECT(x.sum(0).compute()(3) == 3 + 7 + 11);
  EXPECT(x.max().item() == 11 && x.mean().item() == 5.5);
  auto kept = x.rechunk(ts::chunks_t{{1, 2}, {4}}).persist();         // chunks stay in memory
  EXPECT(kept.chunks()[0].size() == 2);

  // Random distributions of NumPy's Generator, counter-based: a slice generates only itself.
  auto g = ts::random::default_rng(7);
  auto k = g.poisson(4.0, {1000000}, {250000});
  EXPECT(std::abs(ts::mean(ts::cast<double>(k)).item() - 4.0) < 0.01);
  auto b = g.beta(2.0, 5.0, {1000000});
  EXPECT(std::abs(b.mean().item() - 2.0 / 7) < 0.002);

  // Small dense solvers (the square operand is gathered, LAPACK factors it).
  auto a = ts::from_xtensor(xt::xarray<double>{{4, 1}, {1, 3}});
  auto rhs = ts::from_xtensor(xt::xarray<double>{1, 2});
  auto sol = ts::compute(ts::linalg::solve(a, rhs));
  EXPECT(std::abs(4 * sol(0) + sol(1) - 1) < 1e-14 && std::abs(sol(0) + 3 * sol(1) - 2) < 1e-14);
  EXPECT(std::abs(ts::compute(ts::linalg::norm(a, "fro"))() - std::sqrt(27.0)) < 1e-14);

  std::printf("assembling_arrays: all checks passed\n");
  return EXIT_SUCCESS;
}
