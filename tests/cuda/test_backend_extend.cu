// The extension-point test bodies (tests/test_extend.cpp: a user's ts::map operation and ts::reduce
// reducer) instantiated for ts::cuda only (the host instances are test_extend's). Needs a usable
// GPU; skips otherwise.
#include "gpu_required.cuh"

#define TESSERA_TEST_BACKENDS tessera::cuda
#include "../test_extend.cpp"
