// The fault-injection test bodies (tests/test_faults.cpp: a chunk task that throws midway through
// compute, persist, item, a reduction, a two-stage expression and to_zarr; several failing tasks;
// repeated failures and the worker threads; a throwing on_chunk_done) instantiated for ts::cuda
// only (the host instances are test_faults's): the failing read runs on the host inside a CUDA
// task, the device worker stops taking blocks, drains its streams and rethrows the first failure.
// The host-only cases (throwing element code) are left out under nvcc. Needs a usable GPU; skips
// otherwise.
#include "gpu_required.cuh"

#define TESSERA_TEST_BACKENDS tessera::cuda
#include "../test_faults.cpp"
