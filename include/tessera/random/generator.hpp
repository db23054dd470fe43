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
#include "../indexing.hpp"
#include "../nodes/generated.hpp"
#include "conversions.hpp"
#include "compound.hpp"
#include "distributions.hpp"
#include "permutation.hpp"
#include "philox_array.hpp"
#include "vector_valued.hpp"

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
    return draw(gamma_dist<T>::of(shape_k, scale), shape, chunks);
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

  /// Beta(a, b), a > 0 and b > 0.
  template <class T = double>
  random_array<beta_dist<T>> beta(double a, double b, const shape_t& shape, const chunks_arg& chunks = {}) {
    static_assert(std::is_floating_point_v<T>, "beta<T>: T must be float or double");
    check_positive("beta", "a", a);
    check_positive("beta", "b", b);
    return draw(beta_dist<T>{a, b}, shape, chunks);
  }
  /// F distribution with dfnum > 0 and dfden > 0 degrees of freedom.
  template <class T = double>
  random_array<f_dist<T>> f(double dfnum, double dfden, const shape_t& shape, const chunks_arg& chunks = {}) {
    static_assert(std::is_floating_point_v<T>, "f<T>: T must be float or double");
    check_positive("f", "dfnum", dfnum);
    check_positive("f", "dfden", dfden);
    return draw(f_dist<T>{gamma_dist<double>::of(dfnum / 2, 2 / dfnum), gamma_dist<double>::of(dfden / 2, 2 / dfden)},
                shape, chunks);
  }
  /// Student's t with df > 0 degrees of freedom.
  template <class T = double>
  random_array<standard_t_dist<T>> standard_t(double df, const shape_t& shape, const chunks_arg& chunks = {}) {
    static_assert(std::is_floating_point_v<T>, "standard_t<T>: T must be float or double");
    check_positive("standard_t", "df", df);
    return draw(standard_t_dist<T>{df, gamma_dist<double>::of(df / 2, 1.0)}, shape, chunks);
  }
  /// Poisson(lam) counts as int64, lam >= 0.
  random_array<poisson_dist> poisson(double lam, const shape_t& shape, const chunks_arg& chunks = {}) {
    if (!(lam >= 0) || !(lam < 1e18)) throw_invalid("poisson: lam (", lam, ") must be >= 0 and below 1e18");
    return draw(poisson_dist{lam}, shape, chunks);
  }
  /// Binomial(n, p) counts as int64: n >= 0 trials of probability p in [0, 1].
  random_array<binomial_dist> binomial(std::int64_t n, double p, const shape_t& shape, const chunks_arg& chunks = {}) {
    if (n < 0) throw_invalid("binomial: n (", n, ") must be >= 0");
    if (!(p >= 0 && p <= 1)) throw_invalid("binomial: p (", p, ") must be in [0, 1]");
    return draw(binomial_dist{n, p}, shape, chunks);
  }
  /// Negative binomial(n, p) as int64 (failures before the n-th success): n > 0, p in (0, 1].
  random_array<negative_binomial_dist> negative_binomial(double n, double p, const shape_t& shape,
                                                         const chunks_arg& chunks = {}) {
    check_positive("negative_binomial", "n", n);
    if (!(p > 0 && p <= 1)) throw_invalid("negative_binomial: p (", p, ") must be in (0, 1]");
    return draw(negative_binomial_dist{gamma_dist<double>::of(n, (1 - p) / p)}, shape, chunks);
  }
  /// Geometric(p) on 1, 2, ... (trials to the first success) as int64, p in (0, 1].
  random_array<geometric_dist> geometric(double p, const shape_t& shape, const chunks_arg& chunks = {}) {
    if (!(p > 0 && p <= 1)) throw_invalid("geometric: p (", p, ") must be in (0, 1]");
    return draw(geometric_dist{std::log1p(-p), p == 1}, shape, chunks);
  }
  /// Laplace(loc, scale), scale >= 0.
  template <class T = double>
  random_array<simple_dist<T>> laplace(double loc, double scale, const shape_t& shape, const chunks_arg& chunks = {}) {
    return two_parameter<T>(simple_kind::laplace, "laplace", loc, scale, shape, chunks);
  }
  /// Logistic(loc, scale), scale >= 0.
  template <class T = double>
  random_array<simple_dist<T>> logistic(double loc, double scale, const shape_t& shape, const chunks_arg& chunks = {}) {
    return two_parameter<T>(simple_kind::logistic, "logistic", loc, scale, shape, chunks);
  }
  /// Gumbel(loc, scale), scale >= 0.
  template <class T = double>
  random_array<simple_dist<T>> gumbel(double loc, double scale, const shape_t& shape, const chunks_arg& chunks = {}) {
    return two_parameter<T>(simple_kind::gumbel, "gumbel", loc, scale, shape, chunks);
  }
  /// Weibull with shape a >= 0 (scale 1).
  template <class T = double>
  random_array<simple_dist<T>> weibull(double a, const shape_t& shape, const chunks_arg& chunks = {}) {
    check_scale("weibull", "a", a);
    return draw(simple_dist<T>{simple_kind::weibull, a, 1, 0}, shape, chunks);
  }
  /// Pareto II (Lomax) with shape a > 0, as NumPy's pareto.
  template <class T = double>
  random_array<simple_dist<T>> pareto(double a, const shape_t& shape, const chunks_arg& chunks = {}) {
    check_positive("pareto", "a", a);
    return draw(simple_dist<T>{simple_kind::pareto, a, 1, 0}, shape, chunks);
  }
  /// Rayleigh(scale), scale >= 0.
  template <class T = double>
  random_array<simple_dist<T>> rayleigh(double scale, const shape_t& shape, const chunks_arg& chunks = {}) {
    check_scale("rayleigh", "scale", scale);
    return draw(simple_dist<T>{simple_kind::rayleigh, 0, scale, 0}, shape, chunks);
  }
  /// Power distribution with exponent a > 0 (on [0, 1]).
  template <class T = double>
  random_array<simple_dist<T>> power(double a, const shape_t& shape, const chunks_arg& chunks = {}) {
    check_positive("power", "a", a);
    return draw(simple_dist<T>{simple_kind::power, a, 1, 0}, shape, chunks);
  }
  /// Standard Cauchy (a ratio of two independent normals).
  template <class T = double>
  random_array<simple_dist<T>> standard_cauchy(const shape_t& shape, const chunks_arg& chunks = {}) {
    return draw(simple_dist<T>{simple_kind::cauchy, 0, 1, 0}, shape, chunks);
  }
  /// Triangular on [left, right] with the mode in between (left < right).
  template <class T = double>
  random_array<simple_dist<T>> triangular(double left, double mode, double right, const shape_t& shape,
                                          const chunks_arg& chunks = {}) {
    check_finite("triangular", "left", left);
    check_finite("triangular", "right", right);
    if (!(left <= mode && mode <= right) || !(left < right))
      throw_invalid("triangular: need left <= mode <= right and left < right; got ", left, ", ", mode, ", ", right);
    return draw(simple_dist<T>{simple_kind::triangular, left, mode, right}, shape, chunks);
  }
  /// Wald (inverse Gaussian) with mean > 0 and scale > 0.
  template <class T = double>
  random_array<simple_dist<T>> wald(double mean, double scale, const shape_t& shape, const chunks_arg& chunks = {}) {
    check_positive("wald", "mean", mean);
    check_positive("wald", "scale", scale);
    return draw(simple_dist<T>{simple_kind::wald, mean, scale, 0}, shape, chunks);
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

  /// A random permutation of [0, n) (int64; NumPy's permutation(n)), lazy and counter-based:
  /// element i is a keyed bijection of i (random/permutation.hpp), so slices compute only what
  /// they select and every chunking gives the same array.
  generated<permutation_fn> permutation(index_t n, const chunks_arg& chunks = {}) {
    if (n < 0) throw_invalid("permutation: n (", n, ") must be >= 0");
    permutation_fn f = permutation_of(std::uint64_t(n));
    return generated<permutation_fn>(f, chunk_grid::make({n}, chunks, sizeof(index_t)));
  }

  /// n integers from [0, n) as NumPy's choice(n, size, replace): with replacement uniform;
  /// without, distinct (size <= n). Lazy and counter-based.
  generated<choice_fn> choice(index_t n, const shape_t& shape, const chunks_arg& chunks = {},
                              bool replace = true) {
    if (n <= 0) throw_invalid("choice: n (", n, ") must be > 0 (nothing to choose from)");
    chunk_grid g = chunk_grid::make(shape, chunks, sizeof(index_t));
    if (!replace && g.size() > n)
      throw_invalid("choice: cannot take ", g.size(), " samples from ", n,
                    " without replacement (size > n)");
    choice_fn f{permutation_of(std::uint64_t(n)), replace};
    return generated<choice_fn>(f, std::move(g));
  }

  /// Von Mises(mu, kappa) angles on [-pi, pi] (NumPy's vonmises): mu finite, kappa >= 0.
  template <class T = double>
  random_array<vonmises_dist<T>> vonmises(double mu, double kappa, const shape_t& shape,
                                          const chunks_arg& chunks = {}) {
    static_assert(std::is_floating_point_v<T>, "vonmises<T>: T must be float or double");
    check_finite("vonmises", "mu", mu);
    check_scale("vonmises", "kappa", kappa);
    vonmises_dist<T> d;
    d.mu = mu;
    d.kappa = kappa;
    d.mode = kappa < 1e-8 ? 0 : kappa > 1e6 ? 2 : 1;
    if (kappa < 1e-5) {
      d.s = 1 / kappa + kappa;
    } else {
      const double r = 1 + std::sqrt(1 + 4 * kappa * kappa);
      const double rho = (r - std::sqrt(2 * r)) / (2 * kappa);
      d.s = (1 + rho * rho) / (2 * rho);
    }
    return draw(d, shape, chunks);
  }

  /// Multinomial(n, pvals) counts (int64), shape `size` + (k,): each row sums to n (NumPy's
  /// multinomial; conditional binomials, random/vector_valued.hpp). The last axis is one chunk.
  auto multinomial(std::int64_t n, const std::vector<double>& pvals, const shape_t& size,
                   const chunks_arg& chunks = {}) {
    if (n < 0) throw_invalid("multinomial: n (", n, ") must be >= 0");
    if (pvals.empty()) throw_invalid("multinomial: pvals is empty");
    double before = 0;
    std::vector<double> cond(pvals.size(), 1.0);
    for (std::size_t j = 0; j < pvals.size(); ++j) {
      if (!(pvals[j] >= 0 && pvals[j] <= 1))
        throw_invalid("multinomial: pvals[", j, "] = ", pvals[j], " is not in [0, 1]");
      if (j + 1 < pvals.size()) {
        const double rest = 1.0 - before;
        cond[j] = rest > 0 ? std::min(1.0, pvals[j] / rest) : 1.0;
        before += pvals[j];
      }
    }
    if (before > 1.0 + 1e-12) throw_invalid("multinomial: sum(pvals[:-1]) = ", before, " > 1");
    multinomial_op op{philox::key::of_seed(seed_), take_stream(), n};
    return looked_up<multinomial_op, generated<flat_index_fn>, double>(
        op, rows_of(size, chunks, index_t(pvals.size())), tessera::detail::table_array(cond));
  }

  /// Dirichlet(alpha) rows (shape `size` + (k,)), each summing to 1 (NumPy's dirichlet as
  /// normalized gammas; every alpha > 0). The last axis is one chunk.
  template <class T = double>
  auto dirichlet(const std::vector<double>& alpha, const shape_t& size, const chunks_arg& chunks = {}) {
    static_assert(std::is_floating_point_v<T>, "dirichlet<T>: T must be float or double");
    if (alpha.empty()) throw_invalid("dirichlet: alpha is empty");
    for (std::size_t j = 0; j < alpha.size(); ++j)
      if (!(alpha[j] > 0) || !std::isfinite(alpha[j]))
        throw_invalid("dirichlet: alpha[", j, "] = ", alpha[j], " must be finite and > 0");
    dirichlet_op<T> op{philox::key::of_seed(seed_), take_stream()};
    return looked_up<dirichlet_op<T>, generated<flat_index_fn>, double>(
        op, rows_of(size, chunks, index_t(alpha.size())), tessera::detail::table_array(alpha));
  }

  /// Elements of the 1-d array a, as NumPy's choice(a, size, replace): a is computed first
  /// (with `pol`) into a one-chunk table; the draws are choice(a.size, ...) looked up in it.
  template <expression_type A, class P = host>
  auto choice(const A& a, const shape_t& shape, const chunks_arg& chunks = {}, bool replace = true,
              const P& pol = {}) {
    if (a.dimension() != 1) throw_invalid("choice: a has shape ", a.shape(), "; it must be 1-d");
    using T = typename A::value_type;
    auto idx = choice(a.size(), shape, chunks, replace);
    return looked_up<lookups::at, generated<choice_fn>, T>({}, idx, tessera::detail::table_array(tessera::detail::host_values(a, pol)));
  }

  /// x with its elements along `axis` in a random order (NumPy's Generator.permutation(x,
  /// axis)): a take of x at the positions of permutation(n); lazy in x.
  template <expression_type X>
  auto permutation(const X& x, index_t axis = 0) {
    if (x.dimension() == 0) throw_invalid("permutation: a 0-d array has no axis to permute");
    const int ax = tessera::detail::normalize_axis(axis, x.dimension(), "axis");
    const index_t n = x.shape()[std::size_t(ax)];
    const permutation_fn f = permutation_of(std::uint64_t(n));
    std::vector<index_t> order(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) order[std::size_t(i)] = f(i);
    return take(x, order, ax);
  }

  /// Integers from [0, p.size()) with probabilities p (NumPy's choice(n, size, p=p), with
  /// replacement): the first index whose cumulative probability exceeds a uniform draw.
  auto choice(const std::vector<double>& p, const shape_t& shape, const chunks_arg& chunks = {}) {
    if (p.empty()) throw_invalid("choice: p is empty (nothing to choose from)");
    std::vector<double> cdf(p.size());
    double total = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (!(p[i] >= 0) || !std::isfinite(p[i]))
        throw_invalid("choice: probability p[", i, "] = ", p[i], " must be finite and >= 0");
      total += p[i];
      cdf[i] = total;
    }
    if (!(std::abs(total - 1) <= 1.5e-8))  // NumPy's tolerance, sqrt(eps)
      throw_invalid("choice: probabilities sum to ", total, ", not 1");
    for (double& c : cdf) c /= total;
    // u < 1 and the last cumulative value is exactly 1: the index is always below p.size()
    return searchsorted(cdf, random<double>(shape, chunks), "right");
  }

  /// An array of any distribution D (the built-in ones or the caller's own: docs/random.md,
  /// "Your own distribution"), drawn on the next stream like every factory above.
  template <distribution D>
  random_array<D> draw(const D& dist, const shape_t& shape, const chunks_arg& chunks = {}) {
    auto grid = chunk_grid::make(shape, chunks, sizeof(typename D::value_type));
    philox_array<D> f;
    f.key = philox::key::of_seed(seed_);
    f.stream = take_stream();  // only after the arguments were accepted
    f.dist = dist;
    return random_array<D>(f, std::move(grid));
  }

  /// The next stream, taken (the arrays that are not a philox_array of one distribution).
  std::uint64_t take_stream() {
    if (next_ >= max_streams)
      throw_invalid("random generator: stream ", next_, " exceeds the limit of 2^48 streams");
    return next_++;
  }
  /// The flat index over shape `size` + (k,), chunked as `chunks` says for `size`, k in one.
  static generated<flat_index_fn> rows_of(const shape_t& size, const chunks_arg& chunks, index_t k) {
    chunk_grid g = chunk_grid::make(size, chunks, sizeof(double) * std::size_t(k));
    shape_t s = size;
    s.push_back(k);
    chunks_t c = g.chunks();
    c.push_back({k});
    return generated<flat_index_fn>(flat_index_fn{}, chunk_grid(s, c));
  }

  /// The permutation function of [0, n) on the next stream.
  permutation_fn permutation_of(std::uint64_t n) {
    permutation_fn f;
    f.key = philox::key::of_seed(seed_);
    f.stream = take_stream();
    f.n = n;
    f.half_bits = permutation_fn::half_bits_for(n);
    return f;
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
  static void check_positive(const char* fn, const char* what, double v) {
    if (!(v > 0) || !std::isfinite(v)) throw_invalid(fn, ": ", what, " (", v, ") must be finite and > 0");
  }
  template <class T>
  random_array<simple_dist<T>> two_parameter(simple_kind k, const char* fn, double loc, double scale,
                                             const shape_t& shape, const chunks_arg& chunks) {
    static_assert(std::is_floating_point_v<T>, "T must be float or double");
    check_finite(fn, "loc", loc);
    check_scale(fn, "scale", scale);
    return draw(simple_dist<T>{k, loc, scale, 0}, shape, chunks);
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
