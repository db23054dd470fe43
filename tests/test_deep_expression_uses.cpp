// Deep expressions (issue 18, item 3) used every other way: reduced, persisted, described,
// and a chain that mixes a broadcast row and scalars. tests/test_deep_expression.cpp is the
// compile-budget test (one chain, computed); this one checks the rest works at depth 256.
#include <random>
#include <sstream>

#include "support/cases.hpp"
#include "support/deep_chain.hpp"

namespace ts = tessera;

TEST_CASE("deep expressions: a 256-addition chain reduced, persisted, described", "[deep]") {
  const std::uint64_t seed = testing::test_seed(std::random_device{}());
  INFO("TESSERA_TEST_SEED=" << seed);
  std::mt19937_64 rng(seed);
  const xt::xarray<double> dense = testing::small_integer_matrix(rng);
  const auto x = testing::randomly_chunked(rng, dense);
  const auto e = x TESSERA_CHAIN256(+, x);
  const xt::xarray<double> expect = 257.0 * dense;
  const double total = xt::sum(expect)();
  const xt::xarray<double> column_max = xt::amax(expect, {0});
  CHECK(ts::sum(e).item() == total);
  CHECK(bool(ts::compute(ts::amax(e, 0)) == column_max));
  CHECK(bool(ts::compute(ts::persist(e, ts::host{.threads = 1})) == expect));
  std::ostringstream os;
  os << e;
  CHECK_THAT(os.str(), Catch::Matchers::Contains("add"));
  CHECK_THAT(os.str(), Catch::Matchers::Contains("float64"));
}

TEST_CASE("deep expressions: 256 mixed operations with a broadcast row and scalars", "[deep]") {
  xt::xarray<double> dense = xt::zeros<double>({std::size_t(9), std::size_t(11)});
  for (std::size_t i = 0; i < dense.size(); ++i) dense.flat(i) = double(i % 13) - 6;
  xt::xarray<double> row = xt::zeros<double>({std::size_t(11)});
  for (std::size_t i = 0; i < row.size(); ++i) row(i) = double(i % 5) - 2;
  const auto x = ts::from_xtensor(dense, {4, 3});
  const auto r = ts::from_xtensor(row, {5});
  // x + r - 1.0 + r - 1.0 ...: 256 left-nested operations, 128 with the row, 128 with a scalar.
  const auto e = x TESSERA_CHAIN64(+ r -, 1.0) TESSERA_CHAIN64(+ r -, 1.0);
  const xt::xarray<double> expect = dense + 128.0 * row - 128.0;
  CHECK(bool(ts::compute(e) == expect));
}
