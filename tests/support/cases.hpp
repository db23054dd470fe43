// Randomized test cases: shapes, chunkings and data with a printed seed.
#pragma once
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <random>
#include <string>
#include <vector>

#include <tessera/tessera.hpp>
#include <xtensor/xarray.hpp>

/// Checks the exception's type and a matcher on its message (Catch2 v2's CHECK_THROWS_MATCHES
/// matches the exception object, which tessera's exceptions have no matcher for).
#define CHECK_THROWS_MATCHING(expr, E, matcher) \
  do {                                          \
    CHECK_THROWS_AS(expr, E);                   \
    CHECK_THROWS_WITH(expr, matcher);           \
  } while (0)

namespace testing {

using tessera::chunks_t;
using tessera::index_t;
using tessera::shape_t;

/// Seed for a randomized test: TESSERA_TEST_SEED overrides; always printed via INFO/UNSCOPED.
inline std::uint64_t test_seed(std::uint64_t fallback) {
  if (const char* s = std::getenv("TESSERA_TEST_SEED")) return std::strtoull(s, nullptr, 10);
  return fallback;
}

/// Iterations of a randomized loop: n scaled by TESSERA_TEST_SCALE (default 1; the GPU
/// sanitizer runs use a fraction), at least 1.
inline int test_iterations(int n) {
  double scale = 1;
  if (const char* s = std::getenv("TESSERA_TEST_SCALE")) scale = std::strtod(s, nullptr);
  const double k = double(n) * (scale > 0 ? scale : 1);
  return k < 1 ? 1 : int(k);
}

/// Distance in units in the last place between two floats of the same type (0: bitwise equal).
template <class T>
std::int64_t ulp_distance(T a, T b) {
  using I = std::conditional_t<sizeof(T) == 8, std::int64_t, std::int32_t>;
  I ia, ib;
  std::memcpy(&ia, &a, sizeof(T));
  std::memcpy(&ib, &b, sizeof(T));
  if (ia < 0) ia = std::numeric_limits<I>::min() - ia;
  if (ib < 0) ib = std::numeric_limits<I>::min() - ib;
  return std::abs(std::int64_t(ia) - std::int64_t(ib));
}

/// A random chunking of an axis of length n: regular, irregular or one-element chunks.
inline std::vector<index_t> random_axis_chunks(std::mt19937_64& rng, index_t n) {
  if (n == 0) return {0};
  std::vector<index_t> out;
  switch (rng() % 4) {
    case 0:  // one chunk
      return {n};
    case 1: {  // regular
      index_t c = 1 + index_t(rng() % std::uint64_t(n));
      for (index_t o = 0; o < n; o += c) out.push_back(std::min(c, n - o));
      return out;
    }
    case 2:  // one-element chunks (only for short axes)
      if (n <= 12) return std::vector<index_t>(std::size_t(n), 1);
      [[fallthrough]];
    default: {  // irregular
      index_t o = 0;
      while (o < n) {
        index_t c = 1 + index_t(rng() % std::uint64_t(std::max<index_t>(1, n / 2 + 1)));
        c = std::min(c, n - o);
        out.push_back(c);
        o += c;
      }
      return out;
    }
  }
}

inline chunks_t random_chunks(std::mt19937_64& rng, const shape_t& shape) {
  chunks_t c;
  for (auto n : shape) c.push_back(random_axis_chunks(rng, n));
  return c;
}

/// Random shape of rank in [rmin, rmax], axis lengths in [0, maxlen] (zero with small odds).
inline shape_t random_shape(std::mt19937_64& rng, int rmin, int rmax, index_t maxlen) {
  int r = rmin + int(rng() % std::uint64_t(rmax - rmin + 1));
  shape_t s;
  for (int d = 0; d < r; ++d) s.push_back(rng() % 10 == 0 ? 0 : 1 + index_t(rng() % std::uint64_t(maxlen)));
  return s;
}

/// Dense data with values in [-10, 10) (rounded to 1/8 so sums are exact-ish).
template <class T>
xt::xarray<T> random_data(std::mt19937_64& rng, const shape_t& shape) {
  std::vector<std::size_t> sh(shape.begin(), shape.end());
  auto a = xt::xarray<T>::from_shape(sh);
  for (auto& v : a) {
    if constexpr (std::is_same_v<T, bool>) v = rng() & 1;
    else if constexpr (std::is_floating_point_v<T>) v = T(double(std::int64_t(rng() % 160) - 80) / 8.0);
    else if constexpr (std::is_unsigned_v<T>) v = T(rng() % 20);
    else v = T(std::int64_t(rng() % 20) - 10);
  }
  return a;
}

/// Same shape and the same bytes (distinguishes -0.0 and NaN payloads): two dense arrays with
/// shape(), size(), data() and the same value_type.
template <class A, class B>
bool bitwise_equal_arrays(const A& a, const B& b) {
  using T = typename A::value_type;
  static_assert(std::is_same_v<T, typename B::value_type>);
  if (a.shape() != b.shape()) return false;
  return a.size() == 0 || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

inline std::string describe(const shape_t& s) { return tessera::detail::cat(s); }
inline std::string describe(const chunks_t& c) {
  std::string out = "(";
  for (auto& a : c) out += tessera::detail::cat(a) + " ";
  return out + ")";
}

}  // namespace testing
