// The shared test bodies of tests/test_core.cpp on ts::mpi (host ranks), run by ctest under
// mpirun -n 1 and 2 (tests/CMakeLists.txt): every rank runs every case, and every result is
// also checked bitwise against a one-process evaluation (support/one_process.hpp).
#include <tessera/mpi.hpp>

#define TESSERA_TEST_BACKENDS tessera::mpi<tessera::host>
#include "../support/one_process.hpp"
#include "../test_core.cpp"

#include "../support/one_process_summary.hpp"
