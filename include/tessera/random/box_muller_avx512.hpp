// Double normals on AVX-512 in registers: Philox4x32-10 of 48 blocks, then the Box-Muller
// transform of their words (conversions.hpp's box_muller, math.hpp's log and sine/cosine) and
// the normal's map, without writing the words to memory. The host twin, for one CPU level, of
// the element code written once for host and device: bitwise the same values (tests compare it
// with conv::box_muller on chosen words and with the per-element path on every level).
//
// Why a twin: the generic host batch (Philox words to arrays, then one loop per step of the
// transform, which gcc vectorizes one 8-lane vector at a time) ran at about half the rate its
// operation count allows on a Zen 5 core (counted from the code: this VM has no performance
// counters); each step's chain is long (Philox's round 7 cycles, the log's divide and
// polynomial about 60 by the instruction latencies). Here every step runs on six vectors side
// by side: Philox and transform of a block (two normals) 1.71 -> 1.39 ns on one Zen 5 core,
// seed-003 (b) about 15% faster.
#pragma once
#include <cassert>
#include <cstdint>

#include "../config.hpp"
#include "../core/host_isa.hpp"
#include "philox.hpp"

#if TESSERA_X86_LEVELS
#include <immintrin.h>

TESSERA_BATCH_DIAGNOSTICS_BEGIN  // config.hpp: gcc false positives in batch code

namespace tessera::random::box_muller_avx512 {

/// Where the pairs go: `two_apart` is array order for pairs two apart (blocks b, b + 1 give the
/// group of four cos_b, cos_b+1, sin_b, sin_b+1; b even), `neighbours` is each pair's cosine then
/// its sine (the distribution's element order: blocks, a stride-2 view's lines).
enum class pair_order { two_apart, neighbours };

/// Normal parameters: element = fma(scale, z, loc), as normal_dist::map.
struct affine {
  double scale = 1, loc = 0;
};

/// The transform's polynomials, highest degree first, shared by this kernel and its AVX2 twin
/// (box_muller_avx2.hpp): math.hpp's log_scaled_times (the log of the mantissa and ln 2 in two
/// parts) and sincos_quadrant (sine and cosine of the angle's fraction).
namespace polynomial {
inline constexpr double log[] = {0.07397974850291429, 0.07657025276056356, 0.09091782163059837,
                                 0.11111099286592262, 0.1428571437119381,  0.19999999999707338,
                                 0.3333333333333367};
inline constexpr double ln2_hi = 0.6931467056274414, ln2_lo = 4.7493250390316726e-07;
inline constexpr double sine[] = {5.6337210129122454e-08, -3.5986417544520816e-06, 0.00016044115029165178,
                                  -0.004681754132282418,  0.07969262624603957,     -0.6459640975062443,
                                  1.5707963267948966};
inline constexpr double cosine[] = {-6.321202059033249e-09, 4.710609669257883e-07,  -2.5202036788285655e-05,
                                    0.0009192602741910664,  -0.02086348076331257,   0.2536695079010468,
                                    -1.2337005501361697};
}  // namespace polynomial

TESSERA_ISA_BEGIN_AVX512
namespace detail {

TESSERA_INLINE __m512d broadcast(double x) { return _mm512_set1_pd(x); }
TESSERA_INLINE __m512i broadcast64(std::uint64_t x) { return _mm512_set1_epi64(std::int64_t(x)); }

/// The normals of K vectors of blocks, 8 blocks each, whose words are xy = x 2^32 + y and
/// zw = z 2^32 + w in 64-bit lanes: 16 K doubles from `out` on, of which
/// the first 2 min(valid, 8 K) are written (the elements of the first `valid` blocks, in
/// either order). Each step is written once per vector, the K vectors side by side.
///
/// On Zen 4 (512-bit operations on 256-bit units) the kernel retires about 1.5 vector
/// operations per cycle whatever their kind (measured: the multiplies, fused multiply-adds and
/// two-source permutes share two units, adds and shifts two others, div and sqrt their own), so
/// every operation saved counts: the 2^-53 goes into the exponent, the angle's fraction is built
/// as a double's mantissa, -4 s by adds, and the quadrant stays a vector whose top bits carry
/// the signs onto r (mask registers, eight of them, were spilled through general registers at
/// K = 6: the blends and masked sign flips cost 5.6 cycles per vector). Same bits.
template <int K>
TESSERA_INLINE void transform(const __m512i* xy, const __m512i* zw, int valid, pair_order order,
                              affine a, double* out) {
  __m512d s[K], ed[K], f[K];
  __m512i quadrant[K];  // q's two bits at the top: bit 63 = q & 2, bit 62 = q & 1
  // u = (k + 1) 2^-53 in (0, 1], k = x 2^21 + (y >> 11): conv::u53_open0 (exact either way).
  // k + 1 is converted exactly and the 2^-53 is taken out of the exponent below (53 more).
  for (int i = 0; i < K; ++i) {
    const __m512i k53 = _mm512_srli_epi64(xy[i], 11);
    const __m512d k1 = _mm512_cvtepu64_pd(_mm512_add_epi64(k53, broadcast64(1)));
    // math::log_scaled_times<-2>(u, 0): exponent and mantissa, s = f / (2 + f)
    const __m512i t = _mm512_add_epi64(_mm512_castpd_si512(k1), broadcast64(0x00095F619980C433ull));
    const __m512i e = _mm512_srli_epi64(t, 52);
    const __m512d m = _mm512_castsi512_pd(_mm512_add_epi64(
        _mm512_and_si512(t, broadcast64(0x000FFFFFFFFFFFFFull)), broadcast64(0x3FE6A09E667F3BCDull)));
    const __m512d fm = _mm512_sub_pd(m, broadcast(1.0));
    s[i] = _mm512_div_pd(fm, _mm512_add_pd(broadcast(2.0), fm));
    ed[i] = _mm512_sub_pd(_mm512_castsi512_pd(_mm512_or_si512(e, broadcast64(0x4330000000000000ull))),
                          broadcast(0x1p52 + 1023.0 + 53.0));
  }
  // conv::angle_quadrant(z, w) on y = z 2^32 + w: with y' = y + 2^61 (mod 2^64), its top two
  // bits are q = (z + 2^29) >> 30 (its low two bits), and its bits 11..61 are t,
  // f = (t - 2^50) 2^-51 = rem 2^-30 + (w >> 11) 2^-51, exact as the scalar sum
  for (int i = 0; i < K; ++i) {
    const __m512i y = _mm512_add_epi64(zw[i], broadcast64(1ull << 61));
    // t as the mantissa of a double in [2, 4): 2 + t 2^-51, minus 2.5
    const __m512i two_plus = _mm512_ternarylogic_epi64(_mm512_srli_epi64(y, 11), broadcast64((1ull << 51) - 1),
                                                       broadcast64(0x4000000000000000ull), 0xEA);  // a & b | c
    f[i] = _mm512_sub_pd(_mm512_castsi512_pd(two_plus), broadcast(2.5));
    quadrant[i] = y;
  }
  // the log's polynomial, then r = sqrt(-2 log u)
  __m512d z[K], p[K], r[K];
  for (int i = 0; i < K; ++i) {
    z[i] = _mm512_mul_pd(s[i], s[i]);
    p[i] = broadcast(polynomial::log[0]);
  }
  for (int d = 1; d < 7; ++d)
    for (int i = 0; i < K; ++i) p[i] = _mm512_fmadd_pd(p[i], z[i], broadcast(polynomial::log[d]));
  for (int i = 0; i < K; ++i) {
    const __m512d s2 = _mm512_add_pd(s[i], s[i]);
    const __m512d s4 = _mm512_add_pd(s2, s2);  // 4 s, exact
    const __m512d lm = _mm512_fnmsub_pd(s4, _mm512_mul_pd(z[i], p[i]), s4);  // fma(-4 s, z p, -4 s)
    r[i] = _mm512_sqrt_pd(_mm512_fmadd_pd(ed[i], broadcast(-2 * polynomial::ln2_hi),
                                          _mm512_fmadd_pd(ed[i], broadcast(-2 * polynomial::ln2_lo), lm)));
  }
  // math::sincos_quadrant(f, q)
  __m512d ps[K], pc[K];
  for (int i = 0; i < K; ++i) {
    z[i] = _mm512_mul_pd(f[i], f[i]);
    ps[i] = broadcast(polynomial::sine[0]);
    pc[i] = broadcast(polynomial::cosine[0]);
  }
  for (int d = 1; d < 7; ++d)
    for (int i = 0; i < K; ++i) {
      ps[i] = _mm512_fmadd_pd(ps[i], z[i], broadcast(polynomial::sine[d]));
      pc[i] = _mm512_fmadd_pd(pc[i], z[i], broadcast(polynomial::cosine[d]));
    }
  // the pair r cos, r sin, mapped, stored in the requested order
  const __m512d scale = broadcast(a.scale), loc = broadcast(a.loc);
  const __m512i sign = broadcast64(1ull << 63);
  const __m512i first = order == pair_order::two_apart ? _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0)
                                                       : _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
  const __m512i second = order == pair_order::two_apart ? _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4)
                                                        : _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
  for (int i = 0; i < K; ++i) {
    const __m512d sp = _mm512_mul_pd(ps[i], f[i]), cp = _mm512_fmadd_pd(pc[i], z[i], broadcast(1.0));
    const __mmask8 swap = _mm512_test_epi64_mask(quadrant[i], broadcast64(1ull << 62));  // q & 1
    const __m512d ss = _mm512_mask_blend_pd(swap, sp, cp), cc = _mm512_mask_blend_pd(swap, cp, sp);
    // the signs go on r (r (-c) and (-r) c are the same product): the sine's is q & 2, the
    // cosine's (q + 1) & 2 (the sum's carry into bit 63)
    const __m512i radius = _mm512_castpd_si512(r[i]);
    const __m512d rs = _mm512_castsi512_pd(_mm512_ternarylogic_epi64(radius, quadrant[i], sign, 0x78));  // a ^ (b & c)
    const __m512d rc = _mm512_castsi512_pd(_mm512_ternarylogic_epi64(
        radius, _mm512_add_epi64(quadrant[i], broadcast64(1ull << 62)), sign, 0x78));
    // (explicit fused multiply-adds: a product then an add may be contracted by the compiler)
    const __m512d zc = _mm512_fmadd_pd(scale, _mm512_mul_pd(rc, cc), loc);
    const __m512d zs = _mm512_fmadd_pd(scale, _mm512_mul_pd(rs, ss), loc);
    const __m512d lo = _mm512_permutex2var_pd(zc, first, zs), hi = _mm512_permutex2var_pd(zc, second, zs);
    const int left = 2 * (valid - 8 * i);  // elements of this vector to write
    if (left >= 16) {
      _mm512_storeu_pd(out + 16 * i, lo);
      _mm512_storeu_pd(out + 16 * i + 8, hi);
    } else if (left > 0) {  // (no pointer formed past the end of out)
      const unsigned bits = (1u << left) - 1;
      _mm512_mask_storeu_pd(out + 16 * i, __mmask8(bits), lo);
      if (left > 8) _mm512_mask_storeu_pd(out + 16 * i + 8, __mmask8(bits >> 8), hi);
    }
  }
}

/// Philox of U vectors of blocks b0 + (8 u + l) bstride, transformed: the normals of the first
/// `valid` blocks.
template <int U>
TESSERA_INLINE void group(philox::key k, std::uint64_t stream, std::uint64_t b0, int bstride,
                          int valid, pair_order order, affine a, double* out) {
  const __m512i step = _mm512_mullo_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
                                          broadcast64(std::uint64_t(bstride)));
  __m512i c0[U], c1[U], c2[U], c3[U];
  const std::uint64_t last = b0 + std::uint64_t(8 * U - 1) * std::uint64_t(bstride);
  if (last >= b0 && (last >> 32) == (b0 >> 32)) {  // one high word: rounds 0 and 1 cheaper
    __m512i lo[U];
    for (int u = 0; u < U; ++u)
      lo[u] = _mm512_add_epi64(broadcast64(b0 + std::uint64_t(8 * u * bstride)), step);
    philox::avx512::first_two_rounds_uniform_high<U>(k, lo, std::uint32_t(b0 >> 32), std::uint32_t(stream),
                                                     std::uint32_t(stream >> 32), c0, c1, c2, c3);
  } else {
    for (int u = 0; u < U; ++u) {
      const __m512i b = _mm512_add_epi64(broadcast64(b0 + std::uint64_t(8 * u * bstride)), step);
      c0[u] = b;  // the high half is ignored by the multiply
      c1[u] = _mm512_srli_epi64(b, 32);
      c2[u] = broadcast64(std::uint32_t(stream));
      c3[u] = broadcast64(std::uint32_t(stream >> 32));
    }
    philox::avx512::rounds_in_lanes_between<U>(k, 0, 2, c0, c1, c2, c3);
  }
  philox::avx512::rounds_in_lanes_between<U>(k, 2, philox::rounds - 1, c0, c1, c2, c3);
  __m512i xy[U], zw[U];
  philox::avx512::last_round_combined<U>(k, c0, c1, c2, c3, xy, zw);
  transform<U>(xy, zw, valid, order, a, out);
}

}  // namespace detail

/// The 2 nb standard normals of Box-Muller pairs b0, b0 + bstride, ..., b0 + (nb - 1) bstride
/// (one Philox block each: (seed key, stream) as philox::at), mapped by `a`, into out[0 .. 2 nb)
/// in `order` (two_apart: b0 and nb even, bstride 1, as groups of four need). Groups of 48
/// blocks (6 vectors), the rest in groups of 32, 16 and 8 with the blocks past nb computed and
/// not written. Call only where host_isa_in_use() is host_isa::avx512.
TESSERA_LEAF_NOINLINE inline void normals(philox::key k, std::uint64_t stream, std::uint64_t b0,
                                          int bstride, int nb, pair_order order, affine a,
                                          double* out) {
  assert(order != pair_order::two_apart || (b0 % 2 == 0 && nb % 2 == 0 && bstride == 1));
  int j = 0;
  const std::uint64_t s = std::uint64_t(bstride);
  for (; nb - j > 32; j += 48)
    detail::group<6>(k, stream, b0 + std::uint64_t(j) * s, bstride, nb - j, order, a, out + 2 * j);
  if (nb - j > 16) {
    detail::group<4>(k, stream, b0 + std::uint64_t(j) * s, bstride, nb - j, order, a, out + 2 * j);
    j += 32;
  }
  if (nb - j > 8)
    detail::group<2>(k, stream, b0 + std::uint64_t(j) * s, bstride, nb - j, order, a, out + 2 * j);
  else if (nb - j > 0)
    detail::group<1>(k, stream, b0 + std::uint64_t(j) * s, bstride, nb - j, order, a, out + 2 * j);
}

/// The transform alone, of words x[j], y[j], z[j], w[j] (j < nb): what normals() does after
/// Philox. For tests (words chosen at the edges: u = 2^-53 and 1, quadrant boundaries).
TESSERA_LEAF_NOINLINE inline void normals_of_words(const std::uint32_t* x, const std::uint32_t* y,
                                                   const std::uint32_t* z, const std::uint32_t* w,
                                                   int nb, pair_order order, affine a, double* out) {
  for (int j = 0; j < nb; j += 16) {
    __m512i xy[2], zw[2];
    for (int i = 0; i < 2; ++i) {
      const int m = nb - j - 8 * i;
      if (m <= 0) {  // (no pointer formed past the end of the words)
        xy[i] = zw[i] = _mm512_setzero_si512();
        continue;
      }
      const __mmask8 mask = m >= 8 ? __mmask8(0xFF) : __mmask8((1u << m) - 1);
      const int at = j + 8 * i;
      xy[i] = _mm512_or_si512(_mm512_slli_epi64(_mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(mask, x + at)), 32),
                              _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(mask, y + at)));
      zw[i] = _mm512_or_si512(_mm512_slli_epi64(_mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(mask, z + at)), 32),
                              _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(mask, w + at)));
    }
    detail::transform<2>(xy, zw, nb - j, order, a, out + 2 * j);
  }
}
TESSERA_ISA_END

}  // namespace tessera::random::box_muller_avx512

TESSERA_BATCH_DIAGNOSTICS_END
#endif  // TESSERA_X86_LEVELS
