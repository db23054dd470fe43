// The distribution contract and the element functor of random arrays.
//
// A distribution D (built in: distributions.hpp; or the user's own, docs/random.md, "Your own
// distribution") is plain data with value_type, epb (elements per Philox block) and
//   TESSERA_HD value_type element(const u32x4& words, int slot, const site& s) const
// Element i of an array of D on (key, stream) is d.element(block i / epb of subsequence
// stream, i % epb, site{key, stream, i}). Optional members make it faster, with the same bits:
// host `blocks` (contiguous batches) and `lanes` (strided batches), device `pair`.
//
// philox_array<D> is that element function of the flat index, a pure function of
// (key, stream, flat); a ts::generated<philox_array<D>> leaf wraps it (nodes/generated.hpp).
// A distribution whose elements come in pairs (normals: Box-Muller) may declare
// `pairs_two_apart`: then array element i is D's element swap_low_bits(i), so that D's pair
// (2p, 2p + 1) sits at array elements 4g + {0, 2} or 4g + {1, 3} and a stride-2 view selects
// both halves of every pair it touches (docs/random.md, "Pairs two apart").
#pragma once
#include <algorithm>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../config.hpp"
#include "../core/promote.hpp"
#include "conversions.hpp"
#include "philox.hpp"

TESSERA_BATCH_DIAGNOSTICS_BEGIN  // config.hpp: gcc false positives in batch code

namespace tessera::random {

/// A distribution of random arrays: what generator::draw and philox_array accept.
///  - `D::value_type`: an element type of the library (tessera::element: arithmetic, not char,
///    not long double);
///  - `D::epb`: elements per Philox block (four 32-bit words), 1, 2 or 4;
///  - plain data: trivially copyable (it is copied into every task and kernel) and semiregular
///    (default-constructible and assignable: give the parameters default member initializers);
///  - `d.element(words, slot, site)` (const) returns the element: `words` is block i / epb of the
///    array's stream, `slot` is i % epb, `site` locates element i (site.retry(j) for rejection
///    samplers). It must be TESSERA_HD for device backends.
template <class D>
concept distribution =
    requires { typename D::value_type; } && tessera::element<typename D::value_type> &&
    requires { { D::epb } -> std::convertible_to<int>; } &&
    (D::epb == 1 || D::epb == 2 || D::epb == 4) &&
    std::is_trivially_copyable_v<D> && std::semiregular<D> &&
    requires(const D& d, const u32x4& words, int slot, const site& s) {
      { d.element(words, slot, s) } -> std::same_as<typename D::value_type>;
    };

namespace detail {
template <class>
inline constexpr bool dependent_false = false;

/// Compile-time explanation of why D is not a distribution: a static_assert naming the first
/// requirement D misses (used by generator::draw's fallback overload).
template <class D>
constexpr void explain_distribution() {
  if constexpr (!requires { typename D::value_type; })
    static_assert(dependent_false<D>,
                  "ts::random::distribution: D needs a member type `value_type` (the element type)");
  else if constexpr (!tessera::element<typename D::value_type>)
    static_assert(dependent_false<D>,
                  "ts::random::distribution: D::value_type must be an element type of the library "
                  "(arithmetic, not char, not long double)");
  else if constexpr (!requires { { D::epb } -> std::convertible_to<int>; })
    static_assert(dependent_false<D>,
                  "ts::random::distribution: D needs `static constexpr int epb` (elements per "
                  "Philox block: 1, 2 or 4)");
  else if constexpr (!(D::epb == 1 || D::epb == 2 || D::epb == 4))
    static_assert(dependent_false<D>, "ts::random::distribution: D::epb must be 1, 2 or 4");
  else if constexpr (!std::is_trivially_copyable_v<D>)
    static_assert(dependent_false<D>,
                  "ts::random::distribution: D must be trivially copyable (plain data: no "
                  "pointers to owned memory, no user-defined copy or destructor)");
  else if constexpr (!std::semiregular<D>)
    static_assert(dependent_false<D>,
                  "ts::random::distribution: D must be default-constructible and assignable "
                  "(no const or reference members; give parameters default initializers)");
  else if constexpr (!requires(const D& d, const u32x4& w, int slot, const site& s) {
                       d.element(w, slot, s);
                     })
    static_assert(dependent_false<D>,
                  "ts::random::distribution: D needs a const member `value_type element(const "
                  "u32x4& words, int slot, const site& s) const` (TESSERA_HD for device backends)");
  else if constexpr (!distribution<D>)
    static_assert(dependent_false<D>,
                  "ts::random::distribution: D::element(words, slot, site) must return exactly "
                  "D::value_type");
}

/// Optional host batch members (docs/random.md): blocks(x, y, z, w, nb, out, first) fills the
/// nb * epb elements of nb consecutive blocks (words x[j], y[j], z[j], w[j] of block j, `first`
/// the site of the first block's slot 0); lanes(x, y, z, w, idx, n, out) fills element idx[k]
/// from the words of its own block (block idx[k] / epb) for k < n.
template <class D>
concept has_blocks = requires(const D& d, const std::uint32_t* p, typename D::value_type* o,
                              const site& s) { d.blocks(p, p, p, p, 1, o, s); };
/// Optional with pairs_two_apart: blocks_two_apart(x, y, z, w, nb, out, first) fills what blocks
/// fills, in array order (each group of four elements with its middle two exchanged).
template <class D>
concept has_blocks_two_apart = requires(const D& d, const std::uint32_t* p, typename D::value_type* o,
                                        const site& s) { d.blocks_two_apart(p, p, p, p, 1, o, s); };
/// Optional host member fused_blocks(key, stream, b0, bstride, nb, two_apart, out) -> bool: the
/// elements of blocks b0, b0 + bstride, ... (nb of them) into out, in blocks' order or (two_apart,
/// with pairs_two_apart) array order, from D's own Philox-and-transform kernel for the CPU level
/// in use; false (nothing written) where it has none. Bitwise what blocks gives. Consulted only
/// where D has blocks (and, for two_apart, blocks_two_apart), in their place.
template <class D>
concept has_fused_blocks = requires(const D& d, philox::key k, std::uint64_t u, typename D::value_type* o) {
  { d.fused_blocks(k, u, u, 1, 1, true, o) } -> std::same_as<bool>;
};
template <class D>
concept has_lanes = requires(const D& d, const std::uint32_t* p, const std::uint64_t* i,
                             typename D::value_type* o) { d.lanes(p, p, p, p, i, 1, o); };
/// Optional layout member `static constexpr bool pairs_two_apart = true`: D makes its elements
/// in pairs (2p, 2p + 1) (it has `pair`) and array element i is D's element swap_low_bits(i).
/// D's `blocks`, if any, must not depend on the blocks being consecutive (its `first` site is
/// then only the first block's): stride-2 views call it on every other block.
template <class D>
concept pairs_two_apart = requires { D::pairs_two_apart; } && bool(D::pairs_two_apart);
}  // namespace detail

/// i with bits 0 and 1 exchanged (an involution): the array-to-distribution element order of
/// pairs_two_apart distributions.
TESSERA_HD constexpr std::uint64_t swap_low_bits(std::uint64_t i) {
  return (i & ~std::uint64_t(3)) | ((i & 1u) << 1) | ((i >> 1) & 1u);
}

/// The element functor of a random array: element `flat` of distribution D on (key, stream).
template <distribution D>
struct philox_array {
  using value_type = typename D::value_type;
  static constexpr bool batched = true;
  static constexpr int epb = D::epb;
  static constexpr bool two_apart = detail::pairs_two_apart<D>;
  /// Distance between the two array elements of a pair (nodes/generated.hpp, paired_fn).
  static constexpr int pair_gap = two_apart ? 2 : 1;
  philox::key key;
  std::uint64_t stream = 0;
  D dist;

  /// D's element index of array element i.
  TESSERA_HD static std::uint64_t order(std::uint64_t i) {
    if constexpr (two_apart) return swap_low_bits(i);
    else return i;
  }

  TESSERA_HD value_type operator()(index_t flat) const {
    const std::uint64_t i = order(std::uint64_t(flat));
    const u32x4 w = philox::at(key, stream, i / epb);
    return dist.element(w, int(i % epb), site{key, stream, i});
  }
  /// Elements flat and flat + pair_gap (flat the first of a pair: even, or with bit 1 clear when
  /// pairs are two apart) from one Philox block and one transform, when the distribution makes
  /// two at once (normal: a Box-Muller pair). Bitwise as operator().
  TESSERA_HD void pair(index_t flat, value_type& a, value_type& b) const
    requires requires(const D& d, const u32x4& w, value_type& v) { d.pair(w, 0, v, v); }
  {
    const std::uint64_t i = order(std::uint64_t(flat));
    dist.pair(philox::at(key, stream, i / epb), int(i % epb), a, b);
  }

  /// out[k] = (*this)(flat0 + k * dflat), k < n: Philox on lanes, then the transform.
  /// One function per CPU level (core/host_isa.hpp, run_host_leaf), called by the kernels.
  void fill(index_t flat0, index_t dflat, index_t n, value_type* out) const {
    tessera::detail::run_host_leaf([&] { fill_here(flat0, dflat, n, out); });
  }

 private:
  // Each heavy piece (Philox lanes, the distribution's blocks) has one call site here: the
  // leaf copies inline everything they call.
  void fill_here(index_t flat0, index_t dflat, index_t n, value_type* out) const {
    alignas(64) value_type r[max_blocks * epb];
    while (n > 0) {
      const int m = int(std::min<index_t>(n, batch_size));
      if (dflat == 1 || (stride2_blocks && dflat == 2)) {
        // D's elements i0, i0 + 1, ... (or, stride 2 over pairs two apart: D's elements
        // 4g + 2 (flat0 & 1) + {0, 1} for consecutive g, both elements of every other block).
        std::uint64_t i0 = std::uint64_t(flat0);
        int bstride = 1, skip = 0, len = m;
        if (dflat == 2) {
          i0 = swap_low_bits(i0);
          bstride = 2;
        } else if constexpr (two_apart) {
          // the whole groups of four that hold flat0 .. flat0 + m - 1, then the groups' middle
          // elements exchanged
          i0 &= ~std::uint64_t(3);
          skip = int(std::uint64_t(flat0) - i0);
          len = (skip + m + 3) & ~3;
        }
        value_type* v = len == m ? out : r;
        if (dflat == 1 && two_apart) {
          // whole groups of four from a group boundary: straight into array order when D can
          if constexpr (detail::has_blocks_two_apart<D>) {
            fill_contiguous<true>(i0, 1, len, v);
          } else {
            fill_contiguous(i0, 1, len, v);
            for (int q = 0; q < len; q += 4) std::swap(v[q + 1], v[q + 2]);
          }
        } else {
          fill_contiguous(i0, bstride, len, v);
        }
        if (len != m) std::copy(r + skip, r + skip + m, out);
      } else {
        fill_lanes(std::uint64_t(flat0), std::uint64_t(dflat), m, out);
      }
      flat0 += index_t(m) * dflat;
      out += m;
      n -= m;
    }
  }

  static constexpr int max_blocks = int(batch_size) + 8;
  static constexpr bool stride2_blocks = two_apart && epb == 2 && detail::has_blocks<D>;

  /// D's elements i0, i0 + 1, ..., i0 + n - 1 (bstride 1), or, with bstride 2 (epb 2), the n
  /// elements from i0 on of blocks i0 / 2, i0 / 2 + 2, i0 / 2 + 4, ... With ArrayOrder (D has
  /// blocks_two_apart; i0 and n multiples of 4, bstride 1): the same elements in array order.
  template <bool ArrayOrder = false>
  void fill_contiguous(std::uint64_t i0, int bstride, int n, value_type* out) const {
    const std::uint64_t b0 = i0 / epb;
    const int skip = int(i0 - b0 * epb);
    const int nb = (skip + n + epb - 1) / epb;
    alignas(64) std::uint32_t x[max_blocks], y[max_blocks], z[max_blocks], w[max_blocks];
    const auto words = [&] {
      alignas(64) std::uint32_t lo[max_blocks], hi[max_blocks];
      for (int j = 0; j < nb; ++j) {
        const std::uint64_t b = b0 + std::uint64_t(j) * std::uint64_t(bstride);
        lo[j] = std::uint32_t(b);
        hi[j] = std::uint32_t(b >> 32);
      }
      philox::batch(key, stream, lo, hi, nb, x, y, z, w);
    };
    // D's kernel for the CPU level in use that makes the blocks' elements from (key, stream)
    // itself (double normal and lognormal on AVX-512), else Philox words, then D's transform
    const auto fused = [&](bool two_apart_order, value_type* o) {
      if constexpr (detail::has_fused_blocks<D>)
        return dist.fused_blocks(key, stream, b0, bstride, nb, two_apart_order, o);
      else return false;
    };
    const site first{key, stream, b0 * epb};
    if constexpr (ArrayOrder) {
      if (!fused(true, out)) {
        words();
        dist.blocks_two_apart(x, y, z, w, nb, out, first);
      }
    } else if constexpr (detail::has_blocks<D>) {
      const bool aligned = skip == 0 && nb * epb == n;  // aligned: write straight into out
      alignas(64) value_type r[max_blocks * epb];
      value_type* dst = aligned ? out : r;
      if (!fused(false, dst)) {
        words();
        dist.blocks(x, y, z, w, nb, dst, first);
      }
      if (!aligned)
        for (int k = 0; k < n; ++k) out[k] = r[k + skip];
    } else {
      words();
      for (int k = 0; k < n; ++k) {
        const int e = k + skip, j = e / epb;
        out[k] = dist.element(u32x4{{x[j], y[j], z[j], w[j]}}, e % epb,
                              site{key, stream, first.index + std::uint64_t(e)});
      }
    }
  }

  void fill_lanes(std::uint64_t flat0, std::uint64_t dflat, int n, value_type* out) const {
    alignas(64) std::uint32_t lo[max_blocks], hi[max_blocks];
    alignas(64) std::uint32_t x[max_blocks], y[max_blocks], z[max_blocks], w[max_blocks];
    alignas(64) std::uint64_t idx[max_blocks];
    for (int k = 0; k < n; ++k) {
      idx[k] = order(flat0 + std::uint64_t(k) * dflat);
      const std::uint64_t b = idx[k] / epb;
      lo[k] = std::uint32_t(b);
      hi[k] = std::uint32_t(b >> 32);
    }
    philox::batch(key, stream, lo, hi, n, x, y, z, w);
    if constexpr (detail::has_lanes<D>) {
      dist.lanes(x, y, z, w, idx, n, out);
    } else {
      for (int k = 0; k < n; ++k)
        out[k] = dist.element(u32x4{{x[k], y[k], z[k], w[k]}}, int(idx[k] % epb),
                              site{key, stream, idx[k]});
    }
  }
};

}  // namespace tessera::random

TESSERA_BATCH_DIAGNOSTICS_END
