// ts::random::generator: a seed plus the next stream number. Each array drawn takes the next
// stream, so draws from one generator are independent and reproducible in order; copies of a
// generator draw the same arrays. Arrays are lazy generated<philox_array<D>> leaves; draw(dist,
// shape) makes one of any `distribution` D, the built-in ones (the factories) or the caller's.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../core/errors.hpp"
#include "../nodes/generated.hpp"
#include "conversions.hpp"
#include "distributions.hpp"
#include "philox_array.hpp"

namespace tessera::random {

/// The lazy array type of distribution D.
template <distribution D>
using random_array = generated<philox_array<D>>;

class generator {
 public:
  explicit generator(std::uint64_t seed = 0, std::uint64_t first_stream = 0)
      : seed_(seed), next_(first_stream) {}

  std::uint64_t seed() const { return seed_; }
  /// The stream the next array will use.
  std::uint64_t stream() const { return next_; }

  /// Uniform on [0, 1).
  template <class T = double>
  random_array<uniform_dist<T>> random(const shape_t& shape, const chunks_arg& chunks = {}) {
    return uniform<T>(0, 1, shape, chunks);
  }

  /// Uniform on [low, high).
  template <class T = double>
  random_array<uniform_dist<T>> uniform(double low, double high, const shape_t& shape,
                                        const chunks_arg& chunks = {}) {
    static_assert(std::is_floating_point_v<T>, "uniform<T>: T must be float or double");
    check_finite("uniform", "low", low);
    check_finite("uniform", "high", high);
    if (!(low < high)) throw_invalid("uniform: low (", low, ") must be less than high (", high, ")");
    uniform_dist<T> d;
    d.low = T(low);
    d.high = T(high);
    if (!(d.low < d.high))
      throw_invalid("uniform: low (", low, ") and high (", high, ") are equal in this type");
    d.width = T(double(d.high) - double(d.low));
    if (!std::isfinite(d.width))
      throw_invalid("uniform: high - low (", high, " - ", low, ") overflows");
    d.below_high = std::nextafter(d.high, d.low);
    return draw(d, shape, chunks);
  }

  /// Standard normal N(0, 1).
  template <class T = double>
  random_array<normal_dist<T>> standard_normal(const shape_t& shape, const chunks_arg& chunks = {}) {
    return normal<T>(0, 1, shape, chunks);
  }

  /// Normal N(loc, scale^2).
  template <class T = double>
  random_array<normal_dist<T>> normal(double loc, double scale, const shape_t& shape,
                                      const chunks_arg& chunks = {}) {
    static_assert(std::is_floating_point_v<T>, "normal<T>: T must be float or double");
    check_finite("normal", "loc", loc);
    check_scale("normal", "scale", scale);
    normal_dist<T> d;
    d.loc = T(loc);
    d.scale = T(scale);
    return draw(d, shape, chunks);
  }

  /// Log-normal: exp(N(mean, sigma^2)).
  template <class T = double>
  random_array<lognormal_dist<T>> lognormal(double mean, double sigma, const shape_t& shape,
                                            const chunks_arg& chunks = {}) {
    static_assert(std::is_floating_point_v<T>, "lognormal<T>: T must be float or double");
    check_finite("lognormal", "mean", mean);
    check_scale("lognormal", "sigma", sigma);
    lognormal_dist<T> d;
    d.normal.loc = T(mean);
    d.normal.scale = T(sigma);
    return draw(d, shape, chunks);
  }

  /// Exponential with the given scale (mean).
  template <class T = double>
  random_array<exponential_dist<T>> exponential(double scale, const shape_t& shape,
                                                const chunks_arg& chunks = {}) {
    static_assert(std::is_floating_point_v<T>, "exponential<T>: T must be float or double");
    check_scale("exponential", "scale", scale);
    exponential_dist<T> d;
    d.scale = T(scale);
    return draw(d, shape, chunks);
  }

  /// Gamma with shape k >= 0 and scale >= 0 (mean k * scale).
  template <class T = double>
  random_array<gamma_dist<T>> gamma(double shape_k, double scale, const shape_t& shape,
                                    const chunks_arg& chunks = {}) {
    static_assert(std::is_floating_point_v<T>, "gamma<T>: T must be float or double");
    check_scale("gamma", "shape", shape_k);
    check_scale("gamma", "scale", scale);
    gamma_dist<T> d;
    d.shape = shape_k;
    d.scale = scale;
    d.boost = shape_k < 1;
    d.d = (d.boost ? shape_k + 1 : shape_k) - 1.0 / 3;
    d.c = 1 / std::sqrt(9 * d.d);
    return draw(d, shape, chunks);
  }

  /// Exponential with scale 1 (NumPy's standard_exponential).
  template <class T = double>
  random_array<exponential_dist<T>> standard_exponential(const shape_t& shape,
                                                         const chunks_arg& chunks = {}) {
    return exponential<T>(1.0, shape, chunks);
  }

  /// Gamma with shape k and scale 1 (NumPy's standard_gamma).
  template <class T = double>
  random_array<gamma_dist<T>> standard_gamma(double shape_k, const shape_t& shape,
                                             const chunks_arg& chunks = {}) {
    return gamma<T>(shape_k, 1.0, shape, chunks);
  }

  /// Chi-square with df > 0 degrees of freedom: gamma(df / 2, 2), as NumPy draws it (mean df,
  /// variance 2 df).
  template <class T = double>
  random_array<gamma_dist<T>> chisquare(double df, const shape_t& shape,
                                        const chunks_arg& chunks = {}) {
    if (!(df > 0) || !std::isfinite(df))
      throw_invalid("chisquare: df (", df, ") must be finite and > 0");
    return gamma<T>(df / 2, 2.0, shape, chunks);
  }

  /// Bernoulli(p) as bool.
  random_array<bernoulli_dist> bernoulli(double p, const shape_t& shape,
                                         const chunks_arg& chunks = {}) {
    if (!(p >= 0 && p <= 1)) throw_invalid("bernoulli: p (", p, ") must be in [0, 1]");
    bernoulli_dist d;
    d.threshold = std::uint64_t(std::ceil(std::ldexp(p, 53)));
    return draw(d, shape, chunks);
  }

  /// Integers uniform on [low, high) (high exclusive), without bias.
  template <class T = std::int64_t, class L, class H>
    requires std::is_integral_v<L> && std::is_integral_v<H>
  random_array<integers_dist<T>> integers(L low, H high, const shape_t& shape,
                                          const chunks_arg& chunks = {}) {
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>,
                  "integers<T>: T must be an integer type (use bernoulli for bool)");
    using wide_t = __int128;
    const wide_t lo = wide_t(low), hi = wide_t(high);
    if (!(lo < hi)) throw_invalid("integers: low (", +low, ") must be less than high (", +high, ")");
    if (lo < wide_t(std::numeric_limits<T>::min()))
      throw_invalid("integers: low (", +low, ") is below the smallest value of the type (",
                    +std::numeric_limits<T>::min(), ")");
    if (hi - 1 > wide_t(std::numeric_limits<T>::max()))
      throw_invalid("integers: high - 1 (", +high, " - 1) exceeds the largest value of the type (",
                    +std::numeric_limits<T>::max(), ")");
    integers_dist<T> d;
    d.low = std::uint64_t(std::int64_t(lo));
    if (lo > wide_t(std::numeric_limits<std::int64_t>::max())) d.low = std::uint64_t(lo);
    d.range = std::uint64_t(hi - lo);
    d.wide = d.range > 0xFFFFFFFFull;
    d.thresh = d.wide ? (0 - d.range) % d.range
                      : std::uint64_t((std::uint32_t(0) - std::uint32_t(d.range)) % std::uint32_t(d.range));
    return draw(d, shape, chunks);
  }

  /// An array of any distribution D (the built-in ones or the caller's own: docs/random.md,
  /// "Your own distribution"), drawn on the next stream like every factory above.
  template <distribution D>
  random_array<D> draw(const D& dist, const shape_t& shape, const chunks_arg& chunks = {}) {
    if (next_ >= max_streams)
      throw_invalid("random generator: stream ", next_, " exceeds the limit of 2^48 streams");
    philox_array<D> f;
    f.key = philox::key::of_seed(seed_);
    f.stream = next_;
    f.dist = dist;
    auto grid = chunk_grid::make(shape, chunks, sizeof(typename D::value_type));
    ++next_;  // only after the arguments were accepted
    return random_array<D>(f, std::move(grid));
  }
  /// Not a distribution: stops compilation with a message naming the first requirement of the
  /// `distribution` concept that D misses (instead of a wall of unsatisfied constraints).
  template <class D>
    requires(!distribution<D>)
  void draw(const D&, const shape_t&, const chunks_arg& = {}) {
    detail::explain_distribution<D>();
  }

 private:
  static void check_finite(const char* fn, const char* what, double v) {
    if (!std::isfinite(v)) throw_invalid(fn, ": ", what, " (", v, ") must be finite");
  }
  static void check_scale(const char* fn, const char* what, double v) {
    if (!(v >= 0) || !std::isfinite(v))
      throw_invalid(fn, ": ", what, " (", v, ") must be finite and >= 0");
  }

  std::uint64_t seed_;
  std::uint64_t next_;
};

/// A generator with the given seed, starting at stream 0 (NumPy's default_rng analogue).
inline generator default_rng(std::uint64_t seed = 0) { return generator(seed); }

}  // namespace tessera::random
