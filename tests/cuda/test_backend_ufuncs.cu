// The ufunc and NaN-reduction test bodies (tests/test_ufuncs.cpp, tests/test_nan_reductions.cpp:
// NumPy at test time, known cases) instantiated for ts::cuda only (the host instances are the
// host test executables'). Needs a usable GPU; skips otherwise.
#include "gpu_required.cuh"

#define TESSERA_TEST_BACKENDS tessera::cuda
#include "../test_ufuncs.cpp"
#include "../test_nan_reductions.cpp"
