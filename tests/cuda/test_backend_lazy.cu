// The ts::lazy test bodies (tests/test_lazy.cpp) instantiated for ts::cuda only (the host
// instances are test_lazy's): pieces built here by nvcc evaluate on the device. Needs a usable
// GPU; skips otherwise.
#include "gpu_required.cuh"

#define TESSERA_TEST_BACKENDS tessera::cuda
#include "../test_lazy.cpp"
