// The user-distribution test bodies (tests/test_extend_random.cpp) instantiated for ts::cuda only
// (the host instances are test_extend_random's): a distribution defined outside the library runs in
// device kernels too. Needs a usable GPU; skips otherwise.
#include "gpu_required.cuh"

#define TESSERA_TEST_BACKENDS tessera::cuda
#include "../test_extend_random.cpp"
