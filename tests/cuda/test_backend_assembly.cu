// The assembly test bodies (tests/test_assembly.cpp: concatenate, stack, block, pad, roll,
// tile) instantiated for ts::cuda only (the host instances are test_assembly's). Needs a
// usable GPU; skips otherwise.
#include "gpu_required.cuh"

#define TESSERA_TEST_BACKENDS tessera::cuda
#include "../test_assembly.cpp"
