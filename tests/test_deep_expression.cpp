// Deep expressions compile with the compiler's default flags (issue 18, item 3): 256 chained
// binary operations, as a loop-minded Dask user writes them, built in one statement and then
// computed, reduced, described and persisted. This test is mostly its own build: before the
// flat nodes (nodes/elementwise.hpp with core/pack.hpp and core/shared_value.hpp), 90 chained
// additions exceeded g++'s default template depth of 900, and 200 needed -ftemplate-depth=8000,
// 90 s and 1.95 GB. Its build time and memory are recorded in docs/reliability.md, not timed
// here.
#include <random>
#include <sstream>

#include "support/cases.hpp"
#include "support/deep_chain.hpp"

namespace ts = tessera;

TEST_CASE("deep expressions: 256 chained additions compute", "[deep]") {
  const std::uint64_t seed = testing::test_seed(std::random_device{}());
  INFO("TESSERA_TEST_SEED=" << seed);
  std::mt19937_64 rng(seed);
  const xt::xarray<double> dense = testing::small_integer_matrix(rng);
  const auto x = testing::randomly_chunked(rng, dense);
  const auto e = x TESSERA_CHAIN256(+, x);  // 256 additions: 257 * x
  CHECK(ts::task_count(e) == x.grid().block_count());
  CHECK(bool(ts::compute(e) == 257.0 * dense));
}
