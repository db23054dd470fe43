// ts::linalg::svd on the host: seed 000's case (10000 x 1000, chunks 1000 x 1000) and a tall
// case (2e6 x 64, chunks 1e5 x 64). Prints a markdown table; peers (NumPy, Dask) are timed by
// benchmarks/peers/svd_peers.py on the same shapes.
//
//   input "memory": a persisted ts::array of uniform [0, 1) values (as NumPy/Dask get a
//                   NumPy array), generation not timed;
//   input "lazy":   the same values as a lazy ts::generated leaf, generated inside the SVD's
//                   row-block passes (the input is never stored whole).
// Also: tsqr and svd_compressed(k = 10, n_power_iter = 2) on the same inputs (--all).
#include <tessera/tessera.hpp>
#include <tessera/linalg.hpp>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace ts = tessera;

namespace {

/// Uniform [0, 1) from a hash of the flat index (deterministic, cheap).
struct uniform01 {
  using value_type = double;
  std::uint64_t seed;
  TESSERA_HD double operator()(ts::index_t i) const {
    std::uint64_t z = seed + std::uint64_t(i) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return double(z >> 11) * 0x1.0p-53;
  }
};

double seconds(const std::function<void()>& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct row {
  std::string name;
  std::vector<double> t;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ts::linalg::svd benchmark"};
  int threads = 0, reps = 3;
  bool all = false;
  std::string only;
  app.add_option("--threads", threads, "host threads (0: all)");
  app.add_option("--reps", reps, "repetitions (best and median reported)");
  app.add_option("--case", only, "run only this case: seed000 or tall");
  app.add_flag("--all", all, "also time tsqr and svd_compressed");
  CLI11_PARSE(app, argc, argv);
  ts::host pol{threads};

  struct shape_case {
    std::string name;
    ts::index_t m, n, cm, cn;
  };
  std::vector<shape_case> cases{{"seed000", 10000, 1000, 1000, 1000},
                                {"tall", 2000000, 64, 100000, 64}};
  std::vector<row> rows;
  for (auto& c : cases) {
    if (!only.empty() && only != c.name) continue;
    ts::generated<uniform01> lazy(uniform01{7}, ts::chunk_grid::make({c.m, c.n}, {c.cm, c.cn}, 8));
    auto mem = ts::persist(lazy, pol);
    std::string shp = std::to_string(c.m) + "x" + std::to_string(c.n) + " (" +
                      std::to_string(c.cm) + "x" + std::to_string(c.cn) + ")";
    auto run = [&](const std::string& what, const std::function<void()>& f) {
      row r{c.name + " " + shp + " " + what, {}};
      for (int i = 0; i < reps; ++i) r.t.push_back(seconds(f));
      std::sort(r.t.begin(), r.t.end());
      std::printf("| %-48s | %8.3f | %8.3f |\n", r.name.c_str(), r.t.front(), r.t[r.t.size() / 2]);
      std::fflush(stdout);
      rows.push_back(r);
    };
    if (rows.empty()) {
      std::printf("threads: %d\n\n| case | best s | median s |\n|---|---:|---:|\n",
                  pol.concurrency());
    }
    double sink = 0;
    run("svd memory", [&] {
      auto [u, s, vt] = ts::linalg::svd(mem, pol);
      sink += *s.block_data(0);
    });
    run("svd lazy", [&] {
      auto [u, s, vt] = ts::linalg::svd(lazy, pol);
      sink += *s.block_data(0);
    });
    if (all) {
      run("tsqr memory", [&] {
        auto [q, r] = ts::linalg::tsqr(mem, pol);
        sink += *r.block_data(0);
      });
      run("svd_compressed k=10 q=2 memory", [&] {
        auto [u, s, vt] = ts::linalg::svd_compressed(mem, 10, {.n_power_iter = 2, .seed = 1}, pol);
        sink += *s.block_data(0);
      });
    }
    if (sink == 12345.678) std::printf("%g\n", sink);
  }
  return 0;
}
