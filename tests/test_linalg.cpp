// ts::linalg: TSQR/QR, SVD (tall, short-fat, several column chunks, lazy inputs), matmul and
// randomized SVD against dense LAPACK references on randomized shapes and chunkings.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <xtensor/xarray.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include "support/backends.hpp"
#include "support/cases.hpp"
#include "support/numpy_reference.hpp"
#include <tessera/linalg.hpp>

namespace ts = tessera;
using namespace testing;

namespace {

template <class T>
struct tol;
template <>
struct tol<double> {
  static constexpr double rec = 1e-13, orth = 1e-13, s = 1e-12;
};
template <>
struct tol<float> {
  static constexpr double rec = 2e-5, orth = 2e-5, s = 2e-5;
};

/// Dense column-major copy of a row-major xarray matrix.
template <class T>
std::vector<T> col_major(const xt::xarray<T>& a) {
  const index_t m = index_t(a.shape()[0]), n = index_t(a.shape()[1]);
  std::vector<T> out(std::size_t(m * n));
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) out[std::size_t(j * m + i)] = a.data()[i * n + j];
  return out;
}

/// Singular values of a dense matrix by LAPACK (dense<host>::thin_svd: gesdd; the reference).
template <class T>
std::vector<T> lapack_s(const xt::xarray<T>& a) {
  const index_t m = index_t(a.shape()[0]), n = index_t(a.shape()[1]), k = std::min(m, n);
  auto cm = col_major(a);
  std::vector<T> s(static_cast<std::size_t>(k)), u(std::size_t(m * k)), vt(std::size_t(k * n));
  ts::linalg::dense<ts::host>::thin_svd(m, n, cm.data(), m, s.data(), u.data(), m, vt.data(), k);
  return s;
}

double fro(const xt::xarray<double>& a) {
  double s = 0;
  for (double v : a) s += v * v;
  return std::sqrt(s);
}

/// Row-major product of dense matrices in double.
xt::xarray<double> mm(const xt::xarray<double>& a, const xt::xarray<double>& b, bool ta = false,
                      bool tb = false) {
  const std::size_t m = ta ? a.shape()[1] : a.shape()[0], p = ta ? a.shape()[0] : a.shape()[1];
  const std::size_t n = tb ? b.shape()[0] : b.shape()[1];
  REQUIRE((tb ? b.shape()[1] : b.shape()[0]) == p);
  xt::xarray<double> c = xt::zeros<double>({m, n});
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t q = 0; q < p; ++q) {
      const double x = ta ? a(q, i) : a(i, q);
      for (std::size_t j = 0; j < n; ++j) c(i, j) += x * (tb ? b(j, q) : b(q, j));
    }
  return c;
}

xt::xarray<double> eye(std::size_t k) {
  xt::xarray<double> e = xt::zeros<double>({k, k});
  for (std::size_t i = 0; i < k; ++i) e(i, i) = 1;
  return e;
}

template <class T>
xt::xarray<double> to_double(const xt::xarray<T>& a) {
  xt::xarray<double> d = xt::xarray<double>::from_shape(a.shape());
  for (std::size_t i = 0; i < a.size(); ++i) d.data()[i] = double(a.data()[i]);
  return d;
}

/// Checks a thin SVD of the dense matrix `a` and its chunk layout.
template <class T, class X, class P, class U, class V>
void check_svd(const xt::xarray<T>& a, const X& in, const P& pol,
               const ts::linalg::svd_result<T, U, V>& r) {
  const std::size_t m = a.shape()[0], n = a.shape()[1], k = std::min(m, n);
  auto u = to_double(ts::compute(r.u, pol));
  auto s = to_double(ts::compute(r.s, pol));
  auto vt = to_double(ts::compute(r.vt, pol));
  REQUIRE(u.shape() == std::vector<std::size_t>{m, k});
  REQUIRE(s.shape() == std::vector<std::size_t>{k});
  REQUIRE(vt.shape() == std::vector<std::size_t>{k, n});
  CHECK(r.u.chunks()[0] == in.chunks()[0]);   // u keeps a's row chunks
  CHECK(r.vt.chunks()[1] == in.chunks()[1]);  // vt keeps a's column chunks
  auto ad = to_double(a);
  xt::xarray<double> us = u;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < k; ++j) us(i, j) *= s(j);
  const double na = std::max(fro(ad), 1e-300);
  const double rec = fro(xt::xarray<double>(mm(us, vt) - ad)) / na;
  const double ou = fro(xt::xarray<double>(mm(u, u, true) - eye(k)));
  const double ov = fro(xt::xarray<double>(mm(vt, vt, false, true) - eye(k)));
  auto sref = lapack_s(a);
  double se = 0;
  for (std::size_t i = 0; i < k; ++i) {
    if (i > 0) CHECK(s(i) <= s(i - 1));
    se = std::max(se, std::abs(s(i) - double(sref[i])) / std::max(double(sref[0]), 1e-300));
  }
  INFO("reconstruction " << rec << " U'U-I " << ou << " VtVt'-I " << ov << " s error " << se);
  CHECK(rec <= tol<T>::rec);
  CHECK(ou <= tol<T>::orth * std::max<double>(1, std::sqrt(double(k)) / 4));
  CHECK(ov <= tol<T>::orth * std::max<double>(1, std::sqrt(double(k)) / 4));
  CHECK(se <= tol<T>::s);
  // Sign convention: in the square factor the largest-magnitude entry of each vector is > 0.
  for (std::size_t i = 0; i < k; ++i) {
    double best = -1, val = 0;
    for (std::size_t j = 0; j < k; ++j) {
      double v = m >= n ? vt(i, j) : u(j, i);
      if (std::abs(v) > best) best = std::abs(v), val = v;
    }
    CHECK(val > 0);
  }
}

template <class T, class X, class P, class Q>
void check_qr(const xt::xarray<T>& a, const X& in, const P& pol, const ts::linalg::qr_result<T, Q>& r) {
  const std::size_t m = a.shape()[0], n = a.shape()[1], k = std::min(m, n);
  auto q = to_double(ts::compute(r.q, pol));
  auto rr = to_double(ts::compute(r.r, pol));
  REQUIRE(q.shape() == std::vector<std::size_t>{m, k});
  REQUIRE(rr.shape() == std::vector<std::size_t>{k, n});
  CHECK(r.q.chunks()[0] == in.chunks()[0]);
  auto ad = to_double(a);
  const double rec = fro(xt::xarray<double>(mm(q, rr) - ad)) / std::max(fro(ad), 1e-300);
  const double oq = fro(xt::xarray<double>(mm(q, q, true) - eye(k)));
  double lower = 0;
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j < std::min(i, n); ++j) lower = std::max(lower, std::abs(rr(i, j)));
  INFO("QR - A " << rec << " Q'Q-I " << oq);
  CHECK(rec <= tol<T>::rec);
  CHECK(oq <= tol<T>::orth * std::max<double>(1, std::sqrt(double(k)) / 4));
  CHECK(lower == 0);
}

/// A random tall case: m >= n, random row and column chunks.
struct tall_case {
  shape_t shape;
  chunks_t chunks;
};
tall_case random_tall(std::mt19937_64& rng, index_t maxm, index_t maxn) {
  index_t n = 1 + index_t(rng() % std::uint64_t(maxn));
  index_t m = n + index_t(rng() % std::uint64_t(maxm));
  shape_t sh{m, n};
  return {sh, random_chunks(rng, sh)};
}

}  // namespace

TEMPLATE_TEST_CASE("svd of tall matrices matches LAPACK (double)", "[linalg][svd]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(6001);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(12); ++it) {
    auto c = random_tall(rng, 300, 40);
    auto d = testing::random_data<double>(rng, c.shape);
    INFO("seed " << seed << " iteration " << it << " shape " << describe(c.shape) << " chunks "
                 << describe(c.chunks));
    auto x = ts::from_xtensor(d, c.chunks);
    check_svd(d, x, pol, ts::linalg::svd(x, pol));
  }
}

TEMPLATE_TEST_CASE("svd of tall matrices matches LAPACK (float)", "[linalg][svd]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(6002);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(8); ++it) {
    auto c = random_tall(rng, 200, 24);
    auto d = testing::random_data<float>(rng, c.shape);
    INFO("seed " << seed << " iteration " << it << " shape " << describe(c.shape) << " chunks "
                 << describe(c.chunks));
    auto x = ts::from_xtensor(d, c.chunks);
    check_svd(d, x, pol, ts::linalg::svd(x, pol));
  }
}

TEMPLATE_TEST_CASE("svd special shapes and inputs", "[linalg][svd]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(6003);
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  SECTION("single row block") {
    auto d = testing::random_data<double>(rng, {57, 13});
    auto x = ts::from_xtensor(d, ts::chunks_t{{57}, {13}});
    check_svd(d, x, pol, ts::linalg::svd(x, pol));
  }
  SECTION("one column") {
    auto d = testing::random_data<double>(rng, {91, 1});
    auto x = ts::from_xtensor(d, ts::chunks_t{{30, 30, 31}, {1}});
    check_svd(d, x, pol, ts::linalg::svd(x, pol));
  }
  SECTION("square, irregular row chunks, blocks shorter than n") {
    auto d = testing::random_data<double>(rng, {40, 40});
    auto x = ts::from_xtensor(d, ts::chunks_t{{3, 17, 1, 11, 8}, {25, 15}});
    check_svd(d, x, pol, ts::linalg::svd(x, pol));
  }
  SECTION("rank deficient: duplicate columns") {
    auto d = testing::random_data<double>(rng, {120, 16});
    for (std::size_t i = 0; i < 120; ++i) {
      d(i, 5) = d(i, 2);
      d(i, 9) = d(i, 2);
      d(i, 15) = d(i, 0);
    }
    auto x = ts::from_xtensor(d, ts::chunks_t{{50, 50, 20}, {16}});
    auto r = ts::linalg::svd(x, pol);
    check_svd(d, x, pol, r);
    auto s = ts::compute(r.s, pol);
    CHECK(s(13) <= 1e-12 * s(0));  // three exact zeros
  }
  SECTION("short-fat by transposition") {
    for (int it = 0; it < test_iterations(4); ++it) {
      auto c = random_tall(rng, 150, 30);
      shape_t sh{c.shape[1], c.shape[0]};
      auto ch = random_chunks(rng, sh);
      auto d = testing::random_data<double>(rng, sh);
      INFO("shape " << describe(sh) << " chunks " << describe(ch));
      auto x = ts::from_xtensor(d, ch);
      check_svd(d, x, pol, ts::linalg::svd(x, pol));
    }
  }
  SECTION("lazy input expression, several column chunks") {
    auto d1 = testing::random_data<double>(rng, {150, 20});
    auto d2 = testing::random_data<double>(rng, {20, 150});
    auto x1 = ts::from_xtensor(d1, ts::chunks_t{{40, 40, 40, 30}, {7, 7, 6}});
    auto x2 = ts::from_xtensor(d2, ts::chunks_t{{20}, {75, 75}});
    auto lazy = ts::sin(x1) * 2.0 + ts::transpose(x2);
    xt::xarray<double> d = ts::compute(lazy, pol);
    check_svd(d, lazy, pol, ts::linalg::svd(lazy, pol));
  }
  SECTION("recursive TSQR (fan-in 2, many row blocks)") {
    auto d = testing::random_data<double>(rng, {333, 9});
    auto x = ts::from_xtensor(d, ts::chunks_t{ts::detail::regular(333, 10), {4, 5}});
    ts::linalg::tsqr_options opt;
    opt.method = ts::linalg::tsqr_method::householder;  // the Householder paths themselves
    opt.fanin = 2;
    check_svd(d, x, pol, ts::linalg::svd(x, pol, opt));
    check_qr(d, x, pol, ts::linalg::tsqr(x, pol, opt));
  }
  SECTION("tree path with leaves inside row blocks") {
    auto d = testing::random_data<double>(rng, {500, 7});
    auto x = ts::from_xtensor(d, ts::chunks_t{{130, 170, 200}, {3, 4}});
    ts::linalg::tsqr_options opt;
    opt.method = ts::linalg::tsqr_method::householder;  // the Householder paths themselves
    opt.leaf_rows = 20;
    check_svd(d, x, pol, ts::linalg::svd(x, pol, opt));
    check_qr(d, x, pol, ts::linalg::qr(x, pol, opt));
    auto df = testing::random_data<float>(rng, {300, 5});
    auto xf = ts::from_xtensor(df, ts::chunks_t{{100, 200}, {5}});
    check_svd(df, xf, pol, ts::linalg::svd(xf, pol, opt));
  }
  SECTION("stacked (non-tree) reduction") {
    auto d = testing::random_data<double>(rng, {260, 11});
    auto x = ts::from_xtensor(d, ts::chunks_t{{60, 60, 60, 80}, {11}});
    ts::linalg::tsqr_options opt;
    opt.method = ts::linalg::tsqr_method::householder;  // the Householder paths themselves
    opt.tree = false;
    check_svd(d, x, pol, ts::linalg::svd(x, pol, opt));
    check_qr(d, x, pol, ts::linalg::qr(x, pol, opt));
  }
  SECTION("U written over Q1 in pieces of rows (CholeskyQR2, a 1900-row block, 300 columns)") {
    auto d = testing::random_data<double>(rng, {1900, 300});
    auto x = ts::from_xtensor(d, ts::chunks_t{{1900}, {300}});
    check_svd(d, x, pol, ts::linalg::svd(x, pol));
  }
  SECTION("deterministic: the same result twice, bit for bit") {
    auto d = testing::random_data<double>(rng, {200, 12});
    auto x = ts::from_xtensor(d, ts::chunks_t{{64, 64, 64, 8}, {12}});
    auto a = ts::linalg::svd(x, pol), b = ts::linalg::svd(x, pol);
    auto ua = ts::compute(a.u, pol), ub = ts::compute(b.u, pol);
    CHECK(std::equal(ua.begin(), ua.end(), ub.begin()));
  }
}

TEMPLATE_TEST_CASE("svd refuses a matrix too large in both directions", "[linalg][svd]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  auto big = ts::zeros<double>({1000000, 1000000}, {10000, 10000});
  REQUIRE_THROWS_AS(ts::linalg::svd(big, pol), std::invalid_argument);
  try {
    ts::linalg::svd(big, pol);
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("svd_compressed") != std::string::npos);
  }
  ts::linalg::tsqr_options opt;
  opt.max_dense_bytes = 1000;
  auto x = ts::zeros<double>({100, 20}, {10, 20});
  CHECK_THROWS_AS(ts::linalg::svd(x, pol, opt), std::invalid_argument);
  CHECK_THROWS_AS(ts::linalg::svd(ts::zeros<double>({5}, {5}), pol), std::invalid_argument);
}

TEMPLATE_TEST_CASE("qr and tsqr: Q R = A, Q orthonormal", "[linalg][qr]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(6004);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(10); ++it) {
    auto c = random_tall(rng, 250, 30);
    if (it % 3 == 2) {  // short-fat too
      std::swap(c.shape[0], c.shape[1]);
      c.chunks = random_chunks(rng, c.shape);
    }
    INFO("seed " << seed << " iteration " << it << " shape " << describe(c.shape) << " chunks "
                 << describe(c.chunks));
    if (it % 2) {
      auto d = testing::random_data<double>(rng, c.shape);
      auto x = ts::from_xtensor(d, c.chunks);
      check_qr(d, x, pol, ts::linalg::qr(x, pol));
    } else {
      auto d = testing::random_data<float>(rng, c.shape);
      auto x = ts::from_xtensor(d, c.chunks);
      check_qr(d, x, pol, ts::linalg::tsqr(x, pol));
    }
  }
}

namespace {

/// max |Q'Q - I| of a column-major-agnostic xtensor Q (m x k), the max-norm of Q R - A relative
/// to max |A|, and whether every diagonal element of R is positive.
struct qr_quality {
  double orth = 0, resid = 0;
  bool positive_diagonal = true;
};

qr_quality measure_qr(const xt::xarray<double>& a, const xt::xarray<double>& q, const xt::xarray<double>& r) {
  qr_quality out;
  const std::size_t m = a.shape()[0], n = a.shape()[1], k = q.shape()[1];
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j < k; ++j) {
      double s = 0;
      for (std::size_t t = 0; t < m; ++t) s += q(t, i) * q(t, j);
      out.orth = std::max(out.orth, std::abs(s - (i == j ? 1.0 : 0.0)));
    }
  double big = 0, e = 0;
  for (std::size_t t = 0; t < m; ++t)
    for (std::size_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::size_t i = 0; i <= std::min(j, k - 1); ++i) s += q(t, i) * r(i, j);
      e = std::max(e, std::abs(s - a(t, j)));
      big = std::max(big, std::abs(a(t, j)));
    }
  out.resid = e / big;
  for (std::size_t i = 0; i < k; ++i) out.positive_diagonal = out.positive_diagonal && r(i, i) > 0;
  return out;
}

}  // namespace

TEMPLATE_TEST_CASE("TSQR: CholeskyQR2 where A is well conditioned, Householder where it is not",
                   "[linalg][tsqr]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(9092);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd;
  const ts::index_t m = 3000 + ts::index_t(rng() % 2000), n = 24 + ts::index_t(rng() % 40);
  const ts::index_t c = 300 + ts::index_t(rng() % 700);
  INFO("seed " << seed << " m " << m << " n " << n << " row chunk " << c);
  xt::xarray<double> g = xt::empty<double>({std::size_t(m), std::size_t(n)});
  for (auto& v : g) v = nd(rng);
  // Columns scaled from 1 down to 10^-decades: cond(A) about 10^decades.
  auto scaled = [&](double decades) {
    xt::xarray<double> a = g;
    for (std::size_t j = 0; j < std::size_t(n); ++j) {
      const double f = std::pow(10.0, -decades * double(j) / double(n - 1));
      for (std::size_t i = 0; i < std::size_t(m); ++i) a(i, j) *= f;
    }
    return a;
  };
  auto run = [&](const xt::xarray<double>& a, ts::linalg::tsqr_method method) {
    auto x = ts::from_xtensor(a, ts::chunks_t{ts::detail::regular(m, c), {n}});
    ts::linalg::tsqr_options opt;
    opt.method = method;
    auto [q, r] = ts::linalg::tsqr(x, pol, opt);
    xt::xarray<double> qc = ts::compute(q, pol), rc = ts::compute(r, pol);
    return measure_qr(a, qc, rc);
  };
  for (double decades : {0.0, 5.0}) {  // CholeskyQR2 (R's diagonal positive by construction)
    INFO("cond about 1e" << decades);
    const auto a = scaled(decades);
    const qr_quality chol = run(a, ts::linalg::tsqr_method::automatic);
    CHECK(chol.positive_diagonal);
    CHECK(chol.orth <= 1e-13 * double(n));
    CHECK(chol.resid <= 1e-13 * double(n));
    // Householder on request: geqrf's R has diagonal elements of both signs on random input
    const qr_quality house = run(a, ts::linalg::tsqr_method::householder);
    CHECK_FALSE(house.positive_diagonal);
    CHECK(house.orth <= 1e-13 * double(n));
    CHECK(house.resid <= 1e-13 * double(n));
  }
  {  // cond about 1e12: CholeskyQR2's test fails and Householder TSQR runs instead
    const auto a = scaled(12.0);
    const qr_quality q = run(a, ts::linalg::tsqr_method::automatic);
    CHECK_FALSE(q.positive_diagonal);
    CHECK(q.orth <= 1e-13 * double(n));
    CHECK(q.resid <= 1e-13 * double(n));
  }
  {  // rank deficient (a zero column): the Cholesky factorization fails, Householder runs
    xt::xarray<double> a = g;
    for (std::size_t i = 0; i < std::size_t(m); ++i) a(i, 3) = 0;
    const qr_quality q = run(a, ts::linalg::tsqr_method::automatic);
    CHECK_FALSE(q.positive_diagonal);  // (a zero on R's diagonal at least)
    CHECK(q.orth <= 1e-13 * double(n));
    CHECK(q.resid <= 1e-13 * double(n));
  }
  {  // the SVD through CholeskyQR2 at cond about 1e5 meets the LAPACK-reference bounds
    const auto a = scaled(5.0);
    auto x = ts::from_xtensor(a, ts::chunks_t{ts::detail::regular(m, c), {n}});
    check_svd(a, x, pol, ts::linalg::svd(x, pol));
  }
  if constexpr (std::is_same_v<TestType, ts::host>) {
    // Every sum runs in block order and the n x n Cholesky steps on one thread: Q and R are
    // the same bits for 1 and 2 threads (n = 200: wide enough for OpenBLAS's parallel potrf
    // to round differently). (The SVD's gesdd of R runs on every thread: not compared.)
    xt::xarray<double> w = xt::empty<double>({std::size_t(2400), std::size_t(200)});
    for (auto& v : w) v = nd(rng);
    auto x = ts::from_xtensor(w, ts::chunks_t{ts::detail::regular(2400, 700), {200}});
    auto one = ts::linalg::tsqr(x, ts::host{.threads = 1}), two = ts::linalg::tsqr(x, ts::host{.threads = 2});
    xt::xarray<double> q1 = ts::compute(one.q), q2 = ts::compute(two.q);
    xt::xarray<double> r1 = ts::compute(one.r), r2 = ts::compute(two.r);
    CHECK(std::equal(q1.begin(), q1.end(), q2.begin(), q2.end()));
    CHECK(std::equal(r1.begin(), r1.end(), r2.begin(), r2.end()));
  }
}

TEMPLATE_TEST_CASE("svd: the Gram route up to cond(A) = 8, the QR routes above, LAPACK's accuracy on both sides",
                   "[linalg][svd]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(9094);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd;
  const ts::index_t m = 1500 + ts::index_t(rng() % 1500), n = 20 + ts::index_t(rng() % 60);
  const ts::index_t c = 200 + ts::index_t(rng() % 500);
  INFO("seed " << seed << " m " << m << " n " << n << " row chunk " << c);
  // A = Q1 diag(sv) Q2' with Q1, Q2 orthonormal (LAPACK's QR of normal matrices) and known
  // singular values sv from 1 down to 1 / cond
  auto orthonormal = [&](ts::index_t rows, ts::index_t cols) {
    std::vector<double> q(std::size_t(rows * cols)), r(std::size_t(cols * cols));
    for (auto& v : q) v = nd(rng);
    ts::linalg::dense<ts::host>::qr_explicit(rows, cols, q.data(), r.data());
    return q;  // column-major
  };
  const std::vector<double> q1 = orthonormal(m, n), q2 = orthonormal(n, n);
  for (double cond : {1.5, 7.5, 8.5, 80.0, 1e5}) {
    std::vector<double> sv(static_cast<std::size_t>(n));
    for (ts::index_t i = 0; i < n; ++i) sv[std::size_t(i)] = std::pow(cond, -double(i) / double(n - 1));
    xt::xarray<double> a = xt::zeros<double>({std::size_t(m), std::size_t(n)});
    for (ts::index_t i = 0; i < m; ++i)
      for (ts::index_t l = 0; l < n; ++l) {
        const double x = q1[std::size_t(i + l * m)] * sv[std::size_t(l)];
        for (ts::index_t j = 0; j < n; ++j) a(i, j) += x * q2[std::size_t(j + l * n)];
      }
    INFO("cond " << cond);
    auto x = ts::from_xtensor(a, ts::chunks_t{ts::detail::regular(m, c), {n}});
    if constexpr (std::is_same_v<TestType, ts::host>) {  // which route the host takes
      auto rows = ts::detail::regular(m, c);
      auto f = ts::linalg::detail::tsqr_factor_source<double>(pol, ts::linalg::detail::make_row_source(x, rows, pol),
                                                              ts::linalg::tsqr_options{}, /*gram_svd=*/true);
      CHECK(f.gram == (cond <= ts::linalg::detail::gram_svd_condition_limit));
      if (cond <= 80) CHECK(f.cholesky);  // CholeskyQR2 above the limit, not Householder
    }
    auto r = ts::linalg::svd(x, pol);
    check_svd(a, x, pol, r);
    // LAPACK's own accuracy (gesdd gives about 3e-15 here for every cond): U' U - I and the
    // singular values' relative error; the Gram route's eps cond^2 would exceed it at cond 80
    xt::xarray<double> u = ts::compute(r.u, pol), sc = ts::compute(r.s, pol);
    double orth = 0, srel = 0;
    const auto utu = mm(u, u, true);
    for (ts::index_t i = 0; i < n; ++i) {
      srel = std::max(srel, std::abs(sc(i) - sv[std::size_t(i)]) / sv[std::size_t(i)]);
      for (ts::index_t j = 0; j < n; ++j) orth = std::max(orth, std::abs(utu(i, j) - (i == j ? 1.0 : 0.0)));
    }
    INFO("max |U'U - I| " << orth << ", singular values' relative error " << srel);
    if constexpr (std::is_same_v<TestType, ts::host> || testing::ranked<TestType>) {  // LAPACK's bounds
      CHECK(orth <= 3e-14);
      CHECK(srel <= 50 * 2.3e-16 * cond);
    }
  }
  if constexpr (std::is_same_v<TestType, ts::host>) {
    // The Gram route's eigen-decomposition runs on one BLAS thread and every sum in block
    // order: U, S and Vt are the same bits for 1 and 2 threads (n = 200: wide enough for a
    // threaded syevd to round differently)
    xt::xarray<double> w = xt::empty<double>({std::size_t(2400), std::size_t(200)});
    for (auto& v : w) v = nd(rng);
    auto x = ts::from_xtensor(w, ts::chunks_t{ts::detail::regular(2400, 700), {200}});
    auto one = ts::linalg::svd(x, ts::host{.threads = 1}), two = ts::linalg::svd(x, ts::host{.threads = 2});
    for (auto [p, q] : {std::pair{&one.u, &two.u}, std::pair{&one.s, &two.s}, std::pair{&one.vt, &two.vt}}) {
      xt::xarray<double> d1 = ts::compute(*p), d2 = ts::compute(*q);
      CHECK(std::equal(d1.begin(), d1.end(), d2.begin(), d2.end()));
    }
  }
}

TEST_CASE("The Gram route's acceptance test: cond(A) <= 8, finite, converged; its early decline", "[linalg][svd]") {
  namespace la = ts::linalg::detail;
  const auto seed = test_seed(9095);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd;
  const ts::index_t n = 2 + ts::index_t(rng() % 30);
  INFO("seed " << seed << " n " << n);
  // G = Q diag(l) Q' with eigenvalues l from lmax down to lmax / cond^2
  std::vector<double> q(std::size_t(n * n)), r(std::size_t(n * n));
  for (auto& v : q) v = nd(rng);
  ts::linalg::dense<ts::host>::qr_explicit(n, n, q.data(), r.data());
  auto gram = [&](double cond, double scale) {
    std::vector<double> g(std::size_t(n * n), 0.0);
    for (ts::index_t l = 0; l < n; ++l) {
      const double ev = scale * std::pow(cond, -2.0 * double(l) / double(n - 1));
      for (ts::index_t j = 0; j < n; ++j)
        for (ts::index_t i = 0; i < n; ++i) g[std::size_t(i + j * n)] += q[std::size_t(i + l * n)] * ev * q[std::size_t(j + l * n)];
    }
    return g;
  };
  std::vector<double> s, vt;
  for (double scale : {1e-30, 1.0, 1e30}) {
    INFO("scale " << scale);
    CHECK(la::gram_svd_of(ts::host{}, n, gram(1.0, scale), s, vt));
    CHECK(la::gram_svd_of(ts::host{}, n, gram(7.9, scale), s, vt));
    REQUIRE(s.size() == std::size_t(n));
    CHECK(s.front() == Approx(std::sqrt(scale)).epsilon(1e-12));
    CHECK(s.back() == Approx(std::sqrt(scale) / 7.9).epsilon(1e-12));
    CHECK(std::is_sorted(s.rbegin(), s.rend()));
    CHECK_FALSE(la::gram_svd_of(ts::host{}, n, gram(8.1, scale), s, vt));
    CHECK_FALSE(la::gram_svd_of(ts::host{}, n, gram(1e8, scale), s, vt));
  }
  // rows of vt: unit eigenvectors, G v = s^2 v
  const auto g = gram(3.0, 2.0);
  REQUIRE(la::gram_svd_of(ts::host{}, n, g, s, vt));
  for (ts::index_t k = 0; k < n; ++k)
    for (ts::index_t i = 0; i < n; ++i) {
      double gv = 0;
      for (ts::index_t j = 0; j < n; ++j) gv += g[std::size_t(i + j * n)] * vt[std::size_t(k + j * n)];
      CHECK(gv == Approx(s[std::size_t(k)] * s[std::size_t(k)] * vt[std::size_t(k + i * n)]).margin(1e-12));
    }
  // The early decline's bound from the Cholesky factor never exceeds cond(A) ...
  for (double cond : {1.0, 3.0, 7.9, 8.1, 100.0, 1e6}) {
    auto r = gram(cond, 1.0);
    REQUIRE(ts::linalg::dense<ts::host>::potrf(n, r.data(), n) == 0);
    for (ts::index_t j = 0; j < n; ++j)
      for (ts::index_t i = j + 1; i < n; ++i) r[std::size_t(i + j * n)] = 0;
    const double lb = la::condition_lower_bound(r.data(), n);
    INFO("cond " << cond << " lower bound " << lb);
    CHECK(lb <= cond * (1 + 1e-9));
    CHECK(lb >= 1.0 - 1e-12);
  }
  {  // ... and turns away uniform [0, 1) values (a common offset: cond about 30 here)
    std::uniform_real_distribution<double> u01(0, 1);
    const ts::index_t m = 4000, k = 200;
    std::vector<double> a(std::size_t(m * k)), r(std::size_t(k * k), 0.0);
    for (auto& v : a) v = u01(rng);
    ts::linalg::dense<ts::host>::syrk(k, m, a.data(), k, r.data(), k);  // a row-major: A' A
    REQUIRE(ts::linalg::dense<ts::host>::potrf(k, r.data(), k) == 0);
    for (ts::index_t j = 0; j < k; ++j)
      for (ts::index_t i = j + 1; i < k; ++i) r[std::size_t(i + j * k)] = 0;
    const double lb = la::condition_lower_bound(r.data(), k);
    INFO("uniform [0, 1): lower bound " << lb);
    CHECK(lb > 2 * ts::linalg::detail::gram_svd_condition_limit);
  }
  auto bad = gram(2.0, 1.0);
  bad[std::size_t(n * n - 1)] = std::numeric_limits<double>::quiet_NaN();  // in the upper triangle
  CHECK_FALSE(la::gram_svd_of(ts::host{}, n, bad, s, vt));
  bad[std::size_t(n * n - 1)] = std::numeric_limits<double>::infinity();
  CHECK_FALSE(la::gram_svd_of(ts::host{}, n, bad, s, vt));
  auto singular = gram(2.0, 1.0);
  for (auto& v : singular) v = 1.0;  // rank one: the smallest eigenvalue is 0 (or rounds below)
  CHECK_FALSE(la::gram_svd_of(ts::host{}, n, singular, s, vt));
  auto negative = gram(2.0, 1.0);
  for (ts::index_t i = 0; i < n; ++i) negative[std::size_t(i + i * n)] -= 2.0;  // eigenvalues 1 - 2 < 0
  CHECK_FALSE(la::gram_svd_of(ts::host{}, n, negative, s, vt));
}

TEST_CASE("CholeskyQR2's Gram matrices: the same sum for any wave size, the held count bounded",
          "[linalg][tsqr]") {
  namespace la = ts::linalg::detail;
  const auto seed = test_seed(9093);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  const ts::index_t n = 1 + ts::index_t(rng() % 9), B = 1 + ts::index_t(rng() % 23);
  INFO("seed " << seed << " n " << n << " blocks " << B);
  std::vector<std::vector<double>> all(static_cast<std::size_t>(B));
  for (auto& g : all) {
    g.resize(std::size_t(n * n));
    for (auto& v : g) v = u(rng) * 1e3;  // values whose sums round
  }
  // the reference: in block order, one at a time, upper triangle only
  std::vector<double> want = all[0];
  for (ts::index_t b = 1; b < B; ++b)
    for (ts::index_t j = 0; j < n; ++j)
      for (ts::index_t i = 0; i <= j; ++i) want[std::size_t(i + j * n)] += all[std::size_t(b)][std::size_t(i + j * n)];
  for (ts::index_t wave = 1; wave <= B + 1; ++wave) {
    std::vector<double> got;
    ts::index_t waves = 0;
    la::sum_grams_in_waves<double>(B, n, wave, got, [&](ts::index_t b0, ts::index_t b1, auto& grams) {
      ++waves;
      REQUIRE(b1 - b0 <= wave);
      REQUIRE(grams.size() >= std::size_t(b1 - b0));
      for (ts::index_t b = b0; b < b1; ++b) grams[std::size_t(b - b0)] = all[std::size_t(b)];
    });
    INFO("wave " << wave);
    CHECK(waves == (B + wave - 1) / wave);
    for (ts::index_t j = 0; j < n; ++j)
      for (ts::index_t i = 0; i <= j; ++i) CHECK(got[std::size_t(i + j * n)] == want[std::size_t(i + j * n)]);
  }
  // 256 MiB of Gram matrices at most, but never fewer blocks than run at once
  CHECK(la::gram_wave(2, 1000, 1000, 8) == 33);
  CHECK(la::gram_wave(2, 10, 1000, 8) == 10);
  CHECK(la::gram_wave(4, 1000, 20000, 8) == 4);
  CHECK(la::gram_wave(2, 100, 64, 8) == 100);
}

TEMPLATE_TEST_CASE("matmul matches a dense product", "[linalg][matmul]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(6005);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(10); ++it) {
    const index_t m = 1 + index_t(rng() % 60), p = 1 + index_t(rng() % 60), n = 1 + index_t(rng() % 60);
    auto ca = random_chunks(rng, {m, p});
    auto cb = random_chunks(rng, {p, n});
    auto da = testing::random_data<double>(rng, {m, p});
    auto db = testing::random_data<double>(rng, {p, n});
    INFO("seed " << seed << " iteration " << it << " a " << describe(ca) << " b " << describe(cb));
    auto a = ts::from_xtensor(da, ca);
    auto b = ts::from_xtensor(db, cb);
    auto c = ts::linalg::matmul(a * 1.0, b, pol);  // lazy left operand
    CHECK(c.chunks()[0] == ca[0]);
    CHECK(c.chunks()[1] == cb[1]);
    auto ref = mm(da, db);
    auto got = ts::compute(c, pol);
    // inputs are multiples of 1/8 below 10 in magnitude: the products are exact
    CHECK(fro(xt::xarray<double>(got - ref)) == 0);
  }
  auto a = ts::zeros<double>({4, 5}, {2, 5});
  CHECK_THROWS_AS(ts::linalg::matmul(a, a, pol), std::invalid_argument);
}

namespace {
/// A random shape for matmul: rank 1-4, the last axis `k` (a) or second-to-last (b).
ts::shape_t operand_shape(std::mt19937_64& rng, int rank, ts::index_t k, bool left, const ts::shape_t& batch) {
  ts::shape_t s;
  for (int d = 0; d < rank - 2; ++d) {  // batch axes: the shared ones, or 1 (broadcast)
    const std::size_t from = batch.size() - std::size_t(rank - 2) + std::size_t(d);
    s.push_back(rng() % 4 == 0 ? 1 : batch[from]);
  }
  const ts::index_t other = ts::index_t(rng() % 7);  // 0 included
  if (rank == 1) return {k};
  if (left) s.insert(s.end(), {other, k});
  else s.insert(s.end(), {k, other});
  return s;
}

template <class TA, class TB, class P>
void matmul_cases(case_writer<P>& w, std::mt19937_64& rng) {
  const ts::shape_t batch{1 + ts::index_t(rng() % 3), 1 + ts::index_t(rng() % 3)};
  const ts::index_t k = ts::index_t(rng() % 9);
  const int ra = 1 + int(rng() % 4), rb = 1 + int(rng() % 4);
  const ts::shape_t sa = operand_shape(rng, ra, k, true, batch), sb = operand_shape(rng, rb, k, false, batch);
  auto a = ts::from_xtensor(testing::random_data<TA>(rng, sa), random_chunks(rng, sa));
  auto b = ts::from_xtensor(testing::random_data<TB>(rng, sb), random_chunks(rng, sb));
  const auto ia = w.input(a), ib = w.input(b);
  w.add("matmul", ts::matmul(a, b), {ia, ib});
  // dot: a's last axis with b's second-to-last; shapes that align for it
  const ts::shape_t sd = rb == 1 ? ts::shape_t{k} : [&] {
    ts::shape_t t;
    for (int d = 0; d < rb - 2; ++d) t.push_back(1 + ts::index_t(rng() % 3));
    t.push_back(k);
    t.push_back(ts::index_t(rng() % 5));
    return t;
  }();
  auto d = ts::from_xtensor(testing::random_data<TB>(rng, sd), random_chunks(rng, sd));
  w.add("dot", ts::dot(a, d), {ia, w.input(d)});
}
}  // namespace

TEMPLATE_TEST_CASE("lazy matmul and dot agree with NumPy for 1-d, 2-d and batched operands",
                   "[linalg][matmul][numpy]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  // random_data: multiples of 1/8 below 10 (ints below 20): every sum is exact, so bitwise
  check_against_numpy(pol, 1124, 8, 0, [&](case_writer<TestType>& w, std::mt19937_64& rng) {
    for (int c = 0; c < 4; ++c) matmul_cases<double, double>(w, rng);
    matmul_cases<float, float>(w, rng);
    matmul_cases<float, double>(w, rng);
    matmul_cases<std::int32_t, std::int32_t>(w, rng);
    matmul_cases<std::int64_t, float>(w, rng);
  });
}

TEMPLATE_TEST_CASE("lazy matmul: chunks, laziness, integer wrapping and errors", "[linalg][matmul]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(112401);
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  const xt::xarray<double> ad = testing::random_data<double>(rng, {30, 20}), bd = testing::random_data<double>(rng, {20, 12});
  auto a = ts::from_xtensor(ad, {7, 6});
  auto b = ts::from_xtensor(bd, {5, 4});
  auto c = ts::matmul(a * 1.0, b);  // lazy: nothing evaluated yet
  CHECK(c.shape() == ts::shape_t{30, 12});
  CHECK(c.chunks()[0] == a.chunks()[0]);
  CHECK(c.chunks()[1] == b.chunks()[1]);
  const auto want = ts::compute(ts::matmul(a, b, pol), pol);  // the eager product
  CHECK(bitwise_equal_arrays(ts::compute(c, pol), want));
  // a consumer of the lazy product: reduced without holding it
  CHECK(ts::item(ts::sum(c), pol) == xt::sum(want)());
  CHECK(bitwise_equal_arrays(ts::compute(ts::sum(c, {1}), pol), ts::compute(ts::sum(ts::from_xtensor(want), {1}), pol)));
  // the eager product of other ranks goes through the lazy one
  auto v = ts::from_xtensor(xt::xarray<double>(xt::view(bd, xt::all(), 0)), {6});
  CHECK(bitwise_equal_arrays(ts::compute(ts::matmul(a, v, pol), pol), ts::compute(ts::matmul(a, v), pol)));
  // int8 wraps as NumPy's: 100 * 100 * 3 = 30000 -> 30000 mod 256 = 48
  auto i8 = ts::full<std::int8_t>({2, 3}, 100, {1, 2});
  auto p8 = ts::compute(ts::matmul(i8, ts::transpose(i8)), pol);
  static_assert(std::is_same_v<typename decltype(p8)::value_type, std::int8_t>);
  CHECK(bool(p8 == xt::xarray<std::int8_t>{{48, 48}, {48, 48}}));
  CHECK_THROWS_MATCHING(ts::matmul(a, a), ts::invalid_argument,
                        Catch::Contains("(30, 20) and (30, 20)") && Catch::Contains("20 != 30"));
  auto x3 = ts::zeros<double>({2, 4, 5}, {1, 2, 5}), y3 = ts::zeros<double>({3, 5, 4}, {1, 5, 2});
  CHECK_THROWS_MATCHING(ts::matmul(x3, y3), ts::invalid_argument, Catch::Contains("2 against 3"));
  CHECK_THROWS_MATCHING(ts::matmul(ts::zeros<double>(ts::shape_t{}), a), ts::invalid_argument, Catch::Contains("0-d"));
  // dot with a 0-d operand multiplies
  CHECK(bitwise_equal_arrays(ts::compute(ts::dot(ts::full<double>(ts::shape_t{}, 2.0), a), pol), xt::xarray<double>(2.0 * ad)));
}

TEMPLATE_TEST_CASE("svd_compressed: top singular values of a decaying spectrum",
                   "[linalg][svd_compressed]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(6006);
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  // A = U0 diag(0.6^i) V0' with random orthonormal U0 (m x r), V0 (n x r).
  const index_t m = 400, n = 60, r = 60, k = 6;
  auto orth = [&](index_t rows, index_t cols) {
    std::normal_distribution<double> N;
    std::vector<double> a(std::size_t(rows * cols)), rr;
    for (auto& v : a) v = N(rng);
    ts::linalg::detail::qr_in_place(rows, cols, a, rr);
    return a;  // column-major rows x cols
  };
  auto u0 = orth(m, r), v0 = orth(n, r);
  xt::xarray<double> d = xt::zeros<double>({std::size_t(m), std::size_t(n)});
  for (index_t q = 0; q < r; ++q) {
    const double sq = std::pow(0.6, double(q));
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) d(i, j) += sq * u0[q * m + i] * v0[q * n + j];
  }
  for (int tall = 0; tall < 2; ++tall) {
    xt::xarray<double> dd = tall ? d : xt::xarray<double>(xt::transpose(d));
    auto x = ts::from_xtensor(dd, tall ? ts::chunks_t{{100, 100, 100, 100}, {30, 30}}
                                       : ts::chunks_t{{60}, {150, 250}});
    auto res = ts::linalg::svd_compressed(x, k, pol, {.n_power_iter = 2, .seed = 42});
    auto s = ts::compute(res.s, pol);
    auto u = to_double(ts::compute(res.u, pol));
    auto vt = to_double(ts::compute(res.vt, pol));
    REQUIRE(s.size() == std::size_t(k));
    for (index_t i = 0; i < k; ++i) {
      INFO("tall " << tall << " s[" << i << "] = " << s(i) << " exact " << std::pow(0.6, i));
      CHECK(std::abs(s(i) - std::pow(0.6, double(i))) <= 1e-6);
    }
    CHECK(fro(xt::xarray<double>(mm(u, u, true) - eye(k))) <= 1e-12);
    CHECK(fro(xt::xarray<double>(mm(vt, vt, false, true) - eye(k))) <= 1e-12);
    // A v_i = s_i u_i
    auto av = mm(to_double(dd), vt, false, true);
    double e = 0;
    for (std::size_t i = 0; i < av.shape()[0]; ++i)
      for (index_t j = 0; j < k; ++j) e = std::max(e, std::abs(av(i, j) - s(j) * u(i, j)));
    CHECK(e <= 1e-6);
    // Same seed, same result; another seed, a different test matrix.
    auto again = ts::linalg::svd_compressed(x, k, pol, {.n_power_iter = 2, .seed = 42});
    auto s2 = ts::compute(again.s, pol);
    CHECK(std::equal(s.begin(), s.end(), s2.begin()));
    // The sketch's QR by CholeskyQR2 (automatic; without power iterations the sketch is well
    // conditioned) or forced Householder: bases of the same subspace, the same values up to
    // rounding
    ts::linalg::svd_compressed_options o0{.n_power_iter = 0, .seed = 7};
    auto sa = ts::compute(ts::linalg::svd_compressed(x, k, pol, o0).s, pol);
    o0.tsqr.method = ts::linalg::tsqr_method::householder;
    auto sh = ts::compute(ts::linalg::svd_compressed(x, k, pol, o0).s, pol);
    for (index_t i = 0; i < k; ++i) CHECK(std::abs(sa(i) - sh(i)) <= 1e-12);
  }
  {  // rows of a stored array read in place (whole-row chunks) or evaluated (a lazy x + 0):
     // the same products, the same bits
    auto xs = ts::from_xtensor(d, ts::chunks_t{{100, 100, 100, 100}, {60}});
    auto in_place = ts::compute(ts::linalg::svd_compressed(xs, k, pol, {.n_power_iter = 1, .seed = 3}).u, pol);
    auto evaluated = ts::compute(ts::linalg::svd_compressed(xs + 0.0, k, pol, {.n_power_iter = 1, .seed = 3}).u, pol);
    CHECK(std::equal(in_place.begin(), in_place.end(), evaluated.begin(), evaluated.end()));
  }
  auto x = ts::zeros<double>({50, 10}, {10, 10});
  CHECK_THROWS_AS(ts::linalg::svd_compressed(x, 11, pol), std::invalid_argument);
}

TEMPLATE_TEST_CASE("svd_compressed: every argument order gives the same bits",
                   "[linalg][svd_compressed]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(6007);
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  auto same_bits = [&](const auto& a, const auto& b) {
    auto sa = ts::compute(a.s, pol), sb = ts::compute(b.s, pol);
    auto ua = ts::compute(a.u, pol), ub = ts::compute(b.u, pol);
    auto va = ts::compute(a.vt, pol), vb = ts::compute(b.vt, pol);
    auto eq = [](const auto& x, const auto& y) {
      return x.shape() == y.shape() &&
             std::memcmp(x.data(), y.data(), x.size() * sizeof(*x.data())) == 0;
    };
    return eq(sa, sb) && eq(ua, ub) && eq(va, vb);
  };
  for (int tall = 0; tall < 2; ++tall) {
    INFO("tall " << tall);
    const ts::shape_t shape = tall ? ts::shape_t{120, 20} : ts::shape_t{20, 120};
    auto d = testing::random_data<double>(rng, shape);
    auto x = ts::from_xtensor(d, random_chunks(rng, shape));
    const ts::linalg::svd_compressed_options opt{.n_power_iter = 1, .seed = 9, .oversampling = 5};
    // The documented order (policy, then options) against the order kept for compatibility.
    CHECK(same_bits(ts::linalg::svd_compressed(x, 4, pol, opt),
                    ts::linalg::svd_compressed(x, 4, opt, pol)));
    CHECK(same_bits(ts::linalg::svd_compressed(x, 4, pol, {.n_power_iter = 1, .seed = 9}),
                    ts::linalg::svd_compressed(x, 4, {.n_power_iter = 1, .seed = 9}, pol)));
    // Default options: svd_compressed(a, k, pol) == svd_compressed(a, k, pol, {}).
    CHECK(same_bits(ts::linalg::svd_compressed(x, 4, pol),
                    ts::linalg::svd_compressed(x, 4, pol, ts::linalg::svd_compressed_options{})));
    CHECK(same_bits(ts::linalg::svd_compressed(x, 4, pol),
                    ts::linalg::svd_compressed(x, 4, {}, pol)));
    // No policy: the host.
    CHECK(same_bits(ts::linalg::svd_compressed(x, 4),
                    ts::linalg::svd_compressed(x, 4, ts::host{})));
    CHECK(same_bits(ts::linalg::svd_compressed(x, 4, opt),
                    ts::linalg::svd_compressed(x, 4, ts::host{}, opt)));
    // The comparison sees a different test matrix.
    CHECK_FALSE(same_bits(ts::linalg::svd_compressed(x, 4, pol, opt),
                          ts::linalg::svd_compressed(x, 4, pol, {.n_power_iter = 1, .seed = 10})));
  }
}

TEMPLATE_TEST_CASE("svd and svd_compressed name NaN and infinite input", "[linalg][svd][errors]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  // Was: the whole TSQR pass, then "LAPACK gesdd failed with info -5".
  for (double bad : {std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity()}) {
    INFO("bad value " << bad);
    for (int shape = 0; shape < 2; ++shape) {  // tall, and short-fat (through the transpose)
      xt::xarray<double> d = xt::ones<double>(shape == 0 ? std::vector<std::size_t>{60, 7}
                                                         : std::vector<std::size_t>{7, 60});
      for (std::size_t i = 0; i < d.size(); ++i) d.data()[i] = double((i * 37) % 11) - 5.0;
      d.data()[d.size() / 2] = bad;
      auto x = ts::from_xtensor(d, {20, 20});
      CHECK_THROWS_WITH(ts::linalg::svd(x, pol),
                        Catch::Contains("svd: the matrix has NaN or infinite values") &&
                            Catch::Contains("SVD did not converge"));
      CHECK_THROWS_WITH(ts::linalg::svd_compressed(x, 3, pol),
                        Catch::Contains("svd_compressed: the matrix has NaN or infinite values"));
    }
  }
  // A finite matrix is unaffected, and the failure left nothing behind: the next call works.
  xt::xarray<double> ok = xt::ones<double>({60, 7});
  ok(3, 4) = 2;
  auto r = ts::linalg::svd(ts::from_xtensor(ok, {20, 7}), pol);
  CHECK(std::isfinite(ts::compute(r.s)(0)));
}

TEMPLATE_TEST_CASE("solve, inv, cholesky, solve_triangular, lu, lstsq: identities on random matrices",
                   "[linalg][solve]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  namespace la = ts::linalg;
  const auto seed = test_seed(6107);
  std::mt19937_64 rng(seed);
  auto err = [](const xt::xarray<double>& a, const xt::xarray<double>& b) {
    return fro(xt::xarray<double>(a - b)) / std::max(1.0, fro(b));
  };
  for (int it = 0; it < test_iterations(8); ++it) {
    const index_t n = 1 + index_t(rng() % 30), k = 1 + index_t(rng() % 4);
    INFO("seed " << seed << " iteration " << it << " n " << n << " k " << k);
    // well conditioned: random + n I; symmetric positive definite: m m' + n I
    xt::xarray<double> m = testing::random_data<double>(rng, {n, n});
    xt::xarray<double> da = m + double(n) * 10 * eye(std::size_t(n));
    xt::xarray<double> spd = mm(m, m, false, true) + double(n) * eye(std::size_t(n));
    xt::xarray<double> db = testing::random_data<double>(rng, {n, k});
    auto a = ts::from_xtensor(da, random_chunks(rng, {n, n}));
    auto b = ts::from_xtensor(db, random_chunks(rng, {n, k}));
    auto x = la::solve(a, b, pol);
    CHECK(x.chunks()[0] == a.chunks()[0]);
    CHECK(err(mm(da, ts::compute(x)), db) < 1e-12);
    auto b1 = ts::view(b, ts::all(), 0);  // a 1-d right-hand side
    auto x1 = ts::compute(la::solve(a, b1, pol));
    CHECK(x1.dimension() == 1);
    CHECK(err(mm(da, xt::xarray<double>(xt::reshape_view(x1, {std::size_t(n), std::size_t(1)}))),
              xt::xarray<double>(xt::reshape_view(xt::xarray<double>(ts::compute(b1)), {std::size_t(n), std::size_t(1)}))) < 1e-12);
    CHECK(err(mm(da, ts::compute(la::inv(a, pol))), eye(std::size_t(n))) < 1e-12);
    auto s = ts::from_xtensor(spd, a.chunks());
    auto u = ts::compute(la::cholesky(s, false, pol)), l = ts::compute(la::cholesky(s, true, pol));
    CHECK(err(mm(u, u, true, false), spd) < 1e-13);
    CHECK(err(mm(l, l, false, true), spd) < 1e-13);
    CHECK(bool(xt::triu(u) == u));
    CHECK(bool(xt::tril(l) == l));
    auto y = ts::compute(la::solve_triangular(ts::from_xtensor(u, {3, 3}), b, false, pol));
    CHECK(err(mm(u, y), db) < 1e-12);
    auto z = ts::compute(la::solve_triangular(ts::from_xtensor(l, {3, 3}), b, true, pol));
    CHECK(err(mm(l, z), db) < 1e-12);
    auto [p, lo, up] = la::lu(a, pol);
    auto dp = ts::compute(p), dl = ts::compute(lo), du = ts::compute(up);
    CHECK(err(mm(dp, mm(dl, du)), da) < 1e-13);
    CHECK(bool(xt::triu(du) == du));
    for (index_t i = 0; i < n; ++i) CHECK(dl(std::size_t(i), std::size_t(i)) == 1.0);
    // lstsq of a tall system: the normal equations a' (a x - b) = 0 hold; residuals = |a x - b|^2
    const index_t rows = n + index_t(rng() % 40);
    xt::xarray<double> dt = testing::random_data<double>(rng, {rows, n}) + 0.1;
    xt::xarray<double> dy = testing::random_data<double>(rng, {rows, k});
    auto t = ts::from_xtensor(dt, random_chunks(rng, {rows, n}));
    auto yv = ts::from_xtensor(dy, random_chunks(rng, {rows, k}));
    auto fit = la::lstsq(t, yv, pol);
    auto dx = ts::compute(fit.x);
    xt::xarray<double> r = mm(dt, dx) - dy;
    CHECK(fro(mm(dt, r, true, false)) < 1e-9 * std::max(1.0, fro(dt) * fro(dy)));
    CHECK(fit.rank == n);
    if (rows > n) {
      auto res = ts::compute(fit.residuals);
      for (index_t j = 0; j < k; ++j) {
        double want = 0;
        for (index_t i = 0; i < rows; ++i) want += r(std::size_t(i), std::size_t(j)) * r(std::size_t(i), std::size_t(j));
        CHECK(std::abs(res(std::size_t(j)) - want) <= 1e-9 * std::max(1.0, want));
      }
    }
  }
  // errors name the value
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  auto sing = ts::from_xtensor(xt::xarray<double>{{1, 2}, {2, 4}});
  auto rhs = ts::from_xtensor(xt::xarray<double>{1, 1});
  CHECK_THAT(message([&] { (void)la::solve(sing, rhs, pol); }), Catch::Contains("singular (U[1, 1] is 0)"));
  CHECK_THAT(message([&] { (void)la::inv(sing, pol); }), Catch::Contains("singular"));
  CHECK_THAT(message([&] { (void)la::cholesky(ts::from_xtensor(xt::xarray<double>{{1, 2}, {2, 1}}), false, pol); }),
             Catch::Contains("leading minor of order 2"));
  CHECK_THAT(message([&] { (void)la::solve(ts::zeros<double>({2, 3}), rhs, pol); }), Catch::Contains("square 2-D matrix, got shape (2, 3)"));
  CHECK_THAT(message([&] { (void)la::solve(sing, ts::zeros<double>({3}), pol); }), Catch::Contains("b of shape (3,)"));
  CHECK_THAT(message([&] { (void)la::lstsq(ts::zeros<double>({2, 3}), rhs, pol); }), Catch::Contains("fewer rows than columns"));
}

TEMPLATE_TEST_CASE("norm: every ord against direct sums and the singular values", "[linalg][norm]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  namespace la = ts::linalg;
  const auto seed = test_seed(6211);
  std::mt19937_64 rng(seed);
  const double inf = std::numeric_limits<double>::infinity();
  for (int it = 0; it < test_iterations(6); ++it) {
    const index_t m = 1 + index_t(rng() % 20), n = 1 + index_t(rng() % 20);
    INFO("seed " << seed << " iteration " << it << " shape " << m << " x " << n);
    xt::xarray<double> d = testing::random_data<double>(rng, {m, n});
    auto a = ts::from_xtensor(d, random_chunks(rng, {m, n}));
    auto one = [&](auto v) { return ts::compute(v)(); };
    auto close = [](double x, double y) { return std::abs(x - y) <= 1e-12 * std::max(1.0, std::abs(y)); };
    xt::xarray<double> ad = xt::abs(d);
    CHECK(close(one(la::norm(a, {}, {}, false, pol)), fro(d)));
    CHECK(close(one(la::norm(a, "fro", {}, false, pol)), fro(d)));
    CHECK(close(one(la::norm(a, 1, {}, false, pol)), xt::amax(xt::sum(ad, {0}))()));
    CHECK(close(one(la::norm(a, -1, {}, false, pol)), xt::amin(xt::sum(ad, {0}))()));
    CHECK(close(one(la::norm(a, inf, {}, false, pol)), xt::amax(xt::sum(ad, {1}))()));
    CHECK(close(one(la::norm(a, -inf, {}, false, pol)), xt::amin(xt::sum(ad, {1}))()));
    auto sv = lapack_s(d);
    double nuc = 0;
    for (double v : sv) nuc += v;
    CHECK(close(one(la::norm(a, 2, {}, false, pol)), sv.front()));
    CHECK(close(one(la::norm(a, -2, {}, false, pol)), sv.back()));
    CHECK(close(one(la::norm(a, "nuc", {}, false, pol)), nuc));
    // vector norms along an axis, and keepdims
    auto v1 = ts::compute(la::norm(a, 3, {1}, false, pol));
    auto v0 = ts::compute(la::norm(a, 0, {0}, true, pol));
    CHECK(v1.shape()[0] == std::size_t(m));
    CHECK(v0.shape() == std::vector<std::size_t>{1, std::size_t(n)});
    for (index_t i = 0; i < m; ++i) {
      double s = 0;
      for (index_t j = 0; j < n; ++j) s += std::pow(std::abs(d(std::size_t(i), std::size_t(j))), 3.0);
      CHECK(std::abs(v1(std::size_t(i)) - std::cbrt(s)) <= 1e-12 * std::max(1.0, std::cbrt(s)));
    }
    for (index_t j = 0; j < n; ++j) {
      double c = 0;
      for (index_t i = 0; i < m; ++i) c += d(std::size_t(i), std::size_t(j)) != 0;
      CHECK(v0(0, std::size_t(j)) == c);
    }
    CHECK(close(one(la::norm(ts::ravel(a), inf, {}, false, pol)), xt::amax(ad)()));
  }
  CHECK_THROWS_AS(la::norm(ts::zeros<double>({2, 2}), "spectral"), std::invalid_argument);
  CHECK_THROWS_AS(la::norm(ts::zeros<double>({2, 2, 2}), 1), std::invalid_argument);
  CHECK_THROWS_AS(la::norm(ts::zeros<double>({2, 2}), 3), std::invalid_argument);
}

namespace {
/// NumPy's cov of rows-as-variables x (v x n), computed directly in double.
xt::xarray<double> dense_cov(const xt::xarray<double>& x, ts::index_t ddof) {
  const std::size_t v = x.shape()[0], n = x.shape()[1];
  xt::xarray<double> c = xt::zeros<double>({v, v});
  std::vector<double> mean(v, 0.0);
  for (std::size_t i = 0; i < v; ++i) {
    for (std::size_t k = 0; k < n; ++k) mean[i] += x(i, k);
    mean[i] /= double(n);
  }
  for (std::size_t i = 0; i < v; ++i)
    for (std::size_t j = 0; j < v; ++j) {
      double s = 0;
      for (std::size_t k = 0; k < n; ++k) s += (x(i, k) - mean[i]) * (x(j, k) - mean[j]);
      c(i, j) = s * (1.0 / double(ts::index_t(n) - ddof));
    }
  return c;
}
bool near(const xt::xarray<double>& a, const xt::xarray<double>& b) {
  if (a.shape() != b.shape()) return false;
  double scale = 1e-300;
  for (double v : b) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(std::abs(a.flat(i) - b.flat(i)) <= 1e-12 * scale)) return false;
  return true;
}
}  // namespace

TEMPLATE_TEST_CASE("cov and corrcoef match NumPy's definitions", "[linalg][cov]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(61125);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(10); ++it) {
    const ts::index_t v = 1 + ts::index_t(rng() % 6), n = 2 + ts::index_t(rng() % 30);
    const ts::index_t ddof = ts::index_t(rng() % 2);
    const bool rowvar = rng() % 2;
    const xt::xarray<double> rows = testing::random_data<double>(rng, {v, n});
    const xt::xarray<double> m = rowvar ? rows : xt::xarray<double>(xt::transpose(rows));
    const std::vector<std::size_t> ms(m.shape().begin(), m.shape().end());
    auto x = ts::from_xtensor(m, random_chunks(rng, {ts::index_t(ms[0]), ts::index_t(ms[1])}));
    INFO("seed " << seed << " iteration " << it << " vars " << v << " obs " << n << " rowvar " << rowvar
                 << " ddof " << ddof << " chunks " << describe(x.chunks()));
    xt::xarray<double> ref = dense_cov(rows, ddof);
    const auto c = ts::compute(ts::cov(x, {.rowvar = rowvar, .ddof = ddof}, pol), pol);
    if (v == 1) ref = xt::xarray<double>(ref(0, 0));  // NumPy squeezes one variable to 0-d
    CHECK(near(c, ref));
    // corrcoef: cov / (s_i s_j), clipped; the diagonal is 1
    const auto r = ts::compute(ts::corrcoef(x, {.rowvar = rowvar}, pol), pol);
    if (v > 1) {
      const xt::xarray<double> full = dense_cov(rows, 1);
      for (std::size_t i = 0; i < std::size_t(v); ++i)
        for (std::size_t j = 0; j < std::size_t(v); ++j) {
          const double want = std::clamp(full(i, j) / std::sqrt(full(i, i)) / std::sqrt(full(j, j)), -1.0, 1.0);
          CHECK(((std::isnan(want) && std::isnan(r(i, j))) || std::abs(r(i, j) - want) <= 1e-12));
        }
    }
    // cov(m, y): the variables of both
    if (rowvar) {
      const xt::xarray<double> yd = testing::random_data<double>(rng, {2, n});
      auto y = ts::from_xtensor(yd, random_chunks(rng, {2, n}));
      const xt::xarray<double> both = xt::concatenate(xt::xtuple(rows, yd), 0);
      CHECK(near(ts::compute(ts::cov(x, y, {.ddof = ddof}, pol), pol), dense_cov(both, ddof)));
    }
  }
  // a 1-d input is one variable
  auto one = ts::from_xtensor(xt::xarray<double>{1, 2, 4}, {2});
  CHECK(ts::cov(one, {}, pol).item(pol) == Approx(7.0 / 3.0));
  CHECK_THROWS_MATCHING(ts::cov(ts::zeros<double>({2, 2, 2}), {}, pol), ts::invalid_argument,
                        Catch::Contains("cov: m has shape (2, 2, 2)"));
  CHECK_THROWS_MATCHING(ts::cov(ts::zeros<double>({2, 3}), ts::zeros<double>({2, 4}), {}, pol),
                        ts::invalid_argument, Catch::Contains("3 observations but y has 4"));
}

namespace {
/// tensordot by its definition: every output element a sum over the contracted indices.
xt::xarray<double> dense_tensordot(const xt::xarray<double>& a, const xt::xarray<double>& b,
                                   const std::vector<int>& ca, const std::vector<int>& cb) {
  std::vector<int> fa, fb;
  for (int d = 0; d < int(a.dimension()); ++d)
    if (std::find(ca.begin(), ca.end(), d) == ca.end()) fa.push_back(d);
  for (int d = 0; d < int(b.dimension()); ++d)
    if (std::find(cb.begin(), cb.end(), d) == cb.end()) fb.push_back(d);
  std::vector<std::size_t> oshape, kshape;
  for (int d : fa) oshape.push_back(a.shape()[std::size_t(d)]);
  for (int d : fb) oshape.push_back(b.shape()[std::size_t(d)]);
  for (int d : ca) kshape.push_back(a.shape()[std::size_t(d)]);
  xt::xarray<double> out = xt::zeros<double>(oshape);
  std::size_t kn = 1;
  for (auto k : kshape) kn *= k;
  std::vector<std::size_t> ia(a.dimension()), ib(b.dimension());
  for (std::size_t o = 0; o < out.size(); ++o) {
    std::size_t r = o;
    for (std::size_t q = oshape.size(); q-- > 0;) {
      const std::size_t v = r % oshape[q];
      r /= oshape[q];
      if (q < fa.size()) ia[std::size_t(fa[q])] = v;
      else ib[std::size_t(fb[q - fa.size()])] = v;
    }
    double s = 0;
    for (std::size_t k = 0; k < kn; ++k) {
      std::size_t rk = k;
      for (std::size_t q = kshape.size(); q-- > 0;) {
        ia[std::size_t(ca[q])] = ib[std::size_t(cb[q])] = rk % kshape[q];
        rk /= kshape[q];
      }
      s += a.element(ia.begin(), ia.end()) * b.element(ib.begin(), ib.end());
    }
    out.flat(o) = s;
  }
  return out;
}
}  // namespace

TEMPLATE_TEST_CASE("tensordot matches its definition for random axes and chunkings", "[linalg][tensordot]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(81125);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(12); ++it) {
    // a of rank 1-3, b of rank 1-3, 0-2 contracted pairs of equal lengths
    const int ra = 1 + int(rng() % 3), rb = 1 + int(rng() % 3);
    const int nc = int(rng() % std::size_t(std::min(ra, rb) + 1));
    ts::shape_t sa(static_cast<std::size_t>(ra)), sb(static_cast<std::size_t>(rb));
    for (auto& n : sa) n = 1 + ts::index_t(rng() % 5);
    for (auto& n : sb) n = 1 + ts::index_t(rng() % 5);
    std::vector<int> pa(static_cast<std::size_t>(ra)), pb(static_cast<std::size_t>(rb));
    std::iota(pa.begin(), pa.end(), 0);
    std::iota(pb.begin(), pb.end(), 0);
    std::shuffle(pa.begin(), pa.end(), rng);
    std::shuffle(pb.begin(), pb.end(), rng);
    std::vector<int> ca(pa.begin(), pa.begin() + nc), cb(pb.begin(), pb.begin() + nc);
    for (int k = 0; k < nc; ++k) sb[std::size_t(cb[std::size_t(k)])] = sa[std::size_t(ca[std::size_t(k)])];
    const xt::xarray<double> ad = testing::random_data<double>(rng, sa), bd = testing::random_data<double>(rng, sb);
    auto a = ts::from_xtensor(ad, random_chunks(rng, sa));
    auto b = ts::from_xtensor(bd, random_chunks(rng, sb));
    std::vector<ts::index_t> xa, xb;
    for (int k = 0; k < nc; ++k) {
      xa.push_back(rng() % 2 ? ca[std::size_t(k)] : ca[std::size_t(k)] - ra);
      xb.push_back(cb[std::size_t(k)]);
    }
    INFO("seed " << seed << " iteration " << it << " a " << describe(sa) << " chunks " << describe(a.chunks())
                 << " b " << describe(sb) << " chunks " << describe(b.chunks()) << " axes " << describe(xa)
                 << " " << describe(xb));
    const auto got = ts::compute(ts::tensordot(a, b, xa, xb, pol), pol);
    CHECK(near(got, dense_tensordot(ad, bd, ca, cb)));  // sums of multiples of 1/64: exact
    CHECK(bitwise_equal_arrays(ts::compute(ts::tensordot(a, b, xa, xb), pol), got));  // lazy: the same sums
  }
  // axes = n: the last n of a with the first n of b
  const xt::xarray<double> ad = testing::random_data<double>(rng, {3, 4, 5}), bd = testing::random_data<double>(rng, {4, 5, 2});
  auto a = ts::from_xtensor(ad, {2, 3, 2});
  auto b = ts::from_xtensor(bd, {3, 2, 1});
  CHECK(near(ts::compute(ts::tensordot(a, b, 2, pol), pol), dense_tensordot(ad, bd, {1, 2}, {0, 1})));
  CHECK(near(ts::compute(ts::tensordot(a, b), pol), dense_tensordot(ad, bd, {1, 2}, {0, 1})));
  CHECK_THROWS_MATCHING(ts::tensordot(a, b, std::vector<ts::index_t>{0}, std::vector<ts::index_t>{0}, pol),
                        ts::invalid_argument, Catch::Contains("a's axis 0 has length 3, b's axis 0 has 4"));
  CHECK_THROWS_MATCHING(ts::tensordot(a, b, 4, pol), ts::invalid_argument, Catch::Contains("axes = 4"));
}
