// Where a double normal's time goes on the device: one kernel per variant, each thread
// drawing the even elements of a standard-normal array (as seed 003's (a) selects them) and
// summing what the variant computes, timed with CUDA events (best of 4), in ps per element.
// Variants: the library's parts alone (Philox, uniform, log, sqrt, sine/cosine), the whole
// element as ts::random evaluates it, with the mean's Neumaier add, a whole pair, and
// candidate replacements that were measured and not adopted (a Newton reciprocal in log,
// conversions by the magic-number trick, one sine polynomial for the cosine): see
// docs/benchmarks.md, "Where the time goes".
//
//   cuda_bench_normal_parts [N = 2.5e9]     timings on the GPU
//   cuda_bench_normal_parts 1 accuracy      host check: the candidates' error, and that the
//                                           magic-number conversions give the same bits
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <tessera/random/distributions.hpp>
using namespace tessera::random;
namespace m = tessera::random::math;

// The steps math::log shares with the candidates below: x = 2^e (1 + f), 1 + f in
// [sqrt(1/2), sqrt(2)); and log = 2 atanh(s) + e log 2 from s = f / (2 + f).
TESSERA_HD TESSERA_INLINE double log_split(double x, std::int32_t& e) {
  const std::uint64_t b = m::bits(x);
  const std::uint64_t t = b - 0x3FE6A09E667F3BCDull;
  e = std::int32_t(std::uint32_t(t >> 32)) >> 20;
  return m::from_bits(b - (std::uint64_t(std::int64_t(e)) << 52)) - 1.0;
}
TESSERA_HD TESSERA_INLINE double log_series(double s, double ed) {
  const double z = s * s;
  double p = 1.0 / 21;
  p = m::fmad(p, z, 1.0 / 19); p = m::fmad(p, z, 1.0 / 17); p = m::fmad(p, z, 1.0 / 15);
  p = m::fmad(p, z, 1.0 / 13); p = m::fmad(p, z, 1.0 / 11); p = m::fmad(p, z, 1.0 / 9);
  p = m::fmad(p, z, 1.0 / 7); p = m::fmad(p, z, 1.0 / 5); p = m::fmad(p, z, 1.0 / 3);
  const double s2 = s + s;
  const double lm = m::fmad(s2, z * p, s2);
  return m::fmad(ed, 0.6931467056274414, m::fmad(ed, 4.7493250390316726e-07, lm));
}

// log with s = f * r, r = 1/(2+f) from a quadratic start and 3 Newton steps (no division)
TESSERA_HD TESSERA_INLINE double log_nodiv(double x) {
  std::int32_t e;
  const double f = log_split(x, e);
  const double d = 2.0 + f;
  double y = m::fmad(d, m::fmad(d, 0.11723953068827199, -0.7229295026557944), 1.477119530284452);  // ~1/d on [1.7,2.42], error < 3%
  double er = m::fmad(-d, y, 1.0); y = m::fmad(y, er, y);
  er = m::fmad(-d, y, 1.0); y = m::fmad(y, er, y);
  er = m::fmad(-d, y, 1.0); y = m::fmad(y, er, y);
  const double s = f * y;
  return log_series(s, double(e));
}
// sin(pi/2 g), |g| <= 1: Taylor to g^23
TESSERA_HD TESSERA_INLINE double sin_half_pi(double g) {
  const double z = g * g;
  // coefficients (pi/2)^(2k+1) (-1)^k / (2k+1)!
  const double c[12] = {1.5707963267948966, -0.6459640975062462, 0.07969262624616703,
                        -0.004681754135318687, 0.00016044118478735982, -3.598843235212085e-06,
                        5.692172921967926e-08, -6.688035109811467e-10, 6.066935731106195e-12,
                        -4.377065467313743e-14, 2.571422892860473e-16, -1.253899540535457e-18};
  double p = c[11];
  for (int k = 10; k >= 0; --k) p = m::fmad(p, z, c[k]);
  return p * g;
}
// sin(2 pi h), h in [-1/2, 1/2) a fraction of a turn: reflected into [-1/4, 1/4]
TESSERA_HD TESSERA_INLINE double sin_turn_fraction(double h) {
  const double ah = (h < 0 ? -h : h);
  const double hr = ah > 0.25 ? (h < 0 ? -0.5 : 0.5) - h : h;
  return sin_half_pi(4.0 * hr);
}
// cos(2 pi v) for v = c 2^-32 + (d>>11) 2^-53 through one sine polynomial
TESSERA_HD TESSERA_INLINE double cos_turn(std::uint32_t c, std::uint32_t d) {
  const std::uint32_t t = c + (1u << 30);  // +quarter turn: cos = sin(. + pi/2)
  double h = double(std::int32_t(t)) * 0x1p-32 + double(std::int32_t(d >> 11)) * 0x1p-53;  // [-1/2,1/2)
  return sin_turn_fraction(h);
}
TESSERA_HD TESSERA_INLINE double sin_turn(std::uint32_t c, std::uint32_t d) {
  double h = double(std::int32_t(c)) * 0x1p-32 + double(std::int32_t(d >> 11)) * 0x1p-53;
  return sin_turn_fraction(h);
}
TESSERA_HD TESSERA_INLINE double u53_bits(std::uint32_t a, std::uint32_t b) {  // (0,1], 52 bits
  const std::uint64_t mant = (std::uint64_t(a) << 20) | (b >> 12);
  return 2.0 - m::from_bits(std::uint64_t(0x3FF0000000000000ull | mant));  // (0, 1]
}

// exact int -> double without a conversion instruction (magic-number trick)
TESSERA_HD TESSERA_INLINE double u32_magic(std::uint32_t a) {  // 0 <= a < 2^32
  return m::from_bits(std::uint64_t(0x4330000000000000ull | a)) - 0x1p52;
}
TESSERA_HD TESSERA_INLINE double i32_magic(std::int32_t a) {  // |a| < 2^31
  return m::from_bits(std::uint64_t(0x4338000000000000ull + std::uint64_t(std::int64_t(a)))) - 0x1.8p52;
}
TESSERA_HD TESSERA_INLINE double u53_open0_magic(std::uint32_t a, std::uint32_t b) {
  return u32_magic(a) * 0x1p-32 + u32_magic((b >> 11) + 1) * 0x1p-53;
}
TESSERA_HD TESSERA_INLINE void angle_magic(std::uint32_t c, std::uint32_t d, double& s, double& co) {
  const std::uint32_t q = (c + (1u << 29)) >> 30;
  const std::int32_t rem = std::int32_t(c - (q << 30));
  const double f = i32_magic(rem) * 0x1p-30 + u32_magic(d >> 11) * 0x1p-51;
  m::sincos_quadrant(f, q & 3u, s, co);
}
TESSERA_HD TESSERA_INLINE double log_magic(double x) {
  std::int32_t e;
  const double f = log_split(x, e);
  const double s = f / (2.0 + f);
  return log_series(s, i32_magic(e));
}
TESSERA_HD TESSERA_INLINE double cos_turn_magic(std::uint32_t c, std::uint32_t d) {
  const std::uint32_t t = c + (1u << 30);
  double h = i32_magic(std::int32_t(t)) * 0x1p-32 + u32_magic(d >> 11) * 0x1p-53;
  return sin_turn_fraction(h);
}

template <int V>
__global__ void kern(std::uint64_t n, philox::key key, double* out) {
  double acc = 0, comp = 0;
  std::uint64_t iacc = 0;
  normal_dist<double> nd;
  nd.loc = 10; nd.scale = 1;
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint64_t flat = 2 * i;  // even elements, as in (a)
    const u32x4 w = philox::at(key, 0, flat / 2);
    if constexpr (V == 0) iacc += w.v[0] ^ w.v[1] ^ w.v[2] ^ w.v[3];
    else if constexpr (V == 1) acc += conv::u53_open0(w.v[0], w.v[1]);
    else if constexpr (V == 2) acc += conv::radius2(w.v[0], w.v[1]);
    else if constexpr (V == 3) acc += m::sqrt(conv::radius2(w.v[0], w.v[1]));
    else if constexpr (V == 4) { double s, c; conv::angle(w.v[2], w.v[3], s, c); acc += c; }
    else if constexpr (V == 5) acc += nd.element(w, 0, site{key, 0, flat}) + 1.0;
    else if constexpr (V == 6) {  // + Neumaier, as the mean's fold
      const double x = nd.element(w, 0, site{key, 0, flat}) + 1.0;
      const double t = acc + x;
      comp += fabs(acc) >= fabs(x) ? (acc - t) + x : (x - t) + acc;
      acc = t;
    }
    else if constexpr (V == 7) acc += -2.0 * log_nodiv(conv::u53_open0(w.v[0], w.v[1]));
    else if constexpr (V == 8) acc += cos_turn(w.v[2], w.v[3]);
    else if constexpr (V == 9) acc += u53_bits(w.v[0], w.v[1]);
    else if constexpr (V == 10) {  // candidate element: log_nodiv, sqrt, cos_turn
      const double r = m::sqrt(-2.0 * log_nodiv(conv::u53_open0(w.v[0], w.v[1])));
      acc += m::fmad(1.0, r * cos_turn(w.v[2], w.v[3]), 10.0) + 1.0;
    }
    else if constexpr (V == 11) {  // candidate with cos only, IEEE log
      const double r = m::sqrt(conv::radius2(w.v[0], w.v[1]));
      acc += m::fmad(1.0, r * cos_turn(w.v[2], w.v[3]), 10.0) + 1.0;
    }
    else if constexpr (V == 13) {  // pair by two one-poly turns: per pair
      const double r = m::sqrt(-2.0 * log_nodiv(conv::u53_open0(w.v[0], w.v[1])));
      acc += r * cos_turn(w.v[2], w.v[3]) + r * sin_turn(w.v[2], w.v[3]);
    }
    else if constexpr (V == 14) {  // candidate element + Neumaier
      const double r = m::sqrt(-2.0 * log_nodiv(conv::u53_open0(w.v[0], w.v[1])));
      const double x = m::fmad(1.0, r * cos_turn(w.v[2], w.v[3]), 10.0) + 1.0;
      const double t = acc + x;
      comp += fabs(acc) >= fabs(x) ? (acc - t) + x : (x - t) + acc;
      acc = t;
    }
    else if constexpr (V == 15) acc += u53_open0_magic(w.v[0], w.v[1]);
    else if constexpr (V == 16) { double s, c; angle_magic(w.v[2], w.v[3], s, c); acc += c; }
    else if constexpr (V == 17) {  // magic conversions, same values as now
      const double r = m::sqrt(-2.0 * log_magic(u53_open0_magic(w.v[0], w.v[1])));
      double s, c; angle_magic(w.v[2], w.v[3], s, c);
      acc += m::fmad(1.0, r * c, 10.0) + 1.0;
    }
    else if constexpr (V == 18) {  // magic conversions + cos-only one poly
      const double r = m::sqrt(-2.0 * log_magic(u53_open0_magic(w.v[0], w.v[1])));
      acc += m::fmad(1.0, r * cos_turn_magic(w.v[2], w.v[3]), 10.0) + 1.0;
    }
    else if constexpr (V == 19) {  // V18 + Neumaier
      const double r = m::sqrt(-2.0 * log_magic(u53_open0_magic(w.v[0], w.v[1])));
      const double x = m::fmad(1.0, r * cos_turn_magic(w.v[2], w.v[3]), 10.0) + 1.0;
      const double t = acc + x;
      comp += fabs(acc) >= fabs(x) ? (acc - t) + x : (x - t) + acc;
      acc = t;
    }
    else if constexpr (V == 12) {  // pair per call (both halves used): cost per PAIR
      double z0, z1;
      conv::box_muller(w.v[0], w.v[1], w.v[2], w.v[3], z0, z1);
      acc += z0 + z1;
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc + comp + double(iacc);
}

template <int V>
void run(const char* name, std::uint64_t n, double* out) {
  philox::key key = philox::key::of_seed(42);
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  float best = 1e30f;
  for (int rep = 0; rep < 4; ++rep) {
    cudaEventRecord(a);
    kern<V><<<132 * 16, 128>>>(n, key, out);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b);
    if (ms < best) best = ms;
  }
  cudaFuncAttributes at; cudaFuncGetAttributes(&at, kern<V>);
  printf("%-40s %8.3f ms  %7.2f ps/element  regs %d\n", name, best, best * 1e9 / double(n), at.numRegs);
  if (cudaGetLastError() != cudaSuccess) printf("cuda error\n");
}

#include <cmath>
#include <random>
#if !defined(__CUDA_ARCH__)  // host only (long double references)
void accuracy() {
  std::mt19937_64 g(1);
  double worst_log = 0, worst_cos = 0, worst_log_ieee = 0;
  for (int k = 0; k < 20000000; ++k) {
    const std::uint32_t a = std::uint32_t(g()), b = std::uint32_t(g()), c = std::uint32_t(g()), d = std::uint32_t(g());
    const double u = conv::u53_open0(a, b);
    const long double ref = std::log((long double)u);
    const double l1 = log_nodiv(u), l0 = m::log(u);
    auto ulps = [](double v, long double r) { return r == 0 ? 0.0 : double(std::fabs((long double)v - r) / std::ldexp(1.0L, std::ilogb((double)r) - 52)); };
    if (u53_open0_magic(a, b) != u) { printf("u53 magic differs\n"); return; }
    { double s0, c0, s1, c1; conv::angle(c, d, s0, c0); angle_magic(c, d, s1, c1); if (s0 != s1 || c0 != c1) { printf("angle magic differs\n"); return; } }
    if (log_magic(u) != l0) { printf("log magic differs\n"); return; }
    worst_log = std::max(worst_log, ulps(l1, ref));
    worst_log_ieee = std::max(worst_log_ieee, ulps(l0, ref));
    const long double v = (long double)c * 0x1p-32L + (long double)(d >> 11) * 0x1p-53L;
    const long double cref = std::cos(2 * 3.14159265358979323846264338327950288L * v);
    worst_cos = std::max(worst_cos, double(std::fabs((long double)cos_turn(c, d) - cref)));
  }
  printf("host accuracy: log (div) %.2f ulp, log (newton) %.2f ulp, cos_turn abs err %.3g\n", worst_log_ieee, worst_log, worst_cos);
}
#endif
int main(int argc, char** argv) {
#if !defined(__CUDA_ARCH__)
  if (argc > 2) {
    accuracy();
    return 0;
  }
#endif
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("cuda_bench_normal_parts: no CUDA device here, nothing to time\n");
    return 4;
  }
  std::uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2500000000ull;
  double* out; cudaMalloc(&out, 132 * 16 * 128 * sizeof(double) * 8);
  run<0>("philox only", n, out);
  run<1>("philox + u53_open0", n, out);
  run<9>("philox + u53 by bits", n, out);
  run<2>("philox + radius2 (log, div)", n, out);
  run<7>("philox + radius2 (log, newton rcp)", n, out);
  run<3>("philox + sqrt(radius2)", n, out);
  run<4>("philox + angle (sincos quadrant)", n, out);
  run<8>("philox + cos_turn (one poly)", n, out);
  run<5>("element slot 0 (+1), as now", n, out);
  run<6>("element + Neumaier", n, out);
  run<11>("cos-only element, IEEE log", n, out);
  run<10>("cos-only element, newton log", n, out);
  run<13>("pair by two one-poly turns (per pair)", n, out);
  run<14>("candidate element + Neumaier", n, out);
  run<15>("philox + u53 magic", n, out);
  run<16>("philox + angle magic", n, out);
  run<17>("element, magic conversions (same values)", n, out);
  run<18>("element, magic + cos one poly", n, out);
  run<19>("element, magic + cos one poly + Neumaier", n, out);
  run<12>("pair per call (per pair)", n, out);
  return 0;
}
