// Extending Tessera from your own code: an elementwise operation (ts::map), a reduction
// (ts::reduce) and a random distribution (generator::draw), each fused into the per-chunk
// kernel like the built-ins. Checks itself against built-ins and exits 1 on a mismatch.
#include <tessera/tessera.hpp>

#include <cmath>
#include <cstdio>
#include <limits>

namespace ts = tessera;

// Elementwise: smoothstep between two edges (any element type in, double out).
struct smoothstep {
  double lo = 0, hi = 1;
  template <class T>
  TESSERA_HD double operator()(T x) const {
    double t = (double(x) - lo) / (hi - lo);
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    return t * t * (3 - 2 * t);
  }
};

// Reduction: the largest magnitude and how many elements reach it (a struct state, final
// picks the magnitude; docs/reductions.md has the contract).
struct peak_reducer {
  struct state {
    double peak = 0;
    long long hits = 0;
  };
  TESSERA_HD state init() const { return state{}; }
  TESSERA_HD void add(state& s, double v) const {
    const double m = v < 0 ? -v : v;
    if (m > s.peak) s = state{m, 1};
    else if (m == s.peak) ++s.hits;
  }
  TESSERA_HD void merge(state& a, const state& b) const {
    if (b.peak > a.peak) a = b;
    else if (b.peak == a.peak) a.hits += b.hits;
  }
  TESSERA_HD double final(const state& s) const { return s.peak; }
};

// Distribution: Rayleigh(sigma) = sigma sqrt(-2 log u), u uniform on (0, 1], two elements per
// Philox block (element i: words 2 (i % 2) and 2 (i % 2) + 1 of block i / 2).
struct rayleigh {
  using value_type = double;
  static constexpr int epb = 2;
  double sigma = 1;
  TESSERA_HD double element(const ts::random::u32x4& w, int slot,
                            const ts::random::site&) const {
    return sigma * ts::random::math::sqrt(
                       ts::random::conv::radius2(w.v[2 * slot], w.v[2 * slot + 1]));
  }
};

int main() {
  auto rng = ts::random::default_rng(42);
  auto x = rng.normal<double>(0, 1, {4000, 3000}, {1000, 1000});

  // map: one pass, fused with the mean.
  const double m = ts::mean(ts::map(smoothstep{-1, 1}, x)).item();
  std::printf("mean smoothstep(x)  %.6f\n", m);

  // reduce: per-row peaks equal amax(abs(x)).
  auto peaks = ts::reduce(x, peak_reducer{}, 1);
  const double worst = ts::amax(ts::abs(peaks - ts::amax(ts::abs(x), 1))).item();
  std::printf("row peaks: first %.6f, max |peak - amax(abs(x))| = %g\n",
              ts::compute(peaks)(0), worst);

  // draw: the sample mean of Rayleigh(2) is near 2 sqrt(pi / 2) = 2.5066.
  auto r = rng.draw(rayleigh{2.0}, {4000, 3000}, {1000, 1000});
  const double rm = ts::mean(r).item();
  std::printf("mean rayleigh(2)    %.6f (expected %.6f)\n", rm, 2 * std::sqrt(M_PI / 2));

  const bool ok = worst == 0 && std::abs(rm - 2 * std::sqrt(M_PI / 2)) < 0.01 && m > 0.45 &&
                  m < 0.55;
  return ok ? 0 : 1;
}
