// Helper process for tests/test_progress.cpp: a slow two-stage computation with a progress bar,
// so the test can look at what stderr shows on a terminal (run under `script`) and in a file.
// Usage: progress_helper ok|fail DELAY_MS [TRACE_FILE]
//   ts::compute(ts::mean(a, {1}) * 2.0) with ts::host{.threads = 1, .progress = true} over a
//   24-chunk store (24 chunks of 10 x 10, each read sleeps DELAY_MS): 24 fold tasks + 24 output
//   chunks.
//   `fail`: the read of chunk 17 throws; the message goes to stderr and the exit code is 3.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>

#include <tessera/tessera.hpp>

namespace ts = tessera;

namespace {
struct slow_store {
  using value_type = double;
  ts::chunk_grid g = ts::chunk_grid::make({240, 10}, {10, 10}, sizeof(double));
  int delay_ms = 0;
  bool fail = false;
  const ts::chunk_grid& grid() const { return g; }
  ts::memory_space block_space(ts::index_t) const { return ts::memory_space::elsewhere(1); }
  const double* block_pointer(ts::index_t) const { return nullptr; }
  void read_block(ts::index_t b, double* out) const {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    if (fail && b == 17) throw std::runtime_error("chunk 17 is unreadable");
    for (ts::index_t k = 0; k < g.block_box(b).count(); ++k) out[k] = double(b);
  }
};
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: %s ok|fail DELAY_MS [TRACE_FILE]\n", argv[0]);
    return 2;
  }
  auto s = std::make_shared<slow_store>();
  s->fail = std::string(argv[1]) == "fail";
  s->delay_ms = std::atoi(argv[2]);
  ts::host pol{.threads = 1, .progress = true};
  if (argc == 4) pol.trace = argv[3];
  try {
    auto m = ts::compute(ts::mean(ts::from_store(s), {1}) * 2.0, pol);
    std::printf("result %g\n", m(23));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 3;
  }
  return 0;
}
