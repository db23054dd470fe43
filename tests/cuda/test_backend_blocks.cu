// The block-function test bodies (tests/test_blocks.cpp) instantiated for ts::cuda only: f runs
// on the host, its blocks are copied to the device by the device context's gather. Needs a
// usable GPU; skips otherwise.
#include "gpu_required.cuh"

#define TESSERA_TEST_BACKENDS tessera::cuda
#include "../test_blocks.cpp"
