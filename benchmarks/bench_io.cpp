// Out of core: the seed-003 array written to a Zarr store and read back from it.
//
//   x = normal(10, 1, size=(n, n), chunks=(c, c))
//   write   ts::to_zarr(x, dir)                      generated and written chunk by chunk
//   read-a  (from_zarr(dir) + 1)[::2, ::2].mean()    a view: reads the chunks it touches
//   read-m  from_zarr(dir).mean(axis=0)              a per-column mean over every chunk
//
// Each step prints seconds, MB/s of array data (n^2 * 8 bytes; read-a counts the chunks it
// reads) and the process's peak RSS so far (ts::peak_resident_mib: a lifetime peak, so the
// last row is the whole run's). With --json FILE the rows are also written as JSON.
// benchmarks/peers/io_dask.py runs the same steps with Dask (to_zarr / from_zarr).
#include <tessera/core/process_memory.hpp>
#include <tessera/random.hpp>
#include <tessera/reduce.hpp>
#include <tessera/tessera.hpp>
#include <tessera/view.hpp>
#include <tessera/zarr.hpp>

#include <CLI/CLI.hpp>

#include "observe_cli.hpp"
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace ts = tessera;
using ts::placeholders::_;

namespace {

struct row {
  std::string step;
  double seconds, mb_per_s, peak_mib;
  double value;
};

template <class F>
double timed(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::uintmax_t dir_bytes(const std::filesystem::path& p) {
  std::uintmax_t n = 0;
  for (auto& e : std::filesystem::recursive_directory_iterator(p))
    if (e.is_regular_file()) n += e.file_size();
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Out-of-core seed 003: x = normal(10, 1, (N, N), chunks (C, C)) to Zarr and back"};
  ts::index_t n = 40000, chunk = 4000;
  std::string dir = "/tmp/tessera_bench_io.zarr", codec = "zstd", json_path;
  int level = 1, format = 3, threads = 0;
  bool keep = false;
  observe_cli observe;
  std::uint64_t seed = 42;
  app.add_option("--n", n, "N (the array is N x N float64)");
  app.add_option("--chunk", chunk, "chunk length (C x C chunks)");
  app.add_option("--dir", dir, "the Zarr store to write (replaced)");
  app.add_option("--codec", codec, "zstd, blosc, gzip or none");
  app.add_option("--level", level, "codec level");
  app.add_option("--format", format, "Zarr format (2 or 3)");
  app.add_option("--threads", threads, "worker threads (0: all cores)");
  app.add_option("--seed", seed, "random seed");
  app.add_option("--json", json_path, "also write the rows to this JSON file");
  app.add_flag("--keep", keep, "keep the store afterwards");
  observe.add_to(app);
  CLI11_PARSE(app, argc, argv);

  ts::host pol{.progress = observe.progress, .trace = observe.trace};
  if (threads > 0) pol.threads = threads;
  const double mb = double(n) * double(n) * 8.0 / 1e6;
  std::vector<row> rows;
  std::filesystem::remove_all(dir);

  auto g = ts::random::default_rng(seed);
  auto x = g.normal<double>(10.0, 1.0, ts::shape_t{n, n}, {chunk, chunk});
  ts::zarr_options o;
  o.format = format;
  o.codec = codec;
  o.level = level;
  double t = timed([&] { ts::to_zarr(x, dir, o, pol); });
  rows.push_back({"write", t, mb / t, ts::peak_resident_mib(), double(dir_bytes(dir)) / 1e6});

  {
    auto z = ts::from_zarr<double>(dir);
    double v = 0;
    t = timed([&] { v = ts::item(ts::mean(ts::view(z + 1.0, ts::range(_, _, 2), ts::range(_, _, 2))), pol); });
    const double read_mb = double(z.store().bytes_read()) / 1e6;
    rows.push_back({"read-a", t, read_mb / t, ts::peak_resident_mib(), v});
  }
  {
    auto z = ts::from_zarr<double>(dir);
    double v = 0;
    t = timed([&] {
      auto m = ts::compute(ts::mean(z, {0}), pol);
      v = m(0);
    });
    const double read_mb = double(z.store().bytes_read()) / 1e6;
    rows.push_back({"read-m", t, read_mb / t, ts::peak_resident_mib(), v});
  }
  if (!keep) std::filesystem::remove_all(dir);

  std::printf("bench_io: x = normal(10, 1, (%lld, %lld)), chunks (%lld, %lld), Zarr v%d %s level %d, %d threads\n",
              (long long)n, (long long)n, (long long)chunk, (long long)chunk, format, codec.c_str(), level,
              pol.concurrency());
  std::printf("| step | seconds | MB/s | peak RSS MiB | value |\n|---|---|---|---|---|\n");
  for (auto& r : rows)
    std::printf("| %s | %.3f | %.0f | %.0f | %.6g |\n", r.step.c_str(), r.seconds, r.mb_per_s, r.peak_mib, r.value);
  std::printf("(write: MB/s of array data, value = MB on disk; read-*: MB/s of stored bytes read, value = "
              "result (read-m: column 0))\n");
  if (!json_path.empty()) {
    std::ofstream f(json_path);
    f << "{\"n\": " << n << ", \"chunk\": " << chunk << ", \"format\": " << format << ", \"codec\": \"" << codec
      << "\", \"level\": " << level << ", \"threads\": " << pol.concurrency() << ", \"rows\": [";
    for (std::size_t i = 0; i < rows.size(); ++i)
      f << (i ? ", " : "") << "{\"step\": \"" << rows[i].step << "\", \"seconds\": " << rows[i].seconds
        << ", \"mb_per_s\": " << rows[i].mb_per_s << ", \"peak_rss_mib\": " << rows[i].peak_mib
        << ", \"value\": " << rows[i].value << "}";
    f << "]}\n";
  }
  return 0;
}
