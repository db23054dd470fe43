// The progress / on_chunk_done / trace test bodies (tests/test_progress.cpp) instantiated for
// ts::host and ts::cuda (tests/support/backends.hpp adds ts::cuda under nvcc): a CUDA task is
// done when its stream completed and its then() callbacks ran. Needs a usable GPU; skips
// otherwise.
#include "gpu_required.cuh"

#include "../test_progress.cpp"
