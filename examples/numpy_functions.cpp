// NumPy's functions on chunked arrays: creation (linspace, eye, *_like), elementwise ufuncs
// (rounding, floor division, logical and bitwise operations, classification, clip) and views
// (flip, moveaxis, expand_dims, rot90, broadcast_to, tril), dtype= of reductions, out= and
// matmul. Every result is a lazy expression evaluated one chunk at a time; the checks below are
// NumPy's answers. Run by ctest.
#include <tessera/linalg.hpp>
#include <tessera/tessera.hpp>

#include <cstdio>
#include <cstdlib>

namespace ts = tessera;

#define EXPECT(cond)                                                 \
  do {                                                               \
    if (!(cond)) {                                                   \
      std::fprintf(stderr, "numpy_functions: failed: %s\n", #cond);  \
      return EXIT_FAILURE;                                           \
    }                                                                \
  } while (0)

int main() {
  // Creation: 9 points from -2 to 2 in chunks of 4; a 3 x 4 eye with its diagonal shifted by 1.
  auto x = ts::linspace(-2.0, 2.0, 9, {4});              // -2, -1.5, ..., 2
  auto e = ts::eye<int>(3, {2}, 4, 1);                   // ones at (0,1), (1,2), (2,3)
  auto z = ts::zeros_like<float>(x);                     // x's shape and chunks, float

  // Elementwise, fused into one kernel per chunk: round half to even, floor division and
  // remainder with the divisor's sign, classification, clip.
  auto r = ts::compute(ts::round(x) + ts::floor_divide(x, 0.75) * 10 + (x % 1.5) * 100);
  EXPECT(r(0) == -2 + -3 * 10 + 1.0 * 100);              // round(-2)=-2, -2//0.75=-3, -2%1.5=1
  EXPECT(r(1) == -2 + -2 * 10 + 0.0 * 100);              // round(-1.5)=-2 (half to even)
  auto flags = ts::compute(ts::logical_and(ts::isfinite(ts::log(x)), x > 1));
  EXPECT(!flags(0) && flags(8));                         // log(-2) is NaN; log(2) finite
  auto c = ts::compute(ts::clip(x, -1, 0.5));
  EXPECT(c(0) == -1 && c(4) == 0 && c(8) == 0.5);
  auto bits = ts::compute((ts::arange<int>(8) << 2) ^ 5); // NumPy's int operators
  EXPECT(bits(3) == ((3 << 2) ^ 5));
  EXPECT(ts::sum(z).item() == 0.0f);

  // Views: no data moves; the chunks follow the input's.
  auto a = ts::from_xtensor(xt::xarray<double>{{1, 2, 3}, {4, 5, 6}}, {1, 2});
  auto rot = ts::compute(ts::rot90(a));                  // [[3, 6], [2, 5], [1, 4]]
  EXPECT(rot(0, 0) == 3 && rot(2, 1) == 4);
  auto moved = ts::moveaxis(ts::expand_dims(a, 0), 0, -1);  // shape (2, 3, 1)
  EXPECT(moved.shape() == ts::shape_t({2, 3, 1}));
  auto b = ts::compute(ts::broadcast_to(ts::view(a, 1), {2, 3}) - ts::flip(a, 0));
  EXPECT(b(0, 0) == 0 && b(1, 2) == 3);                  // [4,5,6] - [[4,5,6],[1,2,3]]
  auto t = ts::compute(ts::tril(a));                     // [[1, 0, 0], [4, 5, 0]]
  EXPECT(t(0, 1) == 0 && t(1, 1) == 5);
  EXPECT(ts::compute(e)(2, 3) == 1);

  // dtype=: np.sum(x, dtype=np.int32) accumulates in int32 and wraps; np.mean(i, dtype=np.float32)
  auto big = ts::full<std::int32_t>({3}, 1 << 30, {2});
  EXPECT(ts::sum<std::int32_t>(big).item() == -1073741824);  // 3 * 2^30 - 2^32
  EXPECT(ts::sum(big).item() == 3221225472);                 // without dtype: int64
  EXPECT(ts::arange<int>(7).mean<float>().item() == 3.0f);
  // out=: evaluated straight into the caller's container (not resized, not reallocated)
  xt::xarray<double> out = xt::zeros<double>({2});
  ts::compute_into(ts::sum(a, {1}), out);                    // a's row sums: 6, 15
  EXPECT(out(0) == 6 && out(1) == 15);
  // matmul (a @ b), lazy: 1-d operands and broadcast batch axes as NumPy's
  auto v = ts::from_xtensor(xt::xarray<double>{1, 0, -1}, {2});
  auto av = ts::compute(ts::matmul(a, v));                   // [1 - 3, 4 - 6]
  EXPECT(av.shape().size() == 1 && av(0) == -2 && av(1) == -2);
  auto stack = ts::broadcast_to(a, {4, 2, 3});               // 4 copies of a
  auto gram = ts::matmul(stack, ts::transpose(a));           // (4, 2, 3) @ (3, 2) -> (4, 2, 2)
  EXPECT(gram.shape() == ts::shape_t({4, 2, 2}));
  EXPECT(ts::compute(gram)(3, 1, 0) == 4 * 1 + 5 * 2 + 6 * 3);
  EXPECT(ts::dot(v, v).item() == 2);                          // 1-d . 1-d: a 0-d result
  std::printf("numpy_functions: all NumPy answers reproduced\n");
  return EXIT_SUCCESS;
}
