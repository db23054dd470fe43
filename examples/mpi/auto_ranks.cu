// ts::auto_backend under mpirun: the program of examples/cuda_auto_backend.cu (seed 003 with
// ts::auto_backend), unchanged, started alone or by mpirun -n N. With <tessera/mpi.hpp> in the
// translation unit (or a target linking tessera::mpi), auto_backend runs each evaluation on the
// ranks: their GPUs when every rank has one, else their hosts. Each rank generates and folds
// only its chunks, and the results are the bits one process gets.
//     mpirun -n 2 ./auto_ranks [n=4000] [chunk=1000]
// Exit status 0 when the checks hold (here: the ranks exchanged partials when there are several,
// and on hosts the means equal a one-process ts::host run bit for bit).
#include <tessera/cuda.hpp>
#include <tessera/mpi.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ts = tessera;
using namespace ts::placeholders;

int main(int argc, char** argv) {
  const ts::index_t n = argc > 1 ? std::atoll(argv[1]) : 4000;
  const ts::index_t c = argc > 2 ? std::atoll(argv[2]) : 1000;
  const ts::auto_backend pol{};

  auto x = ts::random::default_rng(42).normal<double>(10, 1, {n, n}, {c, c});
  auto a = ts::mean(ts::view(x + 1, ts::range(_, _, 2), ts::range(_, _, 2)));
  const double sliced = ts::item(a, pol);
  const long long received = ts::mpi_traffic().bytes_received;  // the other ranks' partials of (a)
  auto kept = ts::persist(x, pol);  // the whole array on every rank (a ts::device_array)
  const double whole = ts::item(ts::mean(kept + 1), pol);

  // One process, the host: what every rank must print (bitwise when the ranks ran on hosts).
  const double one_a = ts::item(a, ts::host{}), one_b = ts::item(ts::mean(x + 1), ts::host{});

  const ts::mpi<> world{};
  const int rank = world.rank(), size = world.size();
  const bool gpu = ts::cuda::available();  // (the ranks use their GPUs only when every rank has one)
  std::printf("rank %d of %d (%s): (x + 1)[::2, ::2].mean() = %.17g, (x + 1).mean() = %.17g, received %lld bytes\n",
              rank, size, gpu ? "cuda" : "host", sliced, whole, received);
  bool ok = std::abs(sliced - 11) < 10.0 / double(n) && std::abs(whole - 11) < 10.0 / double(n);
  if (gpu) ok = ok && std::abs(sliced - one_a) <= 1e-12 * one_a && std::abs(whole - one_b) <= 1e-12 * one_b;
  else ok = ok && sliced == one_a && whole == one_b;
  if (size > 1 && ts::launched_by_mpirun()) ok = ok && received > 0;
  return ok ? 0 : 1;
}
