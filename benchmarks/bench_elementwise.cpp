// Elementwise expression over in-memory chunks vs a plain loop over the same bytes.
//
//   bench_elementwise [--n 50000000] [--chunk 5000000] [--threads 1] [--repeat 5]
//
// Both sides read two float64 arrays and write one (24 bytes per element) with y = a * 2 + b
// (and y = sqrt(a*a + b*b) as a heavier case); GB/s = 24 * n / best time.
#include <tessera/tessera.hpp>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

namespace ts = tessera;

template <class F>
double best_of(int repeat, F&& f) {
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

int main(int argc, char** argv) {
  CLI::App app{"Tessera elementwise bandwidth vs a plain loop"};
  ts::index_t n = 50'000'000, chunk = 5'000'000;
  int threads = 1, repeat = 5;
  app.add_option("--n", n, "elements");
  app.add_option("--chunk", chunk, "chunk length");
  app.add_option("--threads", threads, "threads for Tessera (the plain loop is single-threaded "
                                       "when threads == 1, else split evenly with oneTBB)");
  app.add_option("--repeat", repeat, "repetitions (best is reported)");
  CLI11_PARSE(app, argc, argv);

  auto a = ts::persist(ts::arange<double>(0, n, 1, {chunk}) * 1e-7);
  auto b = ts::persist(ts::arange<double>(0, n, 1, {chunk}) * 3e-7 + 1.0);
  // Dense copies for the plain loop.
  std::vector<double> av(static_cast<std::size_t>(n)), bv(static_cast<std::size_t>(n));
  for (ts::index_t i = 0; i < n; ++i) av[std::size_t(i)] = double(i) * 1e-7, bv[std::size_t(i)] = double(i) * 3e-7 + 1.0;
  const ts::host pol{.threads = threads};
  const double bytes = 24.0 * double(n);

  auto plain = [&](auto op) {
    std::unique_ptr<double[]> out(new double[std::size_t(n)]);
    ts::detail::for_each_block(pol, threads, [&](ts::index_t t) {
      const ts::index_t lo = n * t / threads, hi = n * (t + 1) / threads;
      const double* pa = av.data();
      const double* pb = bv.data();
      double* po = out.get();
      for (ts::index_t i = lo; i < hi; ++i) po[i] = op(pa[i], pb[i]);
    });
    return out;
  };

  std::printf("n = %lld, chunk = %lld, threads = %d (machine: %d hardware threads)\n", (long long)n,
              (long long)chunk, threads, ts::host{}.concurrency());
  std::printf("%-28s %12s %12s %10s\n", "case", "plain GB/s", "tessera GB/s", "ratio");
  {
    auto op = [](double x, double y) { return x * 2.0 + y; };
    double tp = best_of(repeat, [&] { auto o = plain(op); });
    double tt = best_of(repeat, [&] { auto o = ts::persist(a * 2.0 + b, pol); });
    std::printf("%-28s %12.2f %12.2f %10.2f\n", "y = a * 2 + b", bytes / tp / 1e9, bytes / tt / 1e9, tp / tt);
  }
  {
    auto op = [](double x, double y) { return std::sqrt(x * x + y * y); };
    double tp = best_of(repeat, [&] { auto o = plain(op); });
    double tt = best_of(repeat, [&] { auto o = ts::persist(ts::sqrt(a * a + b * b), pol); });
    std::printf("%-28s %12.2f %12.2f %10.2f\n", "y = sqrt(a*a + b*b)", bytes / tp / 1e9, bytes / tt / 1e9, tp / tt);
  }
  return 0;
}
