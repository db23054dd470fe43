// The user-distribution test bodies (tests/test_extend_random.cpp) instantiated for ts::host and
// ts::cuda: a distribution defined outside the library runs in device kernels too. Needs a
// usable GPU; skips otherwise.
#include "gpu_required.cuh"

#include "../test_extend_random.cpp"
