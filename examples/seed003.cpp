// Seed 003: the mean of a strided view of a lazy random expression,
//     x = normal(10, 1, (20000, 20000), chunks (2000, 2000));  (x + 1)[::2, ::2].mean()
// Nothing is materialized: the reduction folds each 2000 x 2000 input chunk of the view
// (random numbers generated in the fused kernel) into one partial and combines the partials
// in a fixed tree. Prints the mean, the time and the peak resident memory.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <tessera/core/process_memory.hpp>
#include <tessera/random.hpp>
#include <tessera/reduce.hpp>
#include <tessera/tessera.hpp>
#include <tessera/view.hpp>

namespace ts = tessera;
using ts::placeholders::_;

int main(int argc, char** argv) {
  const ts::index_t n = argc > 1 ? std::atoll(argv[1]) : 20000;
  const ts::index_t c = argc > 2 ? std::atoll(argv[2]) : 2000;
  auto t0 = std::chrono::steady_clock::now();
  auto x = ts::random::default_rng(3).normal<double>(10, 1, {n, n}, {c, c});
  auto y = ts::view(x + 1, ts::range(_, _, 2), ts::range(_, _, 2));
  const double m = ts::mean(y).item();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("(x + 1)[::2, ::2].mean() over %lld x %lld (chunks %lld x %lld): %.12f\n",
              (long long)n, (long long)n, (long long)c, (long long)c, m);
  std::printf("time %.3f s, peak RSS %.1f MiB (one chunk of x: %.1f MiB)\n", s,
              ts::peak_resident_mib(), double(c) * double(c) * 8.0 / 1048576.0);
  // 11 is the exact expectation; the standard error of 1e8 normals is 1e-4.
  return std::abs(m - 11.0) < 1e-3 ? 0 : 1;
}
