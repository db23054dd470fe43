// The reduction test bodies (tests/test_reduce.cpp) instantiated for ts::cuda only (the host
// instances are test_reduce's): the device fold kernel + host combine tree against xtensor. Needs a
// usable GPU; skips otherwise.
#include "gpu_required.cuh"

#define TESSERA_TEST_BACKENDS tessera::cuda
#include "../test_reduce.cpp"
