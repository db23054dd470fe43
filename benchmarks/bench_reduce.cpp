// Reduction benchmark (plain main, CLI11):
//   lazy:      ts::mean(ts::full<double>({n, n}, ...) + 1) with chunks c x c; seconds, rate and
//              peak RSS (ts::peak_resident_mib: getrusage ru_maxrss). Nothing but partials is
//              ever allocated.
//   axis:      ts::mean(lazy, {0}) and ts::variance(lazy, {1}) of an n x n lazy array (peak RSS
//              of axis reductions over many chunks).
//   bandwidth: GB/s of ts::sum(x) and ts::sum(2 * x + 1) over a persisted in-memory array,
//              against a plain accumulate loop over the same chunk bytes (1 thread and one
//              task per chunk on the same threads).
//   axes:      ns per element of sum / variance / amax over the last axis against the same over
//              leading axes: a mem_n x mem_n matrix (chunks mem_chunk^2) and a 3-d array of the
//              same size, (mem_n/128, mem_n/8, mem_n/8) in chunks (16, mem_chunk/4, mem_chunk/4)
//              (a time series of images in thin chunks along time), stored and lazy; and a
//              stored matrix of uniform values (with argmax).
// Usage: bench_reduce [--mode lazy|axis|bandwidth|axes|all] [--n 100000] [--chunk 10000]
//                     [--mem-n 8192] [--mem-chunk 2048] [--threads 0] [--reps 5]
#include <CLI/CLI.hpp>

#include "observe_cli.hpp"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <numeric>
#include <string>
#include <tessera/core/process_memory.hpp>
#include <tessera/reduce.hpp>
#include <tessera/tessera.hpp>

namespace ts = tessera;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class F>
double best_of(int reps, F&& f) {
  double best = 1e300;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Tessera reduction benchmark"};
  std::string mode = "all";
  ts::index_t n = 100000, chunk = 10000, mem_n = 8192, mem_chunk = 2048;
  int threads = 0, reps = 5;
  observe_cli observe;
  app.add_option("--mode", mode, "lazy | axis | bandwidth | axes | all");
  app.add_option("--n", n, "lazy array is n x n");
  app.add_option("--chunk", chunk, "lazy chunk edge");
  app.add_option("--mem-n", mem_n, "persisted array is mem_n x mem_n doubles");
  app.add_option("--mem-chunk", mem_chunk, "persisted chunk edge");
  app.add_option("--threads", threads, "host threads (0: all)");
  app.add_option("--reps", reps, "repetitions (best is reported)");
  observe.add_to(app);
  CLI11_PARSE(app, argc, argv);
  const ts::host pol{.threads = threads, .progress = observe.progress, .trace = observe.trace};
  std::printf("threads %d, peak RSS at start %.1f MiB\n", pol.concurrency(),
              ts::peak_resident_mib());

  if (mode == "lazy" || mode == "all") {
    auto x = ts::full<double>({n, n}, 0.1, {chunk, chunk}) + 1.0;
    auto t0 = std::chrono::steady_clock::now();
    const double m = ts::item(ts::mean(x), pol);
    const double s = seconds_since(t0);
    const double elems = double(n) * double(n);
    std::printf(
        "lazy mean: %lld x %lld (chunks %lld x %lld, %.0f MiB each): mean %.17g (rel err %.2e), "
        "%.2f s, %.2f Gelem/s, peak RSS %.1f MiB\n",
        (long long)n, (long long)n, (long long)chunk, (long long)chunk,
        double(chunk) * double(chunk) * 8 / 1048576.0, m, std::abs(m - 1.1) / 1.1, s,
        elems / s / 1e9, ts::peak_resident_mib());
  }

  if (mode == "axis" || mode == "all") {
    auto x = ts::full<double>({n, n}, 0.5, {chunk, chunk}) * 2.0;
    auto t0 = std::chrono::steady_clock::now();
    auto m0 = ts::compute(ts::mean(x, {0}), pol);
    const double s0 = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    auto v1 = ts::compute(ts::variance(x, {1}), pol);
    const double s1 = seconds_since(t0);
    std::printf(
        "axis reductions of %lld x %lld lazy: mean axis 0 %.2f s (m[0] = %g), variance axis 1 "
        "%.2f s (v[0] = %g), peak RSS %.1f MiB\n",
        (long long)n, (long long)n, s0, m0(0), s1, v1(0), ts::peak_resident_mib());
  }

  if (mode == "bandwidth" || mode == "all") {
    auto a = ts::persist(ts::full<double>({mem_n, mem_n}, 0.0, {mem_chunk, mem_chunk}) + 1e-3,
                         pol);
    const double bytes = double(mem_n) * double(mem_n) * 8.0;
    const ts::index_t nb = a.grid().block_count();
    double sink = 0;
    auto plain_block = [&](ts::index_t b) {
      const double* p = a.block_data(b);
      const ts::index_t cnt = a.grid().block_box(b).count();
      return std::accumulate(p, p + cnt, 0.0);
    };
    // The same bytes with 16 independent accumulators (vectorized: the memory-bound baseline).
    auto lanes_block = [&](ts::index_t b) {
      const double* p = a.block_data(b);
      const ts::index_t cnt = a.grid().block_box(b).count();
      double l[16] = {};
      ts::index_t k = 0;
      for (; k + 16 <= cnt; k += 16)
        for (int j = 0; j < 16; ++j) l[j] += p[k + j];
      for (; k < cnt; ++k) l[0] += p[k];
      return std::accumulate(l, l + 16, 0.0);
    };
    std::vector<double> part(std::size_t(nb), 0.0);
    // Round-robin repetitions (the best of each), so load from other processes hits every
    // variant alike.
    std::vector<std::function<void()>> fs = {
        [&] {
          double s = 0;
          for (ts::index_t b = 0; b < nb; ++b) s += plain_block(b);
          sink += s;
        },
        [&] {
          ts::detail::for_each_block(pol, nb, [&](ts::index_t b) { part[std::size_t(b)] = plain_block(b); });
          sink += std::accumulate(part.begin(), part.end(), 0.0);
        },
        [&] {
          ts::detail::for_each_block(pol, nb, [&](ts::index_t b) { part[std::size_t(b)] = lanes_block(b); });
          sink += std::accumulate(part.begin(), part.end(), 0.0);
        },
        [&] { sink += ts::item(ts::sum(a), ts::host{.threads = 1}); },
        [&] { sink += ts::item(ts::sum(a), pol); },
        [&] { sink += ts::item(ts::sum(2.0 * a + 1.0), pol); },
        [&] { sink += ts::compute(ts::mean(a, {0}), pol)(0); },
        [&] { sink += ts::item(ts::variance(a), pol); }};
    std::vector<double> best(fs.size(), 1e300);
    for (int r = 0; r < reps; ++r)
      for (std::size_t i = 0; i < fs.size(); ++i) best[i] = std::min(best[i], best_of(1, fs[i]));
    const double t_plain1 = best[0], t_plainN = best[1], t_lanesN = best[2], t_sum1 = best[3],
                 t_sum = best[4], t_expr = best[5], t_mean0 = best[6], t_var = best[7];
    auto gbs = [&](double t) { return bytes / t / 1e9; };
    std::printf("persisted %lld x %lld doubles (%.0f MiB, chunks %lld x %lld), best of %d:\n",
                (long long)mem_n, (long long)mem_n, bytes / 1048576.0, (long long)mem_chunk,
                (long long)mem_chunk, reps);
    std::printf("  plain std::accumulate loop, 1 thread     %7.2f GB/s\n", gbs(t_plain1));
    std::printf("  plain std::accumulate per chunk, %d thr   %7.2f GB/s\n", pol.concurrency(),
                gbs(t_plainN));
    std::printf("  plain 16-lane loop per chunk, %d thr      %7.2f GB/s\n", pol.concurrency(),
                gbs(t_lanesN));
    std::printf("  ts::sum(x), 1 thread                     %7.2f GB/s\n", gbs(t_sum1));
    std::printf("  ts::sum(x), %d thr                        %7.2f GB/s\n", pol.concurrency(),
                gbs(t_sum));
    std::printf("  ts::sum(2 * x + 1), %d thr                %7.2f GB/s\n", pol.concurrency(),
                gbs(t_expr));
    std::printf("  ts::mean(x, {0}), %d thr                  %7.2f GB/s\n", pol.concurrency(),
                gbs(t_mean0));
    std::printf("  ts::variance(x), %d thr                   %7.2f GB/s\n", pol.concurrency(),
                gbs(t_var));
    std::printf("(checksum %g) peak RSS %.1f MiB\n", sink, ts::peak_resident_mib());
  }
  if (mode == "axes" || mode == "all") {
    const ts::index_t n3 = mem_n / 128, m3 = mem_n / 8, c3 = std::max<ts::index_t>(mem_chunk / 4, 1);
    auto lazy2 = ts::full<double>({mem_n, mem_n}, 0.5, {mem_chunk, mem_chunk}) * 2.0;
    auto lazy3 = ts::full<double>({n3, m3, m3}, 0.5, {std::min<ts::index_t>(16, n3), c3, c3}) * 2.0;
    auto stored2 = ts::persist(lazy2 + 1e-3, pol);
    auto stored3 = ts::persist(lazy3 + 1e-3, pol);
    double sink = 0;
    struct row {
      std::string name;
      std::function<void()> last, leading;
      double elems;
    };
    const double e2 = double(mem_n) * double(mem_n), e3 = double(n3) * double(m3) * double(m3);
    auto first = [](const auto& a) { return a.data()[0]; };
    std::vector<row> rows;
    auto add = [&](std::string name, const auto& x, double elems, std::vector<ts::index_t> last,
                   std::vector<ts::index_t> leading) {
      rows.push_back({name + " sum", [&, x, last] { sink += first(ts::compute(ts::sum(x, last), pol)); },
                      [&, x, leading] { sink += first(ts::compute(ts::sum(x, leading), pol)); }, elems});
      rows.push_back({name + " variance",
                      [&, x, last] { sink += first(ts::compute(ts::variance(x, last), pol)); },
                      [&, x, leading] { sink += first(ts::compute(ts::variance(x, leading), pol)); },
                      elems});
      rows.push_back({name + " amax", [&, x, last] { sink += first(ts::compute(ts::amax(x, last), pol)); },
                      [&, x, leading] { sink += first(ts::compute(ts::amax(x, leading), pol)); }, elems});
    };
    add("2-d stored", stored2, e2, {1}, {0});
    // uniform values: a data-dependent branch shows here and not on the constant arrays
    auto uniform2 = ts::persist(ts::random::default_rng(1).random({mem_n, mem_n}, ts::shape_t{mem_chunk, mem_chunk}), pol);
    add("2-d uniform", uniform2, e2, {1}, {0});
    rows.push_back({"2-d uniform argmax",
                    [&] { sink += double(ts::compute(ts::argmax(uniform2, 1), pol)(0)); },
                    [&] { sink += double(ts::compute(ts::argmax(uniform2, 0), pol)(0)); }, e2});
    add("2-d lazy", lazy2, e2, {1}, {0});
    add("3-d stored", stored3, e3, {2}, {0});
    add("3-d lazy", lazy3, e3, {2}, {0});
    std::vector<double> t_last(rows.size(), 1e300), t_lead(rows.size(), 1e300);
    for (int r = 0; r < reps; ++r)  // round-robin, best of each
      for (std::size_t i = 0; i < rows.size(); ++i) {
        t_last[i] = std::min(t_last[i], best_of(1, rows[i].last));
        t_lead[i] = std::min(t_lead[i], best_of(1, rows[i].leading));
      }
    std::printf("reductions over the last axis vs over axis 0 (%d threads, best of %d): 2-d %lld x "
                "%lld in chunks %lld^2; 3-d %lld x %lld x %lld in chunks %lld x %lld x %lld\n",
                pol.concurrency(), reps, (long long)mem_n, (long long)mem_n, (long long)mem_chunk,
                (long long)n3, (long long)m3, (long long)m3, (long long)std::min<ts::index_t>(16, n3),
                (long long)c3, (long long)c3);
    std::printf("  %-22s %14s %14s %9s\n", "", "last ns/elem", "axis 0 ns/elem", "axis 0 / last");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const double a = t_last[i] / rows[i].elems * 1e9, b = t_lead[i] / rows[i].elems * 1e9;
      std::printf("  %-22s %14.3f %14.3f %9.2f\n", rows[i].name.c_str(), a, b, b / a);
    }
    std::printf("(checksum %g) peak RSS %.1f MiB\n", sink, ts::peak_resident_mib());
  }
  return 0;
}
