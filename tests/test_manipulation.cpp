// Creation (linspace, eye, identity, tri, empty, *_like) and view-style manipulation
// (squeeze, expand_dims, flip, flipud, fliplr, moveaxis, rot90, broadcast_to,
// broadcast_arrays, tril, triu) against NumPy run at test time on random shapes, chunkings
// and arguments (tests/support/numpy_reference.hpp), plus the errors NumPy raises, each
// naming the bad value. Instantiated per backend (tests/cuda/test_backend_manipulation.cu).
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

template <class T, class X>
constexpr bool element_type_is(const X&) {
  return std::is_same_v<typename X::value_type, T>;
}

std::string join(const std::vector<ts::index_t>& v) {
  std::string s;
  for (auto x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

/// A random subset of the axes of a rank-r array, each as a negative or positive index.
std::vector<ts::index_t> some_axes(std::mt19937_64& rng, int r, bool nonempty) {
  std::vector<ts::index_t> axes;
  for (int d = 0; d < r; ++d)
    if (rng() % 2) axes.push_back(rng() % 2 ? d : d - r);
  if (axes.empty() && nonempty && r > 0) axes.push_back(int(rng() % unsigned(r)));
  std::shuffle(axes.begin(), axes.end(), rng);
  return axes;
}

template <class P>
void creation_cases(case_writer<P>& w, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-100, 100);
  for (int j = 0; j < 3; ++j) {
    const double a = u(rng), b = rng() % 4 == 0 ? a : u(rng);
    const ts::index_t n = ts::index_t(rng() % 40);
    const bool endpoint = rng() % 3 != 0;
    const ts::chunks_arg c{ts::index_t(1 + rng() % 9)};
    auto param = [&](const char* dt) {
      return std::to_string(a) + "," + std::to_string(b) + "," + std::to_string(n) + "," +
             (endpoint ? "1," : "0,") + dt;
    };
    // the case line's decimal a and b are what NumPy gets: Tessera gets the same values
    const double pa = std::stod(std::to_string(a)), pb = std::stod(std::to_string(b));
    w.add("linspace", ts::linspace(pa, pb, n, c, endpoint), {}, param("float64"));
    w.add("linspace", ts::linspace<float>(pa, pb, n, c, endpoint), {}, param("float32"));
    w.add("linspace", ts::linspace<std::int32_t>(pa, pb, n, c, endpoint), {}, param("int32"));
  }
  for (int j = 0; j < 3; ++j) {
    const ts::index_t n = ts::index_t(rng() % 9), m = ts::index_t(rng() % 9),
                      k = ts::index_t(rng() % 9) - 4;
    const ts::chunks_arg c{ts::index_t(1 + rng() % 4)};
    const std::string p = std::to_string(n) + "," + std::to_string(m) + "," + std::to_string(k);
    w.add("eye", ts::eye(n, c, m, k), {}, p + ",float64");
    w.add("eye", ts::eye<std::uint8_t>(n, c, m, k), {}, p + ",uint8");
    w.add("tri", ts::tri<std::int64_t>(n, m, k, ts::chunks_arg{ts::index_t(1 + rng() % 4), ts::index_t(1 + rng() % 4)}), {}, p + ",int64");
    w.add("eye", ts::identity<float>(n, c), {}, std::to_string(n) + "," + std::to_string(n) + ",0,float32");
  }
}

template <class T, class P>
void view_cases(case_writer<P>& w, std::mt19937_64& rng) {
  auto shape = random_shape(rng, 0, 4, 5);
  for (auto& n : shape)
    if (rng() % 3 == 0) n = 1;  // axes to squeeze
  const int r = int(shape.size());
  auto x = ts::from_xtensor(edgy_data<T>(rng, shape), random_chunks(rng, shape));
  const auto ix = w.input(x);
  w.add("flip", ts::flip(x), {ix});
  auto fa = some_axes(rng, r, false);
  if (!fa.empty()) w.add("flip", ts::flip(x, fa), {ix}, join(fa));
  if (r >= 1) w.add("flip", ts::flipud(x), {ix}, "0");
  if (r >= 2) w.add("flip", ts::fliplr(x), {ix}, "1");
  w.add("squeeze", ts::squeeze(x), {ix});
  std::vector<ts::index_t> ones;
  for (int d = 0; d < r; ++d)
    if (shape[std::size_t(d)] == 1 && rng() % 2) ones.push_back(d);
  if (!ones.empty()) w.add("squeeze", ts::squeeze(x, ones), {ix}, join(ones));
  // expand_dims: 1 or 2 distinct axes of the result, positive or negative
  const int m = std::min<int>(1 + int(rng() % 2), ts::max_rank - r), out = r + m;
  std::vector<ts::index_t> ea;
  while (int(ea.size()) < m) {
    const ts::index_t d = ts::index_t(rng() % unsigned(out));
    if (std::find(ea.begin(), ea.end(), d) == ea.end() && std::find(ea.begin(), ea.end(), d - out) == ea.end())
      ea.push_back(rng() % 2 ? d : d - out);
  }
  if (m > 0) w.add("expand_dims", ts::expand_dims(x, ea), {ix}, join(ea));
  if (r >= 1) {
    auto src = some_axes(rng, r, true);
    std::vector<ts::index_t> dst;
    for (std::size_t i = 0; i < src.size(); ++i) {
      ts::index_t d;
      do d = ts::index_t(rng() % unsigned(r)); while (std::find(dst.begin(), dst.end(), d) != dst.end());
      dst.push_back(d);
    }
    w.add("moveaxis", ts::moveaxis(x, src, dst), {ix}, join(src) + ";" + join(dst));
  }
  if (r >= 2) {
    const int k = int(rng() % 9) - 4;
    const ts::index_t a0 = ts::index_t(rng() % unsigned(r));
    ts::index_t a1 = ts::index_t(rng() % unsigned(r - 1));
    if (a1 >= a0) ++a1;
    w.add("rot90", ts::rot90(x, k, {a0, a1}), {ix},
          std::to_string(k) + "," + std::to_string(a0) + "," + std::to_string(a1));
    const ts::index_t k2 = ts::index_t(rng() % 7) - 3;
    w.add("tril", ts::tril(x, k2), {ix}, std::to_string(k2));
    w.add("triu", ts::triu(x, k2), {ix}, std::to_string(k2));
  }
  // broadcast_to: a shape with x's axes (length-1 ones widened) and up to 2 new leading axes
  ts::shape_t to;
  for (int j = int(rng() % 3); j > 0; --j) to.push_back(ts::index_t(rng() % 4));
  for (auto n : shape) to.push_back(n == 1 ? ts::index_t(rng() % 4) : n);
  if (int(to.size()) <= ts::max_rank)
    w.add("broadcast_to", ts::broadcast_to(x, to, ts::chunks_arg{}), {ix}, to.empty() ? "-" : join(to));
}

}  // namespace

TEMPLATE_TEST_CASE("creation and view manipulation agree with NumPy run at test time",
                   "[manipulation][numpy]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const int ulps = 0;
  check_against_numpy(pol, 3011, 8, ulps, [&](case_writer<TestType>& w, std::mt19937_64& rng) {
    creation_cases(w, rng);
    view_cases<double>(w, rng);
    view_cases<std::int32_t>(w, rng);
    view_cases<bool>(w, rng);
  });
}

TEMPLATE_TEST_CASE("creation and manipulation: results, chunks and errors", "[manipulation]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  auto a = ts::from_xtensor(xt::xarray<double>{{1, 2, 3}, {4, 5, 6}}, {1, 2});
  // *_like keep shape and chunks; the element type follows x unless given
  auto z = ts::zeros_like(a);
  CHECK(z.chunks() == a.chunks());
  CHECK(element_type_is<double>(z));
  CHECK(bool(ts::compute(ts::full_like<int>(a, 7.9), pol) == xt::xarray<int>{{7, 7, 7}, {7, 7, 7}}));
  CHECK(bool(ts::compute(ts::ones_like(a) + ts::empty_like(a), pol) == xt::xarray<double>{{1, 1, 1}, {1, 1, 1}}));
  CHECK(bool(ts::compute(ts::empty<float>({2}), pol) == xt::xarray<float>{0, 0}));
  // a view's chunks follow the input's: flip reverses them
  CHECK(ts::flip(a, 1).chunks() == ts::chunks_t{{1, 1}, {1, 2}});
  // broadcast_to keeps x's chunks on the axes it does not broadcast
  auto b = ts::broadcast_to(ts::view(a, ts::range(0, 1)), {4, 2, 3}, {2, 1, 3});
  CHECK(b.chunks() == ts::chunks_t{{2, 2}, {1, 1}, {2, 1}});
  auto [p, q] = ts::broadcast_arrays(ts::view(a, ts::all(), 0, ts::newaxis()), ts::view(a, 1));
  CHECK(bool(ts::compute(p + q, pol) == xt::xarray<double>{{5, 6, 7}, {8, 9, 10}}));
  // errors name the value
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const ts::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  CHECK_THAT(message([&] { (void)ts::squeeze(a, 1); }), Catch::Contains("axis 1 has length 3"));
  CHECK_THAT(message([&] { (void)ts::expand_dims(a, {0, 0}); }), Catch::Contains("repeated axis 0"));
  CHECK_THAT(message([&] { (void)ts::flip(a, 2); }), Catch::Contains("axis 2 is out of range"));
  CHECK_THAT(message([&] { (void)ts::moveaxis(a, {0}, {0, 1}); }), Catch::Contains("same number"));
  CHECK_THAT(message([&] { (void)ts::broadcast_to(a, {3, 3}); }), Catch::Contains("(2, 3) cannot be broadcast to (3, 3)"));
  CHECK_THAT(message([&] { (void)ts::linspace(0, 1, -2); }), Catch::Contains("-2"));
  CHECK_THAT(message([&] { (void)ts::eye(-1); }), Catch::Contains("n = -1"));
  CHECK_THAT(message([&] { (void)ts::rot90(ts::view(a, 0)); }), Catch::Contains("1-d"));
  CHECK_THAT(message([&] { (void)ts::tril(ts::view(a, 0)); }), Catch::Contains("at least 2-d"));
}
