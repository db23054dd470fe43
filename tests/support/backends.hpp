// The backend policies every test is instantiated for. Host always; the CUDA policy is added
// in translation units compiled by nvcc (tests/cuda/*.cu include the same test bodies).
#pragma once
#include <tuple>

#include <tessera/tessera.hpp>

#if defined(__CUDACC__) && __has_include(<tessera/cuda.hpp>)
#include <tessera/cuda.hpp>
#define TESSERA_TEST_BACKENDS tessera::host, tessera::cuda
#else
#define TESSERA_TEST_BACKENDS tessera::host
#endif
