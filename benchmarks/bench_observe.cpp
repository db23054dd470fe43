// The cost of watching a computation (exec/observe.hpp): seed 003's variant (d),
// (x + 1).mean() with x = ts::full((N, N), 10.0, chunks (C, C)), evaluated with nothing observed,
// with .progress, with .trace and with both, the modes interleaved call by call (round r runs
// off, progress, trace, both) so that drift and other processes' load fall on every mode alike.
// Prints, per mode, the best and the median wall time and their difference from `off`, the
// median of the per-round differences from `off` (paired: the same round's off call), and the
// median CPU time (user + system, all threads) per call.
//
//   bench_observe [--n 20000] [--chunk 2000] [--rounds 40] [--threads 0] [--trace FILE]
//
// The bar goes to stderr (redirect it: as a file it is one line per call); the trace file is
// rewritten by every traced call.
#include <tessera/tessera.hpp>

#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace ts = tessera;

int main(int argc, char** argv) {
  CLI::App app{"Overhead of .progress and .trace on seed 003 (d): (x + 1).mean(), x = full((N, N), 10)"};
  ts::index_t n = 20000, chunk = 2000;
  int rounds = 40, threads = 0;
  std::string trace = (std::filesystem::temp_directory_path() / "tessera_bench_observe.json").string();
  app.add_option("--n", n, "x is N x N")->check(CLI::PositiveNumber);
  app.add_option("--chunk", chunk, "chunks are C x C")->check(CLI::PositiveNumber);
  app.add_option("--rounds", rounds, "calls per mode (interleaved)")->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "host threads (0: all)");
  app.add_option("--trace", trace, "the trace file the traced modes write");
  CLI11_PARSE(app, argc, argv);

  struct mode {
    const char* name;
    ts::host pol;
    std::vector<double> t, cpu;
  };
  auto cpu_seconds = [] {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  };
  std::vector<mode> modes = {
      {"off", ts::host{.threads = threads}, {}, {}},
      {"progress", ts::host{.threads = threads, .progress = true}, {}, {}},
      {"trace", ts::host{.threads = threads, .trace = trace}, {}, {}},
      {"progress+trace", ts::host{.threads = threads, .progress = true, .trace = trace}, {}, {}},
  };
  auto x = ts::full<double>(ts::shape_t{n, n}, 10.0, {chunk, chunk});
  auto m = ts::mean(x + 1);
  double sink = 0;
  for (auto& md : modes) sink += ts::item(m, md.pol);  // warm-up
  for (int r = 0; r < rounds; ++r)
    for (auto& md : modes) {
      const double c0 = cpu_seconds();
      const auto t0 = std::chrono::steady_clock::now();
      sink += ts::item(m, md.pol);
      md.t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      md.cpu.push_back(cpu_seconds() - c0);
    }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t k = v.size();
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
  };
  const double best0 = *std::min_element(modes[0].t.begin(), modes[0].t.end());
  const double med0 = median(modes[0].t);
  std::printf("seed003 (d): (x + 1).mean(), x = full((%lld, %lld), 10.0), chunks (%lld, %lld): %lld "
              "chunk tasks; %d rounds, modes interleaved; %d threads of %u CPUs\n",
              (long long)n, (long long)n, (long long)chunk, (long long)chunk,
              (long long)ts::task_count(m), rounds, modes[0].pol.concurrency(),
              std::thread::hardware_concurrency());
  const double cpu0 = median(modes[0].cpu);
  std::printf("| mode | best | vs off | median | vs off | paired median vs off | CPU median | vs off |\n"
              "|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (auto& md : modes) {
    const double best = *std::min_element(md.t.begin(), md.t.end()), med = median(md.t);
    std::vector<double> diff;
    for (std::size_t r = 0; r < md.t.size(); ++r) diff.push_back(md.t[r] / modes[0].t[r] - 1);
    const double cpu = median(md.cpu);
    std::printf("| %s | %.2f ms | %+.2f%% | %.2f ms | %+.2f%% | %+.2f%% | %.1f ms | %+.2f%% |\n", md.name,
                best * 1e3, 100 * (best / best0 - 1), med * 1e3, 100 * (med / med0 - 1),
                100 * median(diff), cpu * 1e3, 100 * (cpu / cpu0 - 1));
  }
  return sink > 0 ? 0 : 1;
}
