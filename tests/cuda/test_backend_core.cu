// The core test bodies (tests/test_core.cpp) instantiated for ts::host and ts::cuda
// (tests/support/backends.hpp adds ts::cuda under nvcc). Needs a usable GPU; skips otherwise.
#include "gpu_required.cuh"

#include "../test_core.cpp"
