// Counter-based random permutations (the generator's permutation, choice without replacement):
// element i of a permutation of [0, n) is a keyed bijection of i, so any element is computed
// without the others (a slice of a permutation reads only what it selects), on the host or the
// device, identically for any chunking.
//
// The bijection: a balanced Feistel network of 6 rounds on 2h bits (4^h >= n, h >= 1), each
// round's function the low h bits of a Philox-4x32-10 block at (stream, round, half value);
// values at or above n walk the cycle (apply the network again) until they fall below n, which
// keeps it a bijection of [0, n) (a value needs fewer than 4 steps on average: 4^h < 4n).
#pragma once
#include <cstdint>

#include "../config.hpp"
#include "conversions.hpp"
#include "philox.hpp"

namespace tessera::random {

struct permutation_fn {
  using value_type = index_t;
  philox::key key;
  std::uint64_t stream = 0;
  std::uint64_t n = 0;
  int half_bits = 1;  // h

  static constexpr int rounds = 6;

  /// The smallest h >= 1 with 4^h >= n.
  static int half_bits_for(std::uint64_t n) {
    int h = 1;
    while (h < 32 && (std::uint64_t(1) << (2 * h)) < n) ++h;
    return h;
  }

  TESSERA_HD std::uint64_t feistel(std::uint64_t x) const {
    const std::uint64_t mask = (std::uint64_t(1) << half_bits) - 1;
    std::uint64_t l = x >> half_bits, r = x & mask;
    for (int k = 0; k < rounds; ++k) {
      // counter: round in the top byte, the half's value below (h <= 32 bits)
      const u32x4 w = philox::at(key, stream, (std::uint64_t(k) << 56) | r);
      const std::uint64_t f = ((std::uint64_t(w.v[1]) << 32) | w.v[0]) & mask;
      const std::uint64_t t = l ^ f;
      l = r;
      r = t;
    }
    return (l << half_bits) | r;
  }

  /// Element i (0 <= i < n) of the permutation.
  TESSERA_HD index_t operator()(index_t i) const {
    std::uint64_t y = feistel(std::uint64_t(i));
    while (y >= n) y = feistel(y);
    return index_t(y);
  }
};

}  // namespace tessera::random

namespace tessera::random {

/// Element i of choice(n, size): with replacement, an integer uniform on [0, n) (Lemire's
/// multiply-shift, unbiased: a rejected draw takes the next Philox block of the element);
/// without, element i of a permutation of [0, n) (i < size <= n, so all differ).
struct choice_fn {
  using value_type = index_t;
  permutation_fn perm;  // key, stream, n
  bool replace = true;

  TESSERA_HD index_t operator()(index_t i) const {
    if (!replace) return perm(i);
    const std::uint64_t n = perm.n;
    const std::uint64_t threshold = (0 - n) % n;
    for (std::uint64_t attempt = 0;; ++attempt) {
      const u32x4 w = philox::at(perm.key, perm.stream, (attempt << 56) | std::uint64_t(i));
      const std::uint64_t r = (std::uint64_t(w.v[1]) << 32) | w.v[0];
      if (r * n >= threshold) return index_t(conv::mulhi64(r, n));  // low, high halves of r n
    }
  }
};

}  // namespace tessera::random
