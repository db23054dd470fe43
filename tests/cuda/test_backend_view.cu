// The view test bodies (tests/test_view.cpp) instantiated for ts::cuda only (the host instances are
// test_view's). Needs a usable GPU; skips otherwise.
#include "gpu_required.cuh"

#define TESSERA_TEST_BACKENDS tessera::cuda
#include "../test_view.cpp"
