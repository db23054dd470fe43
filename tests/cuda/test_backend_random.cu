// The random test bodies (tests/test_random.cpp) instantiated for ts::cuda only (the host instances
// are test_random's). Needs a usable GPU; skips otherwise.
#include "gpu_required.cuh"

#define TESSERA_TEST_BACKENDS tessera::cuda
#include "../test_random.cpp"
