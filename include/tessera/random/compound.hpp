// NumPy Generator distributions built from the words of an element's block and its retry
// sub-streams (site::retry), like gamma: beta, f, standard_t, poisson, binomial,
// negative_binomial, geometric, laplace, logistic, gumbel, weibull, pareto, rayleigh,
// standard_cauchy, power, triangular, wald. Every element is a pure function of (seed, stream,
// index): no state, so any chunking, thread count or backend gives the same values. Each draw
// documents which sub-streams it reads; draws that combine several (beta from two gammas,
// negative_binomial from a gamma and a poisson) give each part its own range of retry ids.
// The algorithms are NumPy's (Marsaglia-Tsang gamma, Johnk's beta for small shapes, Hormann's
// PTRS for poisson >= 10, inversion), except binomial for large n p (Knuth's beta splitting,
// exact, then inversion): the same distributions, not NumPy's bit streams.
#pragma once
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../core/math.hpp"
#include "distributions.hpp"

TESSERA_BATCH_DIAGNOSTICS_BEGIN

namespace tessera::random {

namespace detail {

/// ln Gamma(x), x > 0: the Stirling series at x + n >= 7, then the recurrence down.
TESSERA_HD inline double log_gamma(double x) {
  constexpr double b[10] = {8.333333333333333e-02, -2.777777777777778e-03, 7.936507936507937e-04,
                            -5.952380952380952e-04, 8.417508417508418e-04, -1.917526917526918e-03,
                            6.410256410256410e-03, -2.955065359477124e-02, 1.796443723688307e-01,
                            -1.392432216905900e+00};
  if (x == 1.0 || x == 2.0) return 0.0;
  const int n = x < 7.0 ? int(7.0 - x) : 0;
  double x0 = x + n;
  const double x2 = 1.0 / (x0 * x0);
  double s = b[9];
  for (int k = 8; k >= 0; --k) s = s * x2 + b[k];
  double g = s / x0 + 0.9189385332046727 + (x0 - 0.5) * math::log(x0) - x0;  // 0.5 log(2 pi)
  for (int k = 0; k < n; ++k) {
    x0 -= 1.0;
    g -= math::log(x0);
  }
  return g;
}

/// A uniform strictly inside (0, 1): (j + 1/2) 2^-52 from the top 52 bits of two words. Exact.
TESSERA_HD inline double open01(std::uint32_t a, std::uint32_t b) {
  return (conv::u32(a) * 0x1p-32 + double(std::int32_t(b >> 12)) * 0x1p-52) + 0x1p-53;
}

/// Uniform number m (m = 0, 1, ...) of an element, in (0, 1]: words 0-1 or 2-3 of block m / 2,
/// the element's own block w for m / 2 == 0 when given, else retry sub-stream base + m / 2.
TESSERA_HD inline double uniform_at(const u32x4* w, const site& s, std::uint64_t base, int m) {
  const int blk = m >> 1;
  const u32x4 b = blk == 0 && w ? *w : s.retry(base + std::uint64_t(blk));
  return (m & 1) ? conv::u53_open0(b.v[2], b.v[3]) : conv::u53_open0(b.v[0], b.v[1]);
}

/// Poisson(lam): Knuth's product of uniforms below 10 (uniforms 0, 1, ... of uniform_at), else
/// Hormann's PTRS (attempt j: block j of uniform_at's sequence: U from words 0-1, V from 2-3).
TESSERA_HD inline std::int64_t poisson(double lam, const u32x4* w, const site& s, std::uint64_t base) {
  if (!(lam > 0)) return 0;
  if (lam < 10) {
    const double limit = math::exp(-lam);
    double prod = 1;
    for (int m = 0; m < 512; ++m) {
      prod *= uniform_at(w, s, base, m);
      if (prod <= limit) return m;
    }
    return 511;  // P(X > 511) < 1e-300 for lam < 10
  }
  const double slam = math::sqrt(lam), loglam = math::log(lam);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  for (int j = 0; j < 64; ++j) {
    const u32x4 blk = j == 0 && w ? *w : s.retry(base + std::uint64_t(j));
    const double U = conv::u53(blk.v[0], blk.v[1]) - 0.5, V = conv::u53(blk.v[2], blk.v[3]);
    const double us = 0.5 - portable_math::fabs(U);
    const double kf = portable_math::floor((2 * a / us + b) * U + lam + 0.43);
    if (us >= 0.07 && V <= vr) return std::int64_t(kf);
    if (kf < 0 || (us < 0.013 && V > us)) continue;
    if (math::log(V) + math::log(invalpha) - math::log(a / (us * us) + b) <=
        -lam + kf * loglam - log_gamma(kf + 1))
      return std::int64_t(kf);
  }
  return std::int64_t(portable_math::floor(lam));  // 64 rejections: probability < 1e-50
}

/// Beta(a, b) from two gammas (retry ids base .. base + 79), or Johnk's algorithm when both
/// shapes are <= 1 (attempt j: block j of uniform_at's sequence).
TESSERA_HD inline double beta(double a, double b, const u32x4* w, const site& s, std::uint64_t base) {
  if (a <= 1 && b <= 1) {
    for (int j = 0; j < 128; ++j) {
      const u32x4 blk = j == 0 && w ? *w : s.retry(base + std::uint64_t(j));
      const double U = conv::u53_open0(blk.v[0], blk.v[1]), V = conv::u53_open0(blk.v[2], blk.v[3]);
      const double lx = math::log(U) / a, ly = math::log(V) / b;
      const double X = math::exp(lx), Y = math::exp(ly), sum = X + Y;
      if (sum <= 1.0) {
        if (sum > 0) return X / sum;
        const double m = lx > ly ? lx : ly;  // both underflowed: in logs
        const double ex = math::exp(lx - m), ey = math::exp(ly - m);
        return ex / (ex + ey);
      }
    }
    return a / (a + b);  // 128 rejections: probability < 1e-80
  }
  const auto ga = gamma_dist<double>::of(a, 1.0), gb = gamma_dist<double>::of(b, 1.0);
  const double x = w && base == 0 ? ga.sample(*w, s) : ga.sample_at(s, base);
  const double y = gb.sample_at(s, base + 40);
  return x / (x + y);
}

/// Binomial(n, p): while n min(p, 1 - p) > 30, Knuth's split by the a-th of n uniforms (a beta,
/// retry ids 1 + 80 i ...); then inversion with uniforms from retry ids 8192 + m / 2.
TESSERA_HD inline std::int64_t binomial(std::int64_t n, double p, const u32x4* w, const site& s) {
  std::int64_t k = 0;
  bool flip = false;
  for (int i = 0; i < 64 && n > 0; ++i) {
    const double pm = p < 0.5 ? p : 1 - p;
    if (double(n) * pm <= 30) break;
    const std::int64_t a = 1 + n / 2, b = n + 1 - a;
    const double x = beta(double(a), double(b), nullptr, s, 1 + 80 * std::uint64_t(i));
    if (x >= p) {
      n = a - 1;
      p = p / x;
    } else {
      k += a;
      n = b - 1;
      p = (p - x) / (1 - x);
    }
  }
  if (n <= 0 || p <= 0) return k;
  if (p >= 1) return k + n;
  if (p > 0.5) {
    flip = true;
    p = 1 - p;
  }
  const double q = 1 - p, qn = math::exp(double(n) * portable_math::log1p(-p));
  const double np = double(n) * p;
  const double wide = np + 10 * math::sqrt(np * q + 1), bound = double(n) < wide ? double(n) : wide;
  int m = 0;
  double u = uniform_at(w, s, 8192, m++), px = qn;
  std::int64_t x = 0;
  while (u > px && m < 4096) {
    ++x;
    if (double(x) > bound) {
      x = 0;
      px = qn;
      u = uniform_at(w, s, 8192, m++);
    } else {
      u -= px;
      px = (double(n - x + 1) * p * px) / (double(x) * q);
    }
  }
  return k + (flip ? n - x : x);
}

}  // namespace detail

// Continuous distributions of one uniform or exponential (element's own block, words 0-1).

/// Beta(a, b), a, b > 0.
template <class T>
struct beta_dist {
  using value_type = T;
  static constexpr int epb = 1;
  double a = 1, b = 1;
  TESSERA_HD T element(const u32x4& w, int, const site& s) const { return T(detail::beta(a, b, &w, s, 0)); }
};

/// F(dfnum, dfden) = (chi2(dfnum) / dfnum) / (chi2(dfden) / dfden): gammas at retry ids 0-39
/// (with the own block) and 40-79.
template <class T>
struct f_dist {
  using value_type = T;
  static constexpr int epb = 1;
  gamma_dist<double> num, den;  // gamma(df / 2, 2 / df): chi2(df) / df
  TESSERA_HD T element(const u32x4& w, int, const site& s) const {
    return T(num.sample(w, s) / den.sample_at(s, 40));
  }
};

/// Student's t(df) = z sqrt(df / 2) / sqrt(gamma(df / 2)): z from the own block, the gamma at
/// retry ids 1-40.
template <class T>
struct standard_t_dist {
  using value_type = T;
  static constexpr int epb = 1;
  double df = 1;
  gamma_dist<double> g;  // gamma(df / 2, 1)
  TESSERA_HD T element(const u32x4& w, int, const site& s) const {
    double z, unused;
    conv::box_muller(w.v[0], w.v[1], w.v[2], w.v[3], z, unused);
    return T(math::sqrt(df / 2) * z / math::sqrt(g.sample_at(s, 1)));
  }
};

/// Poisson(lam) as int64.
struct poisson_dist {
  using value_type = std::int64_t;
  static constexpr int epb = 1;
  double lam = 1;
  TESSERA_HD std::int64_t element(const u32x4& w, int, const site& s) const {
    return detail::poisson(lam, &w, s, 0);
  }
};

/// Binomial(n, p) as int64.
struct binomial_dist {
  using value_type = std::int64_t;
  static constexpr int epb = 1;
  std::int64_t n = 1;
  double p = 0.5;
  TESSERA_HD std::int64_t element(const u32x4& w, int, const site& s) const { return detail::binomial(n, p, &w, s); }
};

/// Negative binomial(n, p): poisson(gamma(n, (1 - p) / p)); the gamma at retry ids 0-39 (with
/// the own block), the poisson at 40 onward.
struct negative_binomial_dist {
  using value_type = std::int64_t;
  static constexpr int epb = 1;
  gamma_dist<double> g;
  TESSERA_HD std::int64_t element(const u32x4& w, int, const site& s) const {
    return detail::poisson(g.sample(w, s), nullptr, s, 40);
  }
};

/// Geometric(p) on 1, 2, ...: ceil(log u / log(1 - p)), u in (0, 1] (inversion).
struct geometric_dist {
  using value_type = std::int64_t;
  static constexpr int epb = 1;
  double log1m_p = -1;   // log(1 - p)
  bool certain = false;  // p == 1: always 1
  TESSERA_HD std::int64_t element(const u32x4& w, int, const site&) const {
    if (certain) return 1;
    const double k = portable_math::ceil(math::log(conv::u53_open0(w.v[0], w.v[1])) / log1m_p);
    if (!(k < 9.2e18)) return std::numeric_limits<std::int64_t>::max();
    return k < 1 ? 1 : std::int64_t(k);
  }
};

/// The one-parameter-family continuous distributions (kind selects the formula), in double.
enum class simple_kind { laplace, logistic, gumbel, weibull, pareto, rayleigh, power, cauchy, triangular, wald };

template <class T>
struct simple_dist {
  using value_type = T;
  static constexpr int epb = 1;
  simple_kind kind = simple_kind::laplace;
  double p0 = 0, p1 = 1, p2 = 0;  // loc, scale | a | left, mode, right | mean, scale
  TESSERA_HD T element(const u32x4& w, int, const site& s) const {
    const double u = detail::open01(w.v[0], w.v[1]);  // (0, 1)
    const double e = -math::log(conv::u53_open0(w.v[0], w.v[1]));  // standard exponential
    switch (kind) {
      case simple_kind::laplace:
        return T(u >= 0.5 ? p0 - p1 * math::log(2.0 - u - u) : p0 + p1 * math::log(u + u));
      case simple_kind::logistic: return T(p0 + p1 * math::log(u / (1.0 - u)));
      case simple_kind::gumbel: return T(p0 - p1 * math::log(-math::log(u)));
      case simple_kind::weibull: return T(p0 == 0 ? 0.0 : math::exp(math::log(e) / p0));
      case simple_kind::pareto: return T(portable_math::expm1(e / p0));
      case simple_kind::rayleigh: return T(p1 * math::sqrt(2.0 * e));
      case simple_kind::power: return T(math::exp(math::log(-portable_math::expm1(-e)) / p0));
      case simple_kind::cauchy: {
        double z0, z1;
        conv::box_muller(w.v[0], w.v[1], w.v[2], w.v[3], z0, z1);
        return T(z0 / z1);
      }
      case simple_kind::triangular: {  // left p0, mode p1, right p2
        const double base = p2 - p0, left = p1 - p0, ratio = left / base;
        const double v = conv::u53(w.v[0], w.v[1]);
        return T(v <= ratio ? p0 + math::sqrt(v * left * base) : p2 - math::sqrt((1.0 - v) * (p2 - p1) * base));
      }
      case simple_kind::wald: {  // mean p0, scale p1: NumPy's transformation with rejection
        double z, unused;
        conv::box_muller(w.v[0], w.v[1], w.v[2], w.v[3], z, unused);
        const double mu2l = p0 / (2 * p1), y = p0 * z * z;
        const double x = p0 + mu2l * (y - math::sqrt(4 * p1 * y + y * y));
        const u32x4 b = s.retry(1);
        const double v = conv::u53(b.v[0], b.v[1]);
        return T(v <= p0 / (p0 + x) ? x : p0 * p0 / x);
      }
    }
    return T(0);
  }
};

}  // namespace tessera::random

TESSERA_BATCH_DIAGNOSTICS_END
