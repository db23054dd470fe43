// Seeing the work: a progress bar, a per-chunk callback and a Chrome trace.
//   progress_trace [N] [CHUNK] [TRACE_FILE]
// Runs seed 003's (x + 1)[::2, ::2].mean() and x - x.mean(axis=0) on an N x N normal array:
//   .progress = true        a bar on stderr (redrawn in place on a terminal)
//   .on_chunk_done = f      f(done, total) after each chunk task (what a GUI would use)
//   .trace = "file.json"    a Chrome trace of the tasks (open it in https://ui.perfetto.dev or
//                           chrome://tracing) and a one-line summary on stderr
//   ts::progress_bar        a bar for every computation of this thread while it lives
#include <tessera/tessera.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace ts = tessera;
using namespace ts::placeholders;

int main(int argc, char** argv) {
  const ts::index_t n = argc > 1 ? std::atoll(argv[1]) : 4000;
  const ts::index_t chunk = argc > 2 ? std::atoll(argv[2]) : 500;
  const std::string trace =
      argc > 3 ? argv[3] : (std::filesystem::temp_directory_path() / "tessera_progress_trace.json").string();

  auto g = ts::random::default_rng(42);
  auto x = g.normal<double>(10, 1, {n, n}, {chunk, chunk});
  auto m = ts::mean(ts::view(x + 1, ts::range(_, _, 2), ts::range(_, _, 2)));
  std::printf("(x + 1)[::2, ::2].mean(): %lld chunk tasks in %lld stages\n",
              (long long)ts::task_count(m), (long long)ts::stage_count(m));

  // 1. A progress bar for this call: its fold tasks (their combine writes the result).
  const double a = m.item(ts::host{.progress = true});

  // 2. A callback per completed chunk task, called in order (done = 1, 2, ..., total).
  int quarters = 0;
  ts::host with_callback{.on_chunk_done = [&](ts::index_t done, ts::index_t total) {
    while (quarters < 4 && done * 4 >= (quarters + 1) * total)
      std::printf("  %d%% of %lld tasks\n", 25 * ++quarters, (long long)total);
  }};
  const double b = m.item(with_callback);

  // 3. A trace of x - x.mean(axis=0) (two stages: the mean's fold tasks, then the chunks of
  //    the difference), with its summary on stderr.
  const auto centred = ts::compute(x - ts::mean(x, {0}), ts::host{.trace = trace});
  std::printf("trace of x - x.mean(axis=0) written to %s (%zu elements)\n", trace.c_str(), centred.size());

  // 4. A scoped bar, as Dask's `with ProgressBar():`.
  {
    ts::progress_bar bar;
    auto kept = ts::persist(x + 1);
    std::printf("persisted %lld chunks\n", (long long)kept.grid().block_count());
  }

  std::printf("mean %.10f\n", a);
  return a == b && quarters == 4 && std::filesystem::exists(trace) ? 0 : 1;
}
