// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11), written
// once for host and device, with the counter laid out as cuRAND's device API lays out
// curandStatePhilox4_32_10_t after curand_init(seed, subsequence, offset):
//
//   key     = { seed & 0xffffffff, seed >> 32 }
//   counter = { c0, c1, c2, c3 } with c0 | c1 << 32 = offset / 4       (the "block")
//                                    c2 | c3 << 32 = subsequence
//   curand() returns word (offset % 4) of philox(counter, key): x, y, z, w for 0, 1, 2, 3.
//
// So the raw 32-bit word at (seed, subsequence, offset) here equals the first curand() after
// curand_init(seed, subsequence, offset, &state) on the device (docs/random.md).
#pragma once
#include <cstdint>

#include "../config.hpp"
#include "../core/host_isa.hpp"

#if TESSERA_X86_LEVELS
#include <immintrin.h>
#endif

TESSERA_BATCH_DIAGNOSTICS_BEGIN  // config.hpp: gcc false positives in batch code

namespace tessera::random {

/// Four 32-bit words: a Philox counter or output block (x, y, z, w = v[0..3]).
struct u32x4 {
  std::uint32_t v[4];
};

namespace philox {

inline constexpr std::uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;  // round multipliers
inline constexpr std::uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;  // Weyl key increments
inline constexpr int rounds = 10;

/// Philox4x32-10 of counter (c0..c3) under key (k0, k1): the Random123 / cuRAND bijection.
TESSERA_HD inline u32x4 block(std::uint32_t c0, std::uint32_t c1, std::uint32_t c2,
                              std::uint32_t c3, std::uint32_t k0, std::uint32_t k1) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int r = 0; r < rounds; ++r) {
    const std::uint64_t p0 = std::uint64_t(M0) * c0;
    const std::uint64_t p1 = std::uint64_t(M1) * c2;
    const std::uint32_t n0 = std::uint32_t(p1 >> 32) ^ c1 ^ k0;
    const std::uint32_t n1 = std::uint32_t(p1);
    const std::uint32_t n2 = std::uint32_t(p0 >> 32) ^ c3 ^ k1;
    const std::uint32_t n3 = std::uint32_t(p0);
    c0 = n0;
    c1 = n1;
    c2 = n2;
    c3 = n3;
    k0 += W0;
    k1 += W1;
  }
  return {{c0, c1, c2, c3}};
}

/// Generator key of a 64-bit seed (cuRAND: key.x = low half, key.y = high half).
struct key {
  std::uint32_t k0 = 0, k1 = 0;
  TESSERA_HD static key of_seed(std::uint64_t seed) {
    return {std::uint32_t(seed), std::uint32_t(seed >> 32)};
  }
};

/// Philox output at (block = offset / 4, subsequence) under key: the block cuRAND's state holds
/// after curand_init(seed, subsequence, 4 * block).
TESSERA_HD inline u32x4 at(key k, std::uint64_t subsequence, std::uint64_t blk) {
  return block(std::uint32_t(blk), std::uint32_t(blk >> 32), std::uint32_t(subsequence),
               std::uint32_t(subsequence >> 32), k.k0, k.k1);
}

#if TESSERA_X86_LEVELS
// The vector lanes of batch(), once per level, each compiled for its own level and chosen at run
// time: the same body (philox_lanes.inc) over 4 SSE2 or 8 AVX2 32-bit lanes; AVX-512 its own.
namespace sse2 {
using vec = __m128i;
inline constexpr int lanes = 4;
TESSERA_INLINE vec load(const std::uint32_t* p) { return _mm_loadu_si128((const __m128i*)p); }
TESSERA_INLINE void store(std::uint32_t* p, vec v) { _mm_storeu_si128((__m128i*)p, v); }
TESSERA_INLINE vec set1(std::uint32_t a) { return _mm_set1_epi32(int(a)); }
TESSERA_INLINE vec add(vec a, vec b) { return _mm_add_epi32(a, b); }
TESSERA_INLINE vec xor3(vec a, vec b, vec c) { return _mm_xor_si128(_mm_xor_si128(a, b), c); }
// lo = low halves of a * m (32-bit lanes), hi = high halves; m holds the multiplier in all lanes.
TESSERA_INLINE vec mulhilo(vec a, vec m, vec& hi) {
  const vec pe = _mm_mul_epu32(a, m);
  const vec po = _mm_mul_epu32(_mm_srli_epi64(a, 32), m);
  const vec high = _mm_set1_epi64x(std::int64_t(0xFFFFFFFF00000000ull));
  hi = _mm_or_si128(_mm_srli_epi64(pe, 32), _mm_and_si128(po, high));
  return _mm_or_si128(_mm_andnot_si128(high, pe), _mm_slli_epi64(po, 32));
}
#include "philox_lanes.inc"
}  // namespace sse2

TESSERA_ISA_BEGIN_AVX2
namespace avx2 {
using vec = __m256i;
inline constexpr int lanes = 8;
TESSERA_INLINE vec load(const std::uint32_t* p) { return _mm256_loadu_si256((const __m256i*)p); }
TESSERA_INLINE void store(std::uint32_t* p, vec v) { _mm256_storeu_si256((__m256i*)p, v); }
TESSERA_INLINE vec set1(std::uint32_t a) { return _mm256_set1_epi32(int(a)); }
TESSERA_INLINE vec add(vec a, vec b) { return _mm256_add_epi32(a, b); }
TESSERA_INLINE vec xor3(vec a, vec b, vec c) { return _mm256_xor_si256(_mm256_xor_si256(a, b), c); }
TESSERA_INLINE vec mulhilo(vec a, vec m, vec& hi) {
  const vec pe = _mm256_mul_epu32(a, m);
  const vec po = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m);
  hi = _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
  return _mm256_blend_epi32(pe, _mm256_slli_epi64(po, 32), 0xAA);
}
#include "philox_lanes.inc"
}  // namespace avx2
TESSERA_ISA_END

TESSERA_ISA_BEGIN_AVX512
namespace avx512 {
// AVX-512 keeps each block's words in 64-bit lanes (8 blocks per vector, zero-extended):
// _mm512_mul_epu32 reads only the low 32 bits of a lane and gives the whole 64-bit product, so a
// round is 2 multiplies, 2 shifts and 2 three-way xors with no lane shuffling (the high halves
// of a lane are ignored until the words are narrowed on the way out). 20% faster than 16
// 32-bit lanes on Zen 4; same words.

/// Rounds first .. last - 1 of the ten on U vectors of counters, words in the low halves of
/// 64-bit lanes (the high halves are ignored and left as garbage). Round r's key is
/// (k0 + r W0, k1 + r W1).
template <int U>
TESSERA_INLINE void rounds_in_lanes_between(key k, int first, int last, __m512i* c0, __m512i* c1,
                                            __m512i* c2, __m512i* c3) {
  const __m512i m0 = _mm512_set1_epi64(M0), m1 = _mm512_set1_epi64(M1);
  std::uint32_t k0 = k.k0 + std::uint32_t(first) * W0, k1 = k.k1 + std::uint32_t(first) * W1;
  for (int r = first; r < last; ++r) {
    const __m512i v0 = _mm512_set1_epi64(std::int64_t(k0)), v1 = _mm512_set1_epi64(std::int64_t(k1));
    for (int u = 0; u < U; ++u) {
      const __m512i p0 = _mm512_mul_epu32(c0[u], m0);
      const __m512i p1 = _mm512_mul_epu32(c2[u], m1);
      c0[u] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1, 32), c1[u], v0, 0x96);
      c1[u] = p1;
      c2[u] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p0, 32), c3[u], v1, 0x96);
      c3[u] = p0;
    }
    k0 += W0;
    k1 += W1;
  }
}

/// Round 9, the last, of U vectors of counters after rounds 0..8, giving each block's words as
/// two 64-bit lanes: xy = x 2^32 + y and zw = z 2^32 + w. The product M1 c2 is already
/// hi(p1) 2^32 + lo(p1), so xy = p1 ^ ((c1 ^ k0) << 32) (and zw likewise): no shift to bring
/// the high half down and none to put it back up.
template <int U>
TESSERA_INLINE void last_round_combined(key k, const __m512i* c0, const __m512i* c1, const __m512i* c2,
                                        const __m512i* c3, __m512i* xy, __m512i* zw) {
  const __m512i m0 = _mm512_set1_epi64(M0), m1 = _mm512_set1_epi64(M1);
  const std::uint32_t k0 = k.k0 + std::uint32_t(rounds - 1) * W0, k1 = k.k1 + std::uint32_t(rounds - 1) * W1;
  const __m512i v0 = _mm512_set1_epi64(std::int64_t(std::uint64_t(k0) << 32));
  const __m512i v1 = _mm512_set1_epi64(std::int64_t(std::uint64_t(k1) << 32));
  for (int u = 0; u < U; ++u) {
    xy[u] = _mm512_ternarylogic_epi64(_mm512_mul_epu32(c2[u], m1), _mm512_slli_epi64(c1[u], 32), v0, 0x96);
    zw[u] = _mm512_ternarylogic_epi64(_mm512_mul_epu32(c0[u], m0), _mm512_slli_epi64(c3[u], 32), v1, 0x96);
  }
}

/// The ten rounds: c0..c3 become the blocks' words.
template <int U>
TESSERA_INLINE void rounds_in_lanes(key k, __m512i* c0, __m512i* c1, __m512i* c2, __m512i* c3) {
  rounds_in_lanes_between<U>(k, 0, rounds, c0, c1, c2, c3);
}

/// Rounds 0 and 1 of counters (lo[u], c1, c2, c3) whose last three words are the same in every
/// lane (a run of blocks within one 2^32 of counters, one stream): what rounds_in_lanes_between
/// (k, 0, 2) gives, with the words that stay uniform computed once (round 0's second product,
/// round 1's first): 7 vector operations per vector instead of 12. c0..c3 receive the state.
template <int U>
TESSERA_INLINE void first_two_rounds_uniform_high(key k, const __m512i* lo, std::uint32_t c1,
                                                  std::uint32_t c2, std::uint32_t c3, __m512i* c0_out,
                                                  __m512i* c1_out, __m512i* c2_out, __m512i* c3_out) {
  const __m512i m0 = _mm512_set1_epi64(M0), m1 = _mm512_set1_epi64(M1);
  // round 0: p1 = M1 c2 is uniform, so the new c0 and c1 are
  const std::uint64_t p1 = std::uint64_t(M1) * c2;
  const std::uint32_t a0 = std::uint32_t(p1 >> 32) ^ c1 ^ k.k0, a1 = std::uint32_t(p1);
  // round 1: p0 = M0 a0 is uniform as well
  const std::uint32_t k0 = k.k0 + W0, k1 = k.k1 + W1;
  const std::uint64_t p0 = std::uint64_t(M0) * a0;
  const __m512i x_c0 = _mm512_set1_epi64(std::int64_t(a1 ^ k0));                          // with hi(p1')
  const __m512i x_c2 = _mm512_set1_epi64(std::int64_t(std::uint32_t(p0 >> 32) ^ k1));      // with c3'
  const __m512i x_r0 = _mm512_set1_epi64(std::int64_t(c3 ^ k.k1));                         // round 0's c2
  for (int u = 0; u < U; ++u) {
    const __m512i q0 = _mm512_mul_epu32(lo[u], m0);                           // round 0's p0
    const __m512i b2 = _mm512_xor_si512(_mm512_srli_epi64(q0, 32), x_r0);     // round 0's new c2
    const __m512i q1 = _mm512_mul_epu32(b2, m1);                              // round 1's p1
    c0_out[u] = _mm512_xor_si512(_mm512_srli_epi64(q1, 32), x_c0);
    c1_out[u] = q1;
    c2_out[u] = _mm512_xor_si512(q0, x_c2);  // hi(p0') ^ c3' ^ k1, c3' = q0 (its low half)
    c3_out[u] = _mm512_set1_epi64(std::int64_t(std::uint32_t(p0)));
  }
}

template <int U, bool Masked>
TESSERA_INLINE void group(key k, std::uint32_t s0, std::uint32_t s1, const std::uint32_t* lo,
                          const std::uint32_t* hi, int n, std::uint32_t* x, std::uint32_t* y,
                          std::uint32_t* z, std::uint32_t* w) {
  constexpr int lanes = 8;
  __m512i c0[U], c1[U], c2[U], c3[U];
  for (int u = 0; u < U; ++u) {
    if constexpr (Masked) {  // U == 1, n <= 8
      const __mmask8 mask = __mmask8((1u << n) - 1);
      c0[u] = _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(mask, lo));
      c1[u] = _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(mask, hi));
    } else {
      c0[u] = _mm512_cvtepu32_epi64(_mm256_loadu_si256((const __m256i*)(lo + u * lanes)));
      c1[u] = _mm512_cvtepu32_epi64(_mm256_loadu_si256((const __m256i*)(hi + u * lanes)));
    }
    c2[u] = _mm512_set1_epi64(std::int64_t(s0));
    c3[u] = _mm512_set1_epi64(std::int64_t(s1));
  }
  rounds_in_lanes<U>(k, c0, c1, c2, c3);
  if constexpr (Masked) {
    const __mmask8 mask = __mmask8((1u << n) - 1);
    _mm512_mask_cvtepi64_storeu_epi32(x, mask, c0[0]);
    _mm512_mask_cvtepi64_storeu_epi32(y, mask, c1[0]);
    _mm512_mask_cvtepi64_storeu_epi32(z, mask, c2[0]);
    _mm512_mask_cvtepi64_storeu_epi32(w, mask, c3[0]);
  } else {
    static_assert(U % 2 == 0);
    // the low words of two vectors' lanes, in order
    const __m512i low = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    for (int u = 0; u < U; u += 2) {
      _mm512_storeu_si512(x + u * lanes, _mm512_permutex2var_epi32(c0[u], low, c0[u + 1]));
      _mm512_storeu_si512(y + u * lanes, _mm512_permutex2var_epi32(c1[u], low, c1[u + 1]));
      _mm512_storeu_si512(z + u * lanes, _mm512_permutex2var_epi32(c2[u], low, c2[u + 1]));
      _mm512_storeu_si512(w + u * lanes, _mm512_permutex2var_epi32(c3[u], low, c3[u + 1]));
    }
  }
}

// A round's chain (multiply, shift, xor) is 7 cycles on Zen 5, so 4 vectors in flight left the
// pipes idle (25 cycles per 8 blocks): groups of 6 vectors (48 blocks) reach 20, then groups of
// 4 and 2 and one masked vector take the rest (a 128-block batch: 48 + 48 + 32). Pairs of
// vectors are narrowed by one two-source permute and a whole store (half the stores of a
// narrowing store per vector).
inline int batch_lanes(key k, std::uint32_t s0, std::uint32_t s1, const std::uint32_t* lo,
                       const std::uint32_t* hi, int n, std::uint32_t* x, std::uint32_t* y,
                       std::uint32_t* z, std::uint32_t* w) {
  int j = 0;
  for (; j + 48 <= n; j += 48) group<6, false>(k, s0, s1, lo + j, hi + j, 48, x + j, y + j, z + j, w + j);
  if (j + 32 <= n) {
    group<4, false>(k, s0, s1, lo + j, hi + j, 32, x + j, y + j, z + j, w + j);
    j += 32;
  }
  if (j + 16 <= n) {
    group<2, false>(k, s0, s1, lo + j, hi + j, 16, x + j, y + j, z + j, w + j);
    j += 16;
  }
  for (; j < n; j += 8)  // the rest, eight blocks (or fewer, masked) at a time
    group<1, true>(k, s0, s1, lo + j, hi + j, n - j < 8 ? n - j : 8, x + j, y + j, z + j, w + j);
  return n;
}
}  // namespace avx512
TESSERA_ISA_END
#endif

/// Host batch: blocks lo[j] | hi[j] << 32 (j < n) of one subsequence, as four word arrays
/// (structure of arrays). SSE2 / AVX2 / AVX-512 lanes at the level in use (core/host_isa.hpp),
/// block() for the rest. Every level gives the same words. Not inlined into the kernel copies
/// (it is its own dispatcher: TESSERA_LEAF_NOINLINE).
TESSERA_LEAF_NOINLINE inline void batch(key k, std::uint64_t subsequence, const std::uint32_t* lo,
                  const std::uint32_t* hi, int n, std::uint32_t* x, std::uint32_t* y,
                  std::uint32_t* z, std::uint32_t* w) {
  const std::uint32_t s0 = std::uint32_t(subsequence), s1 = std::uint32_t(subsequence >> 32);
  int j = 0;
#if TESSERA_X86_LEVELS
  switch (host_isa_in_use()) {
    case host_isa::avx512: j = avx512::batch_lanes(k, s0, s1, lo, hi, n, x, y, z, w); break;
    case host_isa::avx2: j = avx2::batch_lanes(k, s0, s1, lo, hi, n, x, y, z, w); break;
    default: j = sse2::batch_lanes(k, s0, s1, lo, hi, n, x, y, z, w); break;
  }
#endif
  for (; j < n; ++j) {
    const u32x4 b = block(lo[j], hi[j], s0, s1, k.k0, k.k1);
    x[j] = b.v[0];
    y[j] = b.v[1];
    z[j] = b.v[2];
    w[j] = b.v[3];
  }
}

}  // namespace philox
}  // namespace tessera::random

TESSERA_BATCH_DIAGNOSTICS_END
