// Quick start: build lazy chunked expressions and evaluate them.
#include <tessera/tessera.hpp>

#include <iostream>
#include <xtensor/xio.hpp>

namespace ts = tessera;

int main() {
  // A 1-D range and a 2-D constant array, each cut into chunks. Nothing is computed yet.
  auto x = ts::arange<double>(0, 6, 1, {4});            // [0, 1, 2, 3, 4, 5], chunks (4, 2)
  auto y = ts::full<double>({3, 6}, 0.5, {2, 3});       // 3 x 6, chunks ((2, 1), (3, 3))

  // Elementwise math with broadcasting: one fused kernel per output chunk.
  auto z = ts::sqrt(x * x + 1.0) * y - 1;
  std::cout << "shape (" << z.shape()[0] << ", " << z.shape()[1] << "), "
            << z.numblocks()[0] * z.numblocks()[1] << " chunks\n";

  // compute() returns an xt::xarray; persist() keeps the result as a chunked array.
  xt::xarray<double> dense = z.compute();
  std::cout << dense << "\n";
  auto kept = ts::persist(z, ts::host{.threads = 2});
  std::cout << "max element via where/compare: "
            << ts::where(kept > 1.0, kept, 0.0).compute()(2, 5) << "\n";
  return dense(0, 0) == -0.5 ? 0 : 1;
}
