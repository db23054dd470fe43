// The seed-003 computation on whatever the machine has: ts::auto_backend uses the GPUs when a
// usable CUDA device exists, otherwise the host (printing a one-line notice), with no code
// change. Built when the CUDA toolkit is present (nvcc); run as a ctest on every machine.
//
//   cuda_auto_backend [n=4000] [chunk=1000]
#include <tessera/cuda.hpp>
#include <tessera/tessera.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ts = tessera;
using namespace ts::placeholders;

int main(int argc, char** argv) {
  const ts::index_t n = argc > 1 ? std::atoll(argv[1]) : 4000;
  const ts::index_t c = argc > 2 ? std::atoll(argv[2]) : 1000;
  const ts::auto_backend pol{};

  auto x = ts::random::default_rng(42).normal<double>(10, 1, {n, n}, {c, c});
  const double sliced = ts::item(ts::mean(ts::view(x + 1, ts::range(_, _, 2), ts::range(_, _, 2))), pol);

  // Persist on the devices (or host chunks on the fallback) and reuse the chunks.
  auto kept = ts::persist(x, pol);
  const double whole = ts::item(ts::mean(kept + 1), pol);
  const double host = ts::item(ts::mean(x + 1), ts::host{});

  std::printf("backend: %s\n", ts::cuda::available() ? "cuda" : "host (fallback)");
  std::printf("(x + 1)[::2, ::2].mean() = %.10f\n(x + 1).mean() = %.10f (host: %.10f)\n", sliced,
              whole, host);
  // Same random numbers on every backend: the means agree to rounding, and are near 11.
  const bool ok = std::abs(whole - host) <= 1e-12 * std::abs(host) &&
                  std::abs(sliced - 11) < 10.0 / double(n) && std::abs(whole - 11) < 10.0 / double(n);
  return ok ? 0 : 1;
}
