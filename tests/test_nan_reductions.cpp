// NumPy's NaN-ignoring reductions (reduce/nan_reductions.hpp) against NumPy run at test time
// (tests/support/numpy_reference.hpp): random arrays with NaN holes (whole NaN rows included),
// random chunkings, axes, keep_dims and ddof, float64, float32 and int32. Instantiated per
// backend (tests/cuda/test_backend_ufuncs.cu includes this file too).
#define TESSERA_NO_DISPATCH 1  // one kernel copy per expression: dispatch is tested elsewhere
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include <tessera/tessera.hpp>

#include "support/backends.hpp"
#include "support/cases.hpp"
#include "support/numpy_reference.hpp"

namespace ts = tessera;
using namespace testing;

namespace {

/// Values in [-10, 10) with NaN holes (about a third) and, sometimes, an all-NaN first row.
template <class T>
xt::xarray<T> holey_data(std::mt19937_64& rng, const ts::shape_t& shape) {
  auto a = testing::random_data<T>(rng, shape);
  if constexpr (std::is_floating_point_v<T>) {
    for (auto& v : a)
      if (rng() % 3 == 0) v = std::numeric_limits<T>::quiet_NaN();
    if (shape.size() >= 1 && shape[0] > 1 && rng() % 2)
      for (std::size_t k = 0; k < a.size() / std::size_t(shape[0]); ++k) a.flat(k) = std::numeric_limits<T>::quiet_NaN();
  }
  return a;
}

template <class T, class P>
void nan_cases(case_writer<P>& w, std::mt19937_64& rng) {
  auto shape = random_shape(rng, 1, 3, 7);
  for (auto& n : shape) n = n == 0 ? 1 : n;  // amin/amax of empty slices throw (tested in reduce)
  const int r = int(shape.size());
  auto x = ts::from_xtensor(holey_data<T>(rng, shape), random_chunks(rng, shape));
  const auto ix = w.input(x);
  std::vector<ts::index_t> axes;
  for (int d = 0; d < r; ++d)
    if (rng() % 2) axes.push_back(rng() % 2 ? d : d - r);
  const bool keep = rng() % 2;
  const ts::index_t ddof = ts::index_t(rng() % 3);
  ts::reduce_options o{.keep_dims = keep, .ddof = ddof};
  std::string p;
  for (auto a : axes) p += (p.empty() ? "" : ",") + std::to_string(a);
  p = (axes.empty() ? std::string("all") : p) + ";" + (keep ? "1" : "0") + ";" + std::to_string(ddof);
  auto run = [&](const char* name, const auto& all_axes, const auto& some_axes) {
    if (axes.empty()) w.add(name, all_axes, {ix}, p);
    else w.add(name, some_axes, {ix}, p);
  };
  run("nansum", ts::nansum(x, o), ts::nansum(x, axes, o));
  run("nanprod", ts::nanprod(x, o), ts::nanprod(x, axes, o));
  run("nanmean", ts::nanmean(x, o), ts::nanmean(x, axes, o));
  run("nanvar", ts::nanvar(x, o), ts::nanvar(x, axes, o));
  run("nanstd", ts::nanstd(x, o), ts::nanstd(x, axes, o));
  run("nanmin", ts::nanmin(x, o), ts::nanmin(x, axes, o));
  run("nanmax", ts::nanmax(x, o), ts::nanmax(x, axes, o));
  run("ptp", ts::ptp(x, o), ts::ptp(x, axes, o));  // NaN propagates, as NumPy's
}

/// Scans along a random axis (and of the flattened array): NumPy's sequential results, to the bit.
template <class T, class P>
void scan_cases(case_writer<P>& w, std::mt19937_64& rng) {
  auto shape = random_shape(rng, 1, 3, 7);
  const int r = int(shape.size());
  auto x = ts::from_xtensor(holey_data<T>(rng, shape), random_chunks(rng, shape));
  const auto ix = w.input(x);
  const ts::index_t ax = ts::index_t(rng() % unsigned(r)) - (rng() % 2 ? r : 0);
  const std::string p = std::to_string(ax);
  w.add("cumsum", ts::cumsum(x, ax), {ix}, p);
  w.add("cumprod", ts::cumprod(x, ax), {ix}, p);
  w.add("nancumsum", ts::nancumsum(x, ax), {ix}, p);
  w.add("nancumprod", ts::nancumprod(x, ax), {ix}, p);
  w.add("cumsum", ts::cumsum(x), {ix});
  // a scan inside an expression, and of an expression
  w.add("cumsum_twice", ts::cumsum(ts::cumsum(x, ax) * 2, ax), {ix}, p);
}

}  // namespace

TEMPLATE_TEST_CASE("cumulative sums and products agree with NumPy run at test time, bitwise",
                   "[reduce][scan][numpy]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  check_against_numpy(pol, 1811, 6, 0, [&](case_writer<TestType>& w, std::mt19937_64& rng) {
    scan_cases<double>(w, rng);
    scan_cases<float>(w, rng);
    scan_cases<std::int32_t>(w, rng);
    scan_cases<std::uint8_t>(w, rng);
    scan_cases<bool>(w, rng);
  });
  // chunks and task counts: one task per chunk, the result keeps the input's chunks
  auto a = ts::from_xtensor(xt::xarray<double>{{1, 2, 3}, {4, 5, 6}}, {1, 2});
  auto c = ts::cumsum(a, 1);
  CHECK(c.chunks() == a.chunks());
  CHECK(ts::task_count(c) == 4 + 4);
  CHECK(bool(ts::compute(c, pol) == xt::xarray<double>{{1, 3, 6}, {4, 9, 15}}));
  CHECK(bool(ts::compute(ts::cumprod(a, 0), pol) == xt::xarray<double>{{1, 2, 3}, {4, 10, 18}}));
  try {
    (void)ts::cumsum(a, 2);
    FAIL("no exception");
  } catch (const ts::invalid_argument& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("axis 2 is out of range"));
  }
}

TEMPLATE_TEST_CASE("nan reductions agree with NumPy run at test time", "[reduce][nan][numpy]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const int ulps = 0;  // the script allows summation-order ulps for the nan sums
  check_against_numpy(pol, 1711, 6, ulps, [&](case_writer<TestType>& w, std::mt19937_64& rng) {
    nan_cases<double>(w, rng);
    nan_cases<float>(w, rng);
    nan_cases<std::int32_t>(w, rng);
  });
}
