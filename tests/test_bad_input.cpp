// Bad and edge inputs through the public API (issue 18, "Reliability"): creation (shapes,
// chunks, element-count overflow, arange lengths), random generators, views, transpose,
// broadcasting, rechunk, reductions, item, elementwise (integer pow, casts), linear algebra,
// .npy and Zarr I/O, and chunk-grid pictures. Each bad input asserts tessera's exception type
// and that the message names the offending value; each valid edge input asserts its documented
// (NumPy-like) result, with expected values written out here, never computed by the library.
// The executable also runs clean under -fsanitize=address,undefined.
#include <catch2/catch.hpp>

#include <climits>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>

#include <tessera/diagnostics.hpp>
#include <tessera/io.hpp>
#include <tessera/linalg.hpp>
#include <tessera/tessera.hpp>
#include <xtensor/xarray.hpp>

#include "support/cases.hpp"
#include "support/files.hpp"

namespace ts = tessera;
using ts::chunks_t;
using ts::index_t;
using ts::placeholders::_;
using Catch::Contains;

namespace {

constexpr index_t i64min = std::numeric_limits<index_t>::min();
constexpr index_t i64max = std::numeric_limits<index_t>::max();
const double nan_v = std::numeric_limits<double>::quiet_NaN();
const double inf_v = std::numeric_limits<double>::infinity();

/// A .npy file's bytes: version 1.0, the header dict padded to a multiple of 64, then `data`.
std::string npy_bytes(const std::string& dict, const std::string& data, char major = 1) {
  std::string h = dict;
  const std::size_t unpadded = 10 + h.size() + 1;
  h.append((64 - unpadded % 64) % 64, ' ');
  h += '\n';
  std::string out = std::string("\x93") + "NUMPY";
  out += major;
  out += '\0';
  out += char(h.size() & 0xff);
  out += char((h.size() >> 8) & 0xff);
  return out + h + data;
}

/// The little-endian bytes of doubles (this machine's order: x86-64 / aarch64 little-endian).
std::string double_bytes(std::initializer_list<double> v) {
  std::string out;
  for (double x : v) out.append(reinterpret_cast<const char*>(&x), sizeof x);
  return out;
}

xt::xarray<double> small_matrix(std::size_t m, std::size_t n) {
  xt::xarray<double> a = xt::xarray<double>::from_shape({m, n});
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) a(i, j) = double((i * 7 + j * 3) % 11) - 5.0 + (i == j ? 20 : 0);
  return a;
}

}  // namespace

// ------------------------------------------------------------------------------------------
TEST_CASE("bad input: shapes and chunks of created arrays", "[bad_input][creation]") {
  // Negative dimensions.
  CHECK_THROWS_MATCHING(ts::zeros<double>({3, -4}), ts::invalid_argument,
                        Contains("negative dimension -4") && Contains("(3, -4)"));
  CHECK_THROWS_MATCHING(ts::ones<float>({-1}), ts::invalid_argument, Contains("negative dimension -1"));
  CHECK_THROWS_MATCHING(ts::full<int>({2, i64min}, 7), ts::invalid_argument,
                        Contains("negative dimension -9223372036854775808"));
  // Too many dimensions (max_rank is 8).
  CHECK_THROWS_MATCHING(ts::zeros<double>({1, 1, 1, 1, 1, 1, 1, 1, 1}), ts::invalid_argument,
                        Contains("has 9 dimensions") && Contains("at most 8"));
  // Per-axis chunk lengths: wrong rank, zero, negative other than -1.
  CHECK_THROWS_MATCHING(ts::zeros<double>({3, 4}, {2}), ts::invalid_argument,
                        Contains("chunks (2,)") && Contains("(3, 4)"));
  CHECK_THROWS_MATCHING(ts::zeros<double>({3}, {2, 2}), ts::invalid_argument,
                        Contains("chunks (2, 2)") && Contains("(3,)"));
  CHECK_THROWS_MATCHING(ts::zeros<double>({3, 4}, {0, 2}), ts::invalid_argument,
                        Contains("chunk length 0 on axis 0"));
  CHECK_THROWS_MATCHING(ts::zeros<double>({3, 4}, {2, -2}), ts::invalid_argument,
                        Contains("chunk length -2 on axis 1"));
  CHECK_THROWS_MATCHING(ts::zeros<double>({3, 4}, {2, i64min}), ts::invalid_argument,
                        Contains("chunk length -9223372036854775808 on axis 1"));
  // Explicit chunk lists: wrong rank, not summing to the axis, zero or negative lengths, empty.
  CHECK_THROWS_MATCHING(ts::zeros<double>({3, 4}, chunks_t{{3}}), ts::invalid_argument,
                        Contains("chunks have 1 axes") && Contains("(3, 4)"));
  CHECK_THROWS_MATCHING(ts::zeros<double>({3, 4}, chunks_t{{2, 2}, {4}}), ts::invalid_argument,
                        Contains("(2, 2)") && Contains("sum to 4") && Contains("length 3"));
  CHECK_THROWS_MATCHING(ts::zeros<double>({3, 4}, chunks_t{{1, 1}, {4}}), ts::invalid_argument,
                        Contains("(1, 1)") && Contains("sum to 2"));
  CHECK_THROWS_MATCHING(ts::zeros<double>({3, 4}, chunks_t{{3, 0}, {4}}), ts::invalid_argument,
                        Contains("chunk length 0 on axis 0"));
  CHECK_THROWS_MATCHING(ts::zeros<double>({3, 4}, chunks_t{{3}, {5, -1}}), ts::invalid_argument,
                        Contains("chunk length -1 on axis 1"));
  CHECK_THROWS_MATCHING(ts::zeros<double>({3, 4}, chunks_t{{3}, {}}), ts::invalid_argument,
                        Contains("no chunks given for axis 1"));
  // Chunk lengths whose sum passes int64 must not wrap around to the axis length.
  CHECK_THROWS_MATCHING(ts::zeros<double>({0}, chunks_t{{i64max, i64max, 2}}), ts::invalid_argument,
                        Contains("9223372036854775807") && Contains("axis 0"));
  CHECK_THROWS_MATCHING(ts::zeros<double>({4}, chunks_t{{i64max, i64max, 6}}), ts::invalid_argument,
                        Contains("9223372036854775807") && Contains("axis 0"));
}

TEST_CASE("bad input: element counts past int64 are 'array is too big'", "[bad_input][creation]") {
  // issue 18, item 1: was size() == 0 and a segfault on access.
  CHECK_THROWS_MATCHING(ts::zeros<double>({1LL << 32, 1LL << 32}, {1LL << 31, 1LL << 31}),
                        ts::invalid_argument,
                        Contains("array is too big") && Contains("(4294967296, 4294967296)"));
  CHECK_THROWS_MATCHING(ts::ones<float>({1LL << 40, 1LL << 40, 1LL << 40}, {1LL << 40, 1LL << 40, 1LL << 40}),
                        ts::invalid_argument,
                        Contains("array is too big") && Contains("(1099511627776, 1099511627776, 1099511627776)"));
  // Elements fit, bytes do not: 2^62 doubles.
  CHECK_THROWS_MATCHING(ts::zeros<double>({1LL << 62}, {1LL << 61}), ts::invalid_argument,
                        Contains("array is too big") && Contains("(4611686018427387904,)") && Contains("8-byte"));
  // A broadcast result whose size passes int64.
  auto col = ts::zeros<std::int8_t>({1LL << 32, 1}, {1LL << 31, 1});
  auto row = ts::zeros<std::int8_t>({1, 1LL << 32}, {1, 1LL << 31});
  CHECK_THROWS_MATCHING(col + row, ts::invalid_argument,
                        Contains("array is too big") && Contains("(4294967296, 4294967296)"));
  // A zero-length axis makes any other axis length valid (NumPy: size 0).
  auto empty = ts::zeros<double>({0, 1LL << 62}, {1, 1LL << 62});
  CHECK(empty.size() == 0);
  CHECK(empty.chunks() == chunks_t{{0}, {1LL << 62}});
}

TEST_CASE("bad input: valid edge shapes and chunks", "[bad_input][creation]") {
  // A zero-length axis has one chunk of length 0, whatever chunk length was asked for.
  auto z = ts::zeros<double>({0, 5}, {3, 2});
  CHECK(z.chunks() == chunks_t{{0}, {2, 2, 1}});
  auto zc = ts::compute(z);
  CHECK(zc.shape(0) == 0);
  CHECK(zc.shape(1) == 5);
  // -1 is the whole axis; chunks longer than the axis clip.
  CHECK(ts::zeros<double>({3, 4}, {-1, 100}).chunks() == chunks_t{{3}, {4}});
  // 0-d arrays have one element.
  CHECK(ts::full<int>({}, 7).item() == 7);
  // full converts a floating fill value into an integer type as ts::cast does (defined for
  // every value: NaN -> 0, saturating), never with an undefined conversion.
  CHECK(ts::full<int>({2}, 7.9).compute()(1) == 7);
  CHECK(ts::full<int>({2}, nan_v).compute()(0) == 0);
  CHECK(ts::full<std::int32_t>({2}, 1e300).compute()(0) == std::numeric_limits<std::int32_t>::max());
  CHECK(ts::full<std::uint8_t>({2}, -3.5).compute()(0) == 0);
  CHECK(ts::full<std::int64_t>({2}, -inf_v).compute()(1) == std::numeric_limits<std::int64_t>::min());
  // arange's start and step convert the same way (NumPy: arange(0, 3, 1e300, dtype=int) is [0]).
  auto a1 = ts::arange<int>(0.0, 3.0, 1e300).compute();
  REQUIRE(a1.size() == 1);
  CHECK(a1(0) == 0);
}

TEST_CASE("bad input: arange", "[bad_input][creation]") {
  // issue 18, item 2.
  CHECK_THROWS_MATCHING(ts::arange<double>(0.0, INFINITY, 1.0, {1000}), ts::invalid_argument,
                        Contains("arange(0, inf, 1)") && Contains("2^63 - 1"));
  CHECK_THROWS_MATCHING(ts::arange<double>(-INFINITY, 0.0, 1.0), ts::invalid_argument,
                        Contains("arange(-inf, 0, 1)"));
  CHECK_THROWS_MATCHING(ts::arange<double>(0.0, 1e300, 1e-300), ts::invalid_argument,
                        Contains("arange(0, 1e+300, 1e-300)") && Contains("exceeds"));
  CHECK_THROWS_MATCHING(ts::arange<double>(0.0, 1e19, 1.0), ts::invalid_argument,
                        Contains("arange(0, 1e+19, 1)"));
  CHECK_THROWS_MATCHING(ts::arange<std::int64_t>(i64min, i64max, std::int64_t(1)), ts::invalid_argument,
                        Contains("arange(-9223372036854775808, 9223372036854775807, 1)") && Contains("2^63 - 1"));
  CHECK_THROWS_MATCHING(ts::arange<std::int64_t>(i64max, i64min, std::int64_t(-1)), ts::invalid_argument,
                        Contains("arange(9223372036854775807, -9223372036854775808, -1)"));
  CHECK_THROWS_MATCHING(ts::arange<double>(0.0, 1.0, 0.0), ts::invalid_argument, Contains("step must not be zero"));
  CHECK_THROWS_MATCHING(ts::arange<int>(0, 10, 0), ts::invalid_argument, Contains("step must not be zero"));
  CHECK_THROWS_MATCHING(ts::arange<double>(0.0, 1.0, nan_v), ts::invalid_argument, Contains("NaN"));
  CHECK_THROWS_MATCHING(ts::arange<double>(nan_v, 1.0, 1.0), ts::invalid_argument, Contains("NaN"));
  CHECK_THROWS_MATCHING(ts::arange<double>(0.0, nan_v), ts::invalid_argument, Contains("NaN"));
  // Length fits int64, bytes do not: 2^62 doubles.
  CHECK_THROWS_MATCHING(ts::arange<double>(std::int64_t(0), std::int64_t(1) << 62, std::int64_t(1), {1LL << 61}),
                        ts::invalid_argument, Contains("array is too big") && Contains("4611686018427387904"));
  CHECK_THROWS_MATCHING(ts::arange<double>(0.0, 10.0, 1.0, {-3}), ts::invalid_argument,
                        Contains("chunk length -3"));

  // Valid edges (NumPy's results).
  CHECK(ts::arange<double>(0.0, 10.0, -1.0).size() == 0);  // np.arange(0, 10, -1): empty
  CHECK(ts::arange<int>(5, 5).size() == 0);
  CHECK(ts::arange<double>(0.0, 1.0, 0.3).size() == 4);     // [0, .3, .6, .9]
  CHECK(ts::arange<double>(0.0, 1.0, 0.25).compute()(3) == 0.75);
  // int64 MIN .. MIN + 3 and MAX - 3 .. MAX: no overflow on the way.
  auto lo = ts::arange<std::int64_t>(i64min, i64min + 3, std::int64_t(1)).compute();
  REQUIRE(lo.size() == 3);
  CHECK(lo(2) == i64min + 2);
  auto hi = ts::arange<std::int64_t>(i64max, i64max - 3, std::int64_t(-1)).compute();
  REQUIRE(hi.size() == 3);
  CHECK(hi(2) == i64max - 2);
  // A huge step: one element.
  auto one = ts::arange<std::int64_t>(std::int64_t(0), i64max, i64max).compute();
  REQUIRE(one.size() == 1);
  CHECK(one(0) == 0);
}

// ------------------------------------------------------------------------------------------
TEST_CASE("bad input: random generator parameters", "[bad_input][random]") {
  auto g = ts::random::default_rng(1);
  CHECK_THROWS_MATCHING(g.normal<double>(0, -1, {4}), ts::invalid_argument,
                        Contains("normal: scale (-1)"));
  CHECK_THROWS_MATCHING(g.normal<double>(0, nan_v, {4}), ts::invalid_argument, Contains("normal: scale (nan)"));
  CHECK_THROWS_MATCHING(g.normal<double>(0, inf_v, {4}), ts::invalid_argument, Contains("normal: scale (inf)"));
  CHECK_THROWS_MATCHING(g.normal<double>(nan_v, 1, {4}), ts::invalid_argument, Contains("normal: loc (nan)"));
  CHECK_THROWS_MATCHING(g.normal<float>(-inf_v, 1, {4}), ts::invalid_argument, Contains("normal: loc (-inf)"));
  CHECK_THROWS_MATCHING(g.uniform<double>(2, 1, {4}), ts::invalid_argument,
                        Contains("low (2)") && Contains("high (1)"));
  CHECK_THROWS_MATCHING(g.uniform<double>(1, 1, {4}), ts::invalid_argument, Contains("low (1)"));
  CHECK_THROWS_MATCHING(g.uniform<double>(0, inf_v, {4}), ts::invalid_argument, Contains("high (inf)"));
  CHECK_THROWS_MATCHING(g.uniform<double>(-1.7e308, 1.7e308, {4}), ts::invalid_argument,
                        Contains("overflows") && Contains("1.7e+308"));
  CHECK_THROWS_MATCHING(g.uniform<float>(1.0, 1.0 + 1e-12, {4}), ts::invalid_argument,
                        Contains("low (1) and high (1) are equal in this type"));
  CHECK_THROWS_MATCHING(g.lognormal<double>(0, -0.5, {4}), ts::invalid_argument, Contains("sigma (-0.5)"));
  CHECK_THROWS_MATCHING(g.exponential<double>(-2, {4}), ts::invalid_argument, Contains("exponential: scale (-2)"));
  CHECK_THROWS_MATCHING(g.gamma<double>(-1, 1, {4}), ts::invalid_argument, Contains("gamma: shape (-1)"));
  CHECK_THROWS_MATCHING(g.gamma<double>(2, nan_v, {4}), ts::invalid_argument, Contains("gamma: scale (nan)"));
  CHECK_THROWS_MATCHING(g.bernoulli(1.5, {4}), ts::invalid_argument, Contains("p (1.5)"));
  CHECK_THROWS_MATCHING(g.bernoulli(-0.1, {4}), ts::invalid_argument, Contains("p (-0.1)"));
  CHECK_THROWS_MATCHING(g.bernoulli(nan_v, {4}), ts::invalid_argument, Contains("p (nan)"));
  CHECK_THROWS_MATCHING(g.integers(5, 5, {4}), ts::invalid_argument, Contains("low (5)") && Contains("high (5)"));
  CHECK_THROWS_MATCHING(g.integers(7, -7, {4}), ts::invalid_argument, Contains("low (7)"));
  CHECK_THROWS_MATCHING(g.integers<std::uint8_t>(0, 257, {4}), ts::invalid_argument,
                        Contains("257") && Contains("255"));
  CHECK_THROWS_MATCHING(g.integers<std::int8_t>(-129, 0, {4}), ts::invalid_argument,
                        Contains("-129") && Contains("-128"));
  CHECK_THROWS_MATCHING(g.integers<std::uint32_t>(-1, 10, {4}), ts::invalid_argument, Contains("low (-1)"));
  // Bad shapes go through the same checks as creation.
  CHECK_THROWS_MATCHING(g.random<double>({5, -5}), ts::invalid_argument, Contains("negative dimension -5"));
  CHECK_THROWS_MATCHING(g.standard_normal<double>({1LL << 32, 1LL << 32}, {1LL << 31, 1LL << 31}),
                        ts::invalid_argument, Contains("array is too big"));
  // A call that throws consumes no stream.
  CHECK(g.stream() == 0);
  // Streams end at 2^48.
  ts::random::generator last(1, std::uint64_t(1) << 48);
  CHECK_THROWS_MATCHING(last.random<double>({2}), ts::invalid_argument, Contains("stream 281474976710656"));

  // Valid edges: a scale of 0 gives constant arrays; integers over the whole int64 range.
  auto c = g.normal<double>(3.5, 0, {3}).compute();
  CHECK(c(0) == 3.5);
  CHECK(c(2) == 3.5);
  CHECK(g.exponential<double>(0, {2}).compute()(1) == 0.0);
  auto wide = g.integers(i64min, i64max, {100}).compute();
  CHECK(wide.size() == 100);
  auto b0 = g.bernoulli(0.0, {64}).compute();
  auto b1 = g.bernoulli(1.0, {64}).compute();
  CHECK(std::count(b0.begin(), b0.end(), true) == 0);
  CHECK(std::count(b1.begin(), b1.end(), true) == 64);
}

// ------------------------------------------------------------------------------------------
TEST_CASE("bad input: views", "[bad_input][view]") {
  auto x = ts::arange<int>(0, 12, {5}) * 1;
  auto m = ts::zeros<double>({3, 4}, {2, 2});
  CHECK_THROWS_MATCHING(ts::view(x, 12), ts::out_of_range,
                        Contains("index 12") && Contains("axis 0") && Contains("size 12"));
  CHECK_THROWS_MATCHING(ts::view(x, -13), ts::out_of_range, Contains("index -13"));
  CHECK_THROWS_MATCHING(ts::view(x, i64min), ts::out_of_range, Contains("index -9223372036854775808"));
  CHECK_THROWS_MATCHING(ts::view(x, i64max), ts::out_of_range, Contains("index 9223372036854775807"));
  CHECK_THROWS_MATCHING(ts::view(x, std::numeric_limits<std::uint64_t>::max()), ts::out_of_range,
                        Contains("index 9223372036854775807"));
  CHECK_THROWS_MATCHING(ts::view(m, 1, 4), ts::out_of_range, Contains("index 4") && Contains("axis 1"));
  CHECK_THROWS_MATCHING(ts::view(m, 0, 0, 0), ts::invalid_argument,
                        Contains("too many indices") && Contains("[0, 0, 0]"));
  CHECK_THROWS_MATCHING(ts::view(m, ts::all(), ts::all(), ts::range(0, 1)), ts::invalid_argument,
                        Contains("too many indices") && Contains("[:, :, 0:1]"));
  CHECK_THROWS_MATCHING(ts::view(ts::full<int>({}, 1), 0), ts::invalid_argument,
                        Contains("too many indices for an array of dimension 0"));
  CHECK_THROWS_MATCHING(ts::view(x, ts::range(_, _, 0)), ts::invalid_argument,
                        Contains("step cannot be zero") && Contains("::0"));
  CHECK_THROWS_MATCHING(ts::view(m, 1, ts::range(1, 3, 0)), ts::invalid_argument,
                        Contains("1:3:0") && Contains("axis 1"));
  CHECK_THROWS_MATCHING(ts::view(m, ts::ellipsis(), 0, ts::ellipsis()), ts::invalid_argument,
                        Contains("single ellipsis") && Contains("[..., 0, ...]"));
  CHECK_THROWS_MATCHING(ts::view(m, ts::ellipsis(), 0, 0, 0), ts::invalid_argument,
                        Contains("too many indices") && Contains("[..., 0, 0, 0]"));
  CHECK_THROWS_MATCHING(ts::view(m, ts::newaxis(), ts::newaxis(), ts::newaxis(), ts::newaxis(),
                                 ts::newaxis(), ts::newaxis(), ts::newaxis()),
                        ts::invalid_argument, Contains("9 dimensions") && Contains("None"));
  CHECK_THROWS_MATCHING(ts::view(m, ts::newaxis(), 3), ts::out_of_range, Contains("index 3") && Contains("axis 0"));
  // A run-time slice list is checked the same way.
  CHECK_THROWS_MATCHING(ts::dynamic_view(m, ts::slice_vector{ts::slice(ts::range(_, _, 0))}), ts::invalid_argument,
                        Contains("step cannot be zero"));

  // Valid edges (NumPy's results).
  auto xc = ts::compute(x);  // 0 .. 11
  // x[::-2**63] selects the last element; x[::2**63-1] the first (issue 18, item 6).
  auto a = ts::compute(ts::view(x, ts::range(_, _, i64min)));
  REQUIRE(a.size() == 1);
  CHECK(a(0) == 11);
  auto b = ts::compute(ts::view(x, ts::range(_, _, i64max)));
  REQUIRE(b.size() == 1);
  CHECK(b(0) == 0);
  auto c = ts::compute(ts::view(x, ts::range(i64min, i64max, i64min)));
  CHECK(c.size() == 0);  // x[-2**63:2**63-1:-2**63]: empty
  auto d = ts::compute(ts::view(x, ts::range(i64max, i64min, i64min)));
  REQUIRE(d.size() == 1);  // x[2**63-1:-2**63:-2**63]: [11]
  CHECK(d(0) == 11);
  // Out-of-range slice bounds clip; an empty selection has one chunk of length 0.
  auto e = ts::view(x, ts::range(100, 200));
  CHECK(e.shape() == ts::shape_t{0});
  CHECK(e.chunks() == chunks_t{{0}});
  CHECK(ts::compute(ts::view(x, ts::range(-100, 2))).size() == 2);
  CHECK(ts::view(x, -12).item() == 0);  // x[-12] == x[0]
  // Views of views with huge steps: x[::-2**63][::-2**63] is [11].
  auto f = ts::compute(ts::view(ts::view(x, ts::range(_, _, i64min)), ts::range(_, _, i64min)));
  REQUIRE(f.size() == 1);
  CHECK(f(0) == 11);
}

TEST_CASE("bad input: transpose and swapaxes", "[bad_input][view]") {
  auto m = ts::zeros<double>({2, 3, 4}, {1, 2, 3});
  CHECK_THROWS_MATCHING(ts::transpose(m, {0, 0, 1}), ts::invalid_argument,
                        Contains("repeated axis 0") && Contains("(0, 0, 1)"));
  CHECK_THROWS_MATCHING(ts::transpose(m, {0, -3, 1}), ts::invalid_argument,
                        Contains("repeated axis -3"));
  CHECK_THROWS_MATCHING(ts::transpose(m, {0, 1}), ts::invalid_argument,
                        Contains("(0, 1)") && Contains("dimension 3"));
  CHECK_THROWS_MATCHING(ts::transpose(m, {0, 1, 2, 3}), ts::invalid_argument, Contains("(0, 1, 2, 3)"));
  CHECK_THROWS_MATCHING(ts::transpose(m, {0, 1, 3}), ts::invalid_argument,
                        Contains("axis 3 is out of range") && Contains("dimension 3"));
  CHECK_THROWS_MATCHING(ts::transpose(m, {0, 1, -4}), ts::invalid_argument, Contains("axis -4"));
  CHECK_THROWS_MATCHING(ts::transpose(m, {0, 1, i64min}), ts::invalid_argument,
                        Contains("axis -9223372036854775808"));
  CHECK_THROWS_MATCHING(ts::swapaxes(m, 0, 3), ts::invalid_argument, Contains("axis 3"));
  CHECK_THROWS_MATCHING(ts::swapaxes(m, -4, 0), ts::invalid_argument, Contains("axis -4"));
  // Valid: negative axes, swapping an axis with itself, transposing a 0-d array.
  CHECK(ts::transpose(m, {-1, 0, 1}).shape() == ts::shape_t{4, 2, 3});
  CHECK(ts::swapaxes(m, 1, -2).shape() == ts::shape_t{2, 3, 4});
  CHECK(ts::transpose(ts::full<int>({}, 3)).item() == 3);
}

TEST_CASE("bad input: broadcasting", "[bad_input][elementwise]") {
  auto a = ts::zeros<double>({3}, {3});
  auto b = ts::zeros<double>({4}, {4});
  auto c = ts::zeros<double>({2, 3}, {2, 3});
  auto d = ts::zeros<double>({3, 2}, {3, 2});
  CHECK_THROWS_MATCHING(a + b, ts::invalid_argument,
                        Contains("(3,) and (4,)") && Contains("cannot be broadcast"));
  CHECK_THROWS_MATCHING(c * d, ts::invalid_argument, Contains("(2, 3) and (3, 2)"));
  CHECK_THROWS_MATCHING(ts::maximum(c, b), ts::invalid_argument, Contains("(2, 3) and (4,)"));
  CHECK_THROWS_MATCHING(ts::where(c > 0, d, 1.0), ts::invalid_argument, Contains("(3, 2)"));
  CHECK_THROWS_MATCHING(ts::pow(b, c), ts::invalid_argument, Contains("(4,) and (2, 3)"));
  CHECK_THROWS_MATCHING(ts::zeros<double>({0}) + a, ts::invalid_argument, Contains("(0,) and (3,)"));
  // Valid edges: (3, 1) * (4,) -> (3, 4); (0, 1) + (3,) -> (0, 3); a 0-d array broadcasts.
  CHECK((ts::zeros<double>({3, 1}) * b).shape() == ts::shape_t{3, 4});
  CHECK((ts::zeros<double>({0, 1}) + a).shape() == ts::shape_t{0, 3});
  CHECK((ts::full<double>({}, 2.0) + a).compute()(2) == 2.0);
}

TEST_CASE("bad input: rechunk", "[bad_input][rechunk]") {
  auto x = ts::zeros<double>({6, 4}, {3, 2});
  CHECK_THROWS_MATCHING(ts::rechunk(x, {2}), ts::invalid_argument, Contains("chunks (2,)") && Contains("(6, 4)"));
  CHECK_THROWS_MATCHING(ts::rechunk(x, {0, 2}), ts::invalid_argument, Contains("chunk length 0 on axis 0"));
  CHECK_THROWS_MATCHING(ts::rechunk(x, {2, -5}), ts::invalid_argument, Contains("chunk length -5 on axis 1"));
  CHECK_THROWS_MATCHING(ts::rechunk(x, chunks_t{{3, 2}, {4}}), ts::invalid_argument,
                        Contains("(3, 2)") && Contains("sum to 5") && Contains("length 6"));
  CHECK_THROWS_MATCHING(ts::rechunk(x, chunks_t{{6}, {4}, {1}}), ts::invalid_argument,
                        Contains("chunks have 3 axes"));
  CHECK_THROWS_MATCHING(ts::rechunk(x, chunks_t{{6}, {2, 2, 0}}), ts::invalid_argument,
                        Contains("chunk length 0 on axis 1"));
  // Valid edge: rechunk to one chunk and back keeps the values.
  auto r = ts::rechunk(ts::rechunk(ts::arange<int>(0, 10, {3}), {-1}), chunks_t{{1, 9}}).compute();
  CHECK(r(9) == 9);
}

// ------------------------------------------------------------------------------------------
TEST_CASE("bad input: reductions", "[bad_input][reduce]") {
  auto x = ts::arange<double>(0.0, 12.0, 1.0, {5});
  auto m = ts::rechunk(ts::zeros<double>({3, 4}), {2, 3}) + 1;
  CHECK_THROWS_MATCHING(ts::sum(m, {2}), ts::invalid_argument,
                        Contains("axis 2 is out of range") && Contains("dimension 2"));
  CHECK_THROWS_MATCHING(ts::mean(m, {-3}), ts::invalid_argument, Contains("axis -3"));
  CHECK_THROWS_MATCHING(ts::amax(m, index_t(5)), ts::invalid_argument, Contains("axis 5"));
  CHECK_THROWS_MATCHING(ts::sum(m, {0, 0}), ts::invalid_argument,
                        Contains("sum: repeated axis 0") && Contains("(0, 0)"));
  CHECK_THROWS_MATCHING(ts::variance(m, {1, -1}), ts::invalid_argument,
                        Contains("variance: repeated axis -1") && Contains("(1, -1)"));
  CHECK_THROWS_MATCHING(ts::argmin(m, {0, 1}), ts::invalid_argument,
                        Contains("argmin takes one axis or none") && Contains("(0, 1)"));
  CHECK_THROWS_MATCHING(ts::argmax(m, std::vector<index_t>{}), ts::invalid_argument,
                        Contains("argmax takes one axis or none"));
  CHECK_THROWS_MATCHING(ts::sum(x, ts::reduce_options{.split_every = 0}), ts::invalid_argument,
                        Contains("split_every must be at least 2, got 0"));
  CHECK_THROWS_MATCHING(ts::sum(x, ts::reduce_options{.split_every = -1}), ts::invalid_argument,
                        Contains("got -1"));
  CHECK_THROWS_MATCHING(ts::mean(x, ts::reduce_options{.split_every = 1}), ts::invalid_argument,
                        Contains("mean: split_every must be at least 2, got 1"));
  CHECK_THROWS_MATCHING(ts::sum(x, ts::reduce_options{.split_every = INT_MIN}), ts::invalid_argument,
                        Contains("got -2147483648"));
  // Extremum and arg reductions over zero elements have no identity (NumPy raises).
  auto e = ts::zeros<double>({0, 3});
  CHECK_THROWS_MATCHING(ts::amin(e), ts::invalid_argument,
                        Contains("amin: zero-size reduction") && Contains("(0, 3)"));
  CHECK_THROWS_MATCHING(ts::amax(e, {0}), ts::invalid_argument, Contains("amax") && Contains("(0, 3)"));
  CHECK_THROWS_MATCHING(ts::argmin(e), ts::invalid_argument, Contains("argmin") && Contains("(0, 3)"));
  CHECK_THROWS_MATCHING(ts::argmax(e, index_t(0)), ts::invalid_argument, Contains("argmax") && Contains("(0, 3)"));
  CHECK_THROWS_MATCHING(ts::amin(ts::view(x, ts::range(5, 5))), ts::invalid_argument, Contains("(0,)"));

  // Valid edges. split_every = INT_MAX builds a one-node tree without allocating INT_MAX slots
  // (issue 18, item 6: it took 16 GiB); 0 + 1 + ... + 11 = 66.
  CHECK(ts::sum(x, ts::reduce_options{.split_every = INT_MAX}).item() == 66.0);
  CHECK(ts::sum(x, ts::reduce_options{.split_every = 2}).item() == 66.0);
  // Empty reductions with an identity (NumPy): sum 0, prod 1, mean NaN, any false, all true.
  CHECK(ts::sum(e).item() == 0.0);
  CHECK(ts::prod(e).item() == 1.0);
  CHECK(std::isnan(ts::mean(e).item()));
  CHECK(ts::any(e).item() == false);
  CHECK(ts::all(e).item() == true);
  CHECK(ts::count_nonzero(e).item() == 0);
  CHECK(ts::sum(e, {1}).shape() == ts::shape_t{0});
  // ddof at or past the count: divisor max(n - ddof, 0), so var([0, 1, 2]) is 2 / 0 = inf
  // (NumPy); a negative ddof divides by n - ddof: 2 / 4.
  auto three = ts::arange<double>(0.0, 3.0);
  CHECK(ts::variance(three, ts::reduce_options{.ddof = 5}).item() == inf_v);
  CHECK(ts::variance(three, ts::reduce_options{.ddof = 3}).item() == inf_v);
  CHECK(ts::variance(three, ts::reduce_options{.ddof = -1}).item() == 0.5);
  // Extreme ddof values do not overflow n - ddof: 2 / (3 + 2^63) and 2 / 0.
  CHECK(ts::variance(three, ts::reduce_options{.ddof = i64min}).item() == 2.0 / (3.0 + 0x1p63));
  CHECK(ts::stddev(three, ts::reduce_options{.ddof = i64max}).item() == inf_v);
}

TEST_CASE("bad input: item", "[bad_input][evaluation]") {
  CHECK_THROWS_MATCHING(ts::zeros<double>({2, 3}).item(), ts::invalid_argument,
                        Contains("exactly one element") && Contains("(2, 3)"));
  CHECK_THROWS_MATCHING(ts::zeros<double>({0}).item(), ts::invalid_argument, Contains("(0,)"));
  CHECK(ts::full<double>({1, 1, 1}, 2.5).item() == 2.5);
}

// ------------------------------------------------------------------------------------------
TEST_CASE("bad input: integer pow", "[bad_input][elementwise]") {
  // issue 18, item 4: an integer array to a negative integer scalar power raises (NumPy).
  auto i = ts::full<std::int64_t>({3}, 2);
  CHECK_THROWS_MATCHING(ts::pow(i, -1), ts::invalid_argument,
                        Contains("negative integer powers") && Contains("exponent -1"));
  CHECK_THROWS_MATCHING(ts::pow(ts::full<int>({3}, 0), -1), ts::invalid_argument, Contains("exponent -1"));
  CHECK_THROWS_MATCHING(ts::pow(ts::full<std::uint8_t>({3}, 1), std::int8_t(-2)), ts::invalid_argument,
                        Contains("exponent -2"));
  CHECK_THROWS_MATCHING(ts::pow(i, i64min), ts::invalid_argument, Contains("exponent -9223372036854775808"));
  // Exact where the result fits, no internal overflow (3^39 = 4052555153018976267 < 2^63).
  CHECK(ts::pow(ts::full<std::int64_t>({2}, 3), 39).compute()(1) == 4052555153018976267LL);
  CHECK(ts::pow(ts::full<std::int64_t>({2}, -3), 39).compute()(0) == -4052555153018976267LL);
  CHECK(ts::pow(ts::full<std::int64_t>({1}, 2), 62).item() == (std::int64_t(1) << 62));
  // Wraps modulo 2^64 where it does not fit, as NumPy: 2^64 -> 0, 3^40 mod 2^64.
  CHECK(ts::pow(ts::full<std::int64_t>({1}, 2), 64).item() == 0);
  std::uint64_t p = 1;
  for (int k = 0; k < 40; ++k) p *= 3u;  // unsigned: wraps, no UB
  CHECK(ts::pow(ts::full<std::int64_t>({1}, 3), 40).item() == std::int64_t(p));
  // Floating bases take negative exponents; 0^0 is 1.
  CHECK(ts::pow(ts::full<double>({1}, 2.0), -1).item() == 0.5);
  CHECK(ts::pow(ts::full<int>({1}, 0), 0).item() == 1);
  // A negative element of an integer exponent array gives 0, or 1 / +-1 for bases 1 / -1.
  xt::xarray<std::int64_t> base{2, 1, -1, -1, 0};
  xt::xarray<std::int64_t> expo{-1, -5, -2, -3, 2};
  auto r = ts::pow(ts::from_xtensor(base), ts::from_xtensor(expo)).compute();
  CHECK(r(0) == 0);
  CHECK(r(1) == 1);
  CHECK(r(2) == 1);
  CHECK(r(3) == -1);
  CHECK(r(4) == 0);
}

TEST_CASE("bad input: casts from floating to integer", "[bad_input][elementwise]") {
  // issue 18, item 6: defined for every input (NaN -> 0, saturating), as documented.
  xt::xarray<double> v{nan_v, inf_v, -inf_v, 1e300, -1e300, -2.7, 2.7, 2147483647.9, -2147483648.9};
  auto x = ts::from_xtensor(v);
  auto i = ts::cast<int>(x).compute();
  CHECK(i(0) == 0);
  CHECK(i(1) == INT_MAX);
  CHECK(i(2) == INT_MIN);
  CHECK(i(3) == INT_MAX);
  CHECK(i(4) == INT_MIN);
  CHECK(i(5) == -2);
  CHECK(i(6) == 2);
  CHECK(i(7) == INT_MAX);
  CHECK(i(8) == INT_MIN);
  auto u = ts::cast<std::uint8_t>(x).compute();
  CHECK(u(0) == 0);
  CHECK(u(1) == 255);
  CHECK(u(5) == 0);
  CHECK(u(6) == 2);
  auto l = ts::cast<std::int64_t>(ts::from_xtensor(xt::xarray<double>{9.3e18, -9.3e18, 9223372036854775808.0})).compute();
  CHECK(l(0) == i64max);
  CHECK(l(1) == i64min);
  CHECK(l(2) == i64max);
  auto b = ts::cast<bool>(x).compute();  // x != 0: NaN is true
  CHECK(b(0) == true);
  CHECK(ts::cast<bool>(ts::full<double>({1}, -0.0)).item() == false);
}

// ------------------------------------------------------------------------------------------
TEST_CASE("bad input: linear algebra", "[bad_input][linalg]") {
  namespace la = ts::linalg;
  auto v = ts::ones<double>({10}, {5});
  auto cube = ts::ones<double>({4, 3, 2});
  auto empty = ts::zeros<double>({0, 3});
  CHECK_THROWS_MATCHING(la::qr(v), ts::invalid_argument, Contains("2-D") && Contains("(10,)"));
  CHECK_THROWS_MATCHING(la::svd(cube), ts::invalid_argument, Contains("svd needs a 2-D array") && Contains("(4, 3, 2)"));
  CHECK_THROWS_MATCHING(la::tsqr(empty), ts::invalid_argument, Contains("non-empty") && Contains("(0, 3)"));
  CHECK_THROWS_MATCHING(la::svd(ts::zeros<double>({5, 0})), ts::invalid_argument, Contains("(5, 0)"));
  CHECK_THROWS_MATCHING(la::svd_compressed(v, 1), ts::invalid_argument, Contains("(10,)"));

  // NaN / Inf: a clear error naming the non-finite input (issue 18, item 5).
  xt::xarray<double> a = small_matrix(40, 4);
  a(17, 2) = nan_v;
  CHECK_THROWS_MATCHING(la::svd(ts::from_xtensor(a, {10, 2})), ts::invalid_argument,
                        Contains("NaN or infinite") && Contains("nan") && Contains("did not converge"));
  a(17, 2) = inf_v;
  CHECK_THROWS_MATCHING(la::svd(ts::from_xtensor(a, {10, 4})), ts::invalid_argument,
                        Contains("NaN or infinite") && Contains("did not converge"));
  xt::xarray<double> w = small_matrix(4, 40);  // short-fat: through the transpose
  w(1, 30) = -inf_v;
  CHECK_THROWS_MATCHING(la::svd(ts::from_xtensor(w, {2, 10})), ts::invalid_argument, Contains("NaN or infinite"));
  CHECK_THROWS_MATCHING(la::svd(ts::full<float>({8, 2}, std::numeric_limits<float>::quiet_NaN())),
                        ts::invalid_argument, Contains("NaN or infinite"));

  xt::xarray<double> q = small_matrix(40, 4);
  q(3, 1) = nan_v;
  // QR has no convergence to fail: NaN propagates into the factors, as np.linalg.qr (no error).
  auto [qq, qr_r] = la::qr(ts::from_xtensor(q, {10, 4}));
  auto rr = qr_r.compute();
  CHECK(std::isnan(rr(1, 1)));
  CHECK(std::isnan(rr(3, 3)));
  CHECK(rr(0, 0) == rr(0, 0));  // column 0 has no NaN: its entry of R stays finite
  CHECK(qq.shape() == ts::shape_t{40, 4});
  CHECK_THROWS_MATCHING(la::svd_compressed(ts::from_xtensor(q, {10, 4}), 2), ts::invalid_argument,
                        Contains("NaN or infinite"));

  // Factors too large in both directions (non-tall-skinny input with a small dense budget).
  la::tsqr_options small{.max_dense_bytes = 1000};
  auto sq = ts::ones<double>({100, 100}, {10, 10});
  CHECK_THROWS_MATCHING(la::svd(sq, ts::host{}, small), ts::invalid_argument,
                        Contains("100 x 100") && Contains("max_dense_bytes = 1000") && Contains("svd_compressed"));
  CHECK_THROWS_MATCHING(la::qr(sq, ts::host{}, small), ts::invalid_argument, Contains("100 x 100"));
  // svd_compressed's rank and options.
  auto t = ts::from_xtensor(small_matrix(40, 4), {10, 4});
  CHECK_THROWS_MATCHING(la::svd_compressed(t, 0), ts::invalid_argument, Contains("k = 0") && Contains("[1, 4]"));
  CHECK_THROWS_MATCHING(la::svd_compressed(t, 5), ts::invalid_argument, Contains("k = 5") && Contains("(40, 4)"));
  CHECK_THROWS_MATCHING(la::svd_compressed(t, -1), ts::invalid_argument, Contains("k = -1"));
  la::svd_compressed_options so;
  so.n_power_iter = -2;
  CHECK_THROWS_MATCHING(la::svd_compressed(t, 2, so), ts::invalid_argument, Contains("n_power_iter = -2"));
  // A huge oversampling is clamped to the column count (no overflow of k + oversampling).
  la::svd_compressed_options over;
  over.oversampling = i64max;
  auto sc = la::svd_compressed(ts::from_xtensor(small_matrix(40, 4), {10, 4}), 2, over).s.compute();
  auto sf = la::svd(ts::from_xtensor(small_matrix(40, 4), {10, 4})).s.compute();
  CHECK(sc(0) == Approx(sf(0)));  // l = n: the randomized SVD is exact
  CHECK(sc(1) == Approx(sf(1)));
  // matmul shapes.
  CHECK_THROWS_MATCHING(la::matmul(t, t), ts::invalid_argument, Contains("(40, 4) and (40, 4)") && Contains("4 != 40"));
  CHECK_THROWS_MATCHING(la::matmul(v, t), ts::invalid_argument, Contains("(10,) and (40, 4)") && Contains("10 != 40"));

  // Valid edges: one column, one row, one element; square with chunks in both directions.
  auto s1 = la::svd(ts::full<double>({6, 1}, 2.0, {4, 1})).s.compute();
  CHECK(s1(0) == Approx(2.0 * std::sqrt(6.0)));
  auto s2 = la::svd(ts::full<double>({1, 6}, -2.0, {1, 4})).s.compute();
  CHECK(s2(0) == Approx(2.0 * std::sqrt(6.0)));
  CHECK(la::svd(ts::full<double>({1, 1}, -3.0)).s.item() == Approx(3.0));
  xt::xarray<double> diag = xt::zeros<double>({6, 6});
  for (std::size_t k = 0; k < 6; ++k) diag(k, k) = double(k + 1);
  auto sd = la::svd(ts::from_xtensor(diag, {4, 4})).s.compute();
  CHECK(sd(0) == Approx(6.0));
  CHECK(sd(5) == Approx(1.0));
}

// ------------------------------------------------------------------------------------------
TEST_CASE("bad input: .npy files", "[bad_input][io][npy]") {
  testing::temp_dir dir("tessera_bad_npy");
  const std::string missing = dir / "missing.npy";
  CHECK_THROWS_MATCHING(ts::from_npy<double>(missing), ts::io_error,
                        Contains(missing) && Contains("No such file"));
  CHECK_THROWS_MATCHING(ts::npy_info(missing), ts::io_error, Contains(missing));
  const std::string data = double_bytes({1, 2, 3, 4, 5, 6});
  const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
  const std::string good = npy_bytes(dict, data);
  struct bad_file {
    std::string name, bytes, what;
  };
  const bad_file cases[] = {
      {"empty.npy", "", "the file is empty"},
      {"text.npy", "hello world, not numpy", "it starts with 'hello"},
      {"short.npy", std::string("\x93") + "NUM", "the file has 4 bytes"},
      {"magic.npy", std::string("\x93") + "NUMPZ\x01\x00\x10\x00{}", "not a .npy file"},
      {"header.npy", good.substr(0, 9), "truncated"},
      {"cut_header.npy", good.substr(0, 40), "header is truncated"},
      {"version.npy", npy_bytes(dict, data, 4), "version 4.0"},
      {"dtype.npy", npy_bytes("{'descr': '<c16', 'fortran_order': False, 'shape': (2, 3), }", data), "'<c16'"},
      {"structured.npy", npy_bytes("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (2,), }", data),
       "unsupported dtype"},
      {"negshape.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, -3), }", data), "negative dimension -3"},
      {"order.npy", npy_bytes("{'descr': '<f8', 'fortran_order': 3, 'shape': (2, 3), }", data), "'fortran_order' is 3"},
      {"key.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", data), "'x'"},
      {"nodict.npy", npy_bytes("[1, 2, 3]", data), "expected '{' at character 0 of [1, 2, 3]"},
      {"rank9.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", data),
       "9 dimensions"},
      {"big.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", data),
       "array is too big"},
      {"data.npy", good.substr(0, good.size() - 1), "the data is truncated"},
  };
  for (const auto& c : cases) {
    const std::string p = dir / c.name;
    testing::spit(p, c.bytes);
    INFO(c.name);
    CHECK_THROWS_MATCHING(ts::from_npy<double>(p), ts::io_error, Contains(p) && Contains(c.what));
  }
  // Bad chunks for a good file are invalid arguments naming the chunk.
  const std::string gp = dir / "good.npy";
  testing::spit(gp, good);
  CHECK_THROWS_MATCHING(ts::from_npy<double>(gp, {0, 3}), ts::invalid_argument, Contains("chunk length 0"));
  // Writing onto a directory; stacks.
  std::filesystem::create_directories(dir.path / "adir.npy");
  CHECK_THROWS_MATCHING(ts::to_npy(ts::zeros<double>({2}), dir / "adir.npy"), ts::io_error,
                        Contains(dir / "adir.npy") && Contains("is a directory"));
  CHECK_THROWS_MATCHING(ts::from_npy_stack<double>(dir / "nostack"), ts::io_error,
                        Contains(dir / "nostack") && Contains("does not exist"));
  CHECK_THROWS_MATCHING(ts::to_npy_stack(dir / "s", ts::zeros<double>({2, 2}), 2), ts::invalid_argument,
                        Contains("axis 2") && Contains("(2, 2)"));
  CHECK_THROWS_MATCHING(ts::to_npy_stack(dir / "s", ts::full<double>({}, 1.0)), ts::invalid_argument,
                        Contains("shape ()"));
  // Valid edges: a zero-length array round-trips; another dtype converts as ts::cast does.
  ts::to_npy(ts::zeros<double>({0, 3}), dir / "empty_ok.npy");
  CHECK(ts::npy_info(dir / "empty_ok.npy").shape == ts::shape_t{0, 3});
  CHECK(ts::compute(ts::from_npy<double>(dir / "empty_ok.npy")).size() == 0);
  const std::string f = dir / "special.npy";
  testing::spit(f, npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
                             double_bytes({nan_v, 1e300, -2.7})));
  auto as_int = ts::from_npy<int>(f).compute();
  CHECK(as_int(0) == 0);
  CHECK(as_int(1) == INT_MAX);
  CHECK(as_int(2) == -2);
}

TEST_CASE("bad input: Zarr arrays", "[bad_input][io][zarr]") {
  testing::temp_dir dir("tessera_bad_zarr");
  namespace fs = std::filesystem;
  // Paths that are not arrays.
  CHECK_THROWS_MATCHING(ts::from_zarr<double>(dir / "missing"), ts::io_error,
                        Contains(dir / "missing") && Contains("does not exist"));
  fs::create_directories(dir.path / "empty");
  CHECK_THROWS_MATCHING(ts::from_zarr<double>(dir / "empty"), ts::io_error,
                        Contains(dir / "empty") && Contains("neither zarr.json"));
  testing::spit(dir.path / "file", "x");
  CHECK_THROWS_MATCHING(ts::from_zarr<double>(dir / "file"), ts::io_error,
                        Contains(dir / "file") && Contains("not a directory"));
  fs::create_directories(dir.path / "group");
  testing::spit(dir.path / "group" / ".zgroup", "{\"zarr_format\": 2}");
  CHECK_THROWS_MATCHING(ts::from_zarr<double>(dir / "group"), ts::io_error,
                        Contains(dir / "group") && Contains("Zarr group"));
  CHECK_THROWS_MATCHING(ts::zarr_info(dir / "missing"), ts::io_error, Contains(dir / "missing"));

  // Bad write options: each names the value.
  auto x = ts::arange<double>(0.0, 16.0, 1.0, {4});
  auto bad_opt = [&](auto change, const std::string& what) {
    ts::zarr_options o;
    change(o);
    INFO(what);
    CHECK_THROWS_MATCHING(ts::to_zarr(x, dir / "opt", o), ts::invalid_argument, Contains(what));
    CHECK_FALSE(fs::exists(dir.path / "opt"));
  };
  bad_opt([](ts::zarr_options& o) { o.codec = "lzma"; }, "'lzma'");
  bad_opt([](ts::zarr_options& o) { o.codec = ""; }, "codec ''");
  bad_opt([](ts::zarr_options& o) { o.format = 4; }, "format 4");
  bad_opt([](ts::zarr_options& o) { o.format = -1; }, "format -1");
  bad_opt([](ts::zarr_options& o) { o.level = 23; }, "zstd level 23");
  bad_opt([](ts::zarr_options& o) { o.codec = "blosc"; o.level = 10; }, "blosc level 10");
  bad_opt([](ts::zarr_options& o) { o.codec = "blosc"; o.blosc_cname = "snappy"; }, "'snappy'");
  bad_opt([](ts::zarr_options& o) { o.codec = "blosc"; o.blosc_shuffle = 3; }, "blosc_shuffle 3");
  bad_opt([](ts::zarr_options& o) { o.codec = "gzip"; o.level = -1; }, "gzip level -1");
  bad_opt([](ts::zarr_options& o) { o.separator = 'x'; }, "separator 'x'");
  bad_opt([](ts::zarr_options& o) { o.format = 2; o.checksum = true; }, "needs Zarr format 3");
  bad_opt([](ts::zarr_options& o) { o.format = 2; o.shards = {8}; }, "shards need Zarr format 3");
  bad_opt([](ts::zarr_options& o) { o.shards = {8, 8}; }, "shards (8, 8) have 2 entries");
  bad_opt([](ts::zarr_options& o) { o.shards = {6}; }, "shard shape (6,)");
  bad_opt([](ts::zarr_options& o) { o.shards = {0}; }, "shard shape (0,)");
  bad_opt([](ts::zarr_options& o) { o.attributes = nlohmann::json::array({1, 2}); }, "[1,2]");
  // Irregular chunks: rechunk first.
  CHECK_THROWS_MATCHING(ts::to_zarr(ts::rechunk(x, chunks_t{{3, 5, 8}}), dir / "irr"), ts::invalid_argument,
                        Contains("regular chunks") && Contains("(3, 5, 8)"));
  CHECK_THROWS_MATCHING(ts::to_zarr(ts::rechunk(x, chunks_t{{4, 12}}), dir / "irr"), ts::invalid_argument,
                        Contains("(4, 12)"));

  // A good array, then write-mode mismatches.
  const std::string path = dir / "a";
  ts::zarr_options v2;
  v2.format = 2;
  ts::to_zarr(x, path, v2);
  CHECK_THROWS_MATCHING(ts::to_zarr(x, path, v2), ts::io_error, Contains(path) && Contains("already exists"));
  ts::zarr_options app = v2;
  app.mode = ts::write_mode::append;
  CHECK_THROWS_MATCHING(ts::to_zarr(x, dir / "nothing", app), ts::io_error,
                        Contains(dir / "nothing") && Contains("append to"));
  CHECK_THROWS_MATCHING(ts::to_zarr(ts::zeros<double>({2, 2}), path, app), ts::invalid_argument,
                        Contains("(2, 2)") && Contains("(16,)"));
  app.append_axis = 3;
  CHECK_THROWS_MATCHING(ts::to_zarr(x, path, app), ts::invalid_argument, Contains("append_axis 3"));
  ts::zarr_options reg = v2;
  reg.mode = ts::write_mode::region;
  reg.region = {0, 0};
  CHECK_THROWS_MATCHING(ts::to_zarr(ts::zeros<double>({2}), path, reg), ts::invalid_argument,
                        Contains("(0, 0)"));
  reg.region = {15};
  CHECK_THROWS_MATCHING(ts::to_zarr(ts::zeros<double>({2}), path, reg), ts::invalid_argument,
                        Contains("(15,)") && Contains("(2,)"));
  reg.region = {-1};
  CHECK_THROWS_MATCHING(ts::to_zarr(ts::zeros<double>({2}), path, reg), ts::invalid_argument,
                        Contains("(-1,)"));
  // Bad chunks for from_zarr's rechunk.
  CHECK_THROWS_MATCHING(ts::from_zarr<double>(path, {-4}), ts::invalid_argument, Contains("chunk length -4"));

  // Corrupt and truncated chunks: io_error naming the chunk key and the path.
  const fs::path chunk = fs::path(path) / "1";
  REQUIRE(fs::exists(chunk));
  const std::string bytes = testing::slurp(chunk);
  testing::spit(chunk, "definitely not zstd");
  CHECK_THROWS_MATCHING(ts::compute(ts::from_zarr<double>(path)), ts::io_error,
                        Contains("chunk '1' of " + path) && Contains("zstd decompression failed"));
  testing::spit(chunk, bytes.substr(0, bytes.size() - 3));
  CHECK_THROWS_MATCHING(ts::compute(ts::from_zarr<double>(path)), ts::io_error, Contains("'1'"));
  testing::spit(chunk, bytes);
  // The other chunks were never affected; a view that skips chunk 1 reads fine.
  CHECK(ts::view(ts::from_zarr<double>(path), 9).item() == 9.0);

  // Malformed metadata: each names the file and the bad value.
  const fs::path meta = fs::path(path) / ".zarray";
  const std::string good_meta = testing::slurp(meta);
  auto bad_meta = [&](auto change, const std::string& what) {
    auto j = nlohmann::json::parse(good_meta);
    change(j);
    testing::spit(meta, j.dump());
    INFO(what);
    CHECK_THROWS_MATCHING(ts::from_zarr<double>(path), ts::io_error, Contains(meta.string()) && Contains(what));
  };
  bad_meta([](nlohmann::json& j) { j["dtype"] = "<c16"; }, "'<c16'");
  bad_meta([](nlohmann::json& j) { j["dtype"] = "|O"; }, "'|O'");
  bad_meta([](nlohmann::json& j) { j["compressor"] = {{"id", "lzma"}}; }, "'lzma'");
  bad_meta([](nlohmann::json& j) { j["shape"] = {-7}; }, "length -7");
  bad_meta([](nlohmann::json& j) { j["shape"] = {16, 16}; }, "chunk shape has 1 dimensions but the shape has 2");
  bad_meta([](nlohmann::json& j) { j["chunks"] = {0}; }, "'chunks' has the length 0");
  bad_meta([](nlohmann::json& j) { j["zarr_format"] = 7; }, "zarr_format is 7");
  bad_meta([](nlohmann::json& j) { j["zarr_format"] = "2"; }, "zarr_format is \"2\"");
  bad_meta([](nlohmann::json& j) { j.erase("zarr_format"); }, "zarr_format is missing");
  bad_meta([](nlohmann::json& j) { j["filters"] = {{{"id", "delta"}}}; }, "[{\"id\":\"delta\"}]");
  bad_meta([](nlohmann::json& j) { j["order"] = "Q"; }, "order \"Q\"");
  testing::spit(meta, good_meta.substr(0, good_meta.size() / 2));
  CHECK_THROWS_MATCHING(ts::from_zarr<double>(path), ts::io_error, Contains(meta.string()) && Contains("not valid JSON"));
  testing::spit(meta, good_meta);
  // Valid edge: another stored dtype converts as ts::cast does (float64 -> int8 saturates).
  auto as_i8 = ts::from_zarr<std::int8_t>(path).compute();
  CHECK(as_i8(15) == 15);

  // Format 3 with a checksum: a flipped byte is a checksum mismatch naming the key.
  const std::string p3 = dir / "b";
  ts::zarr_options v3;
  v3.checksum = true;
  ts::to_zarr(x, p3, v3);
  const fs::path c3 = fs::path(p3) / "c" / "2";
  REQUIRE(fs::exists(c3));
  std::string b3 = testing::slurp(c3);
  b3[b3.size() / 2] = char(b3[b3.size() / 2] ^ 0x5a);
  testing::spit(c3, b3);
  CHECK_THROWS_MATCHING(ts::compute(ts::from_zarr<double>(p3)), ts::io_error,
                        Contains("'c/2'") && Contains("checksum"));
}

TEST_CASE("bad input: chunk-grid pictures", "[bad_input][diagnostics]") {
  CHECK_THROWS_MATCHING(ts::to_svg(ts::full<double>({}, 1.0)), ts::invalid_argument, Contains("rank 0"));
  CHECK_THROWS_MATCHING(ts::to_svg(ts::zeros<double>({3, 0})), ts::invalid_argument,
                        Contains("(3, 0)") && Contains("axis 1"));
  ts::svg_options o;
  o.size = 5;
  CHECK_THROWS_MATCHING(ts::to_svg(ts::zeros<double>({3}), o), ts::invalid_argument, Contains("size 5"));
  o.size = 120;
  o.min_line_gap = nan_v;
  CHECK_THROWS_MATCHING(ts::to_svg(ts::zeros<double>({3}), o), ts::invalid_argument, Contains("min_line_gap nan"));
}
