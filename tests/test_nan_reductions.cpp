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

/// nanargmin / nanargmax over one random axis or all: NumPy's indices where no lane is all NaN,
/// else the error NumPy raises as ValueError.
template <class T, class P>
void nan_arg_cases(case_writer<P>& w, std::mt19937_64& rng) {
  auto shape = random_shape(rng, 1, 3, 6);
  for (auto& n : shape) n = n == 0 ? 1 : n;
  const int r = int(shape.size());
  auto data = holey_data<T>(rng, shape);
  auto x = ts::from_xtensor(data, random_chunks(rng, shape));
  const bool all = rng() % 3 == 0;
  const ts::index_t axis = ts::index_t(rng() % std::size_t(r)) - (rng() % 2 ? r : 0);
  const bool keep = rng() % 2;
  bool lane_all_nan = false;
  if constexpr (std::is_floating_point_v<T>) {
    auto nan = ts::isnan(x);
    lane_all_nan = all ? ts::all(nan).item(w.pol) : ts::any(ts::all(nan, axis)).item(w.pol);
  }
  if (lane_all_nan) {  // NumPy raises ValueError; Tessera throws when computing
    if (all) CHECK_THROWS_MATCHING(ts::nanargmax(x).item(w.pol), ts::invalid_argument, Catch::Contains("all-NaN slice"));
    else CHECK_THROWS_MATCHING(ts::compute(ts::nanargmin(x, axis), w.pol), ts::invalid_argument,
                               Catch::Contains("nanargmin: all-NaN slice encountered (result index"));
    return;
  }
  const auto ix = w.input(x);
  const std::string p = (all ? std::string("all") : std::to_string(axis)) + ";" + (keep ? "1" : "0");
  if (all && keep) {
    w.add("nanargmin", ts::nanargmin(x, ts::keepdims), {ix}, p);
    w.add("nanargmax", ts::nanargmax(x, ts::keepdims), {ix}, p);
  } else if (all) {
    w.add("nanargmin", ts::nanargmin(x), {ix}, p);
    w.add("nanargmax", ts::nanargmax(x), {ix}, p);
  } else if (keep) {
    w.add("nanargmin", ts::nanargmin(x, axis, ts::keepdims), {ix}, p);
    w.add("nanargmax", ts::nanargmax(x, axis, ts::keepdims), {ix}, p);
  } else {
    w.add("nanargmin", ts::nanargmin(x, axis), {ix}, p);
    w.add("nanargmax", ts::nanargmax(x, axis), {ix}, p);
  }
}

/// Histograms: equal bins over a random range (values on edges, outside and NaN included),
/// explicit edges, weights, and 2-d histograms.
template <class T, class P>
void histogram_cases(case_writer<P>& w, std::mt19937_64& rng) {
  auto shape = random_shape(rng, 0, 3, 8);
  auto x = ts::from_xtensor(holey_data<T>(rng, shape), random_chunks(rng, shape));
  auto y = ts::from_xtensor(holey_data<T>(rng, shape), random_chunks(rng, shape));
  auto wt = ts::from_xtensor(testing::random_data<double>(rng, shape), random_chunks(rng, shape));
  const auto ix = w.input(x), iy = w.input(y), iw = w.input(wt);
  const ts::index_t bins = 1 + ts::index_t(rng() % 13);
  const double lo = -double(rng() % 40) / 4, hi = lo + double(rng() % 80) / 4;  // lo == hi too
  const std::string p = std::to_string(bins) + ";" + std::to_string(lo) + ";" + std::to_string(hi);
  auto [h, edges] = ts::histogram(x, bins, {lo, hi});
  w.add("histogram", h, {ix}, p);
  w.add("histogram_edges", ts::from_xtensor(xt::xarray<typename decltype(edges)::value_type>(
                               xt::adapt(edges, {edges.size()}))),
        {ix}, p);
  w.add("histogram_weighted", ts::histogram(x, bins, {lo, hi}, wt).hist, {ix, iw}, p);
  std::vector<double> e{lo};
  std::string ep = std::to_string(lo);
  for (int k = 0, n = 1 + int(rng() % 5); k < n; ++k) {
    e.push_back(e.back() + double(rng() % 12) / 4);  // repeated edges too
    ep += "," + std::to_string(e.back());
  }
  w.add("histogram_explicit", ts::histogram(x, e).hist, {ix}, ep);
  const ts::index_t by = 1 + ts::index_t(rng() % 6);
  const double ylo = -double(rng() % 20) / 2, yhi = ylo + 0.5 + double(rng() % 30) / 2;
  w.add("histogram2d", ts::histogram2d(x, y, {bins, by}, {{lo, hi}, {ylo, yhi}}).hist, {ix, iy},
        std::to_string(bins) + "," + std::to_string(by) + ";" + std::to_string(lo) + "," +
            std::to_string(hi) + "," + std::to_string(ylo) + "," + std::to_string(yhi));
}

/// Order statistics (median, quantile, percentile and nan-variants) over random axes, with
/// scalar and list q, keepdims or not; plain variants on data without NaN holes most of the time.
template <class T, class P>
void order_cases(case_writer<P>& w, std::mt19937_64& rng) {
  auto shape = random_shape(rng, 1, 3, 7);
  for (auto& n : shape) n = n == 0 ? 1 : n;  // NumPy's quantile of an empty lane raises
  const int r = int(shape.size());
  auto holey = ts::from_xtensor(holey_data<T>(rng, shape), random_chunks(rng, shape));
  auto plain = ts::from_xtensor(rng() % 4 ? testing::random_data<T>(rng, shape) : holey_data<T>(rng, shape),
                                random_chunks(rng, shape));
  const auto ih = w.input(holey), ip = w.input(plain);
  std::vector<ts::index_t> axes;
  for (int d = 0; d < r; ++d)
    if (rng() % 2) axes.push_back(rng() % 2 ? d : d - r);
  const bool keep = rng() % 2 && !axes.empty();
  std::string a;
  for (auto v : axes) a += (a.empty() ? "" : ",") + std::to_string(v);
  a = (axes.empty() ? std::string("all") : a) + ";" + (keep ? "1" : "0") + ";";
  const double q = double(rng() % 21) / 20;  // exact in the decimal the script reads back
  std::vector<double> qs;
  for (int k = 0, n = 1 + int(rng() % 3); k < n; ++k) qs.push_back(double(rng() % 21) / 20);
  std::string ql;
  for (double v : qs) ql += (ql.empty() ? "" : ",") + std::to_string(v);
  std::vector<double> ps;
  for (double v : qs) ps.push_back(v * 100);
  std::string pl;
  for (double v : ps) pl += (pl.empty() ? "" : ",") + std::to_string(v);
  if (axes.empty()) {
    w.add("median", ts::median(plain), {ip}, a + "-");
    w.add("nanmedian", ts::nanmedian(holey), {ih}, a + "-");
    w.add("quantile", ts::quantile(plain, q), {ip}, a + "s:" + std::to_string(q));
    w.add("nanquantile", ts::nanquantile(holey, qs), {ih}, a + ql);
    w.add("percentile", ts::percentile(plain, ps), {ip}, a + pl);
    w.add("nanpercentile", ts::nanpercentile(holey, q * 100), {ih}, a + "s:" + std::to_string(q * 100));
  } else if (keep) {
    w.add("median", ts::median(plain, axes, ts::keepdims), {ip}, a + "-");
    w.add("nanmedian", ts::nanmedian(holey, axes, ts::keepdims), {ih}, a + "-");
    w.add("quantile", ts::quantile(plain, qs, axes, ts::keepdims), {ip}, a + ql);
    w.add("nanquantile", ts::nanquantile(holey, q, axes, ts::keepdims), {ih}, a + "s:" + std::to_string(q));
    w.add("percentile", ts::percentile(plain, q * 100, axes, ts::keepdims), {ip}, a + "s:" + std::to_string(q * 100));
    w.add("nanpercentile", ts::nanpercentile(holey, ps, axes, ts::keepdims), {ih}, a + pl);
  } else {
    w.add("median", ts::median(plain, axes), {ip}, a + "-");
    w.add("nanmedian", ts::nanmedian(holey, axes), {ih}, a + "-");
    w.add("quantile", ts::quantile(plain, q, axes), {ip}, a + "s:" + std::to_string(q));
    w.add("nanquantile", ts::nanquantile(holey, qs, axes), {ih}, a + ql);
    w.add("percentile", ts::percentile(plain, ps, axes), {ip}, a + pl);
    w.add("nanpercentile", ts::nanpercentile(holey, q * 100, axes), {ih}, a + "s:" + std::to_string(q * 100));
    if (axes.size() == 1) w.add("median", ts::median(plain, axes[0]), {ip}, a + "-");
  }
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
    for (int k = 0; k < 3; ++k) {
      nan_arg_cases<double>(w, rng);
      nan_arg_cases<float>(w, rng);
    }
    nan_arg_cases<std::int16_t>(w, rng);
  });
}

TEMPLATE_TEST_CASE("median, quantile, percentile and their nan-variants agree with NumPy run at test time",
                   "[reduce][quantile][numpy]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  // bitwise (float32 quantiles: NumPy 1.24's float64 interpolation rounded to float32)
  check_against_numpy(pol, 2411, 8, 0, [&](case_writer<TestType>& w, std::mt19937_64& rng) {
    order_cases<double>(w, rng);
    order_cases<float>(w, rng);
    order_cases<std::int32_t>(w, rng);
    order_cases<std::int64_t>(w, rng);
  });
  // the rechunk the selection needs: the reduced axes in one chunk, others kept
  const xt::xarray<double> d = {{3, 1, 2, 9}, {4, 8, 6, 5}, {7, 0, 1, 2}};
  auto x = ts::from_xtensor(d, {2, 2});
  auto m = ts::median(x, 0);
  CHECK(m.chunks() == ts::chunks_t{{2, 2}});
  CHECK(bool(ts::compute(m, pol) == xt::xarray<double>{4, 1, 2, 5}));
  CHECK(bool(ts::compute(ts::quantile(x, std::vector<double>{0, 1}, 1), pol) ==
             xt::xarray<double>{{1, 4, 0}, {9, 8, 7}}));
  CHECK(ts::median(x).item(pol) == 3.5);
  // errors name the bad value
  CHECK_THROWS_MATCHING(ts::quantile(x, 1.5), ts::invalid_argument, Catch::Contains("q = 1.5 is outside [0, 1]"));
  CHECK_THROWS_MATCHING(ts::percentile(x, std::vector<double>{50, -1}, 0), ts::invalid_argument,
                        Catch::Contains("percentile: q = -1 is outside [0, 100]"));
  CHECK_THROWS_MATCHING(ts::median(x, std::vector<ts::index_t>{1, -1}), ts::invalid_argument,
                        Catch::Contains("axis -1 repeats"));
  CHECK_THROWS_MATCHING(ts::median(x, 2), ts::invalid_argument, Catch::Contains("axis 2"));
}

TEMPLATE_TEST_CASE("histogram, histogram2d and bincount agree with NumPy run at test time", "[reduce][histogram][numpy]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  // counts exactly; weighted sums within the script's summation tolerance
  check_against_numpy(pol, 1125, 8, 0, [&](case_writer<TestType>& w, std::mt19937_64& rng) {
    histogram_cases<double>(w, rng);
    histogram_cases<float>(w, rng);
    histogram_cases<std::int32_t>(w, rng);
  });
  // bincount: random non-negative integers, weights, minlength at and above the largest value
  check_against_numpy(pol, 2511, 4, 0, [&](case_writer<TestType>& w, std::mt19937_64& rng) {
    const ts::index_t n = ts::index_t(rng() % 40);
    xt::xarray<std::int32_t> v = xt::zeros<std::int32_t>({std::size_t(n)});
    for (auto& e : v) e = std::int32_t(rng() % 12);
    auto x = ts::from_xtensor(v, random_chunks(rng, {n}));
    auto wt = ts::from_xtensor(testing::random_data<double>(rng, {n}), random_chunks(rng, {n}));
    const auto ix = w.input(x), iw = w.input(wt);
    const ts::index_t m = 12 + ts::index_t(rng() % 4);
    w.add("bincount", ts::bincount(x, m), {ix}, std::to_string(m));
    w.add("bincount", ts::bincount(x, wt, m), {ix, iw}, std::to_string(m));
    if (n > 0) w.add("bincount", ts::bincount(x, pol), {ix}, "0");
  });
  auto neg = ts::from_xtensor(xt::xarray<int>{1, -3, 2}, {2});
  CHECK_THROWS_MATCHING(ts::compute(ts::bincount(neg, 4), pol), ts::invalid_argument,
                        Catch::Contains("bincount: value -3 is negative"));
  CHECK_THROWS_MATCHING(ts::compute(ts::bincount(ts::from_xtensor(xt::xarray<int>{1, 4, 2}, {2}), 3), pol), ts::invalid_argument,
                        Catch::Contains("value 4 is not below minlength 3"));
  CHECK_THROWS_MATCHING(ts::bincount(neg, 0), ts::invalid_argument, Catch::Contains("minlength = 0"));
  auto x = ts::arange<double>(10);
  CHECK_THROWS_MATCHING(ts::histogram(x, 0, {0.0, 1.0}), ts::invalid_argument, Catch::Contains("bins = 0"));
  CHECK_THROWS_MATCHING(ts::histogram(x, 3, {2.0, 1.0}), ts::invalid_argument, Catch::Contains("range (2, 1)"));
  CHECK_THROWS_MATCHING(ts::histogram(x, std::vector<double>{0, 2, 1}), ts::invalid_argument,
                        Catch::Contains("edge 2 = 1 after 2"));
  CHECK_THROWS_MATCHING(ts::histogram2d(x, ts::arange<double>(9), {2, 2}, {{0, 1}, {0, 1}}),
                        ts::invalid_argument, Catch::Contains("shapes (10,) and (9,)"));
}

TEMPLATE_TEST_CASE("unique and unique_counts agree with NumPy run at test time", "[reduce][unique][numpy]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  check_against_numpy(pol, 3111, 6, 0, [&](case_writer<TestType>& w, std::mt19937_64& rng) {
    auto cases = [&](auto tag) {
      using T = decltype(tag);
      const auto shape = random_shape(rng, 0, 3, 7);
      auto x = ts::from_xtensor(holey_data<T>(rng, shape), random_chunks(rng, shape));
      const auto ix = w.input(x);
      w.add("unique", ts::unique(x, pol), {ix});
      w.add("unique_counts", ts::unique_counts(x, pol).counts, {ix});
    };
    cases(double{});
    cases(float{});
    cases(std::int32_t{});
    cases(bool{});
  });
  // a 0-d array and an expression
  CHECK(ts::unique(ts::full<int>({}, 7), pol).shape() == ts::shape_t{1});
  const auto u = ts::unique_counts(ts::arange<int>(10) % 3, pol);
  CHECK(bool(ts::compute(u.values) == xt::xarray<int>{0, 1, 2}));
  CHECK(bool(ts::compute(u.counts) == xt::xarray<std::int64_t>{4, 3, 3}));
}
