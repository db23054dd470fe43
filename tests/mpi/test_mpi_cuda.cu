// The shared test bodies of tests/test_core.cpp on ts::mpi<ts::cuda> (one GPU per rank, chosen
// from the node-local rank), run by ctest under mpirun -n 1 and 2 where the CUDA toolkit is
// present. Needs a usable GPU on every rank; skips otherwise (exit code 4, as tests/cuda/).
#include "../cuda/gpu_required.cuh"

#include <tessera/mpi.hpp>
#define TESSERA_TEST_BACKENDS tessera::mpi<tessera::cuda>
#include "../test_core.cpp"
