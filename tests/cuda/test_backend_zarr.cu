// The Zarr test bodies (tests/test_zarr.cpp: round trips, views, write modes, fault paths)
// instantiated for ts::host and ts::cuda: chunks decoded on the host feed device kernels, and
// device results are written chunk by chunk. Needs a usable GPU; skips otherwise.
#include "gpu_required.cuh"

#include "../test_zarr.cpp"
