// The progress / on_chunk_done / trace test bodies (tests/test_progress.cpp) instantiated for
// ts::cuda only (the host instances are test_progress's): a CUDA task is done when its stream
// completed and its then() callbacks ran. Needs a usable GPU; skips otherwise.
#include "gpu_required.cuh"

#define TESSERA_TEST_BACKENDS tessera::cuda
#include "../test_progress.cpp"
