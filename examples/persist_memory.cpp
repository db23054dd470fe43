// Builds a 2e8-element chunked expression of several elementwise operations, persists it on all
// threads and reports peak memory: close to the size of the result alone, because each output
// chunk is produced by one fused pass (no per-operation temporaries, no materialized inputs).
//
//   persist_memory [rows=20000] [cols=10000] [chunk=2000]
#include <tessera/core/process_memory.hpp>
#include <tessera/tessera.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace ts = tessera;

int main(int argc, char** argv) {
  const ts::index_t rows = argc > 1 ? std::atoll(argv[1]) : 20000;
  const ts::index_t cols = argc > 2 ? std::atoll(argv[2]) : 10000;
  const ts::index_t chunk = argc > 3 ? std::atoll(argv[3]) : 2000;

  // Lazy inputs: a column of row values and a row of column values, broadcast to rows x cols.
  auto r = ts::arange<double>(0, rows, 1, {chunk}) * 1e-3;       // shape (rows,)
  auto c = ts::arange<double>(0, cols, 1, {chunk});              // shape (cols,)
  auto rcol = ts::transpose(ts::full<double>({1, rows}, 1.0, {1, chunk}) * r);  // (rows, 1)
  auto x = ts::sqrt(rcol * rcol + c) * ts::exp(-c * 1e-4) + ts::sin(rcol) - 1.0;  // 6 operations

  const double before = ts::peak_resident_mib();
  const auto t0 = std::chrono::steady_clock::now();
  auto kept = ts::persist(x, ts::host{});
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double peak = ts::peak_resident_mib();
  const double result_mib = double(kept.nbytes()) / (1024.0 * 1024.0);

  std::printf("expression: %lld x %lld = %.3g elements, chunks %lld x %lld (%lld chunks), %d threads\n",
              (long long)rows, (long long)cols, double(kept.size()), (long long)chunk,
              (long long)chunk, (long long)(kept.numblocks()[0] * kept.numblocks()[1]),
              ts::host{}.concurrency());
  std::printf("persist time           %8.3f s (%.2f GB/s written)\n", secs,
              double(kept.nbytes()) / secs / 1e9);
  std::printf("result size            %8.1f MiB\n", result_mib);
  std::printf("peak RSS before        %8.1f MiB\n", before);
  std::printf("peak RSS after persist %8.1f MiB (%.3f x the result)\n", peak, peak / result_mib);

  // Spot-check one element against the scalar formula.
  const ts::index_t i = rows / 3, j = cols / 7;
  const double rv = double(i) * 1e-3, cv = double(j);
  const double expect = std::sqrt(rv * rv + cv) * std::exp(-cv * 1e-4) + std::sin(rv) - 1.0;
  auto one = ts::compute(ts::rechunk(kept, {rows, cols}), ts::host{.threads = 1});
  const double got = one(i, j);
  std::printf("element (%lld, %lld) = %.15g (expected %.15g)\n", (long long)i, (long long)j, got, expect);
  return std::abs(got - expect) <= 1e-12 * std::abs(expect) ? 0 : 1;
}
