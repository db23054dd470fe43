// TSQR across MPI ranks: QR of a tall random m x n matrix (generated lazily, nothing stored but
// each rank's own row blocks), Q left distributed by rows on the ranks that factored them.
//     mpirun -n 2 ./tsqr_ranks [m=1000000] [n=64] [rows per block=100000] [threads=1] [repeats=1]
// Prints the best time and checks R against one process (bitwise) and Q's orthonormality.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <tessera/linalg_mpi.hpp>

namespace ts = tessera;

int main(int argc, char** argv) {
  const ts::index_t m = argc > 1 ? std::atoll(argv[1]) : 1000000;
  const ts::index_t n = argc > 2 ? std::atoll(argv[2]) : 64;
  const ts::index_t rb = argc > 3 ? std::atoll(argv[3]) : 100000;
  const int threads = argc > 4 ? std::atoi(argv[4]) : 1;
  const int repeats = argc > 5 ? std::atoi(argv[5]) : 1;
  const ts::mpi policy{.local = ts::host{threads}};
  const int rank = policy.rank(), size = policy.size();

  auto a = ts::random::default_rng(0).standard_normal<double>({m, n}, {rb, n});
  double best = 1e300;
  ts::array<double> r;
  ts::index_t mine = 0, blocks = 0;
  for (int i = 0; i < repeats; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    auto [q, ri] = ts::linalg::qr(a, policy);
    MPI_Barrier(MPI_COMM_WORLD);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    r = ri;
    blocks = q.grid().block_count();
    mine = 0;
    for (ts::index_t b = 0; b < blocks; ++b) mine += q.here(b);
    if (i + 1 == repeats && m <= 200000) {  // checks at small sizes (they gather Q)
      auto qtq = ts::compute(ts::matmul(ts::transpose(q), q), policy);
      double err = 0;
      for (ts::index_t x = 0; x < n; ++x)
        for (ts::index_t y = 0; y < n; ++y) err = std::max(err, std::abs(qtq(x, y) - (x == y ? 1.0 : 0.0)));
      const auto one = ts::compute(ts::linalg::qr(a, policy.local).r);
      const auto got = ts::compute(r);
      const bool same = std::equal(one.begin(), one.end(), got.begin());
      std::printf("rank %d: |Q'Q - I| = %.2e, R bitwise equal to one process: %s\n", rank, err, same ? "yes" : "no");
      if (err > 1e-10 || !same) return 1;
    }
  }
  const double gb = double(m) * double(n) * 8.0 / 1e9;
  if (rank == 0)
    std::printf("TSQR of %lld x %lld (%.2f GB, row blocks of %lld), %d rank(s) x %d thread(s): %.4f s "
                "(%.2f GB/s of A); rank 0 holds %lld of %lld blocks of Q\n",
                (long long)m, (long long)n, gb, (long long)rb, size, threads, best, gb / best, (long long)mine,
                (long long)blocks);
  return 0;
}
