// Distributions whose draws are rows of k values (NumPy's multinomial and dirichlet): the
// result has a last axis of length k, each element a pure function of (seed, stream, row,
// component). The k parameters (conditional probabilities, alphas) are a one-chunk table the
// binding context brings where the kernel runs (a looked_up node over the flat index, as
// indexing.hpp's lookups), so there is no limit on k. An element of row r, component j computes
// what the row needs up to j (multinomial) or the whole row (dirichlet): O(k) work per element.
// The randomness of (r, i) is the Philox block at r * k + i of the array's stream and its retry
// sub-streams, the layout of a k-times-wider array of the scalar distribution.
#pragma once
#include <cstdint>

#include "../config.hpp"
#include "compound.hpp"
#include "distributions.hpp"
#include "philox.hpp"

namespace tessera::random {

/// The flat index of an element, as a generated leaf's function.
struct flat_index_fn {
  using value_type = index_t;
  TESSERA_HD index_t operator()(index_t flat) const { return flat; }
};

/// Multinomial(n, p): component j of row r is binomial(n - counts before j, t[j]) with t[j] =
/// p[j] / (1 - p[0] - ... - p[j-1]) (NumPy's sequence of conditional binomials); the last
/// component takes what is left.
struct multinomial_op {
  philox::key key;
  std::uint64_t stream = 0;
  std::int64_t n = 0;
  TESSERA_HD std::int64_t operator()(index_t flat, const double* t, index_t k) const {
    const std::uint64_t row = std::uint64_t(flat / k), j = std::uint64_t(flat % k);
    std::int64_t left = n;
    for (std::uint64_t i = 0;; ++i) {
      if (i + 1 == std::uint64_t(k)) return left;  // the last component
      std::int64_t c = 0;
      if (left > 0) {
        const std::uint64_t at = row * std::uint64_t(k) + i;
        const site s{key, stream, at};
        const u32x4 w = philox::at(key, stream, at);
        c = detail::binomial(left, t[i], &w, s);
      }
      if (i == j) return c;
      left -= c;
    }
  }
};

/// Dirichlet(alpha): component j of row r is g_j / (g_0 + ... + g_{k-1}), g_i ~ gamma(alpha_i)
/// (NumPy's normalized gammas, the sum accumulated in order and multiplied by its inverse).
template <class T>
struct dirichlet_op {
  philox::key key;
  std::uint64_t stream = 0;
  TESSERA_HD T operator()(index_t flat, const double* alpha, index_t k) const {
    const std::uint64_t row = std::uint64_t(flat / k), j = std::uint64_t(flat % k);
    double sum = 0, mine = 0;
    for (std::uint64_t i = 0; i < std::uint64_t(k); ++i) {
      const std::uint64_t at = row * std::uint64_t(k) + i;
      const site s{key, stream, at};
      const double g = gamma_dist<double>::of(alpha[i], 1.0).sample(philox::at(key, stream, at), s);
      sum += g;
      if (i == j) mine = g;
    }
    return T(mine * (1.0 / sum));
  }
};

/// Von Mises(mu, kappa) on [-pi, pi] (NumPy's algorithm: Best and Fisher's rejection with
/// s from kappa; a uniform angle below kappa 1e-8; a wrapped normal above 1e6). Attempt 0 uses
/// the element's own block, attempt a retry sub-stream a; the sign from retry 65.
template <class T>
struct vonmises_dist {
  using value_type = T;
  static constexpr int epb = 1;
  double mu = 0, kappa = 1, s = 1;
  int mode = 1;  // 0: uniform, 1: rejection, 2: wrapped normal
  TESSERA_HD T element(const u32x4& w, int, const site& st) const {
    constexpr double pi = 3.14159265358979323846;
    if (mode == 0) return T(pi * (2 * detail::open01(w.v[0], w.v[1]) - 1));
    double result;
    if (mode == 2) {
      double z0, z1;
      conv::box_muller(w.v[0], w.v[1], w.v[2], w.v[3], z0, z1);
      result = mu + math::sqrt(1.0 / kappa) * z0;
      if (result < -pi) result += 2 * pi;
      if (result > pi) result -= 2 * pi;
      return T(result);
    }
    double W = 1;
    for (std::uint64_t a = 0; a < 64; ++a) {  // accepts with probability > 0.65 per attempt
      const u32x4 b = a == 0 ? w : st.retry(a);
      const double U = detail::open01(b.v[0], b.v[1]), V = detail::open01(b.v[2], b.v[3]);
      const double Z = portable_math::cos(pi * U);
      W = (1 + s * Z) / (s + Z);
      const double Y = kappa * (s - W);
      if (Y * (2 - Y) - V >= 0 || math::log(Y / V) + 1 - Y >= 0) break;
    }
    const u32x4 c = st.retry(65);
    result = portable_math::acos(W);
    if (detail::open01(c.v[0], c.v[1]) < 0.5) result = -result;
    result += mu;
    const bool neg = result < 0;
    double mod = portable_math::fabs(result);
    mod = portable_math::fmod(mod + pi, 2 * pi) - pi;
    return T(neg ? -mod : mod);
  }
};

}  // namespace tessera::random
