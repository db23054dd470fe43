// The random test bodies (tests/test_random.cpp) instantiated for ts::host and ts::cuda. Needs
// a usable GPU; skips otherwise.
#include "gpu_required.cuh"

#include "../test_random.cpp"
