// Reductions against xtensor on randomized shapes/chunkings/axes, determinism, numerics,
// NaN/empty semantics, result types, laziness/composition and argument errors.
#include "support/backends.hpp"
#include "support/cases.hpp"

#include <tessera/reduce.hpp>
#include <tessera/tessera.hpp>
#include <tessera/view.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <atomic>
#include <cmath>
#include <random>
#include <ranges>
#include <span>
#include <cstring>
#include <limits>
#include <numeric>
#include <xtensor/xadapt.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xsort.hpp>
#include <xtensor/xview.hpp>

namespace ts = tessera;
using namespace testing;

namespace {

/// Flattened values as doubles (NaN kept).
template <class E>
std::vector<double> flat(const E& e) {
  std::vector<double> v;
  for (auto x : e) v.push_back(double(x));
  return v;
}

bool close(double a, double b, double rtol, double atol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::abs(a - b) <= atol + rtol * std::max(std::abs(a), std::abs(b));
}

template <class A, class B>
void check_values(const A& got, const B& want, double rtol, double atol, const char* what) {
  auto g = flat(got), w = flat(want);
  INFO(what << ": got " << g.size() << " values, want " << w.size());
  REQUIRE(g.size() == w.size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    INFO(what << " element " << i << ": got " << g[i] << ", want " << w[i]);
    REQUIRE(close(g[i], w[i], rtol, atol));
  }
}

/// check_values for large results: one assertion, naming the first element that differs.
template <class A, class B>
void check_all_values(const A& got, const B& want, double rtol, double atol, const char* what) {
  auto g = flat(got), w = flat(want);
  INFO(what << ": got " << g.size() << " values, want " << w.size());
  REQUIRE(g.size() == w.size());
  std::size_t bad = 0;
  while (bad < g.size() && close(g[bad], w[bad], rtol, atol)) ++bad;
  INFO(what << (bad < g.size() ? " first differing element " : " all equal, ") << bad << ": got "
            << (bad < g.size() ? g[bad] : 0.0) << ", want " << (bad < g.size() ? w[bad] : 0.0));
  CHECK(bad == g.size());
}

/// The dense reference of a reduction over `axes`: the element count, the sum and the variance
/// (xt::variance is broken with run-time axes in xtensor 0.24).
struct dense_moments {
  double count;
  xt::xarray<double> sum, var;
};
dense_moments dense_sum_and_variance(const xt::xarray<double>& a, const std::vector<std::size_t>& axes) {
  double count = 1;
  for (auto d : axes) count *= double(a.shape()[d]);
  xt::xarray<double> mk = xt::mean(a, axes, xt::keep_dims);
  return {count, xt::sum(a, axes), xt::xarray<double>(xt::sum(xt::square(a - mk), axes) / count)};
}

/// One randomized reduction case.
struct rcase {
  shape_t shape;
  chunks_t chunks;
  bool all_axes = true;
  std::vector<index_t> axes;  // as given (may be negative)
  std::vector<std::size_t> norm;  // normalized, sorted
  bool keep = false;
  int split = 4;
  int threads = 1;
  index_t ddof = 0;
  unsigned mask = 0;
  index_t count = 1;
};

rcase random_case(std::mt19937_64& rng) {
  rcase c;
  c.shape = random_shape(rng, 0, 4, 9);
  c.chunks = random_chunks(rng, c.shape);
  const int r = int(c.shape.size());
  c.all_axes = r == 0 || rng() % 4 == 0;
  if (!c.all_axes) {
    std::vector<int> perm(static_cast<std::size_t>(r), 0);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    const int k = 1 + int(rng() % std::uint64_t(r));
    for (int i = 0; i < k; ++i) {
      int d = perm[std::size_t(i)];
      c.axes.push_back(rng() % 2 ? index_t(d) : index_t(d - r));
      c.mask |= 1u << d;
    }
  } else {
    c.mask = r == 0 ? 0u : (1u << r) - 1u;
  }
  for (int d = 0; d < r; ++d)
    if ((c.mask >> d) & 1u) {
      c.norm.push_back(std::size_t(d));
      c.count *= c.shape[std::size_t(d)];
    }
  c.keep = rng() % 2;
  const int splits[] = {2, 3, 4, 8};
  c.split = splits[rng() % 4];
  c.threads = 1 + int(rng() % 2);
  c.ddof = index_t(rng() % 2);
  return c;
}

std::string describe(const rcase& c) {
  return "shape " + testing::describe(c.shape) + " chunks " + testing::describe(c.chunks) +
         " axes " + (c.all_axes ? std::string("all") : ts::detail::cat(c.axes)) +
         " keep " + std::to_string(c.keep) + " split_every " + std::to_string(c.split) +
         " threads " + std::to_string(c.threads) + " ddof " + std::to_string(c.ddof);
}

/// Output shape of a reduction (NumPy rules).
shape_t out_shape(const rcase& c, unsigned mask) {
  shape_t s;
  for (std::size_t d = 0; d < c.shape.size(); ++d) {
    if (!((mask >> d) & 1u)) s.push_back(c.shape[d]);
    else if (c.keep) s.push_back(1);
  }
  return s;
}

template <class R>
void check_shape(const R& got, const shape_t& want) {
  shape_t g(got.shape().begin(), got.shape().end());
  INFO("result shape " << testing::describe(g) << " want " << testing::describe(want));
  REQUIRE(g == want);
}

/// Runs every reduction on one random case and compares with xtensor.
template <class T, class P>
void run_case(std::mt19937_64& rng) {
  rcase c = random_case(rng);
  INFO(describe(c));
  xt::xarray<T> a = testing::random_data<T>(rng, c.shape);
  auto x = ts::from_xtensor(a, c.chunks);
  const P pol = make_policy<P>(c.threads);
  const ts::reduce_options o{.keep_dims = c.keep, .ddof = c.ddof, .split_every = c.split};
  auto red = [&](auto f) { return c.all_axes ? f(x, o) : f(x, c.axes, o); };
  const shape_t oshape = out_shape(c, c.mask);
  index_t osize = 1;
  for (auto n : oshape) osize *= n;

  // xtensor reference over the reduced axes (a 0-d input is viewed as shape (1,)).
  xt::xarray<T> ar = a;
  std::vector<std::size_t> ax = c.norm;
  if (c.shape.empty()) {
    ar.reshape({1});
    ax = {0};
  }
  const bool empty_red = c.count == 0;
  // Tolerance floor for results in T (float results are rounded once to float).
  const double eps = std::is_same_v<T, float> ? 2e-7 : 0.0;

  {  // sum
    auto got = ts::compute(red([](auto&&... s) { return ts::sum(s...); }), pol);
    static_assert(std::is_same_v<typename decltype(got)::value_type, ts::sum_result_t<T>>);
    check_shape(got, oshape);
    if (osize > 0) {
      if (empty_red) {  // (xtensor's immediate reducers crash on empty inputs)
        for (auto v : got) REQUIRE(v == 0);
      } else {
        xt::xarray<double> want = xt::sum(xt::cast<double>(ar), ax);
        check_values(got, want, eps, 0, "sum");
      }
    }
  }
  {  // prod
    auto got = ts::compute(red([](auto&&... s) { return ts::prod(s...); }), pol);
    check_shape(got, oshape);
    if (osize > 0) {
      if (empty_red) {
        for (auto v : got) REQUIRE(v == 1);
      } else {
        // Integers wrap modulo 2^64 (as NumPy); floats round once to the result type.
        using R = ts::sum_result_t<T>;
        using W = std::conditional_t<std::is_integral_v<T>, std::uint64_t, double>;
        xt::xarray<W> pw = xt::prod(xt::cast<W>(ar), ax);
        xt::xarray<R> want = xt::cast<R>(pw);
        check_values(got, want, std::max(eps, 1e-12), 0, "prod");
      }
    }
  }
  {  // mean
    auto got = ts::compute(red([](auto&&... s) { return ts::mean(s...); }), pol);
    check_shape(got, oshape);
    if (osize > 0) {
      if (empty_red) {
        for (auto v : got) REQUIRE(std::isnan(double(v)));
      } else {
        xt::xarray<double> want = xt::mean(xt::cast<double>(ar), ax);
        check_values(got, want, std::max(eps, 1e-15), 0, "mean");
      }
    }
  }
  {  // variance, stddev
    auto gv = ts::compute(red([](auto&&... s) { return ts::variance(s...); }), pol);
    auto gs = ts::compute(red([](auto&&... s) { return ts::stddev(s...); }), pol);
    check_shape(gv, oshape);
    check_shape(gs, oshape);
    if (osize > 0) {
      if (c.count <= c.ddof || empty_red) {
        for (auto v : gv) REQUIRE(std::isnan(double(v)));
      } else {
        // (xt::variance with run-time axes is broken in xtensor 0.24: mean/sum instead)
        xt::xarray<double> ad = xt::cast<double>(ar);
        xt::xarray<double> mk = xt::mean(ad, ax, xt::keep_dims);
        xt::xarray<double> dev = xt::square(ad - mk);
        xt::xarray<double> want = xt::sum(dev, ax) / double(c.count - c.ddof);
        check_values(gv, want, std::max(eps, 1e-12), 1e-12, "variance");
        xt::xarray<double> wsd = xt::sqrt(want);
        check_values(gs, wsd, std::max(eps, 1e-12), 1e-12, "stddev");
      }
    }
  }
  {  // amin, amax
    if (empty_red) {
      REQUIRE_THROWS_AS(red([](auto&&... s) { return ts::amin(s...); }), std::invalid_argument);
      REQUIRE_THROWS_AS(red([](auto&&... s) { return ts::amax(s...); }), std::invalid_argument);
    } else {
      auto gmin = ts::compute(red([](auto&&... s) { return ts::amin(s...); }), pol);
      auto gmax = ts::compute(red([](auto&&... s) { return ts::amax(s...); }), pol);
      static_assert(std::is_same_v<typename decltype(gmin)::value_type, T>);
      check_shape(gmin, oshape);
      check_shape(gmax, oshape);
      if (osize > 0) {
        xt::xarray<T> wmin = xt::amin(ar, ax);
        xt::xarray<T> wmax = xt::amax(ar, ax);
        check_values(gmin, wmin, 0, 0, "amin");
        check_values(gmax, wmax, 0, 0, "amax");
      }
    }
  }
  {  // argmin, argmax: flat over all axes, or over the first given axis
    const bool flat_idx = c.all_axes;
    const int r = int(c.shape.size());
    const int axis = flat_idx ? -1 : int(c.axes[0] < 0 ? c.axes[0] + r : c.axes[0]);
    const index_t n = flat_idx ? ar.size() : c.shape[std::size_t(axis)];
    auto arg = [&](auto f) { return flat_idx ? f(x, o) : f(x, c.axes[0], o); };
    if (n == 0) {
      REQUIRE_THROWS_AS(arg([](auto&&... s) { return ts::argmin(s...); }), std::invalid_argument);
    } else {
      auto gmin = ts::compute(arg([](auto&&... s) { return ts::argmin(s...); }), pol);
      auto gmax = ts::compute(arg([](auto&&... s) { return ts::argmax(s...); }), pol);
      static_assert(std::is_same_v<typename decltype(gmin)::value_type, ts::index_t>);
      const shape_t os = out_shape(c, flat_idx ? c.mask : (1u << axis));
      check_shape(gmin, os);
      check_shape(gmax, os);
      index_t on = 1;
      for (auto v : os) on *= v;
      if (on > 0) {
        if (flat_idx || r == 1) {  // (xt::argmax(e, axis) is wrong for 1-d e in 0.24)
          // (xt::argmin(e) on the flat array, as std::min_element: first occurrence)
          std::vector<double> wmin{double(std::min_element(ar.begin(), ar.end()) - ar.begin())};
          std::vector<double> wmax{double(std::max_element(ar.begin(), ar.end()) - ar.begin())};
          check_values(gmin, wmin, 0, 0, "argmin (flat)");
          check_values(gmax, wmax, 0, 0, "argmax (flat)");
        } else {
          xt::xarray<double> wmin = xt::argmin(a, axis), wmax = xt::argmax(a, axis);
          check_values(gmin, wmin, 0, 0, "argmin");
          check_values(gmax, wmax, 0, 0, "argmax");
        }
      }
    }
  }
  {  // any, all, count_nonzero
    auto gany = ts::compute(red([](auto&&... s) { return ts::any(s...); }), pol);
    auto gall = ts::compute(red([](auto&&... s) { return ts::all(s...); }), pol);
    auto gcnt = ts::compute(red([](auto&&... s) { return ts::count_nonzero(s...); }), pol);
    static_assert(std::is_same_v<typename decltype(gany)::value_type, bool>);
    static_assert(std::is_same_v<typename decltype(gcnt)::value_type, std::int64_t>);
    check_shape(gany, oshape);
    check_shape(gcnt, oshape);
    if (osize > 0 && empty_red) {
      for (auto v : gany) REQUIRE(!v);
      for (auto v : gall) REQUIRE(v);
      for (auto v : gcnt) REQUIRE(v == 0);
    } else if (osize > 0) {
      xt::xarray<double> nz = xt::sum(xt::cast<double>(xt::not_equal(ar, T(0))), ax);
      xt::xarray<double> wcnt = xt::count_nonzero(ar, ax);
      check_values(gcnt, wcnt, 0, 0, "count_nonzero");
      xt::xarray<double> wany = xt::cast<double>(nz > 0.0);
      xt::xarray<double> wall = xt::cast<double>(xt::equal(nz, double(c.count)));
      check_values(gany, wany, 0, 0, "any");
      check_values(gall, wall, 0, 0, "all");
    }
  }
}

template <class T, class P>
void same_bits(const xt::xarray<T>& a, const xt::xarray<T>& b, const char* what) {
  INFO(what);
  REQUIRE(a.shape() == b.shape());
  // (an empty result may have no storage: memcmp of null pointers is undefined, even for 0 bytes)
  REQUIRE((a.size() == 0 || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0));
}

}  // namespace

TEMPLATE_TEST_CASE("reductions match xtensor on random cases (double)", "[reduce]",
                   TESSERA_TEST_BACKENDS) {
  const auto seed = test_seed(20261121);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < test_iterations(150); ++i) {
    INFO("case " << i);
    run_case<double, TestType>(rng);
  }
}

TEMPLATE_TEST_CASE("reductions match xtensor on random cases (int32)", "[reduce]",
                   TESSERA_TEST_BACKENDS) {
  const auto seed = test_seed(77);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < test_iterations(100); ++i) {
    INFO("case " << i);
    run_case<std::int32_t, TestType>(rng);
  }
}

TEMPLATE_TEST_CASE("reductions match xtensor on random cases (float, uint8)", "[reduce]",
                   TESSERA_TEST_BACKENDS) {
  const auto seed = test_seed(5);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < test_iterations(40); ++i) {
    INFO("case " << i);
    run_case<float, TestType>(rng);
    run_case<std::uint8_t, TestType>(rng);
  }
}

TEMPLATE_TEST_CASE("results are bitwise identical across thread counts", "[reduce]",
                   TESSERA_TEST_BACKENDS) {
  const auto seed = test_seed(99);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd(3.0, 2.0);
  xt::xarray<double> a = xt::xarray<double>::from_shape({301, 157, 5});
  for (auto& v : a) v = nd(rng);
  auto x = ts::from_xtensor(a, chunks_t{{40, 100, 1, 160}, {17, 140}, {2, 3}});
  auto e = ts::exp(x * 0.1) - 1.0;  // lazy expression over the stored array
  const auto p1 = make_policy<TestType>(1), p2 = make_policy<TestType>(2);
  auto both = [&](auto r, const char* what) {
    auto a1 = ts::compute(r, p1), a2 = ts::compute(r, p2);
    using V = typename decltype(a1)::value_type;
    same_bits<V, TestType>(a1, a2, what);
    auto a3 = ts::compute(r, p2);
    same_bits<V, TestType>(a1, a3, what);
  };
  both(ts::sum(e), "sum");
  both(ts::mean(e, {0}), "mean axis 0");
  both(ts::mean(e, {0, 2}, ts::keep_dims), "mean axes 0,2");
  both(ts::variance(e, {1}, {.ddof = 1, .split_every = 2}), "variance axis 1");
  both(ts::stddev(e), "stddev");
  both(ts::prod(e * 0.01 + 1.0, {-1}), "prod");
  both(ts::argmax(e), "argmax");
  both(ts::amin(e, {0, 1}), "amin");
}

TEMPLATE_TEST_CASE("sums and means of an elementwise op fold its values as the stored result's",
                   "[reduce][numerics]", TESSERA_TEST_BACKENDS) {
  // Over the last axis, the fold takes an elementwise op's values where they are computed
  // (elementwise_line::with_values, add_values): the same roundings, bitwise, as folding the
  // stored result, for ops over stored operands, random normals and broadcast scalars.
  const auto seed = test_seed(2026112801);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd(0.5, 3.0);
  const auto pol = make_policy<TestType>(2);
  for (int i = 0; i < test_iterations(30); ++i) {
    // The last axis crosses batches (up to 700 elements); the leading axes stay short (1-7,
    // empty with the same odds), so that a case holds at most 49 x 700 values: with leading
    // axes up to 700 too, one case held up to 343 M values and this test took most of CI's
    // test time (39 s at -O3, 236 s under ts::mpi at -O1).
    shape_t shape = random_shape(rng, 1, 3, 700);
    for (std::size_t d = 0; d + 1 < shape.size(); ++d)
      if (shape[d] > 0) shape[d] = 1 + (shape[d] - 1) % 7;
    const chunks_t ch = random_chunks(rng, shape);
    INFO("case " << i << ": shape " << describe(shape) << ", chunks " << describe(ch));
    std::vector<std::size_t> sh(shape.begin(), shape.end());
    auto a = xt::xarray<double>::from_shape(sh), b = xt::xarray<double>::from_shape(sh);
    for (auto& v : a) v = nd(rng);
    for (auto& v : b) v = nd(rng);
    const auto x = ts::from_xtensor(a, ch), y = ts::from_xtensor(b, ch);
    const auto z = ts::random::default_rng(rng()).standard_normal<double>(shape, ch);
    const double c = nd(rng);
    const auto check = [&](const auto& e, const char* what) {
      INFO(what);
      const auto stored = ts::persist(e, pol);
      same_bits<double, TestType>(ts::compute(ts::sum(e, {-1}), pol), ts::compute(ts::sum(stored, {-1}), pol), "sum");
      same_bits<double, TestType>(ts::compute(ts::mean(e, {-1}), pol), ts::compute(ts::mean(stored, {-1}), pol), "mean");
      same_bits<double, TestType>(ts::compute(ts::mean(e), pol), ts::compute(ts::mean(stored), pol), "mean of all");
    };
    check(x * y, "x * y (stored operands)");
    check(x - c, "x - c");
    check(z + 1.0, "normals + 1");
    check(ts::exp(x * 0.1) * z, "exp(x 0.1) z (a nested op and normals)");
    check(ts::view(z, ts::ellipsis(), ts::range(1, ts::index_t(shape.back()), 2)) * c, "normals[..., 1::2] * c");
  }
  const auto f = ts::from_xtensor(xt::xarray<float>({{1.5f, 2.25f, -3.0f}, {0.125f, 7.0f, 1e-3f}}), chunks_t{{1, 1}, {2, 1}});
  same_bits<double, TestType>(ts::compute(ts::mean(f * 3.0f, {-1}), pol), ts::compute(ts::mean(ts::persist(f * 3.0f, pol), {-1}), pol),
                              "float mean");
}

TEST_CASE("batch pairwise sum of a value source: the stored batch's bits, no value past the batch",
          "[reduce][numerics]") {
  const auto seed = test_seed(2026112802);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd(1.0, 5.0);
  std::vector<double> v(std::size_t(ts::batch_size));
  for (ts::index_t n = 0; n <= ts::batch_size; ++n) {
    for (auto& x : v) x = nd(rng);
    std::vector<int> reads(std::size_t(ts::batch_size), 0);
    const double got = ts::reducers::pairwise_sum(
        [&](ts::index_t k) {
          ++reads[std::size_t(k)];
          return v[std::size_t(k)] * 2.0;
        },
        n);
    std::vector<double> doubled(v.size());
    for (std::size_t k = 0; k < v.size(); ++k) doubled[k] = v[k] * 2.0;
    INFO("n " << n);
    const double want = ts::reducers::pairwise_sum(doubled.data(), n);
    REQUIRE(std::bit_cast<std::uint64_t>(got) == std::bit_cast<std::uint64_t>(want));
    // every value of the batch, none after it; a last block of r < 8 values recomputes the
    // 8 - r before it (masked out), so at most twice
    for (ts::index_t k = 0; k < ts::batch_size; ++k) {
      INFO("k " << k);
      if (k < n) REQUIRE((reads[std::size_t(k)] == 1 || reads[std::size_t(k)] == 2));
      else REQUIRE(reads[std::size_t(k)] == 0);
    }
  }
}

TEST_CASE("batch pairwise sum: the vector tree has the bits of the portable one", "[reduce][numerics]") {
  // pairwise_sum reads blocks of 8 values into GNU vectors with a binary counter of pending
  // levels; detail_pairwise::tree_sum is the same tree in scalar code (reduce/pairwise_sum.hpp)
  const auto seed = test_seed(2026112901);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::vector<double> v(std::size_t(ts::batch_size) + 8);
  std::vector<float> f(v.size());
  for (int trial = 0; trial < 20; ++trial)
    for (ts::index_t n = 0; n <= ts::batch_size; ++n) {
      for (auto& x : v) x = std::ldexp(mantissa(rng), int(rng() % 60) - 30);  // mixed magnitudes
      for (std::size_t k = std::size_t(n); k < v.size(); ++k) v[k] = std::numeric_limits<double>::quiet_NaN();  // not read
      for (std::size_t k = 0; k < v.size(); ++k) f[k] = float(v[k]);
      INFO("trial " << trial << ", n " << n);
      const double want = ts::reducers::detail_pairwise::tree_sum(v.data(), n);
      REQUIRE(std::bit_cast<std::uint64_t>(ts::reducers::pairwise_sum(v.data(), n)) == std::bit_cast<std::uint64_t>(want));
      REQUIRE(std::bit_cast<std::uint64_t>(ts::reducers::pairwise_sum(f.data(), n)) ==
              std::bit_cast<std::uint64_t>(ts::reducers::detail_pairwise::tree_sum(f.data(), n)));
      // and within the tree's error bound of the exact sum (long double: 64-bit mantissa)
      long double exact = 0;
      double mag = 0;
      for (ts::index_t k = 0; k < n; ++k) {
        exact += (long double)v[std::size_t(k)];
        mag += std::abs(v[std::size_t(k)]);
      }
      REQUIRE(std::abs(double((long double)want - exact)) <= 9 * std::numeric_limits<double>::epsilon() * mag);
    }
  // 2^k full blocks of equal values: exact
  std::vector<double> tenth(std::size_t(ts::batch_size), 0.1);
  REQUIRE(ts::reducers::pairwise_sum(tenth.data(), ts::batch_size) == 0.1 * double(ts::batch_size));
  REQUIRE(ts::reducers::pairwise_sum(tenth.data(), 64) == 0.1 * 64);
}

TEMPLATE_TEST_CASE("exact reductions do not depend on split_every", "[reduce]",
                   TESSERA_TEST_BACKENDS) {
  const auto seed = test_seed(3);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  xt::xarray<std::int32_t> ai = testing::random_data<std::int32_t>(rng, {97, 61});
  xt::xarray<double> ad = testing::random_data<double>(rng, {97, 61});  // multiples of 1/8: exact sums
  auto xi = ts::from_xtensor(ai, {7, 5});
  auto xd = ts::from_xtensor(ad, {7, 5});
  const auto pol = make_policy<TestType>(2);
  for (int axis : {-1, 0, 1}) {
    INFO("axis " << axis);
    auto run = [&](int split) {
      ts::reduce_options o{.split_every = split};
      auto si = axis < 0 ? ts::sum(xi, o) : ts::sum(xi, axis, o);
      auto sd = axis < 0 ? ts::sum(xd, o) : ts::sum(xd, axis, o);
      auto md = axis < 0 ? ts::mean(xd, o) : ts::mean(xd, axis, o);
      return std::tuple{ts::compute(si, pol), ts::compute(sd, pol), ts::compute(md, pol)};
    };
    auto [i2, d2, m2] = run(2);
    for (int split : {3, 4, 16, std::numeric_limits<int>::max()}) {
      auto [i, d, m] = run(split);
      same_bits<std::int64_t, TestType>(i, i2, "int sum");
      same_bits<double, TestType>(d, d2, "double sum");
      same_bits<double, TestType>(m, m2, "double mean");
    }
  }
}

TEMPLATE_TEST_CASE("a split_every above the block count is the one-node tree", "[reduce]",
                   TESSERA_TEST_BACKENDS) {
  const auto seed = test_seed(31);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd;
  xt::xarray<double> a = xt::xarray<double>::from_shape({50, 41});
  for (auto& v : a) v = nd(rng);  // inexact sums: the merge order shows in the last bits
  auto x = ts::from_xtensor(a, {7, 5});  // 8 x 9 = 72 blocks
  const auto pol = make_policy<TestType>(2);
  for (int axis : {-1, 0, 1}) {
    INFO("axis " << axis);
    auto run = [&](int split) {
      ts::reduce_options o{.split_every = split};
      return ts::compute(axis < 0 ? ts::sum(x, o) : ts::sum(x, axis, o), pol);
    };
    // INT_MAX used to allocate a table of INT_MAX partials (16 GiB) per output block.
    same_bits<double, TestType>(run(std::numeric_limits<int>::max()), run(72), "sum");
  }
}

TEMPLATE_TEST_CASE("sum and mean of 1e8 copies of 0.1 stay exact to ~1 ulp", "[reduce][numerics]",
                   TESSERA_TEST_BACKENDS) {
  const ts::index_t rows = 20000, cols = 5000;
  auto x = ts::full<double>({rows, cols}, 0.1, {4000, 1000});
  const auto pol = make_policy<TestType>(2);
  const double mean = ts::item(ts::mean(x), pol);
  const double sum = ts::item(ts::sum(x), pol);
  const double n = double(rows * cols);
  INFO("mean " << mean << " sum " << sum);
  CHECK(std::abs(mean - 0.1) / 0.1 <= 4e-16);
  CHECK(std::abs(sum - 0.1 * n) / (0.1 * n) <= 4e-16);
  // A naive running sum of the same values drifts far beyond that (so the check can fail).
  double naive = 0;
  for (ts::index_t i = 0; i < rows * cols; ++i) naive += 0.1;
  CHECK(std::abs(naive / n - 0.1) / 0.1 > 1e-12);
  // The same through a lazy expression and along one axis.
  auto m0 = ts::compute(ts::mean(x * 1.0, {0}), pol);
  for (auto v : m0) REQUIRE(std::abs(v - 0.1) / 0.1 <= 4e-16);
}

TEMPLATE_TEST_CASE("reductions over leading axes of large boxes match a dense reference",
                   "[reduce][axes]", TESSERA_TEST_BACKENDS) {
  // Boxes large enough for the host fold's row groups (32 rows), four-row runs and several
  // 256-column batches, with the reduced axes anywhere before a kept last axis, stored and lazy
  // (so rows are read in place and evaluated).
  const auto seed = test_seed(20261127);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const auto pol = make_policy<TestType>(2);
  for (int i = 0; i < test_iterations(6); ++i) {
    const shape_t shape{index_t(20 + rng() % 60), index_t(3 + rng() % 25), index_t(300 + rng() % 500)};
    const shape_t chunks{shape[0], index_t(1 + rng() % 7), index_t(257 + rng() % 400)};
    xt::xarray<double> a = testing::random_data<double>(rng, shape);
    a += 1e3;  // far from zero: the variance's shift matters
    auto x = ts::from_xtensor(a, chunks);
    auto lazy = x * 1.0;
    const std::vector<std::vector<std::size_t>> axes_list{{0}, {1}, {0, 1}, {0, 2}};
    for (const auto& axes : axes_list) {
      std::vector<index_t> ts_axes(axes.begin(), axes.end());
      INFO("case " << i << " shape " << testing::describe(shape) << " chunks "
                   << testing::describe(chunks) << " axes " << ts::detail::cat(ts_axes));
      const auto [count, want_sum, want_var] = dense_sum_and_variance(a, axes);
      check_values(ts::compute(ts::sum(x, ts_axes), pol), want_sum, 1e-13, 0, "sum (stored)");
      check_values(ts::compute(ts::sum(lazy, ts_axes), pol), want_sum, 1e-13, 0, "sum (lazy)");
      check_values(ts::compute(ts::mean(x, ts_axes), pol), xt::xarray<double>(want_sum / count),
                   1e-13, 0, "mean (stored)");
      check_values(ts::compute(ts::variance(x, ts_axes), pol), want_var, 1e-9, 0,
                   "variance (stored)");
      check_values(ts::compute(ts::variance(lazy, ts_axes), pol), want_var, 1e-9, 0,
                   "variance (lazy)");
      check_values(ts::compute(ts::amax(lazy, ts_axes), pol), xt::xarray<double>(xt::amax(a, axes)),
                   0, 0, "amax (lazy)");
    }
  }
}

TEMPLATE_TEST_CASE("reductions over runs of thin chunks match a dense reference",
                   "[reduce][axes]", TESSERA_TEST_BACKENDS) {
  // Chunks a few rows deep along the reduced axes and a large kept cross-section: on the host
  // (and ts::mpi over it) one task folds a run of such chunks over a tile of the cross-section
  // (reduce/spec.hpp, reduction_plan's runs). Irregular chunks, the run axis anywhere before a
  // kept last axis, stored and lazy inputs, index reductions, keep_dims; bitwise the same for 1
  // and 2 threads.
  const auto seed = test_seed(20261128);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const auto p1 = make_policy<TestType>(1), p2 = make_policy<TestType>(2);
  auto random_chunks = [&](index_t n, index_t lo, index_t hi) {
    std::vector<index_t> c;
    for (index_t left = n; left > 0;) {
      const index_t k = std::min(left, lo + index_t(rng() % std::uint64_t(hi - lo + 1)));
      c.push_back(k);
      left -= k;
    }
    return c;
  };
  int with_runs = 0;
  for (int i = 0; i < test_iterations(8); ++i) {
    const shape_t shape{index_t(12 + rng() % 40), index_t(2 + rng() % 4), index_t(40 + rng() % 60),
                        index_t(100 + rng() % 200)};
    const chunks_t chunks{random_chunks(shape[0], 1, 6), random_chunks(shape[1], 1, 3),
                          random_chunks(shape[2], 8, 60), {shape[3]}};
    xt::xarray<double> a = testing::random_data<double>(rng, shape);
    a += 1e3;  // far from zero: the variance's shift matters
    auto x = ts::from_xtensor(a, chunks);
    auto lazy = x * 1.0;
    const std::vector<std::vector<std::size_t>> axes_list{{0}, {0, 1}, {1}, {0, 2}};
    for (const auto& axes : axes_list) {
      std::vector<index_t> ts_axes(axes.begin(), axes.end());
      ts::reduce_spec spec;
      for (auto d : axes) spec.mask |= 1u << d;
      const ts::detail::reduction_plan plan(x.grid(), spec, 8);
      with_runs += plan.run > 1;
      INFO("case " << i << " shape " << testing::describe(shape) << " chunks "
                   << testing::describe(chunks) << " axes " << ts::detail::cat(ts_axes)
                   << " run " << plan.run);
      const auto [count, want_sum, want_var] = dense_sum_and_variance(a, axes);
      check_all_values(ts::compute(ts::sum(x, ts_axes), p2), want_sum, 1e-13, 0, "sum (stored)");
      check_all_values(ts::compute(ts::sum(lazy, ts_axes), p2), want_sum, 1e-13, 0, "sum (lazy)");
      check_all_values(ts::compute(ts::mean(lazy, ts_axes, ts::keep_dims), p2),
                   xt::xarray<double>(want_sum / count), 1e-13, 0, "mean (lazy, keep_dims)");
      check_all_values(ts::compute(ts::variance(x, ts_axes), p2), want_var, 1e-9, 0, "variance (stored)");
      check_all_values(ts::compute(ts::variance(lazy, ts_axes), p2), want_var, 1e-9, 0, "variance (lazy)");
      check_all_values(ts::compute(ts::amax(x, ts_axes), p2), xt::xarray<double>(xt::amax(a, axes)), 0, 0,
                   "amax (stored)");
      check_all_values(ts::compute(ts::amin(lazy, ts_axes), p2), xt::xarray<double>(xt::amin(a, axes)), 0, 0,
                   "amin (lazy)");
      if (axes.size() == 1) {  // argmax / argmin over one axis
        const int ax = int(axes[0]);
        check_all_values(ts::compute(ts::argmax(lazy, ax), p2), xt::xarray<double>(xt::argmax(a, ax)), 0, 0,
                     "argmax (lazy)");
        check_all_values(ts::compute(ts::argmin(x, ax), p2), xt::xarray<double>(xt::argmin(a, ax)), 0, 0,
                     "argmin (stored)");
      }
      auto s1 = ts::compute(ts::variance(lazy, ts_axes), p1), s2 = ts::compute(ts::variance(lazy, ts_axes), p2);
      same_bits<double, TestType>(s1, s2, "variance, 1 and 2 threads");
      // compute finalizes the tiles into its own result; persist keeps the backend's stored
      // result (assembled from the same tiles): the same bits
      const auto kept = ts::sum(lazy, ts_axes, ts::keep_dims);
      same_bits<double, TestType>(ts::compute(kept, p2), ts::compute(ts::persist(kept, p2), p2),
                                  "sum with keep_dims, computed and persisted");
      same_bits<double, TestType>(ts::compute(ts::variance(x, ts_axes), p1),
                                  ts::compute(ts::persist(ts::variance(x, ts_axes), p1), p1),
                                  "variance, computed and persisted");
      if (axes.size() == 1) {
        const auto am = ts::argmax(x, int(axes[0]));
        const auto got = ts::compute(am, p2), kept_am = ts::compute(ts::persist(am, p2), p2);
        REQUIRE(got.shape() == kept_am.shape());
        CHECK(std::equal(got.begin(), got.end(), kept_am.begin()));
      }
    }
  }
  UNSCOPED_INFO("cases folded in runs: " << with_runs);
  CHECK(with_runs > 0);  // the plan takes runs on some of these cases
}

/// A store read whole, block by block (a file's chunks): no block pointer, read_block counted.
struct counting_store {
  using value_type = double;
  ts::chunk_grid g;
  std::vector<double> data;  // row-major over the whole shape
  mutable std::atomic<long> reads{0};
  const ts::chunk_grid& grid() const { return g; }
  ts::memory_space block_space(index_t) const { return ts::memory_space::on_host(); }
  const double* block_pointer(index_t) const { return nullptr; }
  void read_block(index_t b, double* out) const {
    ++reads;
    ts::detail::copy_box_overlap(data.data(), g.whole(), out, g.block_box(b));
  }
};

TEST_CASE("a reduction over thin chunks of a store read whole reads each chunk once",
          "[reduce][axes]") {
  // Runs cut chunks into tiles of the kept cross-section; a chunk read whole (a file's) would
  // then be read once per tile, so such inputs keep one chunk per task.
  const auto seed = test_seed(20261129);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const shape_t shape{32, 64, 300};
  xt::xarray<double> a = testing::random_data<double>(rng, shape);
  auto s = std::make_shared<counting_store>();
  s->g = ts::chunk_grid(shape, chunks_t{{4, 4, 4, 4, 4, 4, 4, 4}, {64}, {300}});
  s->data.assign(a.begin(), a.end());
  auto x = ts::from_store(s);
  ts::reduce_spec spec;
  spec.mask = 1u;
  REQUIRE(ts::detail::reduction_plan(x.grid(), spec, 8).run > 1);  // runs in memory
  CHECK_FALSE(ts::detail::reads_parts_in_place(x));
  const auto pol = make_policy<ts::host>(2);
  check_all_values(ts::compute(ts::sum(x * 1.0, {0}), pol), xt::xarray<double>(xt::sum(a, {0})), 1e-13, 0,
                   "sum over axis 0");
  CHECK(s->reads == s->g.block_count());
  // The same values from memory (runs): the sums agree to rounding.
  check_all_values(ts::compute(ts::sum(ts::from_xtensor(a, s->g.chunks()), {0}), pol),
                   xt::xarray<double>(xt::sum(a, {0})), 1e-13, 0, "sum over axis 0 (in memory)");
  CHECK(ts::detail::reads_parts_in_place(ts::from_xtensor(a, s->g.chunks())));
}

TEST_CASE("runs of thin chunks are as long as tiles of 1024 states allow", "[reduce][axes]") {
  // reduction_plan: the longest run (at most max_run chunks, reaching 64 rows, dividing the
  // chunk count) whose tiles keep at least min_tile states and that some kept axis can be cut
  // into (all its chunks at least `run` rows).
  ts::reduce_spec spec;
  spec.mask = 1u;  // over axis 0
  const auto plan = [&](const shape_t& shape, const chunks_t& chunks) {
    return ts::detail::reduction_plan(ts::chunk_grid(shape, chunks), spec, 8);
  };
  const std::vector<index_t> eights(128, 8);
  // a cross-section of 2048: runs of 2 chunks (16 rows), tiles of 1024 columns
  const auto narrow = plan({1024, 2048}, chunks_t{eights, {2048}});
  CHECK(narrow.run == 2);
  CHECK(narrow.tile_axis == 1);
  CHECK(narrow.tasks() == 128);  // as many tasks as chunks
  // 8192: runs of 8 (64 rows); 1023 leaves no tile of 1024 states: one chunk per task
  CHECK(plan({1024, 8192}, chunks_t{eights, {8192}}).run == 8);
  CHECK(plan({1024, 1023}, chunks_t{eights, {1023}}).run == 1);
  // 127 chunks along axis 0: no run length from 2 to 8 divides it
  CHECK(plan({1016, 8192}, chunks_t{std::vector<index_t>(127, 8), {8192}}).run == 1);
  // kept axes with chunks of 4 rows and of 4096 and 3: a run of 8 would cut neither, 7, 6 and 5
  // do not divide the 128 chunks; runs of 4, the tiles cut along axis 1
  const auto cut = plan({1024, 4, 4099}, chunks_t{eights, {4}, {4096, 3}});
  CHECK(cut.run == 4);
  CHECK(cut.tile_axis == 1);
  // and the sums over such runs match a dense reference
  const auto seed = test_seed(20261129);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  xt::xarray<double> a = testing::random_data<double>(rng, shape_t{256, 2048});
  auto x = ts::from_xtensor(a, chunks_t{std::vector<index_t>(32, 8), {2048}});
  REQUIRE(ts::detail::reduction_plan(x.grid(), spec, 8).run == 2);
  const auto p1 = make_policy<ts::host>(1), p2 = make_policy<ts::host>(2);
  const xt::xarray<double> want = xt::sum(a, {0});
  const auto got = ts::compute(ts::sum(x * 1.0, {0}), p2);
  check_all_values(got, want, 1e-13, 0, "sum over axis 0 (lazy, runs of 2)");
  check_all_values(ts::compute(ts::mean(x, {0}), p2), xt::xarray<double>(want / 256.0), 1e-13, 0,
                   "mean over axis 0 (stored, runs of 2)");
  CHECK(bitwise_equal_arrays(ts::compute(ts::sum(x * 1.0, {0}), p1), got));  // for any thread count
}

TEMPLATE_TEST_CASE("variance of 1e9 + small noise has no cancellation", "[reduce][numerics]",
                   TESSERA_TEST_BACKENDS) {
  const auto seed = test_seed(11);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const std::size_t n = 1000000;
  xt::xarray<double> a = xt::xarray<double>::from_shape({n});
  std::vector<int> k(n);
  for (std::size_t i = 0; i < n; ++i) {
    k[i] = int(rng() % 16);
    a(i) = 1e9 + k[i] / 16.0;  // exact in double
  }
  // Exact reference from the small offsets.
  long double s = 0, s2 = 0;
  for (int v : k) s += v / 16.0L;
  const long double m = s / n;
  for (int v : k) s2 += (v / 16.0L - m) * (v / 16.0L - m);
  const double want = double(s2 / n), want1 = double(s2 / (n - 1));
  auto x = ts::from_xtensor(a, {65536});
  const auto pol = make_policy<TestType>(2);
  const double got = ts::item(ts::variance(x), pol);
  const double got1 = ts::item(ts::variance(x, {.ddof = 1}), pol);
  const double sd = ts::item(ts::stddev(x), pol);
  INFO("variance " << got << " want " << want);
  CHECK(std::abs(got - want) / want < 1e-12);
  CHECK(std::abs(got1 - want1) / want1 < 1e-12);
  CHECK(std::abs(sd - std::sqrt(want)) / std::sqrt(want) < 1e-12);
  // The textbook E[x^2] - E[x]^2 in double is useless here (the check above can fail).
  double q = 0, l = 0;
  for (std::size_t i = 0; i < n; ++i) q += a(i) * a(i), l += a(i);
  const double textbook = q / double(n) - (l / double(n)) * (l / double(n));
  CHECK(std::abs(textbook - want) / want > 1e-3);
  // Mean is exact to about an ulp.
  const double mean = ts::item(ts::mean(x), pol);
  CHECK(std::abs(mean - (1e9 + double(m))) <= 2e-7);
}

TEMPLATE_TEST_CASE("variance over a leading axis keeps its precision", "[reduce][numerics]",
                   TESSERA_TEST_BACKENDS) {
  // The host's column fold takes each group of rows in one pass (sums of x - h and of its
  // square, h the column's running mean or the group's first value): checked against exact
  // moments where that shift is at its worst (an outlier first in every group, data far from
  // zero with small spread), stored and lazy, several chunkings along the reduced axis.
  const auto seed = test_seed(20261128);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, 1);
  const auto pol = make_policy<TestType>(2);
  for (int i = 0; i < test_iterations(4); ++i) {
    const index_t rows = 40 + index_t(rng() % 200), cols = 64 + index_t(rng() % 600);
    const index_t chunk = std::vector<index_t>{8, 16, 17, 64, rows}[rng() % 5];
    xt::xarray<double> a = xt::xarray<double>::from_shape({std::size_t(rows), std::size_t(cols)});
    const double center = std::vector<double>{0, 1e3, 1e9}[i % 3];
    for (index_t r = 0; r < rows; ++r)
      for (index_t c = 0; c < cols; ++c) {
        // Rows 0, 16, 32, ... (the first row of each 32-row fold group, and of each 16-row
        // chunk) hold outliers in some columns.
        const bool outlier = r % 16 == 0 && c % 3 == 0;
        a(r, c) = center + (outlier ? 1e4 * (1 + noise(rng)) : noise(rng) * 1e-2);
      }
    std::vector<double> want(static_cast<std::size_t>(cols));
    for (index_t c = 0; c < cols; ++c) {  // exact-enough reference: long double two-pass
      long double m = 0, q = 0;
      for (index_t r = 0; r < rows; ++r) m += (long double)a(r, c) - center;
      m /= rows;
      for (index_t r = 0; r < rows; ++r) {
        const long double d = ((long double)a(r, c) - center) - m;
        q += d * d;
      }
      want[std::size_t(c)] = double(q / rows);
    }
    auto x = ts::from_xtensor(a, {chunk, index_t(50 + rng() % 300)});
    INFO("case " << i << ": " << rows << " x " << cols << ", chunks of " << chunk
                 << " rows, center " << center);
    const auto stored = ts::compute(ts::variance(x, {0}), pol);
    const auto lazy = ts::compute(ts::variance(x * 1.0, {0}), pol);
    for (index_t c = 0; c < cols; ++c) {
      INFO("column " << c << ": stored " << stored(c) << ", lazy " << lazy(c) << ", want "
                     << want[std::size_t(c)]);
      const double rtol = 1e-12;
      REQUIRE(std::abs(stored(c) - want[std::size_t(c)]) <= rtol * want[std::size_t(c)]);
      REQUIRE(std::abs(lazy(c) - want[std::size_t(c)]) <= rtol * want[std::size_t(c)]);
    }
  }
}

TEMPLATE_TEST_CASE("NaN, inf and empty reductions follow NumPy", "[reduce][numerics]",
                   TESSERA_TEST_BACKENDS) {
  const auto pol = make_policy<TestType>(2);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  xt::xarray<double> a = {{1.0, 5.0, nan, 2.0}, {3.0, -1.0, 4.0, nan}, {0.0, 7.0, 1.0, 1.0}};
  auto x = ts::from_xtensor(a, {2, 3});
  CHECK(std::isnan(ts::item(ts::sum(x), pol)));
  CHECK(std::isnan(ts::item(ts::mean(x), pol)));
  CHECK(std::isnan(ts::item(ts::variance(x), pol)));
  CHECK(std::isnan(ts::item(ts::amin(x), pol)));
  CHECK(std::isnan(ts::item(ts::amax(x), pol)));
  CHECK(ts::item(ts::argmin(x), pol) == 2);  // first NaN, flat index
  CHECK(ts::item(ts::argmax(x), pol) == 2);
  CHECK(ts::item(ts::any(x), pol));
  CHECK(!ts::item(ts::all(x), pol));  // the 0.0
  CHECK(ts::item(ts::count_nonzero(x), pol) == 11);
  auto amax0 = ts::compute(ts::amax(x, {0}), pol);
  CHECK(amax0(0) == 3.0);
  CHECK(amax0(1) == 7.0);
  CHECK(std::isnan(amax0(2)));
  CHECK(std::isnan(amax0(3)));
  auto var0 = ts::compute(ts::variance(x, {0}), pol);  // columns with a NaN: NaN
  CHECK(var0(0) == Approx(14.0 / 9.0));
  CHECK(!std::isnan(var0(1)));
  CHECK(std::isnan(var0(2)));
  CHECK(std::isnan(var0(3)));
  {  // the column fold (groups of 32 rows): a NaN or an inf anywhere in a column gives NaN
    xt::xarray<double> w = xt::ones<double>({40, 300});
    w(0, 5) = nan;   // first row of the first group
    w(39, 6) = nan;  // last group
    w(17, 7) = inf;
    w(3, 8) = -inf;
    for (const ts::index_t rows : {40, 16, 7}) {
      INFO("chunks of " << rows << " rows");
      auto wv = ts::compute(ts::variance(ts::from_xtensor(w, {rows, 100}), {0}), pol);
      for (int c : {5, 6, 7, 8}) CHECK(std::isnan(wv(c)));
      CHECK(wv(0) == 0.0);
      CHECK(wv(299) == 0.0);
    }
  }
  auto arg1 = ts::compute(ts::argmin(x, 1), pol);
  CHECK(arg1(0) == 2);
  CHECK(arg1(1) == 3);
  CHECK(arg1(2) == 0);

  xt::xarray<double> b = {inf, 1.0, 2.0};
  auto y = ts::from_xtensor(b, {2});
  CHECK(ts::item(ts::sum(y), pol) == inf);
  CHECK(ts::item(ts::amax(y), pol) == inf);
  CHECK(std::isnan(ts::item(ts::sum(y - y), pol)));
  CHECK(std::isnan(ts::item(ts::sum(ts::from_xtensor(xt::xarray<double>{inf, -inf})), pol)));

  auto z = ts::zeros<double>({3, 0}, {2, 1});
  CHECK(ts::item(ts::sum(z), pol) == 0.0);
  CHECK(std::isnan(ts::item(ts::mean(z), pol)));
  CHECK(ts::item(ts::prod(z), pol) == 1.0);
  CHECK(!ts::item(ts::any(z), pol));
  CHECK(ts::item(ts::all(z), pol));
  CHECK(ts::item(ts::count_nonzero(z), pol) == 0);
  auto s1 = ts::compute(ts::sum(z, {1}), pol);
  REQUIRE(s1.size() == 3);
  for (auto v : s1) CHECK(v == 0.0);
  auto m1 = ts::compute(ts::mean(z, {1}, ts::keep_dims), pol);
  REQUIRE(m1.shape() == std::vector<std::size_t>{3, 1});
  for (auto v : m1) CHECK(std::isnan(v));
  CHECK(ts::compute(ts::amin(z, {0}), pol).size() == 0);  // reduces 3 elements per (empty) output
  CHECK_THROWS_AS(ts::amin(z), std::invalid_argument);
  CHECK_THROWS_AS(ts::amax(z, {1}), std::invalid_argument);
  CHECK_THROWS_AS(ts::argmax(z, 1), std::invalid_argument);
  CHECK_THROWS_AS(ts::argmin(z), std::invalid_argument);
  // ddof >= count: divisor max(n - ddof, 0) as NumPy (inf or NaN).
  auto two = ts::from_xtensor(xt::xarray<double>{1.0, 2.0});
  CHECK(std::isinf(ts::item(ts::variance(two, {.ddof = 3}), pol)));
  CHECK(std::isnan(ts::item(ts::variance(ts::full<double>({2}, 1.0), {.ddof = 2}), pol)));
}

TEMPLATE_TEST_CASE("result types follow NumPy and integer sums do not overflow",
                   "[reduce][types]", TESSERA_TEST_BACKENDS) {
  const auto pol = make_policy<TestType>(2);
  auto i8 = ts::full<std::int8_t>({1000, 3}, 100, {64, 2});
  auto s = ts::sum(i8);
  static_assert(std::is_same_v<decltype(s)::value_type, std::int64_t>);
  CHECK(ts::item(s, pol) == 300000);
  auto u8 = ts::full<std::uint8_t>({1000}, 200, {64});
  static_assert(std::is_same_v<decltype(ts::sum(u8))::value_type, std::uint64_t>);
  static_assert(std::is_same_v<decltype(ts::prod(u8))::value_type, std::uint64_t>);
  CHECK(ts::item(ts::sum(u8), pol) == 200000u);
  auto b = ts::full<bool>({10, 10}, true, {3, 3});
  static_assert(std::is_same_v<decltype(ts::sum(b))::value_type, std::int64_t>);
  CHECK(ts::item(ts::sum(b), pol) == 100);
  CHECK(ts::item(ts::mean(b), pol) == 1.0);
  auto i32 = ts::arange<std::int32_t>(0, 7, 1, {3});
  static_assert(std::is_same_v<decltype(ts::mean(i32))::value_type, double>);
  static_assert(std::is_same_v<decltype(ts::variance(i32))::value_type, double>);
  static_assert(std::is_same_v<decltype(ts::amax(i32))::value_type, std::int32_t>);
  CHECK(ts::item(ts::mean(i32), pol) == 3.0);
  CHECK(ts::item(ts::variance(i32), pol) == 4.0);
  auto f = ts::full<float>({100}, 0.5f, {7});
  static_assert(std::is_same_v<decltype(ts::mean(f))::value_type, float>);
  static_assert(std::is_same_v<decltype(ts::sum(f))::value_type, float>);
  CHECK(ts::item(ts::sum(f), pol) == 50.0f);
  auto big = ts::full<std::int64_t>({4}, std::int64_t(1) << 62);
  CHECK(ts::item(ts::sum(big), pol) == 0);  // wraps modulo 2^64, as NumPy int64
}

TEMPLATE_TEST_CASE("dtype= as a leading template argument follows NumPy", "[reduce][types]",
                   TESSERA_TEST_BACKENDS) {
  const auto pol = make_policy<TestType>(2);
  // int32 accumulated in int32 wraps as NumPy's np.sum(x, dtype=np.int32)
  auto i32 = ts::full<std::int32_t>({3}, std::int32_t(1) << 30, {2});
  auto s32 = ts::sum<std::int32_t>(i32);
  static_assert(std::is_same_v<typename decltype(s32)::value_type, std::int32_t>);
  CHECK(ts::item(s32, pol) == -1073741824);                       // 3 * 2^30 - 2^32
  CHECK(ts::item(ts::sum(i32), pol) == std::int64_t(3) << 30);   // without dtype: int64
  CHECK(ts::item(ts::prod<std::int8_t>(ts::full<std::int8_t>({3}, 10, {2})), pol) == -24);  // 1000 mod 256
  // elements converted first: float 0.5 -> int64 0 (np.sum(x, dtype=np.int64) == 0)
  CHECK(ts::item(ts::sum<std::int64_t>(ts::full<float>({100}, 0.5f, {7})), pol) == 0);
  // float32 accumulated in double: the same as summing the doubles
  xt::xarray<float> fd = xt::xarray<float>::from_shape({37, 5});
  const auto seed = test_seed(1124);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1e4f, 1e4f);
  for (auto& v : fd) v = u(rng);
  auto f = ts::from_xtensor(fd, {8, 2});
  auto sd = ts::sum<double>(f, {0});
  static_assert(std::is_same_v<typename decltype(sd)::value_type, double>);
  CHECK(bitwise_equal_arrays(ts::compute(sd, pol), ts::compute(ts::sum(ts::cast<double>(f), {0}), pol)));
  CHECK(bitwise_equal_arrays(ts::compute(ts::sum<double>(f, 0, ts::keepdims), pol),
                             ts::compute(ts::sum(ts::cast<double>(f), {0}, ts::keepdims), pol)));
  CHECK(bitwise_equal_arrays(ts::compute(ts::sum<double>(f, std::vector<int>{1}), pol),
                             ts::compute(ts::sum(ts::cast<double>(f), {1}), pol)));
  CHECK(bitwise_equal_arrays(ts::compute(f.sum<double>(1), pol), ts::compute(ts::sum(ts::cast<double>(f), {1}), pol)));
  static_assert(std::is_same_v<typename decltype(ts::mean<double>(f))::value_type, double>);
  static_assert(std::is_same_v<typename decltype(ts::stddev<double>(f, {1}))::value_type, double>);
  static_assert(std::is_same_v<typename decltype(ts::nansum<double>(f))::value_type, double>);
  static_assert(std::is_same_v<typename decltype(ts::nanmean<double>(f, {0}))::value_type, double>);
  CHECK(bitwise_equal_arrays(ts::compute(ts::nanvar<double>(f, {0}), pol),
                             ts::compute(ts::nanvar(ts::cast<double>(f), {0}), pol)));
  // integers averaged in float32: float results (NumPy: np.mean(x, dtype=np.float32))
  auto ar = ts::arange<std::int32_t>(0, 7, 1, {3});
  auto mf = ts::mean<float>(ar);
  static_assert(std::is_same_v<typename decltype(mf)::value_type, float>);
  CHECK(ts::item(mf, pol) == 3.0f);
  CHECK(ts::item(ts::variance<float>(ar), pol) == 4.0f);
  CHECK(ts::item(ar.mean<float>(), pol) == 3.0f);
  // cumulative: uint8 running sums wrap (np.cumsum(x, dtype=np.uint8)); int8 in int64 does not
  auto u8 = ts::full<std::uint8_t>({5}, 100, {2});
  auto cu = ts::compute(ts::cumsum<std::uint8_t>(u8), pol);
  static_assert(std::is_same_v<typename decltype(cu)::value_type, std::uint8_t>);
  CHECK(bool(cu == xt::xarray<std::uint8_t>{100, 200, 44, 144, 244}));
  auto ci = ts::compute(u8.cumsum<std::int16_t>(0), pol);
  CHECK(bool(ci == xt::xarray<std::int16_t>{100, 200, 300, 400, 500}));
  CHECK(bool(ts::compute(ts::cumprod<double>(ts::full<std::int8_t>({3}, 100, {2})), pol) ==
             xt::xarray<double>{100.0, 1e4, 1e6}));
  CHECK(bool(ts::compute(ts::nancumsum<float>(ts::full<std::int32_t>({2, 2}, 3, {1, 1}), 1), pol) ==
             xt::xarray<float>{{3.0f, 6.0f}, {3.0f, 6.0f}}));
}

TEMPLATE_TEST_CASE("reductions are lazy arrays that compose", "[reduce][lazy]",
                   TESSERA_TEST_BACKENDS) {
  const auto seed = test_seed(8);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const auto pol = make_policy<TestType>(2);
  xt::xarray<double> a = testing::random_data<double>(rng, {13, 9, 4});
  auto x = ts::from_xtensor(a, {5, 4, 3});
  // Nothing runs until compute; the node has the right grid.
  auto m0 = ts::mean(x, {0});
  REQUIRE(m0.shape() == shape_t{9, 4});
  REQUIRE(m0.chunks() == chunks_t{{4, 4, 1}, {3, 1}});
  auto mk = ts::sum(x, {1}, ts::keep_dims);
  REQUIRE(mk.shape() == shape_t{13, 1, 4});
  REQUIRE(mk.chunks() == chunks_t{{5, 5, 3}, {1}, {3, 1}});
  // Broadcast against the input.
  xt::xarray<double> want = a - xt::mean(a, {0});
  check_values(ts::compute(x - m0, pol), want, 1e-15, 1e-15, "x - mean(x, 0)");
  xt::xarray<double> w2 = a / (xt::view(xt::sum(a, {1}),
                                        xt::all(), xt::newaxis(), xt::all()) + 1000.0);
  check_values(ts::compute(x / (mk + 1000.0), pol), w2, 1e-15, 0, "x / keep-dims sum");
  // Reduce a reduction, inside an expression.
  xt::xarray<double> w3 = xt::amax(xt::mean(a, {0}), {1});
  check_values(ts::compute(ts::amax(m0 * 1.0, {1}), pol), w3, 1e-15, 0, "amax(mean)");
  // Persist, transpose and rechunk a reduction.
  auto pm = ts::persist(m0, pol);
  xt::xarray<double> am0 = xt::mean(a, {0});
  xt::xarray<double> am0t = xt::transpose(am0);
  check_values(ts::compute(ts::transpose(pm), pol), am0t, 1e-15, 0, "transpose(persist(mean))");
  xt::xarray<double> as2 = xt::sum(a, {2});
  check_values(ts::compute(ts::rechunk(ts::sum(x, {2}), {2, 2}), pol), as2, 0, 0, "rechunk(sum)");
  // Slice a reduction, and reduce a slice.
  xt::xarray<double> am0s = xt::view(am0, xt::range(1, 8, 3), xt::all());
  check_values(ts::compute(ts::view(m0, ts::range(1, 8, 3), ts::all()), pol), am0s, 1e-15, 0,
               "view(mean)");
  xt::xarray<double> as_v = xt::sum(xt::view(a, xt::range(2, 13, 2), 1, xt::all()), {0});
  check_values(ts::compute(ts::sum(ts::view(x, ts::range(2, 13, 2), 1, ts::all()), {0}), pol),
               as_v, 0, 0, "sum(view)");
  // Reduce over nothing: elementwise finalize (mean of one element each).
  check_values(ts::compute(ts::mean(x, {}), pol), a, 0, 0, "mean over no axes");
  // A 0-d input.
  CHECK(ts::item(ts::sum(ts::scalar(2.5)), pol) == 2.5);
  CHECK(ts::item(ts::argmax(ts::scalar(2.5)), pol) == 0);
  // Method-style compute on the node.
  CHECK(ts::sum(x).item() == xt::sum(a)());
}

TEST_CASE("reduction argument errors name the offending value", "[reduce][errors]") {
  auto x = ts::zeros<double>({4, 5, 6}, {2, 2, 2});
  CHECK_THROWS_AS(ts::sum(x, {0, 0}), std::invalid_argument);
  CHECK_THROWS_AS(ts::sum(x, {1, -2}), std::invalid_argument);
  CHECK_THROWS_AS(ts::mean(x, {3}), std::invalid_argument);
  CHECK_THROWS_AS(ts::mean(x, {-4}), std::invalid_argument);
  CHECK_THROWS_AS(ts::argmax(x, {0, 1}), std::invalid_argument);
  CHECK_THROWS_AS(ts::argmax(x, {}), std::invalid_argument);
  CHECK_THROWS_AS(ts::sum(x, {.split_every = 1}), std::invalid_argument);
  CHECK_THROWS_WITH(ts::sum(x, {2, 7}), Catch::Contains("7"));
  CHECK_THROWS_WITH(ts::prod(x, {1, 1}), Catch::Contains("repeated axis 1"));
  CHECK_NOTHROW(ts::sum(x, {-1, 0}, true));
}

TEST_CASE("batch pairwise sum is exact for exactly representable sums of any length",
          "[reduce][numerics]") {
  const auto seed = test_seed(21);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<double> v(std::size_t(ts::batch_size));
  for (ts::index_t n = 0; n <= ts::batch_size; ++n) {
    double want = 0;
    for (ts::index_t k = 0; k < n; ++k) {
      v[std::size_t(k)] = double(std::int64_t(rng() % 160) - 80) / 8.0;
      want += v[std::size_t(k)];  // exact: multiples of 1/8 far below 2^50
    }
    INFO("n " << n);
    REQUIRE(ts::reducers::pairwise_sum(v.data(), n) == want);
    std::fill(v.begin() + n, v.end(), std::numeric_limits<double>::quiet_NaN());  // not read
    REQUIRE(ts::reducers::pairwise_sum(v.data(), n) == want);
  }
}

namespace {
/// amax / amin's batch fold (32 lanes folded in halves) against a scalar scan: every length
/// 0..256 and rows of 300, 1000 and 4099, a NaN (floats) at every position of batches of
/// several lengths, +-inf, the extreme at every lane.
template <class T>
void check_extremum_batches(std::mt19937_64& rng) {
  std::vector<T> v(4099);
  auto draw = [&] {
    if constexpr (std::is_floating_point_v<T>) return T(double(std::int64_t(rng() % 2001) - 1000) / 7.0);
    else return T(std::int64_t(rng() % 2001) - 1000);
  };
  auto check = [&](ts::index_t n, const char* what) {
    INFO(what << ", n " << n);
    bool nan = false;
    T hi = n > 0 ? v[0] : T(0), lo = hi;
    for (ts::index_t k = 0; k < n; ++k) {
      const T x = v[std::size_t(k)];
      if constexpr (std::is_floating_point_v<T>) nan |= std::isnan(x);
      hi = std::max(hi, x);
      lo = std::min(lo, x);
    }
    ts::reducers::amax<T> mx;
    ts::reducers::amin<T> mn;
    auto smax = mx.identity(), smin = mn.identity();
    mx.add_batch(smax, v.data(), n, 0, 0);
    mn.add_batch(smin, v.data(), n, 0, 0);
    if (nan) {
      REQUIRE(smax != smax);
      REQUIRE(smin != smin);
    } else if (n > 0) {
      REQUIRE(smax == hi);
      REQUIRE(smin == lo);
    } else {
      REQUIRE(smax == mx.identity());
      REQUIRE(smin == mn.identity());
    }
  };
  std::vector<ts::index_t> lengths;  // every batch length, and whole rows (fold_box: a stored
  for (ts::index_t n = 0; n <= ts::batch_size; ++n) lengths.push_back(n);  // row in one call)
  for (const ts::index_t n : {300, 1000, 4099}) lengths.push_back(n);
  for (const ts::index_t n : lengths) {
    for (auto& x : v) x = draw();
    check(n, "random");
    if (n == 0) continue;
    const auto at = std::size_t(rng() % std::uint64_t(n));  // the extreme at a random lane
    v[at] = T(5000);
    v[(at * 7 + 3) % std::size_t(n)] = T(-5000);
    check(n, "extremes placed");
    if constexpr (std::is_floating_point_v<T>) {
      v[(at * 5 + 1) % std::size_t(n)] = std::numeric_limits<T>::infinity();
      v[(at * 3 + 2) % std::size_t(n)] = -std::numeric_limits<T>::infinity();
      check(n, "infinities");
    }
  }
  if constexpr (std::is_floating_point_v<T>) {
    // lanes and an overlapping last block (1000, 253, 100, 33), one block of four overlapping runs
    // (8..31), one by one (1, 7)
    for (const ts::index_t n : {ts::index_t(1000), ts::batch_size - 3, ts::index_t(100), ts::index_t(33), ts::index_t(31),
                                ts::index_t(25), ts::index_t(9), ts::index_t(8), ts::index_t(7), ts::index_t(1)})
      for (ts::index_t p = 0; p < n; ++p) {
        for (auto& x : v) x = draw();
        v[std::size_t(p)] = std::numeric_limits<T>::quiet_NaN();
        if (p % 3 == 0) v[std::size_t((p + 40) % n)] = std::numeric_limits<T>::infinity();
        check(n, "one NaN");
      }
  }
}
}  // namespace

TEST_CASE("amax and amin batches: NaN anywhere wins, else the extreme of every lane",
          "[reduce][numerics]") {
  const auto seed = test_seed(20261128);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  check_extremum_batches<double>(rng);
  check_extremum_batches<float>(rng);
  check_extremum_batches<std::int64_t>(rng);
  check_extremum_batches<std::uint8_t>(rng);
  // Through compute (the kernel copies for the CPU's level): rows of 300 (a 256-element batch
  // and a tail), a NaN in every even row at a different position, the lanes' and the tail's.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  xt::xarray<double> a = xt::xarray<double>::from_shape({40, 300});
  for (std::size_t r = 0; r < 40; ++r)
    for (std::size_t c = 0; c < 300; ++c) a(r, c) = double((r * 131 + c * 71) % 1000) - 500.0;
  for (std::size_t r = 0; r < 40; r += 2) a(r, (r * 7) % 300) = nan;
  const auto x = ts::from_xtensor(a, {8, 300});
  const auto mx = ts::compute(ts::amax(x, {1}), ts::host{2});
  const auto mn = ts::compute(ts::amin(x, {1}), ts::host{2});
  for (std::size_t r = 0; r < 40; ++r) {
    INFO("row " << r);
    if (r % 2 == 0) {
      REQUIRE(std::isnan(mx(r)));
      REQUIRE(std::isnan(mn(r)));
    } else {
      REQUIRE(mx(r) == xt::amax(xt::view(a, r))());
      REQUIRE(mn(r) == xt::amin(xt::view(a, r))());
    }
  }
}

namespace {
/// argmin / argmax / nanargmin / nanargmax's batch fold (by value, by keys, or the extreme in
/// lanes and then a search for its first position, by level and NaN) against the
/// element-by-element fold (add): every length 0..256 and rows of 300, 1000 and 4099,
/// values drawn from 21 integers (ties everywhere), NaN at one or two positions or everywhere,
/// +-inf, alternating -0 / +0, an empty or a filled state before, index steps 1..3. The state
/// must be the same: the index, and the value bit for bit (-0 or +0, which NaN aside).
template <class Op>
void check_arg_batches(std::mt19937_64& rng, const char* name) {
  using T = typename Op::input_type;
  const Op op;
  std::vector<ts::index_t> lengths;  // every batch length, and whole rows (fold_box: a stored
  for (ts::index_t n = 0; n <= ts::batch_size; ++n) lengths.push_back(n);  // row in one call)
  for (const ts::index_t n : {300, 1000, 4099}) lengths.push_back(n);
  std::vector<T> v(std::size_t(lengths.back()));
  for (const ts::index_t n : lengths)
    for (int trial = 0; trial < 24; ++trial) {
      for (auto& x : v) x = T(std::int64_t(rng() % 21) - 10 + (std::is_signed_v<T> ? 0 : 10));
      if constexpr (std::is_floating_point_v<T>) {
        const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
        if (n > 0) {
          if (trial % 3 == 0) v[std::size_t(rng() % std::uint64_t(n))] = nan;
          if (trial % 4 == 0) v[std::size_t(rng() % std::uint64_t(n))] = nan;
          if (trial % 5 == 0) v[std::size_t(rng() % std::uint64_t(n))] = inf;
          if (trial % 7 == 0) v[std::size_t(rng() % std::uint64_t(n))] = -inf;
        }
        if (trial == 11) std::fill(v.begin(), v.begin() + n, nan);
        if (trial == 13)
          for (ts::index_t k = 0; k < n; ++k) v[std::size_t(k)] = k % 2 ? T(0) : -T(0);
      }
      auto batch = op.identity(), each = op.identity();
      if (trial % 2) batch = each = typename Op::state{T(3), 5};
      const ts::index_t i0 = ts::index_t(rng() % 1000), step = 1 + trial % 3;
      op.add_batch(batch, v.data(), n, i0, step);
      for (ts::index_t k = 0; k < n; ++k) op.add(each, v[std::size_t(k)], i0 + k * step);
      INFO(name << ", n " << n << ", trial " << trial);
      REQUIRE(batch.i == each.i);
      REQUIRE(std::memcmp(&batch.v, &each.v, sizeof(T)) == 0);
    }
}
}  // namespace

TEST_CASE("argmin and argmax batches: the index the element-by-element fold gives",
          "[reduce][numerics]") {
  const auto seed = test_seed(20261128);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  namespace r = ts::reducers;
  // floats: one pass over keys with AVX-512 (AVX2: short batches), else two passes; every
  // level this build can run
  const ts::host_isa before = ts::host_isa_in_use();
  for (const auto level : {ts::host_isa::baseline, ts::host_isa::avx2, ts::host_isa::avx512}) {
    try {
      ts::set_host_isa(level);
    } catch (const std::invalid_argument&) {
      continue;  // (not this CPU's, or below the compiled level)
    }
    UNSCOPED_INFO("level " << ts::to_string(level));
    check_arg_batches<r::argmax<double>>(rng, "argmax double");
    check_arg_batches<r::argmin<double>>(rng, "argmin double");
    check_arg_batches<r::nanargmax<double>>(rng, "nanargmax double");
    check_arg_batches<r::nanargmin<double>>(rng, "nanargmin double");
    check_arg_batches<r::argmax<float>>(rng, "argmax float");
    check_arg_batches<r::nanargmin<float>>(rng, "nanargmin float");
  }
  ts::set_host_isa(before);
  check_arg_batches<r::argmin<std::int64_t>>(rng, "argmin int64");
  check_arg_batches<r::argmax<std::uint8_t>>(rng, "argmax uint8");
  // Through compute (the kernel copies for the CPU's level): uniform values (the extreme at a
  // random place in each batch), rows of 300, a NaN in every third row.
  xt::xarray<double> a = xt::xarray<double>::from_shape({30, 300});
  for (auto& x : a) x = double(rng() >> 11) * 0x1p-53;
  for (std::size_t r = 0; r < 30; r += 3) a(r, (r * 37) % 300) = std::numeric_limits<double>::quiet_NaN();
  const auto x = ts::from_xtensor(a, {7, 300});
  const auto mx = ts::compute(ts::argmax(x, 1), ts::host{2});
  const auto mn = ts::compute(ts::argmin(x, 1), ts::host{2});
  for (std::size_t r = 0; r < 30; ++r) {
    INFO("row " << r);
    if (r % 3 == 0) {
      REQUIRE(mx(r) == ts::index_t((r * 37) % 300));
      REQUIRE(mn(r) == ts::index_t((r * 37) % 300));
    } else {
      const double* row = &a(r, 0);  // (first extreme, as NumPy)
      REQUIRE(mx(r) == ts::index_t(std::max_element(row, row + 300) - row));
      REQUIRE(mn(r) == ts::index_t(std::min_element(row, row + 300) - row));
    }
  }
}

namespace {
/// An op's column fold (add_rows: amax / amin, argmin / argmax and their NaN-skipping forms)
/// against add() element by element, column by column: groups of 1..40 rows (passes of eight
/// and single rows; in odd trials as rows in memory: one row per pass), 1..300
/// columns and, in every fourth trial, more than one_row_pass_columns, values from 9 integers
/// (ties), -0 / +0, +-inf and NaN at
/// random places (floats), a second group folded into the first's states. The states must
/// agree: the index, and the value (bit for bit, but for a NaN's payload and, for the arg
/// ops, the sign of a zero, which add() compares as equal).
template <class Op>
void check_row_folds(std::mt19937_64& rng, const char* name) {
  using T = typename Op::input_type;
  const Op op;
  for (int trial = 0; trial < 60; ++trial) {
    const int nr = 1 + int(rng() % 40);
    const auto m = ts::index_t(1 + rng() % 300) + (trial % 4 == 3 ? ts::reducers::one_row_pass_columns : 0);
    std::vector<std::vector<T>> rows(std::size_t(2 * nr), std::vector<T>(std::size_t(m)));
    for (auto& r : rows)
      for (auto& x : r) {
        x = T(std::int64_t(rng() % 9) + (std::is_signed_v<T> ? -4 : 0));
        if constexpr (std::is_floating_point_v<T>) {
          const auto u = rng() % 100;
          if (u < 4 + std::uint64_t(trial % 3) * 10) x = std::numeric_limits<T>::quiet_NaN();
          else if (u < 34) x = u % 2 ? T(0) : -T(0);
          else if (u < 37) x = u % 2 ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
        }
      }
    std::vector<typename Op::state> fold(std::size_t(m), op.identity()), each = fold;
    const ts::index_t i0 = ts::index_t(rng() % 1000), step = 1 + trial % 3;
    for (int g = 0; g < 2; ++g) {  // two groups, the second into the first's states
      std::vector<const T*> v;
      for (int k = 0; k < nr; ++k) v.push_back(rows[std::size_t(g * nr + k)].data());
      // (in odd trials the second group's indices come before the first's: ties go to them)
      const ts::index_t base = i0 + ts::index_t((trial % 2 ? 1 - g : g) * nr) * step;
      if constexpr (requires { op.add_rows(fold.data(), v.data(), nr, m, i0, step); })
        op.add_rows(fold.data(), v.data(), nr, m, base, step, trial % 2 == 1);
      else op.add_rows(fold.data(), v.data(), nr, m, trial % 2 == 1);
      for (int k = 0; k < nr; ++k)
        for (ts::index_t e = 0; e < m; ++e) op.add(each[std::size_t(e)], v[std::size_t(k)][e], base + k * step);
    }
    for (ts::index_t e = 0; e < m; ++e) {
      INFO(name << ", trial " << trial << ", " << nr << " rows, " << m << " columns, column " << e);
      const auto& a = fold[std::size_t(e)];
      const auto& b = each[std::size_t(e)];
      if constexpr (requires { a.i; }) {
        REQUIRE(a.i == b.i);
        if constexpr (std::is_floating_point_v<T>)
          REQUIRE(((a.v == b.v) || (std::isnan(a.v) && std::isnan(b.v))));
        else REQUIRE(a.v == b.v);
      } else if constexpr (std::is_floating_point_v<T>) {
        REQUIRE(std::isnan(a) == std::isnan(b));
        if (!std::isnan(a)) REQUIRE(std::memcmp(&a, &b, sizeof(T)) == 0);
      } else {
        REQUIRE(a == b);
      }
    }
  }
}
}  // namespace

TEST_CASE("column folds of amin, amax, argmin and argmax: the states add() gives",
          "[reduce][numerics]") {
  const auto seed = test_seed(20261130);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  namespace r = ts::reducers;
  check_row_folds<r::amax<double>>(rng, "amax double");
  check_row_folds<r::amin<double>>(rng, "amin double");
  check_row_folds<r::amax<float>>(rng, "amax float");
  check_row_folds<r::amin<std::int64_t>>(rng, "amin int64");
  check_row_folds<r::amax<std::uint8_t>>(rng, "amax uint8");
  check_row_folds<r::argmax<double>>(rng, "argmax double");
  check_row_folds<r::argmin<double>>(rng, "argmin double");
  check_row_folds<r::nanargmax<double>>(rng, "nanargmax double");
  check_row_folds<r::nanargmin<double>>(rng, "nanargmin double");
  check_row_folds<r::argmax<float>>(rng, "argmax float");
  check_row_folds<r::nanargmin<float>>(rng, "nanargmin float");
  check_row_folds<r::argmin<std::int64_t>>(rng, "argmin int64");
  check_row_folds<r::argmax<std::uint8_t>>(rng, "argmax uint8");
}

namespace {
/// A sum's or variance's column fold (add_rows) of rows read where they are stored (in_memory:
/// up to one_row_pass_columns columns, one row per pass) against the fold of rows in the fold's
/// block (passes over four or eight rows), bit for bit: two groups of 1..40 rows, the second into
/// the first's states, 1..1024 columns; values of several magnitudes, no zeros.
template <class Op>
void check_fold_passes(std::mt19937_64& rng, const char* name) {
  using T = typename Op::input_type;
  const Op op;
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 24; ++trial) {
    const int nr = 1 + int(rng() % 40);
    const auto m = ts::index_t(1 + rng() % std::uint64_t(ts::reducers::one_row_pass_columns));
    const double offset = trial % 3 == 0 ? 1e6 : 0.0;
    std::vector<std::vector<T>> rows(std::size_t(2 * nr), std::vector<T>(std::size_t(m)));
    for (auto& r : rows)
      for (auto& x : r) x = T(offset + normal(rng) * std::pow(10.0, double(rng() % 5)));
    std::vector<typename Op::state> stored(std::size_t(m), op.identity()), block = stored;
    for (int g = 0; g < 2; ++g) {
      std::vector<const T*> v;
      for (int k = 0; k < nr; ++k) v.push_back(rows[std::size_t(g * nr + k)].data());
      op.add_rows(stored.data(), v.data(), nr, m, true);
      op.add_rows(block.data(), v.data(), nr, m, false);
    }
    for (ts::index_t e = 0; e < m; ++e) {
      INFO(name << ", trial " << trial << ", " << nr << " rows, " << m << " columns, column " << e);
      REQUIRE(std::memcmp(&stored[std::size_t(e)], &block[std::size_t(e)], sizeof(typename Op::state)) == 0);
    }
  }
}
}  // namespace

TEST_CASE("column folds of sums, means and variances: the same bits in passes of one row",
          "[reduce][numerics]") {
  const auto seed = test_seed(20261129);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  namespace r = ts::reducers;
  check_fold_passes<r::sum<double>>(rng, "sum double");
  check_fold_passes<r::sum<float>>(rng, "sum float");
  check_fold_passes<r::mean<double>>(rng, "mean double");
  check_fold_passes<r::variance<double>>(rng, "variance double");
  check_fold_passes<r::variance<float>>(rng, "variance float");
}

TEST_CASE("argmin and argmax over axis 0: ties and NaN through the column fold",
          "[reduce][numerics]") {
  // Values from 7 integers (ties in every column), NaN in about a tenth of the elements and in
  // every third column of some matrices, random chunkings: the host folds rows in groups
  // (add_rows), compared with a scan of each column (first NaN, else first extreme; nanargmax:
  // first largest that is not NaN).
  const auto seed = test_seed(20261129);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t R = 1 + rng() % 90, C = 1 + rng() % 70;
    xt::xarray<double> a = xt::xarray<double>::from_shape({R, C});
    for (auto& x : a) x = double(rng() % 7);
    for (std::size_t k = 0; k < R * C / 10; ++k) a.flat(rng() % (R * C)) = std::nan("");
    const bool nan_columns = trial % 4 == 0;
    if (nan_columns)
      for (std::size_t c = 0; c < C; c += 3)
        for (std::size_t r = 0; r < R; ++r) a(r, c) = std::nan("");
    const auto x = ts::from_xtensor(a, {ts::index_t(1 + rng() % R), ts::index_t(1 + rng() % C)});
    INFO("trial " << trial << ", " << R << " x " << C << ", chunks " << x.grid().chunks()[0][0] << " x "
                  << x.grid().chunks()[1][0]);
    const auto mx = ts::compute(ts::argmax(x, 0), ts::host{2});
    const auto mn = ts::compute(ts::argmin(x, 0), ts::host{1});
    for (std::size_t c = 0; c < C; ++c) {
      std::size_t hi = 0, lo = 0;
      for (std::size_t r = 1; r < R; ++r) {
        const double v = a(r, c);
        if (!std::isnan(a(hi, c)) && (std::isnan(v) || v > a(hi, c))) hi = r;
        if (!std::isnan(a(lo, c)) && (std::isnan(v) || v < a(lo, c))) lo = r;
      }
      CHECK(mx(c) == ts::index_t(hi));
      CHECK(mn(c) == ts::index_t(lo));
    }
    if (nan_columns) continue;  // (nanargmax throws on an all-NaN column)
    bool all_nan_column = false;
    for (std::size_t c = 0; c < C; ++c) {
      bool all = true;
      for (std::size_t r = 0; r < R; ++r) all &= std::isnan(a(r, c));
      all_nan_column |= all;
    }
    if (all_nan_column) continue;
    const auto nx = ts::compute(ts::nanargmax(x, 0), ts::host{2});
    for (std::size_t c = 0; c < C; ++c) {
      std::ptrdiff_t hi = -1;
      for (std::size_t r = 0; r < R; ++r)
        if (!std::isnan(a(r, c)) && (hi < 0 || a(r, c) > a(std::size_t(hi), c))) hi = std::ptrdiff_t(r);
      CHECK(nx(c) == ts::index_t(hi));
    }
  }
}

TEMPLATE_TEST_CASE("axes given as any range of integers at run time", "[reduce][axes]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const xt::xarray<double> xd = xt::arange<double>(24).reshape({2, 3, 4});
  auto x = ts::from_xtensor(xd, {1, 2, 3});
  std::vector<int> ints{0, 2};
  const std::array<long, 1> one{1};
  const std::vector<unsigned> all{0, 1, 2};
  CHECK(bool(ts::compute(ts::sum(x, ints), pol) == xt::xarray<double>(xt::sum(xd, {0, 2}))));
  CHECK(bool(ts::compute(ts::amax(x, one, ts::keepdims), pol) == xt::xarray<double>(xt::amax(xd, {1}, xt::keep_dims))));
  CHECK(ts::sum(x, std::span<const unsigned>(all)).item(pol) == 276.0);
  CHECK(bool(ts::compute(ts::mean(x, std::views::iota(1, 3)), pol) == xt::xarray<double>(xt::mean(xd, {1, 2}))));
  CHECK(bool(ts::compute(ts::nansum(x, ints), pol) == xt::xarray<double>(xt::sum(xd, {0, 2}))));
  CHECK(ts::variance(x, ints, true).shape() == ts::shape_t{1, 3, 1});
  CHECK_THROWS_AS(ts::sum(x, std::vector<int>{0, 3}), ts::invalid_argument);
}
