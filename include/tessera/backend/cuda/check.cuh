// Checked CUDA runtime calls: every failing call throws tessera::cuda_error naming the call
// text, the device it ran on and cudaGetErrorName/cudaGetErrorString.
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "../../core/errors.hpp"

namespace tessera {

/// A failed CUDA runtime/library call (a std::runtime_error).
struct cuda_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace detail::cuda_backend {

/// The message of a failed call: "CUDA call `expr` failed on device 0: cudaErrorX: text (file:line)".
inline std::string error_message(cudaError_t e, const char* expr, const char* file, int line) {
  int dev = -1;
  // cudaGetDevice cannot fail once a context exists; when it does, the device is "unknown".
  std::string where = cudaGetDevice(&dev) == cudaSuccess ? "device " + std::to_string(dev)
                                                          : std::string("unknown device");
  return detail::cat("tessera: CUDA call `", expr, "` failed on ", where, ": ",
                     cudaGetErrorName(e), ": ", cudaGetErrorString(e), " (", file, ":", line,
                     ")");
}

inline void check(cudaError_t e, const char* expr, const char* file, int line) {
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // clear a non-sticky error so later calls are not blamed
    throw cuda_error(error_message(e, expr, file, line));
  }
}

/// Library status codes (cuBLAS, cuSOLVER, cuRAND): "status 7" plus the library's name.
inline void check_status(int status, const char* lib, const char* expr, const char* file,
                         int line) {
  if (status != 0) {
    int dev = -1;
    std::string where = cudaGetDevice(&dev) == cudaSuccess ? "device " + std::to_string(dev)
                                                            : std::string("unknown device");
    throw cuda_error(detail::cat("tessera: ", lib, " call `", expr, "` failed on ", where,
                                 ": status ", status, " (", file, ":", line, ")"));
  }
}

}  // namespace detail::cuda_backend
}  // namespace tessera

/// Runs a CUDA runtime call and throws tessera::cuda_error when it fails.
#define TESSERA_CUDA_CHECK(expr) ::tessera::detail::cuda_backend::check((expr), #expr, __FILE__, __LINE__)
/// Same for a library whose status type is an enum with success == 0.
#define TESSERA_CUDA_LIB_CHECK(lib, expr) \
  ::tessera::detail::cuda_backend::check_status(int(expr), lib, #expr, __FILE__, __LINE__)
