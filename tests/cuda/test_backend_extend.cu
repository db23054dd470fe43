// The extension-point test bodies (tests/test_extend.cpp: a user's ts::map operation and
// ts::reduce reducer) instantiated for ts::host and ts::cuda. Needs a usable GPU; skips otherwise.
#include "gpu_required.cuh"

#include "../test_extend.cpp"
