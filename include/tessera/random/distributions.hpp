// The seven built-in distributions of ts::random (docs/random.md): uniform, normal, lognormal,
// exponential, bernoulli, integers, gamma. Each is a plain-data object (value_type, epb,
// TESSERA_HD element(words, slot, site)) that philox_array<D> (philox_array.hpp) turns into the
// element functor of a random array; the generator's factories (generator.hpp) fill in their
// parameters. They are written from the building blocks of conversions.hpp, exactly as a
// distribution defined outside the library would be (docs/random.md, "Your own distribution").
#pragma once
#include <cstdint>
#include <type_traits>

#include "../config.hpp"
#include "../core/host_isa.hpp"
#include "box_muller_avx2.hpp"
#include "box_muller_avx512.hpp"
#include "conversions.hpp"
#include "math.hpp"
#include "philox.hpp"

TESSERA_BATCH_DIAGNOSTICS_BEGIN  // config.hpp: gcc false positives in batch code

namespace tessera::random {

// ---------------------------------------------------------------------------------------------
// Distributions (the `distribution` concept, philox_array.hpp). Each has value_type, epb
// (elements per block) and
//   TESSERA_HD value_type element(const u32x4& w, int slot, const site& s) const
// and may define host `blocks(x, y, z, w, nb, out, first)` filling nb * epb elements of nb
// consecutive blocks (faster than slot-wise element calls), `first` being the first element's
// site, host `lanes` (strided batches) and device `pair` (two elements from one transform).

/// Uniform on [low, high): low + (high - low) u, u with 53 (double) or 24 (float) bits; a
/// rounded result equal to high is replaced by the largest value below high.
template <class T>
struct uniform_dist {
  static_assert(std::is_floating_point_v<T>);
  using value_type = T;
  static constexpr int epb = std::is_same_v<T, double> ? 2 : 4;
  T low = 0, width = 1, high = 1, below_high = 0;
  TESSERA_HD TESSERA_INLINE T map(T u) const {
    const T r = math::fmad(u, width, low), top = below_high;
    return r < high ? r : top;
  }
  TESSERA_HD TESSERA_INLINE T element(const u32x4& w, int slot, const site&) const {
    if constexpr (epb == 2) return map(conv::u53(w.v[2 * slot], w.v[2 * slot + 1]));
    else return map(conv::u24(w.v[slot]));
  }
  void blocks(const std::uint32_t* x, const std::uint32_t* y, const std::uint32_t* z,
              const std::uint32_t* w, int nb, T* __restrict out, const site&) const {
    for (int j = 0; j < nb; ++j) {
      if constexpr (epb == 2) {
        out[2 * j] = map(conv::u53(x[j], y[j]));
        out[2 * j + 1] = map(conv::u53(z[j], w[j]));
      } else {
        out[4 * j] = map(conv::u24(x[j]));
        out[4 * j + 1] = map(conv::u24(y[j]));
        out[4 * j + 2] = map(conv::u24(z[j]));
        out[4 * j + 3] = map(conv::u24(w[j]));
      }
    }
  }
};

/// Normal(loc, scale) by Box-Muller: double, one block per pair (elements 2p, 2p + 1 = r cos,
/// r sin); float, one block per two pairs (words 2j, 2j + 1 feed elements 4b + 2j, 4b + 2j + 1).
/// These are the distribution's element numbers: in the array, pairs are two apart (array
/// element i is element swap_low_bits(i), philox_array.hpp), so [::2] selects whole pairs.
template <class T>
struct normal_dist {
  static_assert(std::is_floating_point_v<T>);
  using value_type = T;
  static constexpr int epb = std::is_same_v<T, double> ? 2 : 4;
  static constexpr bool pairs_two_apart = true;
  T loc = 0, scale = 1;
  TESSERA_HD TESSERA_INLINE T map(T z) const { return math::fmad(scale, z, loc); }
  /// The standard-normal pair that holds element `slot` of the block.
  TESSERA_HD TESSERA_INLINE static void standard_pair(const u32x4& w, int slot, T& z0, T& z1) {
    if constexpr (epb == 2) {
      conv::box_muller(w.v[0], w.v[1], w.v[2], w.v[3], z0, z1);
    } else {
      const int p = slot >> 1;
      conv::box_muller(w.v[2 * p], w.v[2 * p + 1], z0, z1);
    }
  }
  TESSERA_HD TESSERA_INLINE T element(const u32x4& w, int slot, const site&) const {
    T z0, z1;
    standard_pair(w, slot, z0, z1);
    return map(slot & 1 ? z1 : z0);
  }
  /// Elements slot and slot + 1 (slot even) of the block: both halves of one pair.
  TESSERA_HD TESSERA_INLINE void pair(const u32x4& w, int slot, T& a, T& b) const {
    T z0, z1;
    standard_pair(w, slot, z0, z1);
    a = map(z0);
    b = map(z1);
  }
  // Host batch: the squared radius and the sine/cosine of every pair, the square roots (on the
  // level's vector lanes, core/vector_sqrt.hpp: gcc keeps sqrt scalar because of errno), then
  // the products (radius_and_angle below). Same operations as element(), so bitwise the same
  // values.
  void blocks(const std::uint32_t* x, const std::uint32_t* y, const std::uint32_t* z,
              const std::uint32_t* w, int nb, T* __restrict out, const site& first) const {
    blocks_in<false>(x, y, z, w, nb, out, first);
  }
  /// blocks' elements in array order (pairs two apart), for contiguous rows: no exchange pass.
  void blocks_two_apart(const std::uint32_t* x, const std::uint32_t* y, const std::uint32_t* z,
                        const std::uint32_t* w, int nb, T* __restrict out, const site& first) const {
    blocks_in<true>(x, y, z, w, nb, out, first);
  }

  /// The elements of blocks b0, b0 + bstride, ... (nb) from Philox in registers on AVX-512 or
  /// AVX2 (box_muller_avx512.hpp, box_muller_avx2.hpp; double only), in blocks' or array order;
  /// false elsewhere.
  bool fused_blocks(philox::key k, std::uint64_t stream, std::uint64_t b0, int bstride, int nb,
                    bool two_apart, T* out) const {
#if TESSERA_X86_LEVELS
    if constexpr (std::is_same_v<T, double>) {
      const host_isa level = host_isa_in_use();
      const auto kernel = level == host_isa::avx512 ? box_muller_avx512::normals
                          : level == host_isa::avx2 ? box_muller_avx2::normals
                                                    : nullptr;
      if (kernel) {
        using box_muller_avx512::pair_order;  // (the AVX2 kernel's is the same type)
        kernel(k, stream, b0, bstride, nb, two_apart ? pair_order::two_apart : pair_order::neighbours,
               {scale, loc}, out);
        return true;
      }
    }
#else
    (void)k, (void)stream, (void)b0, (void)bstride, (void)nb, (void)two_apart, (void)out;
#endif
    return false;
  }

  // Host batch over arbitrary elements (strided views): per lane the pair its slot selects.
  void lanes(const std::uint32_t* x, const std::uint32_t* y, const std::uint32_t* z,
             const std::uint32_t* w, const std::uint64_t* idx, int n, T* __restrict out) const {
    alignas(64) T r[batch_size + 2], c[batch_size + 2], s[batch_size + 2];
    if constexpr (epb == 2) {
      radius_and_angle(x, y, z, w, n, r, s, c);
    } else {
      for (int k = 0; k < n; ++k) {
        const bool hi = idx[k] & 2u;
        r[k] = conv::radius2(hi ? z[k] : x[k]);
        conv::angle(hi ? w[k] : y[k], s[k], c[k]);
      }
      detail::sqrt_inplace(r, n);
    }
    for (int k = 0; k < n; ++k) out[k] = map(r[k] * (idx[k] & 1u ? s[k] : c[k]));
  }

 private:
  template <bool ArrayOrder>
  void blocks_in(const std::uint32_t* x, const std::uint32_t* y, const std::uint32_t* z,
                 const std::uint32_t* w, int nb, T* __restrict out, const site&) const {
    constexpr int ppb = epb / 2;  // pairs per block
    alignas(64) T r[ppb * (batch_size + 2)], c[ppb * (batch_size + 2)], s[ppb * (batch_size + 2)];
    if constexpr (ppb == 1) {
      radius_and_angle(x, y, z, w, nb, r, s, c);
    } else {  // float: pairs 2j, 2j + 1 from words (x, y), (z, w) of block j, split as double's
      alignas(64) float f[2 * (batch_size + 2)];
      alignas(64) std::uint32_t q[2 * (batch_size + 2)];
      for (int j = 0; j < nb; ++j) {
        r[2 * j] = conv::u32_open0(x[j]);
        r[2 * j + 1] = conv::u32_open0(z[j]);
      }
      for (int p = 0; p < 2 * nb; ++p) r[p] = -2.0f * math::log(r[p]);
      for (int j = 0; j < nb; ++j) {
        conv::angle_quadrant(y[j], f[2 * j], q[2 * j]);
        conv::angle_quadrant(w[j], f[2 * j + 1], q[2 * j + 1]);
      }
      sincos_and_roots(f, q, 2 * nb, r, s, c);
    }
    const int np = ppb * nb;
    if constexpr (ArrayOrder) {  // pairs p, p + 1 (p even) fill a group of four: c c s s
      for (int p = 0; p < np; p += 2) {
        out[2 * p] = map(r[p] * c[p]);
        out[2 * p + 1] = map(r[p + 1] * c[p + 1]);
        out[2 * p + 2] = map(r[p] * s[p]);
        out[2 * p + 3] = map(r[p + 1] * s[p + 1]);
      }
    } else {
      for (int p = 0; p < np; ++p) {
        out[2 * p] = map(r[p] * c[p]);
        out[2 * p + 1] = map(r[p] * s[p]);
      }
    }
  }
  // Double batches, pair j from words (x, y, z, w)[j]: the radius r[j] and the sine and cosine
  // of the angle, as box_muller's steps. The integer-heavy steps (words to uniform, angle
  // reduction) and the floating-point chains (log, sine/cosine polynomials) run as loops of
  // their own (one loop per pair had kept the out-of-order window from overlapping iterations:
  // 1.47 -> 1.24 ns per pair, Zen 5, AVX-512), and the square roots go with the sine/cosine, 32
  // at a time, where the divide/square-root unit is otherwise idle (1.02 -> 0.91 ns per pair).
  static void radius_and_angle(const std::uint32_t* x, const std::uint32_t* y, const std::uint32_t* z,
                               const std::uint32_t* w, int n, double* r, double* s, double* c) {
    alignas(64) double f[batch_size + 2];
    alignas(64) std::uint32_t q[batch_size + 2];
    for (int j = 0; j < n; ++j) r[j] = conv::u53_open0(x[j], y[j]);
    for (int j = 0; j < n; ++j) r[j] = conv::radius2_of(r[j]);
    for (int j = 0; j < n; ++j) conv::angle_quadrant(z[j], w[j], f[j], q[j]);
    sincos_and_roots(f, q, n, r, s, c);
  }
  /// s[j], c[j] = the sine and cosine of quarter turns (f[j], q[j]), and r[j] = sqrt(r[j]), j < n:
  /// 32 at a time, the roots (the divide/square-root unit) beside the polynomials.
  template <class F>
  static void sincos_and_roots(const F* f, const std::uint32_t* q, int n, F* r, F* s, F* c) {
    constexpr int piece = 32;
    int j0 = 0;
    for (; j0 + piece <= n; j0 += piece) {
      for (int j = j0; j < j0 + piece; ++j) math::sincos_quadrant(f[j], q[j], s[j], c[j]);
      detail::sqrt_inplace(r + j0, piece);
    }
    for (int j = j0; j < n; ++j) math::sincos_quadrant(f[j], q[j], s[j], c[j]);
    detail::sqrt_inplace(r + j0, n - j0);
  }
};

/// Log-normal: exp(mean + sigma z), z the standard normal of normal_dist (same words).
template <class T>
struct lognormal_dist {
  using value_type = T;
  static constexpr int epb = normal_dist<T>::epb;
  static constexpr bool pairs_two_apart = true;  // the normals' layout
  normal_dist<T> normal;  // loc = mean, scale = sigma
  TESSERA_HD TESSERA_INLINE T element(const u32x4& w, int slot, const site& s) const {
    return math::exp(normal.element(w, slot, s));
  }
  void blocks(const std::uint32_t* x, const std::uint32_t* y, const std::uint32_t* z,
              const std::uint32_t* w, int nb, T* __restrict out, const site& s) const {
    normal.blocks(x, y, z, w, nb, out, s);
    for (int k = 0; k < nb * epb; ++k) out[k] = math::exp(out[k]);
  }
  void blocks_two_apart(const std::uint32_t* x, const std::uint32_t* y, const std::uint32_t* z,
                        const std::uint32_t* w, int nb, T* __restrict out, const site& s) const {
    normal.blocks_two_apart(x, y, z, w, nb, out, s);
    for (int k = 0; k < nb * epb; ++k) out[k] = math::exp(out[k]);
  }
  bool fused_blocks(philox::key k, std::uint64_t stream, std::uint64_t b0, int bstride, int nb,
                    bool two_apart, T* out) const {
    if (!normal.fused_blocks(k, stream, b0, bstride, nb, two_apart, out)) return false;
    for (int e = 0; e < nb * epb; ++e) out[e] = math::exp(out[e]);
    return true;
  }
  void lanes(const std::uint32_t* x, const std::uint32_t* y, const std::uint32_t* z,
             const std::uint32_t* w, const std::uint64_t* idx, int n, T* __restrict out) const {
    normal.lanes(x, y, z, w, idx, n, out);
    for (int k = 0; k < n; ++k) out[k] = math::exp(out[k]);
  }
};

/// Exponential(scale): -log(u) scale, u in (0, 1] (53 bits double, 32 bits float).
template <class T>
struct exponential_dist {
  static_assert(std::is_floating_point_v<T>);
  using value_type = T;
  static constexpr int epb = std::is_same_v<T, double> ? 2 : 4;
  T scale = 1;
  TESSERA_HD TESSERA_INLINE T element(const u32x4& w, int slot, const site&) const {
    if constexpr (epb == 2) return (T(0) - math::log(conv::u53_open0(w.v[2 * slot], w.v[2 * slot + 1]))) * scale;
    else return (T(0) - math::log(conv::u32_open0(w.v[slot]))) * scale;
  }
  void blocks(const std::uint32_t* x, const std::uint32_t* y, const std::uint32_t* z,
              const std::uint32_t* w, int nb, T* __restrict out, const site&) const {
    for (int j = 0; j < nb; ++j) {
      if constexpr (epb == 2) {
        out[2 * j] = (T(0) - math::log(conv::u53_open0(x[j], y[j]))) * scale;
        out[2 * j + 1] = (T(0) - math::log(conv::u53_open0(z[j], w[j]))) * scale;
      } else {
        out[4 * j] = (T(0) - math::log(conv::u32_open0(x[j]))) * scale;
        out[4 * j + 1] = (T(0) - math::log(conv::u32_open0(y[j]))) * scale;
        out[4 * j + 2] = (T(0) - math::log(conv::u32_open0(z[j]))) * scale;
        out[4 * j + 3] = (T(0) - math::log(conv::u32_open0(w[j]))) * scale;
      }
    }
  }
};

/// Bernoulli(p) as bool: the 53-bit integer k of random<double>'s element (same words) is below
/// ceil(p 2^53), i.e. element i is exactly (random<double>(i) < p) for p with <= 53 bits.
struct bernoulli_dist {
  using value_type = bool;
  static constexpr int epb = 2;
  std::uint64_t threshold = 0;  // in [0, 2^53]
  TESSERA_HD TESSERA_INLINE static std::uint64_t k53(std::uint32_t a, std::uint32_t b) {
    return (std::uint64_t(a) << 21) | (b >> 11);
  }
  TESSERA_HD TESSERA_INLINE bool element(const u32x4& w, int slot, const site&) const {
    return k53(w.v[2 * slot], w.v[2 * slot + 1]) < threshold;
  }
  void blocks(const std::uint32_t* x, const std::uint32_t* y, const std::uint32_t* z,
              const std::uint32_t* w, int nb, bool* __restrict out, const site&) const {
    for (int j = 0; j < nb; ++j) {
      out[2 * j] = k53(x[j], y[j]) < threshold;
      out[2 * j + 1] = k53(z[j], w[j]) < threshold;
    }
  }
};

/// Integers in [low, low + range) without bias (Lemire's multiply-shift with rejection).
/// range < 2^32: try word 2i, then word 2i + 1, then the four words of block i of each retry
/// sub-stream j = 1..64. range >= 2^32: the 64-bit value (word 2i << 32 | word 2i + 1), then
/// two 64-bit values per retry block. A try is rejected with probability < 1/2 (far less for
/// most ranges), so giving up (and keeping the last, slightly biased, try) has probability
/// below 2^-129 per element.
template <class T>
struct integers_dist {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  using value_type = T;
  static constexpr int epb = 2;
  static constexpr int max_retry_blocks = 64;
  std::uint64_t low = 0;     // as two's complement
  std::uint64_t range = 1;   // high - low >= 1
  std::uint64_t thresh = 0;  // (2^bits - range) mod range: reject a try whose low part is below
  bool wide = false;         // range >= 2^32

  // 32-bit try: sets ok, returns the offset.
  TESSERA_HD TESSERA_INLINE std::uint64_t try32(std::uint32_t x, bool& ok) const {
    const std::uint64_t m = std::uint64_t(x) * std::uint32_t(range);  // 32 x 32 -> 64 bits
    ok = std::uint32_t(m) >= std::uint32_t(thresh);
    return m >> 32;
  }
  TESSERA_HD TESSERA_INLINE std::uint64_t try64(std::uint32_t a, std::uint32_t b, bool& ok) const {
    const std::uint64_t x = (std::uint64_t(a) << 32) | b;
    ok = x * range >= thresh;
    return conv::mulhi64(x, range);
  }
  TESSERA_HD TESSERA_INLINE T result(std::uint64_t off) const { return T(low + off); }

  /// Retries on the element's sub-stream after the first try(s) failed.
  TESSERA_HD std::uint64_t retry(const site& s) const {
    bool ok = false;
    std::uint64_t off = 0;
    for (int j = 1; j <= max_retry_blocks; ++j) {
      const u32x4 r = s.retry(std::uint64_t(j));
      if (!wide) {
        for (int k = 0; k < 4; ++k) {
          off = try32(r.v[k], ok);
          if (ok) return off;
        }
      } else {
        for (int k = 0; k < 2; ++k) {
          off = try64(r.v[2 * k], r.v[2 * k + 1], ok);
          if (ok) return off;
        }
      }
    }
    return off;
  }
  /// First tries from the element's own words: offset and whether one was accepted.
  TESSERA_HD TESSERA_INLINE std::uint64_t first(std::uint32_t a, std::uint32_t b, bool& ok) const {
    if (wide) return try64(a, b, ok);
    return first32(a, b, ok);
  }
  TESSERA_HD TESSERA_INLINE std::uint64_t first32(std::uint32_t a, std::uint32_t b, bool& ok) const {
    bool ok1;
    const std::uint64_t o0 = try32(a, ok);
    const std::uint64_t o1 = try32(b, ok1);
    const std::uint64_t o = ok ? o0 : o1;
    ok = ok || ok1;
    return o;
  }
  TESSERA_HD T element(const u32x4& w, int slot, const site& s) const {
    bool ok;
    std::uint64_t off = first(w.v[2 * slot], w.v[2 * slot + 1], ok);
    if (!ok) off = retry(s);
    return result(off);
  }
  void blocks(const std::uint32_t* x, const std::uint32_t* y, const std::uint32_t* z,
              const std::uint32_t* w, int nb, T* __restrict out, const site& s0) const {
    alignas(64) std::uint8_t okv[2 * (batch_size + 2)];
    if (!wide) {  // branch-free 32-bit tries: vectorizes
      const integers_dist d = *this;
      for (int j = 0; j < nb; ++j) {
        bool a, b;
        out[2 * j] = d.result(d.first32(x[j], y[j], a));
        out[2 * j + 1] = d.result(d.first32(z[j], w[j], b));
        okv[2 * j] = a;
        okv[2 * j + 1] = b;
      }
    } else {
      for (int j = 0; j < nb; ++j) {
        bool a, b;
        out[2 * j] = result(try64(x[j], y[j], a));
        out[2 * j + 1] = result(try64(z[j], w[j], b));
        okv[2 * j] = a;
        okv[2 * j + 1] = b;
      }
    }
    for (int k = 0; k < 2 * nb; ++k)
      if (!okv[k]) {
        site s = s0;
        s.index += std::uint64_t(k);
        out[k] = result(retry(s));
      }
  }
};

/// Gamma(shape k, scale) by Marsaglia and Tsang (2000), computed in double. Attempt j
/// (0 <= j < 20) of element i uses block A = block i of subsequence stream | 2j << 48 (j = 0:
/// the stream itself): a standard normal x (Box-Muller cosine), and block B = block i of
/// subsequence stream | (2j + 1) << 48: words 0-1 the acceptance uniform, words 2-3 the
/// uniform U of the k < 1 boost gamma(k + 1) U^(1/k). An attempt is accepted with probability
/// >= 0.95, so 20 attempts all fail with probability < 1e-26; the element is then d * scale.
template <class T>
struct gamma_dist {
  static_assert(std::is_floating_point_v<T>);
  using value_type = T;
  static constexpr int epb = 1;
  static constexpr int max_attempts = 20;
  double shape = 1, scale = 1, d = 2.0 / 3, c = 0;  // d = k' - 1/3, c = 1 / sqrt(9 d)
  bool boost = false;                               // shape < 1
  /// The parameters for shape k >= 0 and scale theta >= 0.
  TESSERA_HD static gamma_dist of(double k, double theta) {
    gamma_dist g;
    g.shape = k;
    g.scale = theta;
    g.boost = k < 1;
    g.d = (g.boost ? k + 1 : k) - 1.0 / 3;
    g.c = 1 / math::sqrt(9 * g.d);
    return g;
  }
  /// Retry sub-streams 1 .. 39 (and the element's own block w); sample_at(s, base) uses
  /// base .. base + 39 instead, so a distribution built from several gammas gives each its own.
  TESSERA_HD double sample(const u32x4& a0, const site& s) const { return draw(&a0, s, 0); }
  TESSERA_HD double sample_at(const site& s, std::uint64_t base) const { return draw(nullptr, s, base); }

 private:
  TESSERA_HD double draw(const u32x4* first, const site& s, std::uint64_t base) const {
    if (shape == 0 || scale == 0) return 0.0;
    for (int j = 0; j < max_attempts; ++j) {
      const u32x4 a = j == 0 && first ? *first : s.retry(base + std::uint64_t(2 * j));
      double x, unused;
      conv::box_muller(a.v[0], a.v[1], a.v[2], a.v[3], x, unused);
      const double t = math::fmad(c, x, 1.0);
      if (!(t > 0)) continue;
      const double v = t * t * t;
      const u32x4 b = s.retry(base + std::uint64_t(2 * j + 1));
      const double u = conv::u53_open0(b.v[0], b.v[1]);
      // accept iff log u < x^2 / 2 + d (1 - v + log v)
      const double rhs = math::fmad(0.5 * x, x, d * ((1.0 - v) + math::log(v)));
      if (math::log(u) < rhs) {
        double g = d * v;
        if (boost) g *= math::exp(math::log(conv::u53_open0(b.v[2], b.v[3])) / shape);
        return g * scale;
      }
    }
    return d * scale;
  }

 public:
  TESSERA_HD T element(const u32x4& w, int, const site& s) const { return T(sample(w, s)); }
};

}  // namespace tessera::random

TESSERA_BATCH_DIAGNOSTICS_END
