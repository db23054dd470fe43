// Basic configuration shared by host and device code.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define TESSERA_HD __host__ __device__
#else
#define TESSERA_HD
#endif

#define TESSERA_INLINE inline __attribute__((always_inline))

namespace tessera {

/// Signed index type used for shapes, chunk lengths and element indices.
using index_t = std::int64_t;

/// Largest number of dimensions an array may have. Index vectors are fixed-capacity so they can
/// live inside device kernels without heap use.
inline constexpr int max_rank = 8;

/// Number of elements a host line evaluator produces per batch (`fill`).
inline constexpr index_t batch_size = 256;

}  // namespace tessera
