// The reduction test bodies (tests/test_reduce.cpp) instantiated for ts::host and ts::cuda:
// the device fold kernel + host combine tree against xtensor. Needs a usable GPU; skips
// otherwise.
#include "gpu_required.cuh"

#include "../test_reduce.cpp"
