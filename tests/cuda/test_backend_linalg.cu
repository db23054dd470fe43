// The linalg test bodies (tests/test_linalg.cpp) instantiated for ts::cuda only (the host instances
// are test_linalg's): TSQR/QR, SVD, matmul and svd_compressed with the row blocks evaluated by the
// device chunk kernel and the dense kernels in cuSOLVER/cuBLAS, against LAPACK references. Needs a
// usable GPU; skips otherwise.
#include "gpu_required.cuh"

#define TESSERA_TEST_BACKENDS tessera::cuda
#include "../test_linalg.cpp"
