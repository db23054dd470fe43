// NumPy's elementwise functions (ops/ufuncs.hpp) against NumPy itself, run at test time:
// random arrays of every element type (special values included: NaN, +-inf, +-0, ties,
// integer extremes) on random shapes and chunkings go through each function, as its
// functor (the element code) and, each public function once, as a lazy chunked expression
// through the backend; inputs and results are saved as .npy and
// tests/differential/numpy_reference.py recomputes every case with NumPy and compares (exact
// functions bitwise, floating math within a few ulp). Plus fixed cases with NumPy's known
// answers, checked in C++.
// Instantiated per backend (tests/cuda/test_backend_ufuncs.cu adds ts::cuda).
#define TESSERA_NO_DISPATCH 1  // one kernel copy per expression: dispatch is tested elsewhere
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include <tessera/tessera.hpp>

#include "support/backends.hpp"
#include "support/cases.hpp"
#include "support/numpy_reference.hpp"

namespace ts = tessera;
using namespace testing;

namespace {

/// Every unary functor on dense data of element type T.
template <class T, class P>
void unary_elements(case_writer<P>& w, std::mt19937_64& rng) {
  const auto shape = random_shape(rng, 1, 2, 12);
  const auto a = edgy_data<T>(rng, shape);
  const auto ia = w.input(a);
#define TESSERA_CASE(name) w.elements(#name, ts::ops::name{}, "-", {ia}, a);
  TESSERA_CASE(tan) TESSERA_CASE(arcsin) TESSERA_CASE(arccos) TESSERA_CASE(arctan)
  TESSERA_CASE(sinh) TESSERA_CASE(cosh) TESSERA_CASE(tanh) TESSERA_CASE(arcsinh)
  TESSERA_CASE(arccosh) TESSERA_CASE(arctanh) TESSERA_CASE(log1p) TESSERA_CASE(expm1)
  TESSERA_CASE(log2) TESSERA_CASE(log10) TESSERA_CASE(exp2) TESSERA_CASE(cbrt)
  TESSERA_CASE(fabs) TESSERA_CASE(rint) TESSERA_CASE(deg2rad) TESSERA_CASE(rad2deg)
  TESSERA_CASE(floor) TESSERA_CASE(ceil) TESSERA_CASE(trunc) TESSERA_CASE(isnan)
  TESSERA_CASE(isinf) TESSERA_CASE(isfinite) TESSERA_CASE(signbit) TESSERA_CASE(logical_not)
  TESSERA_CASE(absolute) TESSERA_CASE(square)
#undef TESSERA_CASE
  w.elements("nan_to_num", ts::ops::nan_to_num<std::conditional_t<std::is_floating_point_v<T>, T, double>>{},
             "-", {ia}, a);
  if constexpr (std::is_same_v<T, bool>) {
    // ts::round casts bool to float first
    w.elements("round", [](bool v) { return ts::ops::round_decimals{0}(float(v)); }, "0", {ia}, a);
  } else {
    w.elements("sign", ts::ops::sign{}, "-", {ia}, a);
    w.elements("negative", ts::ops::negate{}, "-", {ia}, a);
    for (int d : {0, 1, 3, -1, -2}) {
      if constexpr (std::is_floating_point_v<T>) {
        w.elements("round", ts::ops::round_decimals{d}, std::to_string(d), {ia}, a);
      } else if (d < 0) {
        // integers round in double: NumPy's conversion back is undefined past the type, so
        // these inputs stay within +-1000
        xt::xarray<T> small = a;
        for (auto& v : small) v = T(T(v % T(100)) * T(std::is_signed_v<T> ? 10 : 2));
        w.elements("round", ts::ops::round_decimals{d}, std::to_string(d), {w.input(small)}, small);
      }
    }
  }
  if constexpr (std::is_integral_v<T>) {
    w.elements("invert", ts::ops::bitwise_not{}, "-", {ia}, a);
    xt::xarray<T> nz = a;  // NumPy's integer 1 / 0 is undefined: zeros become 1 first
    for (auto& v : nz) v = v == T(0) ? T(1) : v;
    w.elements("reciprocal", ts::ops::reciprocal{}, "-", {w.input(nz)}, nz);
  } else {
    w.elements("reciprocal", ts::ops::reciprocal{}, "-", {ia}, a);
  }
}

/// Every binary functor on dense data of element types A and B (same shape).
template <class A, class B, class P>
void binary_elements(case_writer<P>& w, std::mt19937_64& rng) {
  const auto shape = random_shape(rng, 1, 2, 12);
  const auto a = edgy_data<A>(rng, shape);
  const auto b = edgy_data<B>(rng, shape);
  const auto ia = w.input(a), ib = w.input(b);
#define TESSERA_CASE(name) w.elements(#name, ts::ops::name{}, "-", {ia, ib}, a, b);
  TESSERA_CASE(arctan2) TESSERA_CASE(hypot) TESSERA_CASE(copysign) TESSERA_CASE(nextafter)
  TESSERA_CASE(logaddexp) TESSERA_CASE(logaddexp2) TESSERA_CASE(float_power) TESSERA_CASE(fmax)
  TESSERA_CASE(fmin) TESSERA_CASE(heaviside) TESSERA_CASE(logical_and) TESSERA_CASE(logical_or)
  TESSERA_CASE(logical_xor) TESSERA_CASE(floor_divide) TESSERA_CASE(remainder) TESSERA_CASE(fmod)
  TESSERA_CASE(isclose)
#undef TESSERA_CASE
  w.elements("isclose_nan", ts::ops::isclose{0.1, 1.0, true}, "0.1,1.0", {ia, ib}, a, b);
  xt::xarray<B> hi = b;
  for (auto& v : hi) v = ts::ops::maximum{}(v, B(2));
  w.elements("clip", ts::ops::clip{}, "-", {ia, ib, w.input(hi)}, a, b, hi);
  if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) {
    w.elements("bitwise_and", ts::ops::bitwise_and{}, "-", {ia, ib}, a, b);
    w.elements("bitwise_or", ts::ops::bitwise_or{}, "-", {ia, ib}, a, b);
    w.elements("bitwise_xor", ts::ops::bitwise_xor{}, "-", {ia, ib}, a, b);
    w.elements("left_shift", ts::ops::left_shift{}, "-", {ia, ib}, a, b);
    w.elements("right_shift", ts::ops::right_shift{}, "-", {ia, ib}, a, b);
  }
}

/// Each public function once as a lazy chunked expression through the backend (random
/// shapes, chunkings and broadcasting): the element type varies from function to function.
template <class P>
void expression_cases(case_writer<P>& w, std::mt19937_64& rng) {
  auto shape = random_shape(rng, 1, 3, 9);
  ts::shape_t other(shape.begin() + std::ptrdiff_t(rng() % shape.size()), shape.end());
  for (auto& n : other)
    if (rng() % 3 == 0) n = 1;  // broadcast against shape
  auto d = ts::from_xtensor(edgy_data<double>(rng, shape), random_chunks(rng, shape));
  auto f = ts::from_xtensor(edgy_data<float>(rng, shape), random_chunks(rng, shape));
  auto i = ts::from_xtensor(edgy_data<std::int32_t>(rng, shape), random_chunks(rng, shape));
  auto u = ts::from_xtensor(edgy_data<std::uint8_t>(rng, other), random_chunks(rng, other));
  auto e = ts::from_xtensor(edgy_data<double>(rng, other), random_chunks(rng, other));
  const auto id = w.input(d), iff = w.input(f), ii = w.input(i), iu = w.input(u), ie = w.input(e);
  w.add("tan", ts::tan(d), {id});
  w.add("arcsin", ts::arcsin(f), {iff});
  w.add("arccos", ts::acos(d), {id});
  w.add("arctan", ts::atan(i), {ii});
  w.add("sinh", ts::sinh(f), {iff});
  w.add("cosh", ts::cosh(d), {id});
  w.add("tanh", ts::tanh(d), {id});
  w.add("arcsinh", ts::asinh(f), {iff});
  w.add("arccosh", ts::arccosh(d), {id});
  w.add("arctanh", ts::atanh(d), {id});
  w.add("log1p", ts::log1p(d), {id});
  w.add("expm1", ts::expm1(f), {iff});
  w.add("log2", ts::log2(u), {iu});
  w.add("log10", ts::log10(d), {id});
  w.add("exp2", ts::exp2(f), {iff});
  w.add("cbrt", ts::cbrt(d), {id});
  w.add("fabs", ts::fabs(i), {ii});
  w.add("rint", ts::rint(d), {id});
  w.add("deg2rad", ts::radians(d), {id});
  w.add("rad2deg", ts::degrees(f), {iff});
  w.add("floor", ts::floor(d), {id});
  w.add("ceil", ts::ceil(f), {iff});
  w.add("trunc", ts::fix(d), {id});
  w.add("round", ts::around(d, 2), {id}, "2");
  auto i_small = ts::remainder(i, 1000);  // NumPy's double -> int32 past the type is undefined
  w.add("round", ts::round(i_small, -1), {w.input(i_small)}, "-1");
  w.add("sign", ts::sign(d), {id});
  w.add("isnan", ts::isnan(f), {iff});
  w.add("isinf", ts::isinf(d), {id});
  w.add("isfinite", ts::isfinite(d), {id});
  w.add("signbit", ts::signbit(d), {id});
  w.add("logical_not", ts::logical_not(i), {ii});
  w.add("invert", ~i, {ii});
  w.add("invert", ts::bitwise_not(u), {iu});
  w.add("negative", ts::negative(f), {iff});
  w.add("absolute", ts::absolute(i), {ii});
  w.add("square", ts::square(i), {ii});
  w.add("reciprocal", ts::reciprocal(f), {iff});
  w.add("nan_to_num", ts::nan_to_num(d), {id});
  w.add("arctan2", ts::arctan2(d, e), {id, ie});
  w.add("hypot", ts::hypot(f, u), {iff, iu});
  w.add("copysign", ts::copysign(d, e), {id, ie});
  w.add("nextafter", ts::nextafter(d, e), {id, ie});
  w.add("logaddexp", ts::logaddexp(d, e), {id, ie});
  w.add("logaddexp2", ts::logaddexp2(f, u), {iff, iu});
  w.add("float_power", ts::float_power(f, u), {iff, iu});
  w.add("fmax", ts::fmax(d, e), {id, ie});
  w.add("fmin", ts::fmin(i, u), {ii, iu});
  w.add("heaviside", ts::heaviside(d, e), {id, ie});
  w.add("logical_and", ts::logical_and(d, u), {id, iu});
  w.add("logical_or", ts::logical_or(i, e), {ii, ie});
  w.add("logical_xor", ts::logical_xor(f, u), {iff, iu});
  w.add("floor_divide", ts::floor_divide(d, e), {id, ie});
  w.add("floor_divide", ts::floor_divide(i, u), {ii, iu});
  w.add("remainder", d % e, {id, ie});
  w.add("remainder", ts::mod(i, u), {ii, iu});
  w.add("fmod", ts::fmod(i, u), {ii, iu});
  w.add("isclose", ts::isclose(d, e), {id, ie});
  w.add("clip", ts::clip(d, e, ts::maximum(e, 2.0)), {id, ie, w.input(ts::maximum(e, 2.0))});
  w.add("bitwise_and", i & u, {ii, iu});
  w.add("bitwise_or", ts::bitwise_or(i, u), {ii, iu});
  w.add("bitwise_xor", i ^ u, {ii, iu});
  w.add("left_shift", i << u, {ii, iu});
  w.add("right_shift", ts::right_shift(i, u), {ii, iu});
}

}  // namespace

TEMPLATE_TEST_CASE("ufuncs agree with NumPy run at test time", "[ufunc][numpy]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  // CUDA's transcendental functions carry up to 4 ulp of their own error.
  const int ulps = std::is_same_v<TestType, ts::host> ? 4 : 8;
  check_against_numpy(pol, 2611, 6, ulps, [&](case_writer<TestType>& w, std::mt19937_64& rng) {
    unary_elements<double>(w, rng);
    unary_elements<float>(w, rng);
    unary_elements<std::int64_t>(w, rng);
    unary_elements<std::int32_t>(w, rng);
    unary_elements<std::uint8_t>(w, rng);
    unary_elements<bool>(w, rng);
    binary_elements<double, double>(w, rng);
    binary_elements<float, float>(w, rng);
    binary_elements<std::int64_t, std::int64_t>(w, rng);
    binary_elements<std::int32_t, std::uint8_t>(w, rng);
    binary_elements<std::uint8_t, std::uint8_t>(w, rng);
    binary_elements<bool, bool>(w, rng);
    binary_elements<float, std::int32_t>(w, rng);
    binary_elements<double, bool>(w, rng);
    binary_elements<std::int8_t, bool>(w, rng);
    expression_cases(w, rng);
  });
}

TEMPLATE_TEST_CASE("ufuncs give NumPy's answers on known cases", "[ufunc]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  auto d = ts::from_xtensor(xt::xarray<double>{-7.0, 7.0, -2.5, 2.5, -0.5, 0.0, 1.5}, {3});
  auto i = ts::from_xtensor(xt::xarray<std::int64_t>{-7, 7, -8, 15, 25, 0, INT64_MIN}, {4});
  auto k = ts::from_xtensor(xt::xarray<std::int8_t>{1, 7, 9, -1, 100, -100, 0}, {2});
  auto check = [&](const auto& expr, const auto& expect) {
    auto got = ts::compute(expr, pol);
    using got_type = decltype(got);
    using expect_type = std::remove_cvref_t<decltype(expect)>;
    using R = typename got_type::value_type;
    STATIC_REQUIRE(std::is_same_v<R, typename expect_type::value_type>);
    REQUIRE(got.size() == expect.size());
    for (std::size_t j = 0; j < got.size(); ++j) {
      INFO("element " << j << ": " << +got.flat(j) << " vs NumPy's " << +expect.flat(j));
      if constexpr (std::is_floating_point_v<R>)
        CHECK((std::isnan(expect.flat(j)) ? std::isnan(got.flat(j))
                                          : std::signbit(got.flat(j)) == std::signbit(expect.flat(j)) &&
                                                got.flat(j) == expect.flat(j)));
      else CHECK(got.flat(j) == expect.flat(j));
    }
  };
  // np.floor_divide / remainder / fmod of [-7, 7, -2.5, 2.5, -0.5, 0, 1.5] by 2
  check(ts::floor_divide(d, 2), xt::xarray<double>{-4, 3, -2, 1, -1, 0, 0});
  check(d % 2, xt::xarray<double>{1, 1, 1.5, 0.5, 1.5, 0, 1.5});
  check(ts::fmod(d, 2), xt::xarray<double>{-1, 1, -0.5, 0.5, -0.5, 0, 1.5});
  check(ts::floor_divide(d, -0.0), xt::xarray<double>{INFINITY, -INFINITY, INFINITY, -INFINITY,
                                                       INFINITY, NAN, -INFINITY});
  check(ts::floor_divide(i, 2), xt::xarray<std::int64_t>{-4, 3, -4, 7, 12, 0, INT64_MIN / 2});
  check(ts::floor_divide(i, -1), xt::xarray<std::int64_t>{7, -7, 8, -15, -25, 0, INT64_MIN});
  check(ts::floor_divide(i, 0), xt::xarray<std::int64_t>{0, 0, 0, 0, 0, 0, 0});
  check(i % 3, xt::xarray<std::int64_t>{2, 1, 1, 0, 1, 0, 1});
  check(i % -3, xt::xarray<std::int64_t>{-1, -2, -2, 0, -2, 0, -2});
  check(ts::fmod(i, -3), xt::xarray<std::int64_t>{-1, 1, -2, 0, 1, 0, -2});
  // round half to even, decimals on both sides, integers too
  check(ts::round(d), xt::xarray<double>{-7, 7, -2, 2, -0.0, 0, 2});
  check(ts::round(i, -1), xt::xarray<std::int64_t>{-10, 10, -10, 20, 20, 0, INT64_MIN});
  check(ts::sign(d - 0.5), xt::xarray<double>{-1, 1, -1, 1, -1, -1, 1});
  check(ts::sign(i), xt::xarray<std::int64_t>{-1, 1, -1, 1, 1, 0, -1});
  // shifts past the width: 0, or the sign fill
  check(k << 7, xt::xarray<std::int8_t>{-128, -128, -128, -128, 0, 0, 0});
  check(k << k, xt::xarray<std::int8_t>{2, -128, 0, 0, 0, 0, 0});
  check(k >> 9, xt::xarray<std::int8_t>{0, 0, 0, -1, 0, -1, 0});
  check(ts::floor(i), xt::xarray<std::int64_t>{-7, 7, -8, 15, 25, 0, INT64_MIN});
  check(ts::clip(d, -1, 2), xt::xarray<double>{-1, 2, -1, 2, -0.5, 0, 1.5});
  check(ts::nan_to_num(ts::log(d)), xt::xarray<double>{0, std::log(7.0), 0, std::log(2.5), 0,
                                                       -std::numeric_limits<double>::max(),
                                                       std::log(1.5)});
  // NumPy's names of the operators, and the aliases, are the same nodes
  auto same = [&](const auto& x, const auto& y) {
    auto gx = ts::compute(x, pol);
    auto gy = ts::compute(y, pol);
    CHECK(bitwise_equal_arrays(gx, gy));
  };
  same(ts::add(d, 2), d + 2);
  same(ts::subtract(2, d), 2 - d);
  same(ts::multiply(d, i), d * i);
  same(ts::divide(i, 3), i / 3);
  same(ts::true_divide(d, 4.0), d / 4.0);
  same(ts::power(d, 2), ts::pow(d, 2));
  same(ts::equal(d, 2.5), d == 2.5);
  same(ts::not_equal(d, 2.5), d != 2.5);
  same(ts::less(d, 0), d < 0);
  same(ts::less_equal(d, 0), d <= 0);
  same(ts::greater(i, 0), i > 0);
  same(ts::greater_equal(i, 0), i >= 0);
  same(ts::positive(d), d);
  same(ts::asin(d / 8), ts::arcsin(d / 8));
  same(ts::acosh(ts::abs(d) + 1), ts::arccosh(ts::abs(d) + 1));
  same(ts::mod(i, 4), i % 4);
  same(ts::invert(k), ~k);
  same(ts::around(d, 1), ts::round(d, 1));
  same(ts::fix(d), ts::trunc(d));
  same(ts::radians(d), ts::deg2rad(d));
  same(ts::degrees(d), ts::rad2deg(d));
  same(ts::atan2(d, 3.0), ts::arctan2(d, 3.0));
  auto b = ts::from_xtensor(xt::xarray<bool>{true, false}, {1});
  check(ts::round(b), xt::xarray<float>{1, 0});
  CHECK_THROWS_AS(ts::round(b, -1), ts::invalid_argument);  // NumPy raises too
  CHECK(ts::allclose(d, d + 1e-9).item());
  CHECK_FALSE(ts::allclose(d, d + 1e-3).item());
}
