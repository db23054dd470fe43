// Included first by GPU-only test executables: when no CUDA device is usable the executable
// prints why and exits with code 4 before any test runs (ctest reports it as skipped,
// SKIP_RETURN_CODE 4).
#pragma once
#include <cstdio>
#include <cstdlib>

#include <tessera/cuda.hpp>

namespace tessera_test {
struct gpu_required {
  gpu_required() {
    if (!tessera::cuda::available()) {
      std::printf("SKIPPED: no usable CUDA device: %s\n", tessera::cuda::unavailable_reason().c_str());
      std::fflush(stdout);
      std::exit(4);
    }
  }
};
inline const gpu_required gpu_required_guard{};
}  // namespace tessera_test
