// The view test bodies (tests/test_view.cpp) instantiated for ts::host and ts::cuda. Needs a
// usable GPU; skips otherwise.
#include "gpu_required.cuh"

#include "../test_view.cpp"
