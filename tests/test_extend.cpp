// Extension points from a consumer's point of view: an elementwise operation (ts::map) and a
// reduction (ts::reduce) defined outside the library with public names only, checked against
// dense xtensor references on random shapes and chunkings, per backend. (A user distribution:
// tests/test_extend_random.cpp.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <xtensor/xarray.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xoperation.hpp>
#include <xtensor/xview.hpp>

#include "support/backends.hpp"
#include "support/cases.hpp"

namespace ts = tessera;
using namespace testing;

// ------------------------------------------------------------------ a user's element operations

/// clamp(x * k + y, lo, hi): a functor with parameters, any element types in.
struct scaled_clamp {
  double k = 1, lo = 0, hi = 1;
  template <class A, class B>
  TESSERA_HD double operator()(A x, B y) const {
    const double v = double(x) * k + double(y);
    return v < lo ? lo : (v > hi ? hi : v);
  }
};

/// Three operands, mixed types: where(c, a, b) * s as a user would write it.
struct pick_scaled {
  template <class C, class A, class B, class S>
  TESSERA_HD auto operator()(C c, A a, B b, S s) const {
    using R = ts::promote_t<ts::promote_t<A, B>, S>;
    return R(c ? R(a) : R(b)) * R(s);
  }
};

/// a + b in NumPy's result type of the two (what the operands' types arrive as).
struct add_promoted {
  template <class A, class B>
  TESSERA_HD auto operator()(A a, B b) const {
    using C = ts::promote_t<A, B>;
    return C(C(a) + C(b));
  }
};

// ------------------------------------------------------------------ a user's reducers

/// max - min (NaN for an empty reduction): a struct state, a final member.
struct span_reducer {
  struct state {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();
  };
  TESSERA_HD state init() const { return state{}; }
  TESSERA_HD void add(state& s, double v) const {
    s.lo = v < s.lo ? v : s.lo;
    s.hi = v > s.hi ? v : s.hi;
  }
  TESSERA_HD void merge(state& a, const state& b) const {  // init() merges as a no-op
    a.lo = b.lo < a.lo ? b.lo : a.lo;
    a.hi = b.hi > a.hi ? b.hi : a.hi;
  }
  TESSERA_HD double final(const state& s) const {
    return s.lo <= s.hi ? s.hi - s.lo : std::numeric_limits<double>::quiet_NaN();
  }
};

/// Root mean square: final gets the element count.
struct rms_reducer {
  TESSERA_HD double init() const { return 0.0; }
  TESSERA_HD void add(double& s, double v) const { s += v * v; }
  TESSERA_HD void merge(double& a, const double& b) const { a += b; }
  TESSERA_HD double final(const double& s, ts::index_t n) const {
    return ts::portable_math::sqrt(s / double(n));
  }
};

/// Elements above a threshold (a parameter); the state is the result (no final).
struct count_above {
  double threshold = 0;
  TESSERA_HD std::int64_t init() const { return 0; }
  template <class T>
  TESSERA_HD void add(std::int64_t& s, T v) const {
    s += double(v) > threshold;
  }
  TESSERA_HD void merge(std::int64_t& a, const std::int64_t& b) const { a += b; }
};

/// Index of the first negative element, -1 if none: add receives the element's index.
struct first_negative {
  TESSERA_HD ts::index_t init() const { return -1; }
  TESSERA_HD void add(ts::index_t& s, double v, ts::index_t i) const {
    if (s < 0 && v < 0) s = i;
  }
  TESSERA_HD void merge(ts::index_t& a, const ts::index_t& b) const {
    if (b >= 0 && (a < 0 || b < a)) a = b;  // decided by index: commutative, as argmin
  }
};

namespace {

template <class T, class A>
xt::xarray<T> dense(const A& a) {
  xt::xarray<T> r = xt::xarray<T>::from_shape(a.shape());
  std::copy(a.begin(), a.end(), r.begin());
  return r;
}

template <class T>
void require_equal(const xt::xarray<T>& got, const xt::xarray<T>& want, const char* what) {
  INFO(what);
  REQUIRE(got.shape() == want.shape());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const T g = got.data()[i], w = want.data()[i];
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(g) && std::isnan(w)) continue;
    INFO("element " << i << ": " << g << " vs " << w);
    REQUIRE(g == w);
  }
}

}  // namespace

TEMPLATE_TEST_CASE("a user's elementwise operation (ts::map) matches xtensor", "[extend][map]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(20261123);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(40); ++it) {
    const shape_t shape = random_shape(rng, 1, 3, 9);
    shape_t row(shape.end() - 1, shape.end());  // broadcast along the leading axes
    INFO("case " << it << " shape " << describe(shape));
    xt::xarray<double> a = testing::random_data<double>(rng, shape);
    xt::xarray<int> b = testing::random_data<int>(rng, row);
    auto x = ts::from_xtensor(a, random_chunks(rng, shape));
    auto y = ts::from_xtensor(b, random_chunks(rng, row));
    const scaled_clamp f{0.5, -3.0, 4.0};
    auto got = ts::compute(ts::map(f, x, y), pol);
    STATIC_REQUIRE(std::is_same_v<typename decltype(got)::value_type, double>);
    xt::xarray<double> want = xt::clip(a * 0.5 + b, -3.0, 4.0);
    require_equal(dense<double>(got), want, "scaled_clamp");

    // Four operands (bool, double, int, scalar), fused into a reduction's fold.
    auto c = x > 0.0;
    auto p = ts::map(pick_scaled{}, c, x, y, 2);
    STATIC_REQUIRE(std::is_same_v<typename decltype(p)::value_type, double>);
    xt::xarray<double> wp = xt::where(a > 0.0, a, xt::cast<double>(b)) * 2.0;
    require_equal(dense<double>(ts::compute(p, pol)), wp, "pick_scaled");
    if (a.size() > 0) {
      const double s = ts::item(ts::sum(p), pol);
      CHECK(s == Approx(xt::sum(wp)()).margin(1e-9));
    }
  }
}

TEMPLATE_TEST_CASE("ts::map: scalars take NumPy's weak types, shapes must broadcast",
                   "[extend][map]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  auto i = ts::arange<int>(0, 5, 1, {2});
  auto h = ts::compute(ts::map(add_promoted{}, i, 0.5f), pol);  // int32 array, float scalar
  STATIC_REQUIRE(std::is_same_v<typename decltype(h)::value_type, double>);  // as NumPy
  CHECK(h(4) == 4.5);
  auto g = ts::compute(ts::map(add_promoted{}, 4.0, ts::full<float>({2}, 3.0f)), pol);
  STATIC_REQUIRE(std::is_same_v<typename decltype(g)::value_type, float>);  // 4.0 is weak
  CHECK(g(1) == 7.0f);
  auto k = ts::compute(ts::map(add_promoted{}, ts::full<std::int16_t>({2}, 7), 3), pol);
  STATIC_REQUIRE(std::is_same_v<typename decltype(k)::value_type, std::int16_t>);
  CHECK(k(0) == 10);
  try {
    (void)ts::map(add_promoted{}, ts::ones<double>({3, 4}), ts::ones<double>({5}));
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    CHECK_THAT(e.what(), Catch::Contains("(3, 4)") && Catch::Contains("(5,)"));
  }
  if constexpr (std::is_same_v<TestType, ts::host>) {  // a host lambda capturing by copy
    const double k = 3;
    auto l = ts::compute(ts::map([k](double x, int y) { return x * k + y; },
                                 ts::ones<double>({3, 4}, {2, 3}), ts::arange<int>(0, 4, 1)),
                         pol);
    CHECK(l(2, 3) == 6.0);
  }
}

TEMPLATE_TEST_CASE("a user's reducer (ts::reduce) matches xtensor", "[extend][reduce]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(1123);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(40); ++it) {
    const shape_t shape = random_shape(rng, 1, 3, 12);
    const int r = int(shape.size());
    const index_t axis = index_t(rng() % std::size_t(r));
    const chunks_t chunks = random_chunks(rng, shape);
    INFO("case " << it << " shape " << describe(shape) << " chunks " << describe(chunks)
                 << " axis " << axis);
    xt::xarray<double> a = testing::random_data<double>(rng, shape);  // multiples of 1/8: exact sums
    auto x = ts::from_xtensor(a, chunks);
    const std::size_t ax = std::size_t(axis);

    // span over one axis: exact
    if (shape[ax] > 0) {
      auto s = ts::compute(ts::reduce(x, span_reducer{}, axis), pol);
      STATIC_REQUIRE(std::is_same_v<typename decltype(s)::value_type, double>);
      xt::xarray<double> want = xt::amax(a, {ax}) - xt::amin(a, {ax});
      require_equal(dense<double>(s), want, "span");
    }
    // rms over all axes (final with the count; NaN for an empty array, as mean)
    {
      const double got = ts::item(ts::reduce(x, rms_reducer{}), pol);
      const double want = std::sqrt(xt::sum(a * a)() / double(a.size()));
      if (a.size() == 0) CHECK(std::isnan(got));
      else CHECK(got == want);
    }
    // count above a threshold over one axis, keep_dims; integer input
    {
      xt::xarray<int> ai = xt::cast<int>(a * 8.0);
      auto xi = ts::from_xtensor(ai, chunks);
      auto cnt = ts::compute(ts::reduce(xi, count_above{4.5}, {axis}, ts::keep_dims), pol);
      STATIC_REQUIRE(std::is_same_v<typename decltype(cnt)::value_type, std::int64_t>);
      REQUIRE(cnt.shape()[ax] == 1);  // keep_dims
      xt::xarray<std::int64_t> want = xt::sum(xt::cast<std::int64_t>(ai > 4.5), {ax});
      want.reshape(cnt.shape());
      require_equal(dense<std::int64_t>(cnt), want, "count_above");
    }
    // first negative along one axis (indexed add) and over the flat array
    {
      auto fn = ts::compute(ts::reduce(x, first_negative{}, axis), pol);
      STATIC_REQUIRE(std::is_same_v<typename decltype(fn)::value_type, ts::index_t>);
      // reference: move the axis last, scan each row
      shape_t os;
      for (int d = 0; d < r; ++d)
        if (d != int(axis)) os.push_back(shape[std::size_t(d)]);
      xt::xarray<ts::index_t> want = xt::xarray<ts::index_t>::from_shape(
          std::vector<std::size_t>(os.begin(), os.end()));
      want.fill(-1);
      std::vector<std::size_t> idx(std::size_t(r), 0);
      for (std::size_t flat = 0; flat < a.size(); ++flat) {
        std::size_t rem = flat;
        for (int d = r - 1; d >= 0; --d) {
          idx[std::size_t(d)] = rem % std::size_t(shape[std::size_t(d)]);
          rem /= std::size_t(shape[std::size_t(d)]);
        }
        std::size_t o = 0;
        for (int d = 0; d < r; ++d)
          if (d != int(axis)) o = o * std::size_t(shape[std::size_t(d)]) + idx[std::size_t(d)];
        if (want.data()[o] < 0 && a.data()[flat] < 0) want.data()[o] = ts::index_t(idx[ax]);
      }
      require_equal(dense<ts::index_t>(fn), want, "first_negative (axis)");
      const auto* first = std::find_if(a.data(), a.data() + a.size(), [](double v) { return v < 0; });
      const ts::index_t wflat = first == a.data() + a.size() ? -1 : ts::index_t(first - a.data());
      CHECK(ts::item(ts::reduce(x, first_negative{}), pol) == wflat);
    }
  }
}

TEMPLATE_TEST_CASE("a user's reducer composes, and its results do not depend on workers",
                   "[extend][reduce]", TESSERA_TEST_BACKENDS) {
  const auto seed = test_seed(44);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd(1.0, 3.0);
  xt::xarray<double> a = xt::xarray<double>::from_shape({203, 37});
  for (auto& v : a) v = nd(rng);
  auto x = ts::from_xtensor(a, {{17, 40, 100, 46}, {10, 27}});
  // A reducer over a user map, then a built-in over the reducer's result, then again the user's.
  auto m = ts::map(scaled_clamp{2.0, -5.0, 5.0}, x, 1);
  auto chain = ts::reduce(ts::reduce(m, rms_reducer{}, 1) - ts::mean(x), span_reducer{});
  const double one = ts::item(chain, make_policy<TestType>(1));
  const double many = ts::item(chain, make_policy<TestType>(3));
  CHECK(std::memcmp(&one, &many, sizeof one) == 0);
  xt::xarray<double> mm = xt::clip(a * 2.0 + 1.0, -5.0, 5.0);
  xt::xarray<double> rows = xt::sqrt(xt::sum(mm * mm, {1}) / 37.0) - xt::mean(a)();
  CHECK(one == Approx(xt::amax(rows)() - xt::amin(rows)()).epsilon(1e-12));
  // split_every changes the tree's shape, not an exact result.
  auto c2 = ts::item(ts::reduce(x > 0.0, count_above{0.5}, ts::reduce_options{.split_every = 2}),
                     TestType{});
  auto c9 = ts::item(ts::reduce(x > 0.0, count_above{0.5}, ts::reduce_options{.split_every = 9}),
                     TestType{});
  CHECK(c2 == c9);
  CHECK(c2 == std::int64_t(xt::sum(xt::cast<std::int64_t>(a > 0.0))()));
}

TEMPLATE_TEST_CASE("ts::reduce rejects what it cannot do, naming the value", "[extend][reduce]",
                   TESSERA_TEST_BACKENDS) {
  auto x = ts::ones<double>({3, 4}, {2, 2});
  try {
    (void)ts::reduce(x, first_negative{}, {0, 1});  // indexed: one axis or all
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    CHECK_THAT(e.what(), Catch::Contains("reduce") && Catch::Contains("(0, 1)"));
  }
  CHECK_THROWS_WITH(ts::reduce(x, span_reducer{}, {2}), Catch::Contains("2"));
  CHECK_THROWS_WITH(ts::reduce(x, span_reducer{}, {1, 1}), Catch::Contains("repeated axis 1"));
  CHECK_THROWS_WITH(ts::reduce(x, span_reducer{}, ts::reduce_options{.split_every = 1}),
                    Catch::Contains("split_every must be at least 2, got 1"));
  STATIC_REQUIRE(ts::reducer<span_reducer, double>);
  STATIC_REQUIRE(ts::reducer<first_negative, double>);
  STATIC_REQUIRE(!ts::reducer<scaled_clamp, double>);  // not a reducer
  (void)TestType{};
}
