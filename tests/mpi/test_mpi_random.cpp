// The shared test bodies of tests/test_random.cpp on ts::mpi (host ranks), run by ctest under
// mpirun -n 1, 2 and 3 (tests/CMakeLists.txt): every rank runs every case.
#include <tessera/mpi.hpp>
#define TESSERA_TEST_BACKENDS tessera::mpi<tessera::host>
#include "../test_random.cpp"
