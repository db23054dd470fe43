// The Zarr test bodies (tests/test_zarr.cpp: round trips, views, write modes, fault paths)
// instantiated for ts::cuda only (the host instances are test_zarr's): chunks decoded on the host
// feed device kernels, and device results are written chunk by chunk. Needs a usable GPU; skips
// otherwise.
#include "gpu_required.cuh"

#define TESSERA_TEST_BACKENDS tessera::cuda
#include "../test_zarr.cpp"
