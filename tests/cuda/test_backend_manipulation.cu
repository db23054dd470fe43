// The creation and manipulation test bodies (tests/test_manipulation.cpp) instantiated for
// ts::cuda only (the host instances are test_manipulation's). Needs a usable GPU; skips
// otherwise.
#include "gpu_required.cuh"

#define TESSERA_TEST_BACKENDS tessera::cuda
#include "../test_manipulation.cpp"
