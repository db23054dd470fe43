// Double normals on AVX2 in registers: box_muller_avx512.hpp's kernel for CPUs without AVX-512
// (Intel client cores, AMD before Zen 4), four blocks per 256-bit vector. Philox4x32-10 keeps each
// block's words in 64-bit lanes (`_mm256_mul_epu32` gives the whole product of the low halves),
// then the Box-Muller transform and the normal's map run on the words without writing them to
// memory. The same operations, in the same order, as the AVX-512 twin and conv::box_muller, so
// bitwise the same values (tests/dispatch_levels.cpp runs both kernels' checks).
//
// What AVX2 lacks is built from plain operations with the same results: the unsigned 64-bit to
// double conversion (k + 1 <= 2^53: two exact halves, one exact add), the three-way xor and
// and-or (two operations each), the masked blends (`blendv` on the sign bit) and masked stores (a
// buffer for the last vector of a call). Generic host batch on a Zen 4 core forced to AVX2:
// 1.142 s for seed-003 (b), one thread; this kernel: see docs/random.md.
#pragma once
#include <cassert>
#include <cstdint>
#include <cstring>

#include "../config.hpp"
#include "../core/host_isa.hpp"
#include "box_muller_avx512.hpp"
#include "philox.hpp"

#if TESSERA_X86_LEVELS
#include <immintrin.h>

TESSERA_BATCH_DIAGNOSTICS_BEGIN  // config.hpp: gcc false positives in batch code

namespace tessera::random::box_muller_avx2 {

/// The twin's output order and normal map (box_muller_avx512.hpp).
using pair_order = box_muller_avx512::pair_order;
using affine = box_muller_avx512::affine;
namespace polynomial = box_muller_avx512::polynomial;

TESSERA_ISA_BEGIN_AVX2
namespace detail {

TESSERA_INLINE __m256d broadcast(double x) { return _mm256_set1_pd(x); }
TESSERA_INLINE __m256i broadcast64(std::uint64_t x) { return _mm256_set1_epi64x(std::int64_t(x)); }
TESSERA_INLINE __m256i xor3(__m256i a, __m256i b, __m256i c) {
  return _mm256_xor_si256(_mm256_xor_si256(a, b), c);
}

/// Philox rounds first .. last - 1 on U vectors of counters, words in the low halves of 64-bit
/// lanes (high halves ignored): philox::avx512::rounds_in_lanes_between on four lanes.
template <int U>
TESSERA_INLINE void rounds_between(philox::key k, int first, int last, __m256i* c0, __m256i* c1,
                                   __m256i* c2, __m256i* c3) {
  const __m256i m0 = broadcast64(philox::M0), m1 = broadcast64(philox::M1);
  std::uint32_t k0 = k.k0 + std::uint32_t(first) * philox::W0, k1 = k.k1 + std::uint32_t(first) * philox::W1;
  for (int r = first; r < last; ++r) {
    const __m256i v0 = broadcast64(k0), v1 = broadcast64(k1);
    for (int u = 0; u < U; ++u) {
      const __m256i p0 = _mm256_mul_epu32(c0[u], m0);
      const __m256i p1 = _mm256_mul_epu32(c2[u], m1);
      c0[u] = xor3(_mm256_srli_epi64(p1, 32), c1[u], v0);
      c1[u] = p1;
      c2[u] = xor3(_mm256_srli_epi64(p0, 32), c3[u], v1);
      c3[u] = p0;
    }
    k0 += philox::W0;
    k1 += philox::W1;
  }
}

/// Rounds 0 and 1 when the counters' last three words are the same in every lane:
/// philox::avx512::first_two_rounds_uniform_high on four lanes.
template <int U>
TESSERA_INLINE void first_two_rounds_uniform_high(philox::key k, const __m256i* lo, std::uint32_t c1,
                                                  std::uint32_t c2, std::uint32_t c3, __m256i* c0_out,
                                                  __m256i* c1_out, __m256i* c2_out, __m256i* c3_out) {
  const __m256i m0 = broadcast64(philox::M0), m1 = broadcast64(philox::M1);
  const std::uint64_t p1 = std::uint64_t(philox::M1) * c2;
  const std::uint32_t a0 = std::uint32_t(p1 >> 32) ^ c1 ^ k.k0, a1 = std::uint32_t(p1);
  const std::uint32_t k0 = k.k0 + philox::W0, k1 = k.k1 + philox::W1;
  const std::uint64_t p0 = std::uint64_t(philox::M0) * a0;
  const __m256i x_c0 = broadcast64(a1 ^ k0);
  const __m256i x_c2 = broadcast64(std::uint32_t(p0 >> 32) ^ k1);
  const __m256i x_r0 = broadcast64(c3 ^ k.k1);
  for (int u = 0; u < U; ++u) {
    const __m256i q0 = _mm256_mul_epu32(lo[u], m0);
    const __m256i b2 = _mm256_xor_si256(_mm256_srli_epi64(q0, 32), x_r0);
    const __m256i q1 = _mm256_mul_epu32(b2, m1);
    c0_out[u] = _mm256_xor_si256(_mm256_srli_epi64(q1, 32), x_c0);
    c1_out[u] = q1;
    c2_out[u] = _mm256_xor_si256(q0, x_c2);
    c3_out[u] = broadcast64(std::uint32_t(p0));
  }
}

/// Round 9 giving xy = x 2^32 + y and zw = z 2^32 + w: philox::avx512::last_round_combined.
template <int U>
TESSERA_INLINE void last_round_combined(philox::key k, const __m256i* c0, const __m256i* c1,
                                        const __m256i* c2, const __m256i* c3, __m256i* xy, __m256i* zw) {
  const __m256i m0 = broadcast64(philox::M0), m1 = broadcast64(philox::M1);
  const std::uint32_t k0 = k.k0 + std::uint32_t(philox::rounds - 1) * philox::W0;
  const std::uint32_t k1 = k.k1 + std::uint32_t(philox::rounds - 1) * philox::W1;
  const __m256i v0 = broadcast64(std::uint64_t(k0) << 32), v1 = broadcast64(std::uint64_t(k1) << 32);
  for (int u = 0; u < U; ++u) {
    xy[u] = xor3(_mm256_mul_epu32(c2[u], m1), _mm256_slli_epi64(c1[u], 32), v0);
    zw[u] = xor3(_mm256_mul_epu32(c0[u], m0), _mm256_slli_epi64(c3[u], 32), v1);
  }
}

/// The normals of K vectors of blocks, 4 blocks each (words xy, zw as above): 8 K doubles from
/// `out` on, of which the first 2 min(valid, 4 K) are written. box_muller_avx512's transform,
/// step for step.
template <int K>
TESSERA_INLINE void transform(const __m256i* xy, const __m256i* zw, int valid, pair_order order,
                              affine a, double* out) {
  __m256d s[K], ed[K], f[K];
  __m256i quadrant[K];  // bit 63 = q & 2, bit 62 = q & 1
  for (int i = 0; i < K; ++i) {
    // u = (k + 1) 2^-53, k + 1 <= 2^53 converted exactly as (hi 2^32) + lo (both exact, and
    // their sum is k + 1, a double): what _mm512_cvtepu64_pd gives
    const __m256i k1i = _mm256_add_epi64(_mm256_srli_epi64(xy[i], 11), broadcast64(1));
    const __m256d hi = _mm256_sub_pd(
        _mm256_castsi256_pd(_mm256_or_si256(_mm256_srli_epi64(k1i, 32), broadcast64(0x4530000000000000ull))),
        broadcast(0x1p84));
    const __m256d lo = _mm256_sub_pd(
        _mm256_castsi256_pd(_mm256_blend_epi32(broadcast64(0x4330000000000000ull), k1i, 0x55)), broadcast(0x1p52));
    const __m256d k1 = _mm256_add_pd(hi, lo);
    const __m256i t = _mm256_add_epi64(_mm256_castpd_si256(k1), broadcast64(0x00095F619980C433ull));
    const __m256i e = _mm256_srli_epi64(t, 52);
    const __m256d m = _mm256_castsi256_pd(_mm256_add_epi64(
        _mm256_and_si256(t, broadcast64(0x000FFFFFFFFFFFFFull)), broadcast64(0x3FE6A09E667F3BCDull)));
    const __m256d fm = _mm256_sub_pd(m, broadcast(1.0));
    s[i] = _mm256_div_pd(fm, _mm256_add_pd(broadcast(2.0), fm));
    ed[i] = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(e, broadcast64(0x4330000000000000ull))),
                          broadcast(0x1p52 + 1023.0 + 53.0));
  }
  for (int i = 0; i < K; ++i) {
    const __m256i y = _mm256_add_epi64(zw[i], broadcast64(1ull << 61));
    const __m256i two_plus = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi64(y, 11), broadcast64((1ull << 51) - 1)),
                                             broadcast64(0x4000000000000000ull));
    f[i] = _mm256_sub_pd(_mm256_castsi256_pd(two_plus), broadcast(2.5));
    quadrant[i] = y;
  }
  __m256d z[K], p[K], r[K];
  for (int i = 0; i < K; ++i) {
    z[i] = _mm256_mul_pd(s[i], s[i]);
    p[i] = broadcast(polynomial::log[0]);
  }
  for (int d = 1; d < 7; ++d)
    for (int i = 0; i < K; ++i) p[i] = _mm256_fmadd_pd(p[i], z[i], broadcast(polynomial::log[d]));
  for (int i = 0; i < K; ++i) {
    const __m256d s2 = _mm256_add_pd(s[i], s[i]);
    const __m256d s4 = _mm256_add_pd(s2, s2);
    const __m256d lm = _mm256_fnmsub_pd(s4, _mm256_mul_pd(z[i], p[i]), s4);
    r[i] = _mm256_sqrt_pd(_mm256_fmadd_pd(ed[i], broadcast(-2 * polynomial::ln2_hi),
                                          _mm256_fmadd_pd(ed[i], broadcast(-2 * polynomial::ln2_lo), lm)));
  }
  __m256d ps[K], pc[K];
  for (int i = 0; i < K; ++i) {
    z[i] = _mm256_mul_pd(f[i], f[i]);
    ps[i] = broadcast(polynomial::sine[0]);
    pc[i] = broadcast(polynomial::cosine[0]);
  }
  for (int d = 1; d < 7; ++d)
    for (int i = 0; i < K; ++i) {
      ps[i] = _mm256_fmadd_pd(ps[i], z[i], broadcast(polynomial::sine[d]));
      pc[i] = _mm256_fmadd_pd(pc[i], z[i], broadcast(polynomial::cosine[d]));
    }
  const __m256d scale = broadcast(a.scale), loc = broadcast(a.loc);
  const __m256i sign = broadcast64(1ull << 63);
  for (int i = 0; i < K; ++i) {
    const __m256d sp = _mm256_mul_pd(ps[i], f[i]), cp = _mm256_fmadd_pd(pc[i], z[i], broadcast(1.0));
    const __m256d swap = _mm256_castsi256_pd(_mm256_slli_epi64(quadrant[i], 1));  // sign bit: q & 1
    const __m256d ss = _mm256_blendv_pd(sp, cp, swap), cc = _mm256_blendv_pd(cp, sp, swap);
    const __m256i radius = _mm256_castpd_si256(r[i]);
    const __m256d rs = _mm256_castsi256_pd(_mm256_xor_si256(radius, _mm256_and_si256(quadrant[i], sign)));
    const __m256d rc = _mm256_castsi256_pd(
        _mm256_xor_si256(radius, _mm256_and_si256(_mm256_add_epi64(quadrant[i], broadcast64(1ull << 62)), sign)));
    // (explicit fused multiply-adds: a product then an add may be contracted by the compiler)
    const __m256d zc = _mm256_fmadd_pd(scale, _mm256_mul_pd(rc, cc), loc);
    const __m256d zs = _mm256_fmadd_pd(scale, _mm256_mul_pd(rs, ss), loc);
    __m256d lo, hi;
    if (order == pair_order::two_apart) {  // blocks b, b + 1: c_b, c_b+1, s_b, s_b+1
      lo = _mm256_permute2f128_pd(zc, zs, 0x20);
      hi = _mm256_permute2f128_pd(zc, zs, 0x31);
    } else {  // c_b, s_b, c_b+1, s_b+1
      const __m256d even = _mm256_unpacklo_pd(zc, zs), odd = _mm256_unpackhi_pd(zc, zs);
      lo = _mm256_permute2f128_pd(even, odd, 0x20);
      hi = _mm256_permute2f128_pd(even, odd, 0x31);
    }
    const int left = 2 * (valid - 4 * i);  // elements of this vector to write
    if (left >= 8) {
      _mm256_storeu_pd(out + 8 * i, lo);
      _mm256_storeu_pd(out + 8 * i + 4, hi);
    } else if (left > 0) {  // (no pointer formed past the end of out)
      alignas(32) double tail[8];
      _mm256_store_pd(tail, lo);
      _mm256_store_pd(tail + 4, hi);
      std::memcpy(out + 8 * i, tail, std::size_t(left) * sizeof(double));
    }
  }
}

/// Philox of U vectors of blocks b0 + (4 u + l) bstride, transformed: the normals of the first
/// `valid` blocks.
template <int U>
TESSERA_INLINE void group(philox::key k, std::uint64_t stream, std::uint64_t b0, int bstride,
                          int valid, pair_order order, affine a, double* out) {
  const std::uint64_t s = std::uint64_t(bstride);
  const __m256i step = _mm256_set_epi64x(std::int64_t(3 * s), std::int64_t(2 * s), std::int64_t(s), 0);
  __m256i c0[U], c1[U], c2[U], c3[U];
  const std::uint64_t last = b0 + std::uint64_t(4 * U - 1) * s;
  if (last >= b0 && (last >> 32) == (b0 >> 32)) {  // one high word: rounds 0 and 1 cheaper
    __m256i lo[U];
    for (int u = 0; u < U; ++u) lo[u] = _mm256_add_epi64(broadcast64(b0 + std::uint64_t(4 * u) * s), step);
    first_two_rounds_uniform_high<U>(k, lo, std::uint32_t(b0 >> 32), std::uint32_t(stream),
                                     std::uint32_t(stream >> 32), c0, c1, c2, c3);
  } else {
    for (int u = 0; u < U; ++u) {
      const __m256i b = _mm256_add_epi64(broadcast64(b0 + std::uint64_t(4 * u) * s), step);
      c0[u] = b;  // the high half is ignored by the multiply
      c1[u] = _mm256_srli_epi64(b, 32);
      c2[u] = broadcast64(std::uint32_t(stream));
      c3[u] = broadcast64(std::uint32_t(stream >> 32));
    }
    rounds_between<U>(k, 0, 2, c0, c1, c2, c3);
  }
  rounds_between<U>(k, 2, philox::rounds - 1, c0, c1, c2, c3);
  __m256i xy[U], zw[U];
  last_round_combined<U>(k, c0, c1, c2, c3, xy, zw);
  transform<U>(xy, zw, valid, order, a, out);
}

}  // namespace detail

/// box_muller_avx512::normals on AVX2: the 2 nb normals of Box-Muller pairs b0, b0 + bstride,
/// ... (nb), mapped by `a`, into out[0 .. 2 nb) in `order`. Groups of 16 blocks (4 vectors),
/// the rest in groups of 8 and 4 with the blocks past nb computed and not written. Call only
/// where host_isa_in_use() is host_isa::avx2 or above.
TESSERA_LEAF_NOINLINE inline void normals(philox::key k, std::uint64_t stream, std::uint64_t b0,
                                          int bstride, int nb, pair_order order, affine a,
                                          double* out) {
  assert(order != pair_order::two_apart || (b0 % 2 == 0 && nb % 2 == 0 && bstride == 1));
  int j = 0;
  const std::uint64_t s = std::uint64_t(bstride);
  for (; nb - j > 8; j += 16)  // (groups of 2 or 3 vectors: 16-18% slower, Zen 4 as AVX2)
    detail::group<4>(k, stream, b0 + std::uint64_t(j) * s, bstride, nb - j, order, a, out + 2 * j);
  if (nb - j > 4)
    detail::group<2>(k, stream, b0 + std::uint64_t(j) * s, bstride, nb - j, order, a, out + 2 * j);
  else if (nb - j > 0)
    detail::group<1>(k, stream, b0 + std::uint64_t(j) * s, bstride, nb - j, order, a, out + 2 * j);
}

/// The transform alone, of words x[j], y[j], z[j], w[j] (j < nb): for tests.
TESSERA_LEAF_NOINLINE inline void normals_of_words(const std::uint32_t* x, const std::uint32_t* y,
                                                   const std::uint32_t* z, const std::uint32_t* w,
                                                   int nb, pair_order order, affine a, double* out) {
  for (int j = 0; j < nb; j += 8) {
    __m256i xy[2], zw[2];
    for (int i = 0; i < 2; ++i) {
      alignas(32) std::uint64_t pxy[4] = {}, pzw[4] = {};
      for (int l = 0; l < 4 && j + 4 * i + l < nb; ++l) {
        const int at = j + 4 * i + l;
        pxy[l] = std::uint64_t(x[at]) << 32 | y[at];
        pzw[l] = std::uint64_t(z[at]) << 32 | w[at];
      }
      xy[i] = _mm256_load_si256(reinterpret_cast<const __m256i*>(pxy));
      zw[i] = _mm256_load_si256(reinterpret_cast<const __m256i*>(pzw));
    }
    detail::transform<2>(xy, zw, nb - j, order, a, out + 2 * j);
  }
}
TESSERA_ISA_END

}  // namespace tessera::random::box_muller_avx2

TESSERA_BATCH_DIAGNOSTICS_END
#endif  // TESSERA_X86_LEVELS
