// Seed 003 on MPI ranks: the same program text alone (one rank) or under mpirun -n N.
//     mpirun -n 2 ./seed003_ranks [n=20000] [chunk=2000] [threads per rank=1] [repeats=1]
// (a) (x + 1)[::2, ::2].mean() and (b) (x + 1).mean() of x = normal(10, 1, (n, n)): each rank
// generates and folds only the chunks it owns (random numbers need no messages), and the
// partials meet in the same fixed combine tree as one process, so every rank prints the same
// bits as a single-process ts::host run. Then x + 1 is persisted (its chunks stay on their
// owner ranks) and read back through a view that crosses chunk boundaries: only the boxes a
// rank lacks are sent. Exit status 0 when every check holds.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <tessera/mpi.hpp>

namespace ts = tessera;
using ts::placeholders::_;

int main(int argc, char** argv) {
  const ts::index_t n = argc > 1 ? std::atoll(argv[1]) : 20000;
  const ts::index_t c = argc > 2 ? std::atoll(argv[2]) : 2000;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 1;
  const int repeats = argc > 4 ? std::atoi(argv[4]) : 1;
  const ts::mpi policy{.local = ts::host{threads}};  // MPI starts here if the program has not
  const int rank = policy.rank(), size = policy.size();

  auto x = ts::random::default_rng(3).normal<double>(10, 1, {n, n}, {c, c});
  auto a = ts::mean(ts::view(x + 1, ts::range(_, _, 2), ts::range(_, _, 2)));
  auto b = ts::mean(x + 1);
  auto best = [&](auto&& f) {  // the fastest of `repeats` runs, in seconds
    double t = 1e300, v = 0;
    for (int i = 0; i < repeats; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      const auto t0 = std::chrono::steady_clock::now();
      v = f();
      t = std::min(t, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return std::pair{v, t};
  };
  const auto [ma, ta] = best([&] { return ts::item(a, policy); });
  const auto [mb, tb] = best([&] { return ts::item(b, policy); });
  ts::mpi_traffic().reset();  // what one more run of (a) sends: the other ranks' partials
  (void)ts::item(a, policy);
  const long long bytes = ts::mpi_traffic().bytes_received;
  if (rank == 0)
    std::printf("seed 003, n = %lld, chunks %lld, %d rank(s) x %d thread(s): (a) %.17g in %.4f s, "
                "(b) %.17g in %.4f s; (a) received %lld bytes on rank 0\n",
                (long long)n, (long long)c, size, threads, ma, ta, mb, tb, bytes);
  bool ok = std::abs(ma - 11.0) < 1e-2 && std::abs(mb - 11.0) < 1e-2;

  // Persisted chunks stay where they were computed; a view shifted by half a chunk, in chunks
  // of the old size, reads boxes of four neighbouring chunks, some of them on other ranks.
  if (n <= 4000) {
    auto p = ts::persist(x + 1, policy);
    ts::index_t mine = 0;
    for (ts::index_t k = 0; k < p.grid().block_count(); ++k) mine += p.here(k);
    ts::mpi_traffic().reset();
    auto shifted = [&](const auto& v) { return ts::rechunk(ts::view(v, ts::range(c / 2, _), ts::range(c / 2, _)), {c, c}); };
    const double s = ts::item(ts::sum(shifted(p)), policy);
    const double want = ts::item(ts::sum(shifted(x + 1)), ts::host{});
    std::printf("rank %d of %d: holds %lld of %lld chunks; the shifted view's sum %.17g (one process: %.17g), "
                "received %lld bytes of other ranks' chunks\n",
                rank, size, (long long)mine, (long long)p.grid().block_count(), s, want,
                (long long)ts::mpi_traffic().piece_bytes_received);
    ok = ok && s == want;
  }
  return ok ? 0 : 1;
}
