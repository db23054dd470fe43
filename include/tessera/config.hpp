// Basic configuration shared by host and device code.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define TESSERA_HD __host__ __device__
#else
#define TESSERA_HD
#endif

#define TESSERA_INLINE inline __attribute__((always_inline))

// Placed in an outer loop's body, outside its inner loop: keeps GCC's -O3 unroll-and-jam from
// fusing two outer iterations into one inner loop (host code that reads a row per outer
// iteration; jammed, the second row was read through per-element address arithmetic). An empty
// asm statement: no instruction, no memory clobber.
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
#define TESSERA_NO_UNROLL_AND_JAM() __asm__ volatile("")
#else
#define TESSERA_NO_UNROLL_AND_JAM() ((void)0)
#endif

// gcc 12 -Wall reports its own AVX-512 intrinsics (_mm512_undefined_*) and batch arrays filled
// up to the count used as maybe-uninitialized: false positives. Headers with such batch code
// (random/) bracket it with these two.
#if defined(__GNUC__) && !defined(__clang__)
#define TESSERA_BATCH_DIAGNOSTICS_BEGIN \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
#define TESSERA_BATCH_DIAGNOSTICS_END _Pragma("GCC diagnostic pop")
#else
#define TESSERA_BATCH_DIAGNOSTICS_BEGIN
#define TESSERA_BATCH_DIAGNOSTICS_END
#endif

namespace tessera {

/// Signed index type used for shapes, chunk lengths and element indices.
using index_t = std::int64_t;

/// Largest number of dimensions an array may have. Index vectors are fixed-capacity so they can
/// live inside device kernels without heap use.
inline constexpr int max_rank = 8;

/// Number of elements a host line evaluator produces per batch (`fill`).
inline constexpr index_t batch_size = 256;

}  // namespace tessera
