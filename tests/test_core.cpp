// Core: chunk grids, creation, elementwise expressions with broadcasting and promotion,
// rechunk, persist, transpose, item, errors; against dense xtensor references.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <numeric>
#include <span>
#include <xtensor/xarray.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xoperation.hpp>

#include "support/backends.hpp"
#include "support/cases.hpp"

namespace ts = tessera;
using namespace testing;

// The "adding an operation in one file" example of docs/architecture.md, verbatim.
namespace mylib {
struct hypot_fn {
  template <class A, class B>
  TESSERA_HD auto operator()(A a, B b) const {
    using C = tessera::float_of_t<tessera::promote_t<A, B>>;
    return tessera::portable_math::sqrt(C(a) * C(a) + C(b) * C(b));
  }
};
template <class A, class B>
auto hypot(const A& a, const B& b) {
  return tessera::map(hypot_fn{}, a, b);
}
}  // namespace mylib

namespace {

template <class A, class B>
bool same_values(const A& a, const B& b) {
  if (a.shape().size() != b.shape().size()) return false;
  for (std::size_t d = 0; d < a.shape().size(); ++d)
    if (a.shape()[d] != b.shape()[d]) return false;
  auto ia = a.begin();
  for (auto ib = b.begin(); ib != b.end(); ++ib, ++ia) {
    double x = double(*ia), y = double(*ib);
    if (std::isnan(x) && std::isnan(y)) continue;
    if (!(x == y || std::abs(x - y) <= 1e-12 * std::max(std::abs(x), std::abs(y)))) return false;
  }
  return true;
}

template <class T>
bool bitwise_equal(const xt::xarray<T>& a, const xt::xarray<T>& b) {
  return a.shape() == b.shape() &&  // memcmp of an empty array's null data() is UB (UBSan)
         (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

xt::xarray<double> swapped(const xt::xarray<double>& d) {
  std::vector<std::size_t> perm(d.dimension());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm.front(), perm.back());
  return xt::transpose(d, perm);
}

}  // namespace

TEST_CASE("chunk normalization", "[grid]") {
  auto g = ts::chunk_grid::make({10, 7}, {4, -1}, 8);
  CHECK(g.chunks() == ts::chunks_t{{4, 4, 2}, {7}});
  CHECK(g.numblocks() == ts::shape_t{3, 1});
  CHECK(g.block_count() == 3);
  auto b = g.block_box(2);
  CHECK(b.lo[0] == 8);
  CHECK(b.hi[0] == 10);
  CHECK(g.block_along(0, 7) == 1);
  CHECK(g.block_along(0, 8) == 2);

  auto e = ts::chunk_grid::make({5, 0}, ts::chunks_t{{2, 3}, {0}}, 8);
  CHECK(e.size() == 0);
  CHECK(ts::chunk_grid::make({0}, {3}, 8).chunks() == ts::chunks_t{{0}});

  // Automatic chunks: at most 128 MiB, balanced.
  auto a = ts::chunk_grid::make({100000, 100000}, {}, 8);
  index_t bytes = a.chunks()[0][0] * a.chunks()[1][0] * 8;
  CHECK(bytes <= index_t(128) << 20);
  CHECK(bytes > index_t(16) << 20);
  CHECK(ts::chunk_grid::make({10, 10}, {}, 8).block_count() == 1);

  CHECK_THROWS_AS(ts::chunk_grid::make({10}, ts::chunks_t{{4, 4}}, 8), std::invalid_argument);
  CHECK_THROWS_AS(ts::chunk_grid::make({10}, {0}, 8), std::invalid_argument);
  CHECK_THROWS_AS(ts::chunk_grid::make({10, 3}, {5}, 8), std::invalid_argument);
  CHECK_THROWS_AS(ts::chunk_grid::make({-1}, {1}, 8), std::invalid_argument);
  CHECK_THROWS_AS(ts::chunk_grid::make(ts::shape_t(9, 1), {}, 8), std::invalid_argument);
  try {
    ts::chunk_grid::make({10}, ts::chunks_t{{4, 4}}, 8);
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("(4, 4)") != std::string::npos);
    CHECK(std::string(e.what()).find("10") != std::string::npos);
  }
}

TEST_CASE("type promotion follows NumPy", "[promote]") {
  using std::is_same_v;
  STATIC_REQUIRE(is_same_v<ts::promote_t<int, float>, double>);
  STATIC_REQUIRE(is_same_v<ts::promote_t<std::int16_t, float>, float>);
  STATIC_REQUIRE(is_same_v<ts::promote_t<std::uint64_t, std::int64_t>, double>);
  STATIC_REQUIRE(is_same_v<ts::promote_t<std::uint32_t, std::int32_t>, std::int64_t>);
  STATIC_REQUIRE(is_same_v<ts::promote_t<std::uint8_t, std::int8_t>, std::int16_t>);
  STATIC_REQUIRE(is_same_v<ts::promote_t<bool, bool>, bool>);
  STATIC_REQUIRE(is_same_v<ts::promote_t<bool, float>, float>);
  STATIC_REQUIRE(is_same_v<ts::promote_t<float, double>, double>);

  auto f = ts::ones<float>({4});
  auto i = ts::ones<int>({4});
  auto b = ts::ones<bool>({4});
  STATIC_REQUIRE(is_same_v<decltype(f + 2.0)::value_type, float>);   // weak scalar
  STATIC_REQUIRE(is_same_v<decltype(2 * f)::value_type, float>);
  STATIC_REQUIRE(is_same_v<decltype(i + 2.5)::value_type, double>);
  STATIC_REQUIRE(is_same_v<decltype(i + 2)::value_type, int>);
  STATIC_REQUIRE(is_same_v<decltype(i / i)::value_type, double>);   // true division
  STATIC_REQUIRE(is_same_v<decltype(f / i)::value_type, double>);
  STATIC_REQUIRE(is_same_v<decltype(i < f)::value_type, bool>);
  STATIC_REQUIRE(is_same_v<decltype(b + b)::value_type, bool>);
  STATIC_REQUIRE(is_same_v<decltype(b + 1)::value_type, std::int64_t>);
  STATIC_REQUIRE(is_same_v<decltype(ts::exp(i))::value_type, double>);
  STATIC_REQUIRE(is_same_v<decltype(ts::exp(f))::value_type, float>);
  STATIC_REQUIRE(is_same_v<decltype(ts::sqrt(ts::ones<std::int16_t>({2})))::value_type, float>);
  STATIC_REQUIRE(is_same_v<decltype(ts::cast<std::uint8_t>(f))::value_type, std::uint8_t>);
  STATIC_REQUIRE(is_same_v<decltype(ts::where(b, i, 1.5f))::value_type, double>);
  CHECK(f.nbytes() == 16);
  CHECK((i / i).nbytes() == 32);
}

TEMPLATE_TEST_CASE("creation functions", "[create]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  auto z = ts::zeros<double>({3, 4}, {2, 3});
  CHECK(z.shape() == ts::shape_t{3, 4});
  CHECK(z.chunks() == ts::chunks_t{{2, 1}, {3, 1}});
  CHECK(z.numblocks() == ts::shape_t{2, 2});
  CHECK(z.dimension() == 2);
  CHECK(z.size() == 12);
  CHECK(z.nbytes() == 96);
  CHECK(same_values(ts::compute(z, pol), xt::zeros<double>({3, 4})));
  CHECK(same_values(ts::compute(ts::ones<int>({5}, {2}), pol), xt::ones<int>({5})));
  CHECK(same_values(ts::compute(ts::full<float>({2, 2}, 7.5, {1, 1}), pol), xt::xarray<float>{{7.5f, 7.5f}, {7.5f, 7.5f}}));

  // arange: NumPy semantics, including negative and fractional steps and empty ranges.
  CHECK(same_values(ts::compute(ts::arange<int>(0, 10, 3, {2}), pol), xt::xarray<int>{0, 3, 6, 9}));
  CHECK(same_values(ts::compute(ts::arange<int>(10, 0, -3, {3}), pol), xt::xarray<int>{10, 7, 4, 1}));
  CHECK(same_values(ts::compute(ts::arange<double>(5), pol), xt::arange<double>(5)));
  CHECK(same_values(ts::compute(ts::arange<double>(0.0, 1.0, 0.25, {3}), pol), xt::xarray<double>{0, 0.25, 0.5, 0.75}));
  CHECK(ts::arange<double>(0.0, 1.0, 0.3).size() == 4);  // ceil(1/0.3)
  CHECK(ts::arange<int>(3, 3).size() == 0);
  CHECK(ts::arange<int>(5, 0).size() == 0);
  CHECK(ts::compute(ts::arange<int>(5, 0), pol).size() == 0);
  CHECK_THROWS_AS(ts::arange<int>(0, 10, 0), std::invalid_argument);
  CHECK_THROWS_AS(ts::arange<double>(0.0, std::nan(""), 1.0), std::invalid_argument);

  // 0-d arrays.
  auto s = ts::full<double>({}, 3.5);
  CHECK(s.dimension() == 0);
  CHECK(s.size() == 1);
  CHECK(ts::item(s * 2, pol) == 7.0);
  CHECK(ts::compute(s + 1, pol)() == 4.5);
  CHECK_THROWS_AS(ts::item(ts::ones<double>({2}), pol), std::invalid_argument);
  CHECK(ts::item(ts::ones<double>({1, 1, 1}) * 5, pol) == 5.0);
}

TEMPLATE_TEST_CASE("from_xtensor round trip on random chunkings", "[create]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(20261121);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(200); ++it) {
    auto shape = random_shape(rng, 0, 4, 9);
    auto chunks = random_chunks(rng, shape);
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape) << " chunks "
                 << describe(chunks));
    auto dense = testing::random_data<double>(rng, shape);
    auto a = ts::from_xtensor(dense, chunks);
    CHECK(a.chunks() == chunks);
    CHECK(bitwise_equal(ts::compute(a, pol), dense));
    auto p = ts::persist(a * 1.0, pol);
    CHECK(bitwise_equal(ts::compute(p, pol), dense));
  }
}

TEMPLATE_TEST_CASE("compute_into writes into the caller's memory (NumPy's out=)", "[compute]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(20261124);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(40); ++it) {
    auto shape = random_shape(rng, 0, 4, 9);
    auto chunks = random_chunks(rng, shape);
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape) << " chunks "
                 << describe(chunks));
    auto dense = testing::random_data<double>(rng, shape);
    auto a = ts::from_xtensor(dense, chunks);
    std::vector<std::size_t> sh(shape.begin(), shape.end());
    auto out = xt::xarray<double>::from_shape(sh);
    const double* before = out.data();
    auto& r = ts::compute_into(a * 2.0 + 1.0, out, pol);
    CHECK(&r == &out);
    CHECK(out.data() == before);  // written in place, not reallocated
    CHECK(bitwise_equal(out, xt::xarray<double>(dense * 2.0 + 1.0)));
    // another element type: converted as ts::cast
    auto as_int = xt::xarray<std::int32_t>::from_shape(sh);
    ts::compute_into(a * 8.0, as_int, pol);
    CHECK(bitwise_equal(as_int, ts::compute(ts::cast<std::int32_t>(a * 8.0), pol)));
    // a flat span over the caller's buffer
    std::vector<double> buf(std::size_t(a.size()) + 1, -7.0);
    ts::compute_into(a, std::span<double>(buf.data(), std::size_t(a.size())), pol);
    CHECK(std::equal(dense.begin(), dense.end(), buf.begin()));
    CHECK(buf.back() == -7.0);  // nothing written past the end
  }
  // a reduction into a fixed-size container
  xt::xtensor<double, 1> col = xt::zeros<double>({3});
  ts::compute_into(ts::sum(ts::ones<double>({4, 3}, {2, 2}), {0}), col, pol);
  CHECK(bool(col == xt::xtensor<double, 1>{4.0, 4.0, 4.0}));
  auto wrong = xt::xarray<double>::from_shape({3, 4});
  CHECK_THROWS_MATCHING(ts::compute_into(ts::ones<double>({4, 3}, {2, 2}), wrong, pol), ts::invalid_argument,
                        Catch::Contains("(3, 4)") && Catch::Contains("(4, 3)"));
  std::vector<double> small(5);
  CHECK_THROWS_MATCHING(ts::compute_into(ts::ones<double>({4, 3}, {2, 2}), std::span<double>(small), pol),
                        ts::invalid_argument, Catch::Contains("5 elements"));
}

TEMPLATE_TEST_CASE("elementwise expressions match xtensor", "[elementwise]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(7001);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(150); ++it) {
    auto shape = random_shape(rng, 0, 4, 8);
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape));
    auto da = testing::random_data<double>(rng, shape);
    auto db = testing::random_data<double>(rng, shape);
    auto di = testing::random_data<int>(rng, shape);
    auto a = ts::from_xtensor(da, random_chunks(rng, shape));
    auto b = ts::from_xtensor(db, random_chunks(rng, shape));  // other chunks: refinement
    auto i = ts::from_xtensor(di, random_chunks(rng, shape));

    CHECK(same_values(ts::compute(a + b * 2.0 - b / 4, pol), xt::xarray<double>(da + db * 2.0 - db / 4)));
    CHECK(same_values(ts::compute(-a + 1, pol), xt::xarray<double>(-da + 1)));
    CHECK(same_values(ts::compute(ts::exp(a / 10) + ts::sqrt(ts::abs(b)) - ts::log(ts::abs(a) + 1), pol),
                      xt::xarray<double>(xt::exp(da / 10) + xt::sqrt(xt::abs(db)) - xt::log(xt::abs(da) + 1))));
    CHECK(same_values(ts::compute(ts::sin(a) * ts::cos(b), pol), xt::xarray<double>(xt::sin(da) * xt::cos(db))));
    CHECK(same_values(ts::compute(ts::pow(a, 2) + ts::pow(ts::abs(b), 0.5), pol),
                      xt::xarray<double>(xt::pow(da, 2) + xt::pow(xt::abs(db), 0.5))));
    CHECK(same_values(ts::compute(ts::maximum(a, b) - ts::minimum(a, 0.5), pol),
                      xt::xarray<double>(xt::maximum(da, db) - xt::minimum(da, 0.5))));
    CHECK(same_values(ts::compute(ts::where(a > b, a, b * 3), pol),
                      xt::xarray<double>(xt::where(da > db, da, db * 3))));
    CHECK(same_values(ts::compute(a * i + i, pol), xt::xarray<double>(da * di + di)));
    CHECK(same_values(ts::compute(i / 3, pol), xt::xarray<double>(xt::cast<double>(di) / 3.0)));
    CHECK(same_values(ts::compute(ts::cast<int>(a * 3), pol), xt::xarray<int>(xt::cast<int>(da * 3))));
    auto cmp = ts::compute((a <= b) == (i != 0), pol);
    STATIC_REQUIRE(std::is_same_v<typename decltype(cmp)::value_type, bool>);
    CHECK(same_values(cmp, xt::xarray<bool>(xt::equal(da <= db, xt::not_equal(di, 0)))));
  }
}

TEMPLATE_TEST_CASE("broadcasting follows NumPy", "[elementwise][broadcast]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(4242);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(150); ++it) {
    auto shape = random_shape(rng, 1, 4, 7);
    // A compatible shape: drop leading axes, set some axes to 1.
    ts::shape_t other(shape.begin() + std::ptrdiff_t(rng() % (shape.size() + 1)), shape.end());
    for (auto& n : other)
      if (rng() % 3 == 0) n = 1;
    if (rng() & 1) std::swap(shape, other);
    INFO("seed " << seed << " iteration " << it << " shapes " << describe(shape) << " "
                 << describe(other));
    auto da = testing::random_data<double>(rng, shape);
    auto db = testing::random_data<float>(rng, other);
    auto a = ts::from_xtensor(da, random_chunks(rng, shape));
    auto b = ts::from_xtensor(db, random_chunks(rng, other));
    auto expect = xt::xarray<double>(da * db + db);
    auto got = ts::compute(a * b + b, pol);
    CHECK(same_values(got, expect));
    auto w = ts::compute(ts::where(b > 0, a, -1.0), pol);
    CHECK(same_values(w, xt::xarray<double>(xt::where(db > 0, da, -1.0))));
  }
  // Incompatible shapes name both shapes.
  auto a = ts::ones<double>({3, 4});
  auto b = ts::ones<double>({5, 4});
  CHECK_THROWS_AS(a + b, std::invalid_argument);
  try {
    (void)(a + b);
  } catch (const std::invalid_argument& e) {
    std::string m = e.what();
    CHECK(m.find("(3, 4)") != std::string::npos);
    CHECK(m.find("(5, 4)") != std::string::npos);
  }
}

TEMPLATE_TEST_CASE("NaN semantics", "[elementwise]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  xt::xarray<double> d{1.0, std::nan(""), 3.0};
  auto a = ts::from_xtensor(d, {2});
  auto mx = ts::compute(ts::maximum(a, 2.0), pol);
  CHECK(mx(0) == 2.0);
  CHECK(std::isnan(mx(1)));
  auto mn = ts::compute(ts::minimum(2.0, a), pol);
  CHECK(std::isnan(mn(1)));
  CHECK(mn(2) == 2.0);
  auto c = ts::compute(a == a, pol);
  CHECK(same_values(c, xt::xarray<bool>{true, false, true}));
}

TEMPLATE_TEST_CASE("integer power is exact", "[elementwise]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  auto x = ts::arange<std::int64_t>(-4, 5, 1, {3});
  auto p = ts::compute(ts::pow(x, 3), pol);
  for (int k = 0; k < 9; ++k) CHECK(p(k) == std::int64_t(k - 4) * (k - 4) * (k - 4));
  CHECK(ts::compute(ts::pow(ts::full<std::int64_t>({1}, 3), 39), pol)(0) == 4052555153018976267LL);
}

namespace {
/// NumPy's integer power: a^e by e multiplications modulo 2^bits; negative e: 0, except bases
/// 1 (1) and -1 (+-1), Tessera's documented stand-in for NumPy's ValueError.
template <class C>
C reference_pow(C a, C e) {
  if constexpr (std::is_signed_v<C>)
    if (e < 0) return C(a == 1 ? 1 : a == -1 ? (e % 2 != 0 ? -1 : 1) : 0);
  std::uint64_t r = 1;
  for (C i = 0; i < e; ++i) r *= std::uint64_t(a);  // modulo 2^64, then truncated
  return C(std::make_unsigned_t<C>(r));
}

template <class C, class P>
void check_integer_pow(const P& pol, std::mt19937_64& rng, const std::uint64_t seed) {
  std::vector<std::size_t> sh{97};
  xt::xarray<C> base = xt::xarray<C>::from_shape(sh), ex = xt::xarray<C>::from_shape(sh);
  for (std::size_t i = 0; i < base.size(); ++i) {
    base(i) = C(rng());  // any value of the type: most powers wrap
    if (i % 3 == 0) base(i) = C(int(rng() % 7) - (std::is_signed_v<C> ? 3 : 0));
    ex(i) = C(rng() % 70);
    if (std::is_signed_v<C> && i % 11 == 0) ex(i) = C(-C(rng() % 5) - 1);
  }
  base(0) = std::numeric_limits<C>::min();
  base(1) = C(std::is_signed_v<C> ? -1 : 1);
  ex(1) = std::numeric_limits<C>::max();  // the longest exponent (odd for signed types)
  if constexpr (std::is_signed_v<C>) ex(2) = std::numeric_limits<C>::min();
  const ts::chunks_t ch{{40, 57}};
  auto got = ts::compute(ts::pow(ts::from_xtensor(base, ch), ts::from_xtensor(ex, ch)), pol);
  for (std::size_t i = 0; i < base.size(); ++i) {
    INFO("seed " << seed << " " << sizeof(C) * 8 << "-bit " << (std::is_signed_v<C> ? "int" : "uint")
                 << " base " << std::int64_t(base(i)) << " exponent " << std::int64_t(ex(i)));
    if (i == 1) {  // (-1)^max = -1 (max is odd), 1^max = 1: too long for the reference loop
      CHECK(got(1) == base(1));
      continue;
    }
    CHECK(got(i) == reference_pow<C>(base(i), ex(i)));
  }
}
}  // namespace

TEMPLATE_TEST_CASE("integer power wraps as NumPy's and never overflows internally", "[elementwise]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(3939);
  std::mt19937_64 rng(seed);
  check_integer_pow<std::int8_t>(pol, rng, seed);
  check_integer_pow<std::uint8_t>(pol, rng, seed);
  check_integer_pow<std::int16_t>(pol, rng, seed);
  check_integer_pow<std::uint16_t>(pol, rng, seed);
  check_integer_pow<std::int32_t>(pol, rng, seed);
  check_integer_pow<std::uint32_t>(pol, rng, seed);
  check_integer_pow<std::int64_t>(pol, rng, seed);
  check_integer_pow<std::uint64_t>(pol, rng, seed);
  // 3^39 fits in int64 but 3^64 (the square after the last bit) does not: no overflow on the way.
  CHECK(ts::compute(ts::pow(ts::full<std::int64_t>({1}, 3), 39), pol)(0) == 4052555153018976267LL);
  CHECK(ts::compute(ts::pow(ts::full<std::int32_t>({1}, -2), 31), pol)(0) == std::numeric_limits<std::int32_t>::min());
  // NumPy: "Integers to negative integer powers are not allowed" (issue 18, item 4).
  CHECK_THROWS_MATCHING(ts::pow(ts::full<std::int64_t>({3}, 0), -1), ts::invalid_argument,
                        Catch::Contains("negative integer powers") && Catch::Contains("-1"));
  CHECK_THROWS_AS(ts::pow(ts::full<std::uint8_t>({3}, 2), -3), ts::invalid_argument);
  CHECK(ts::compute(ts::pow(ts::full<double>({1}, 2.0), -1), pol)(0) == 0.5);  // float base: fine
  CHECK(ts::compute(ts::pow(ts::full<std::int32_t>({1}, 2), 0), pol)(0) == 1);
}

TEMPLATE_TEST_CASE("float to integer casts are defined for every input", "[elementwise]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  xt::xarray<double> a{nan, inf, -inf, 3e9, -3e9, 2.7, -2.7, 2147483647.9, -2147483648.9,
                       -0.5, 300.0, 255.9, 9.3e18, -9.3e18, 9.2e18, 1.9e19, -1.5};
  auto x = ts::from_xtensor(a, {5});
  auto i32 = ts::compute(ts::cast<std::int32_t>(x), pol);
  auto u8 = ts::compute(ts::cast<std::uint8_t>(x), pol);
  auto i64 = ts::compute(ts::cast<std::int64_t>(x), pol);
  auto u64 = ts::compute(ts::cast<std::uint64_t>(x), pol);
  const std::int32_t imax = std::numeric_limits<std::int32_t>::max(), imin = std::numeric_limits<std::int32_t>::min();
  const std::int64_t lmax = std::numeric_limits<std::int64_t>::max(), lmin = std::numeric_limits<std::int64_t>::min();
  const std::uint64_t umax = std::numeric_limits<std::uint64_t>::max();
  // NaN -> 0, out of range -> the type's bound, in range -> truncated toward zero.
  CHECK(same_values(i32, xt::xarray<std::int32_t>{0, imax, imin, imax, imin, 2, -2, imax, imin, 0,
                                                   300, 255, imax, imin, imax, imax, -1}));
  CHECK(same_values(u8, xt::xarray<std::uint8_t>{0, 255, 0, 255, 0, 2, 0, 255, 0, 0, 255, 255, 255,
                                                  0, 255, 255, 0}));
  CHECK(same_values(i64, xt::xarray<std::int64_t>{0, lmax, lmin, 3000000000LL, -3000000000LL, 2, -2,
                                                   2147483647LL, -2147483648LL, 0, 300, 255, lmax, lmin,
                                                   9200000000000000000LL, lmax, -1}));
  CHECK(same_values(u64, xt::xarray<std::uint64_t>{0, umax, 0, 3000000000ULL, 0, 2, 0, 2147483647ULL, 0,
                                                    0, 300, 255, 9300000000000000000ULL, 0,
                                                    9200000000000000000ULL, umax, 0}));
}

TEMPLATE_TEST_CASE("rechunk keeps values and changes chunks", "[rechunk]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(99);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(100); ++it) {
    auto shape = random_shape(rng, 0, 4, 9);
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape));
    auto dense = testing::random_data<double>(rng, shape);
    auto a = ts::from_xtensor(dense, random_chunks(rng, shape));
    auto target = random_chunks(rng, shape);
    auto r = ts::rechunk(a, target);
    CHECK(r.chunks() == target);
    CHECK(bitwise_equal(ts::compute(r, pol), dense));
    auto rr = ts::rechunk(r * 2, random_chunks(rng, shape));
    CHECK(same_values(ts::compute(rr, pol), xt::xarray<double>(dense * 2)));
    auto p = ts::persist(ts::rechunk(r, random_chunks(rng, shape)), pol);  // gather path
    CHECK(bitwise_equal(ts::compute(p, pol), dense));
  }
}

TEMPLATE_TEST_CASE("transpose and swapaxes", "[remap]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(1234);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(100); ++it) {
    auto shape = random_shape(rng, 1, 4, 6);
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape));
    auto dense = testing::random_data<double>(rng, shape);
    auto a = ts::from_xtensor(dense, random_chunks(rng, shape));
    std::vector<std::size_t> perm(shape.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<index_t> axes(perm.begin(), perm.end());
    auto t = ts::transpose(a + 1, axes);
    CHECK(same_values(ts::compute(t, pol), xt::xarray<double>(xt::transpose(xt::xarray<double>(dense + 1), perm))));
    CHECK(same_values(ts::compute(ts::transpose(ts::transpose(a, axes)), pol),
                      xt::xarray<double>(xt::transpose(xt::transpose(dense, perm)))));
    CHECK(same_values(ts::compute(ts::swapaxes(a, 0, -1), pol),
                      swapped(dense)));
  }
  auto m = ts::ones<double>({2, 3});
  CHECK_THROWS_AS(ts::transpose(m, {0, 0}), std::invalid_argument);
  CHECK_THROWS_AS(ts::transpose(m, {0, 2}), std::invalid_argument);
  CHECK_THROWS_AS(ts::swapaxes(m, 0, 2), std::invalid_argument);
}

TEMPLATE_TEST_CASE("results are bitwise identical for any thread count", "[determinism]", TESSERA_TEST_BACKENDS) {
  auto x = ts::arange<double>(0, 200000, 1, {7777});
  auto m = ts::full<double>({3, 1}, 0.25, {1, 1});
  auto e = ts::sin(x * 1e-3) * m + ts::exp(-x / 1e5);
  auto one = ts::compute(e, make_policy<TestType>(1));
  for (int t : {2, 3, 8}) CHECK(bitwise_equal(ts::compute(e, make_policy<TestType>(t)), one));
  auto p = ts::persist(e, make_policy<TestType>(2));
  CHECK(bitwise_equal(ts::compute(p, make_policy<TestType>(1)), one));
}

TEMPLATE_TEST_CASE("empty axes", "[empty]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  auto e = ts::zeros<double>({0, 5}, {3, 2});
  CHECK(e.size() == 0);
  auto r = ts::compute(e + 1, pol);
  CHECK(r.shape() == std::vector<std::size_t>{0, 5});
  auto p = ts::persist(ts::ones<double>({4, 0}) * 2, pol);
  CHECK(ts::compute(p, pol).size() == 0);
  CHECK(ts::compute(ts::ones<double>({3, 1}) + ts::ones<double>({0}), pol).shape() ==
        std::vector<std::size_t>{3, 0});
}

TEMPLATE_TEST_CASE("an operation added in one file", "[extend]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  auto a = ts::arange<int>(0, 5, 1, {2});
  auto h = ts::compute(mylib::hypot(a, 3.0f), pol);
  STATIC_REQUIRE(std::is_same_v<typename decltype(h)::value_type, double>);
  CHECK(h(4) == 5.0);
  auto g = ts::compute(mylib::hypot(4.0, ts::full<float>({2}, 3.0f)), pol);
  STATIC_REQUIRE(std::is_same_v<typename decltype(g)::value_type, float>);
  CHECK(g(1) == 5.0f);
}

TEST_CASE("an operand's broadcast (bcast) maps lines and boxes as its affine_map does", "[core]") {
  const auto seed = test_seed(808);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(2000); ++it) {
    const int out_rank = 1 + int(rng() % 6);
    ts::bcast bc;
    bc.offset = int(rng() % std::uint64_t(out_rank + 1));
    bc.stretched = unsigned(rng()) & ((1u << (out_rank - bc.offset)) - 1u);
    const ts::affine_map m = bc.to_affine(out_rank);
    ts::ivec start;
    ts::box b;
    start.n = b.lo.n = b.hi.n = out_rank;
    for (int d = 0; d < out_rank; ++d) {
      start[d] = index_t(rng() % 50);
      b.lo[d] = index_t(rng() % 50);
      b.hi[d] = b.lo[d] + 1 + index_t(rng() % 20);
    }
    const int axis = int(rng() % std::uint64_t(out_rank + 1)) - 1;  // -1: one element
    const index_t step = 1 + index_t(rng() % 3);
    INFO("case " << it << " rank " << out_rank << " offset " << bc.offset << " stretched "
                 << bc.stretched << " axis " << axis);
    ts::ivec c1, c2;
    int a1, a2;
    index_t s1, s2;
    bc.map_line(start, axis, step, c1, a1, s1);
    m.map_line(start, axis, step, c2, a2, s2);
    REQUIRE(c1.n == c2.n);
    for (int k = 0; k < c1.n; ++k) REQUIRE(c1[k] == c2[k]);
    REQUIRE(a1 == a2);
    REQUIRE(s1 == s2);
    const ts::box x = bc.map_box(b), y = m.map_box(b);
    REQUIRE(x.lo.n == y.lo.n);
    for (int k = 0; k < x.lo.n; ++k) {
      REQUIRE(x.lo[k] == y.lo[k]);
      REQUIRE(x.hi[k] == y.hi[k]);
    }
  }
}

TEST_CASE("sizes past the index type throw, as NumPy's 'array is too big'", "[core][errors]") {
  using Catch::Contains;
  constexpr index_t big = index_t(1) << 32, half = index_t(1) << 31;
  // 2^64 elements: was size() == 0, then a crash on the first element.
  CHECK_THROWS_WITH(ts::zeros<double>({big, big}, {half, half}),
                    Contains("array is too big") && Contains("(4294967296, 4294967296)"));
  // 2^62 elements fit, their 2^65 bytes do not; 2^62 one-byte elements are fine (lazy).
  CHECK_THROWS_WITH(ts::zeros<double>({half, half}, {half, half}), Contains("bytes"));
  auto huge = ts::ones<std::uint8_t>({half, half}, {1 << 20, 1 << 20});
  CHECK(huge.size() == index_t(1) << 62);
  CHECK(ts::item(ts::view(huge, half - 1, half - 1)) == 1);
  // A broadcast result counts too, and an empty axis does not hide an overflow (NumPy raises).
  CHECK_THROWS_WITH(ts::ones<std::uint8_t>({big, 1}) + ts::ones<std::uint8_t>({big}),
                    Contains("array is too big"));
  CHECK_THROWS_WITH(ts::zeros<std::uint8_t>({0, big, big}), Contains("array is too big"));
  CHECK(ts::zeros<double>({0, big}).size() == 0);
}

TEST_CASE("arange lengths past the index type throw, naming the arguments", "[core][errors]") {
  using Catch::Contains;
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(ts::arange<double>(0.0, inf, 1.0, {1000}),
                    Contains("arange(0, inf, 1)") && Contains("exceeds the largest array size"));
  CHECK_THROWS_WITH(ts::arange<double>(0.0, 1e300, 1e-300), Contains("exceeds the largest"));
  CHECK_THROWS_WITH(ts::arange<double>(-1e308, 1e308, 1.0), Contains("length inf"));
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  CHECK_THROWS_WITH(ts::arange<std::int64_t>(lo, hi, std::int64_t(1)),
                    Contains("arange(-9223372036854775808, 9223372036854775807, 1)"));
  CHECK_THROWS_WITH(ts::arange<std::int64_t>(lo, hi, std::int64_t(2)), Contains("exceeds"));
  // 2^62 elements fit the index type, their 2^65 bytes do not; 2^59 elements do.
  CHECK_THROWS_WITH(ts::arange<std::int64_t>(lo, hi, std::int64_t(4)), Contains("bytes"));
  auto a = ts::arange<std::int64_t>(lo, hi, std::int64_t(32), {index_t(1) << 40});
  CHECK(a.size() == index_t(1) << 59);
  CHECK(ts::item(ts::view(a, 1)) == lo + 32);
  CHECK(ts::item(ts::view(a, -1)) == hi - 31);  // lo + 32 (2^59 - 1), without overflow inside
  CHECK(ts::arange<std::int64_t>(hi, lo, std::int64_t(-32), {index_t(1) << 40}).size() ==
        index_t(1) << 59);
}

TEMPLATE_TEST_CASE("an xtensor operand on either side of an operator becomes a Tessera array",
                   "[core][xtensor]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const xt::xarray<double> xd = {{0, 1, 2}, {3, 4, 5}};
  auto x = ts::from_xtensor(xd, {1, 2});
  xt::xarray<double> row = {10, 20, 30};
  xt::xarray<double> col = xt::xarray<double>::from_shape({2, 1});
  col(0, 0) = 1;
  col(1, 0) = 2;
  static_assert(ts::expression_type<decltype(x + row)>, "the result is a Tessera expression");
  static_assert(!ts::expression_type<decltype(row + row)>, "xtensor with xtensor stays xtensor");
  CHECK(bool(ts::compute(x + row, pol) == xt::xarray<double>(xd + row)));
  CHECK(bool(ts::compute(row * x, pol) == xt::xarray<double>(row * xd)));
  CHECK(bool(ts::compute(x - col, pol) == xt::xarray<double>(xd - col)));
  CHECK(bool(ts::compute(x / (row * 2.0), pol) == xt::xarray<double>(xd / (row * 2.0))));  // a lazy xtensor operand
  CHECK(bool(ts::compute(x >= row / 10.0, pol) == xt::xarray<bool>(xd >= row / 10.0)));
  const xt::xarray<double> two = {1, 2};
  CHECK_THROWS_AS(x + two, ts::invalid_argument);  // shapes that do not broadcast
}
