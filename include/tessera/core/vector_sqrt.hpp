// Square roots of a whole array on the host's vector lanes: gcc keeps a scalar sqrt (and a call
// for negative inputs) in loops because of errno, so batches that need many square roots (the
// random module's Box-Muller radii, ts::sqrt's batches) take them here, at the host level in use
// (core/host_isa.hpp), so that a plain x86-64 build gets AVX2 / AVX-512 square roots. IEEE
// square roots: the same values as libm's.
#pragma once
#include <math.h>

#include "../config.hpp"
#include "host_isa.hpp"

#if TESSERA_X86_LEVELS
#include <immintrin.h>
#endif
#if !defined(__CUDACC__) && !TESSERA_X86_LEVELS && __has_include(<xsimd/xsimd.hpp>)
#include <xsimd/xsimd.hpp>
#define TESSERA_VECTOR_SQRT_XSIMD 1
#else
#define TESSERA_VECTOR_SQRT_XSIMD 0
#endif

TESSERA_BATCH_DIAGNOSTICS_BEGIN  // config.hpp: gcc false positives in batch code

namespace tessera::host_math {
namespace detail {
#if TESSERA_X86_LEVELS
// Square roots over vector lanes at each host level (gcc keeps a scalar sqrt in loops because
// of errno): the level in use picks one, so a plain x86-64 build gets AVX-512 square roots.
TESSERA_ISA_BEGIN_AVX512
// (the masked forms with every lane set: GCC 12's _mm512_sqrt_pd passes an "undefined" vector
// that -Wuninitialized reports once these loops are inlined with a constant n)
inline int sqrt_lanes_avx512(double* p, int n) {
  int k = 0;
  for (; k + 8 <= n; k += 8) {
    const __m512d v = _mm512_loadu_pd(p + k);
    _mm512_storeu_pd(p + k, _mm512_mask_sqrt_pd(v, __mmask8(0xFF), v));
  }
  return k;
}
inline int sqrt_lanes_avx512(float* p, int n) {
  int k = 0;
  for (; k + 16 <= n; k += 16) {
    const __m512 v = _mm512_loadu_ps(p + k);
    _mm512_storeu_ps(p + k, _mm512_mask_sqrt_ps(v, __mmask16(0xFFFF), v));
  }
  return k;
}
TESSERA_ISA_END
TESSERA_ISA_BEGIN_AVX2
inline int sqrt_lanes_avx2(double* p, int n) {
  int k = 0;
  for (; k + 4 <= n; k += 4) _mm256_storeu_pd(p + k, _mm256_sqrt_pd(_mm256_loadu_pd(p + k)));
  return k;
}
inline int sqrt_lanes_avx2(float* p, int n) {
  int k = 0;
  for (; k + 8 <= n; k += 8) _mm256_storeu_ps(p + k, _mm256_sqrt_ps(_mm256_loadu_ps(p + k)));
  return k;
}
TESSERA_ISA_END
inline int sqrt_lanes_sse2(double* p, int n) {
  int k = 0;
  for (; k + 2 <= n; k += 2) _mm_storeu_pd(p + k, _mm_sqrt_pd(_mm_loadu_pd(p + k)));
  return k;
}
inline int sqrt_lanes_sse2(float* p, int n) {
  int k = 0;
  for (; k + 4 <= n; k += 4) _mm_storeu_ps(p + k, _mm_sqrt_ps(_mm_loadu_ps(p + k)));
  return k;
}
#endif
}  // namespace detail

/// p[k] = sqrt(p[k]) for k < n (host). IEEE square roots, on vector lanes of the level in use
/// (x86-64), else with xsimd when present.
template <class T>
inline void sqrt_inplace(T* p, int n) {
  int k = 0;
#if TESSERA_X86_LEVELS
  switch (host_isa_in_use()) {
    case host_isa::avx512: k = detail::sqrt_lanes_avx512(p, n); break;
    case host_isa::avx2: k = detail::sqrt_lanes_avx2(p, n); break;
    default: k = detail::sqrt_lanes_sse2(p, n); break;
  }
#elif TESSERA_VECTOR_SQRT_XSIMD
  using B = xsimd::batch<T>;
  for (; k + int(B::size) <= n; k += int(B::size))
    xsimd::sqrt(B::load_unaligned(p + k)).store_unaligned(p + k);
#endif
  for (; k < n; ++k) p[k] = ::sqrt(p[k]);
}

}  // namespace tessera::host_math

TESSERA_BATCH_DIAGNOSTICS_END
