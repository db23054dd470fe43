// ts::linalg::svd: seed 000's case (10000 x 1000, chunks 1000 x 1000) and a tall case
// (2e6 x 64, chunks 1e5 x 64); `small` (4000 x 200, chunks 1000 x 200) for smoke runs;
// `tall10m` (1e7 x 64, chunks 1e5 x 64: 5.1 GB, the GPU case) and `centered` (seed 000's shape
// and chunks, values uniform [-0.5, 0.5): cond(A) about 2 where seed 000's is about 80, so the
// host's svd takes the Gram route, linalg/gram_svd.hpp) only when asked for. Prints a
// markdown table; peers (NumPy, Dask) are timed by benchmarks/peers/svd_peers.py on the same
// shapes.
//
//   input "memory": the uniform [0, 1) values persisted with the backend's policy (a ts::array
//                   on the host, device-resident chunks on ts::cuda, as NumPy/Dask get a NumPy
//                   array and CuPy a device array), generation not timed;
//   input "lazy":   the same values as a lazy ts::generated leaf, generated inside the SVD's
//                   row-block passes (the input is never stored whole).
// Also: tsqr and svd_compressed(k = 10, n_power_iter = 2) on the same inputs (--all).
//
// Backends (--backend host, cuda, auto): this file built by the host compiler has the host
// rows only; benchmarks/cuda/bench_svd.cu builds it with nvcc and gains the cuda rows (row
// blocks evaluated by the device chunk kernel, dense kernels in cuSOLVER/cuBLAS).
#include <tessera/tessera.hpp>
#include <tessera/linalg.hpp>
#if defined(__CUDACC__) && __has_include(<tessera/cuda.hpp>)
#include <tessera/cuda.hpp>
#define SVD_BENCH_HAVE_CUDA 1
#else
#define SVD_BENCH_HAVE_CUDA 0
#endif

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <type_traits>
#include <string>
#include <vector>

namespace ts = tessera;

namespace {

/// Uniform [0, 1) from a hash of the flat index (deterministic, cheap), minus `shift`.
struct uniform01 {
  using value_type = double;
  std::uint64_t seed;
  double shift = 0;
  TESSERA_HD double operator()(ts::index_t i) const {
    std::uint64_t z = seed + std::uint64_t(i) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return double(z >> 11) * 0x1.0p-53 - shift;
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

struct shape_case {
  std::string name;
  ts::index_t m, n, cm, cn;
  double shift = 0;  // the values are uniform [-shift, 1 - shift)
};

struct options {
  int reps = 3;
  bool all = false;
  bool compressed = true;  // --all includes svd_compressed
  std::string only;
  std::vector<std::string> rows;  // --rows: only these (empty: svd memory and lazy, with --all the rest)
  bool wants(const std::string& r, bool by_default) const {
    return rows.empty() ? by_default : std::find(rows.begin(), rows.end(), r) != rows.end();
  }
};

template <class P>
void run_backend(const P& pol, const std::string& backend, int workers, const options& o,
                 bool& header) {
  std::vector<shape_case> cases{{"seed000", 10000, 1000, 1000, 1000},
                                {"tall", 2000000, 64, 100000, 64},
                                {"small", 4000, 200, 1000, 200},
                                {"tall10m", 10000000, 64, 100000, 64},
                                {"centered", 10000, 1000, 1000, 1000, 0.5}};
  for (auto& c : cases) {
    const bool by_default = c.name == "seed000" || c.name == "tall";
    if (o.only.empty() ? !by_default : o.only != c.name) continue;
    ts::generated<uniform01> lazy(uniform01{7, c.shift}, ts::chunk_grid::make({c.m, c.n}, {c.cm, c.cn}, 8));
    auto mem = ts::persist(lazy, pol);
    std::string shp = std::to_string(c.m) + "x" + std::to_string(c.n) + " (" +
                      std::to_string(c.cm) + "x" + std::to_string(c.cn) + ")";
    auto run = [&](const std::string& what, const std::function<void()>& f) {
      row r{c.name + " " + shp + " " + what, {}};
      for (int i = 0; i < o.reps; ++i) r.t.push_back(seconds(f));
      std::sort(r.t.begin(), r.t.end());
      std::printf("| %-52s | %-4s | %7d | %8.3f | %8.3f |\n", r.name.c_str(), backend.c_str(),
                  workers, r.t.front(), r.t[r.t.size() / 2]);
      std::fflush(stdout);
    };
    if (!header) {
      std::printf("| case | backend | workers | best s | median s |\n|---|---|---:|---:|---:|\n");
      header = true;
    }
    double sink = 0;
    if (o.wants("svd-memory", true))
      run("svd memory", [&] {
        auto [u, s, vt] = ts::linalg::svd(mem, pol);
        sink += *s.block_data(0);
      });
    if (o.wants("svd-lazy", true))
      run("svd lazy", [&] {
        auto [u, s, vt] = ts::linalg::svd(lazy, pol);
        sink += *s.block_data(0);
      });
    if (o.wants("tsqr", o.all))
      run("tsqr memory", [&] {
        auto [q, r] = ts::linalg::tsqr(mem, pol);
        sink += *r.block_data(0);
      });
    if constexpr (!std::is_same_v<P, ts::host>) {  // the GPU's CholeskyQR2 vs Householder
      if (o.wants("tsqr-householder", o.all))
        run("tsqr householder memory", [&] {
          ts::linalg::tsqr_options opt;
          opt.method = ts::linalg::tsqr_method::householder;
          auto [q, r] = ts::linalg::tsqr(mem, pol, opt);
          sink += *r.block_data(0);
        });
    }
    if (o.wants("svd-compressed", o.all && o.compressed))
      run("svd_compressed k=10 q=2 memory", [&] {
        auto [u, s, vt] = ts::linalg::svd_compressed(mem, 10, pol, {.n_power_iter = 2, .seed = 1});
        sink += *s.block_data(0);
      });
    if (sink == 12345.678) std::printf("%g\n", sink);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ts::linalg::svd benchmark"};
  options o;
  int threads = 0;
  std::string backend = "host";
  app.add_option("--threads", threads, "host threads (0: all; cuda: devices, 0: all)");
  app.add_option("--reps", o.reps, "repetitions (best and median reported)")->check(CLI::PositiveNumber);
  app.add_option("--case", o.only, "run only this case: seed000, tall, small, tall10m (1e7 x 64, chunks 1e5 x 64; 5 GB) or centered (seed 000's shape, values uniform [-0.5, 0.5): cond(A) about 2) (default: seed000 and tall)")
      ->check(CLI::IsMember({"seed000", "tall", "small", "tall10m", "centered"}));
  app.add_option("--backend", backend, "host, cuda or auto")->check(CLI::IsMember({"host", "cuda", "auto"}));
  app.add_flag("--all", o.all, "also time tsqr and svd_compressed");
  bool no_compressed = false;
  app.add_flag("--no-compressed", no_compressed, "with --all: leave svd_compressed out");
  app.add_option("--rows", o.rows, "only these rows: svd-memory, svd-lazy, tsqr, tsqr-householder, svd-compressed (a profile's scope)")
      ->delimiter(',')
      ->check(CLI::IsMember({"svd-memory", "svd-lazy", "tsqr", "tsqr-householder", "svd-compressed"}));
  int streams = 2;
  app.add_option("--streams", streams, "cuda: streams_per_device (row-block tasks in flight per device)")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  o.compressed = !no_compressed;
  bool header = false;
  try {
    std::string use = backend;
#if SVD_BENCH_HAVE_CUDA
    if (use == "auto") {
      use = ts::cuda::available() ? "cuda" : "host";
      if (use == "host")
        std::fprintf(stderr, "notice: --backend auto: no usable CUDA device (%s); using host\n",
                     ts::cuda::unavailable_reason().c_str());
    }
    if (use == "cuda") {
      if (!ts::cuda::available()) {
        std::fprintf(stderr, "error: --backend cuda: no usable CUDA device: %s\n",
                     ts::cuda::unavailable_reason().c_str());
        return 2;
      }
      ts::cuda pol{.streams_per_device = streams};
      const int visible = ts::detail::cuda_backend::devices().visible;
      const int k = threads == 0 ? visible : std::min(threads, visible);
      for (int d = 0; d < k; ++d) pol.devices.push_back(d);
      run_backend(pol, streams == 2 ? "cuda" : "cuda:s" + std::to_string(streams), k, o, header);
      return 0;
    }
#else
    if (use == "auto") {
      std::fprintf(stderr, "notice: --backend auto: this build has no CUDA backend; using host\n");
      use = "host";
    }
    if (use == "cuda") {
      std::fprintf(stderr, "error: --backend cuda: this binary was built without the CUDA backend "
                           "(build benchmarks/cuda/bench_svd.cu: cuda_bench_svd)\n");
      return 2;
    }
#endif
    ts::host pol{threads};
    run_backend(pol, "host", pol.concurrency(), o, header);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
