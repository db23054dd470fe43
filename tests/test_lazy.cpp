// ts::lazy<T> (lazy.hpp): expressions built at run time. Loops that reassign one variable,
// pipelines chosen from a run-time list, lazies inside views, joins, reductions, persist and
// random arrays, against a dense xtensor reference on random shapes and chunkings (bitwise
// where the operations round the same), and against the same expression without erasure.
// Instantiated per backend (tests/cuda/test_backend_lazy.cu builds the pieces with nvcc).
#define TESSERA_NO_DISPATCH 1  // one kernel copy per expression: dispatch is tested elsewhere
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include <tessera/lazy.hpp>

#include <atomic>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include "support/backends.hpp"
#include "support/cases.hpp"

namespace ts = tessera;
using namespace testing;

namespace {

/// One step of a run-time pipeline, applied to a lazy and to its dense reference alike.
enum class step { add_y, times_half, minus_x, negate, abs, square, min_y };

const char* step_name(step s) {
  switch (s) {
    case step::add_y: return "acc + y";
    case step::times_half: return "acc * 0.5";
    case step::minus_x: return "acc - x";
    case step::negate: return "-acc";
    case step::abs: return "abs(acc)";
    case step::square: return "acc * acc";
    case step::min_y: return "minimum(acc, y)";
  }
  return "?";
}

template <class L, class X>
L apply(step s, const L& acc, const X& x, const X& y) {
  switch (s) {
    case step::add_y: return acc + y;
    case step::times_half: return acc * 0.5;
    case step::minus_x: return acc - x;
    case step::negate: return -acc;
    case step::abs: return ts::abs(acc);
    case step::square: return acc * acc;
    case step::min_y: return ts::minimum(acc, y);
  }
  return acc;
}

xt::xarray<double> apply_dense(step s, const xt::xarray<double>& acc, const xt::xarray<double>& x,
                               const xt::xarray<double>& y) {
  switch (s) {
    case step::add_y: return acc + y;
    case step::times_half: return acc * 0.5;
    case step::minus_x: return acc - x;
    case step::negate: return -acc;
    case step::abs: return xt::abs(acc);
    case step::square: return acc * acc;
    case step::min_y: return xt::minimum(acc, y);
  }
  return acc;
}

/// Same shape and values within 1e-12 relative (a multiply-add may be fused on one side).
bool close(const xt::xarray<double>& a, const xt::xarray<double>& b) {
  if (a.shape() != b.shape()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(std::abs(a.flat(i) - b.flat(i)) <= 1e-12 * (1 + std::abs(b.flat(i))))) return false;
  return true;
}

}  // namespace

TEMPLATE_TEST_CASE("lazy: a pipeline chosen at run time equals its dense reference bitwise",
                   "[lazy]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(20261124);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(12); ++it) {
    const auto shape = random_shape(rng, 0, 3, 9);
    const auto xd = testing::random_data<double>(rng, shape), yd = testing::random_data<double>(rng, shape);
    auto x = ts::from_xtensor(xd, random_chunks(rng, shape));
    auto y = ts::from_xtensor(yd, random_chunks(rng, shape));
    // up to 40 steps: past the nesting levels that evaluate into scratch (every 16th)
    const int n = int(rng() % 41);
    std::vector<step> steps;
    std::string trace;
    for (int i = 0; i < n; ++i) {
      steps.push_back(step(rng() % 7));
      trace += std::string(" ; ") + step_name(steps.back());
    }
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape) << " x chunks "
                 << describe(x.chunks()) << " steps:" << trace);
    ts::lazy<double> acc = x;
    xt::xarray<double> ref = xd;
    for (step s : steps) {
      acc = apply(s, acc, x, y);
      ref = apply_dense(s, ref, xd, yd);
    }
    CHECK(acc.depth() == n + 1);
    CHECK(acc.shape() == shape);
    CHECK(bitwise_equal_arrays(ts::compute(acc, pol), ref));
    // rechunked and persisted, the same values
    auto c = random_chunks(rng, shape);
    CHECK(bitwise_equal_arrays(ts::compute(ts::rechunk(acc, c), pol), ref));
    CHECK(bitwise_equal_arrays(ts::compute(ts::persist(acc, pol), pol), ref));
    // a lazy holding a reduction: max is exact, so bitwise too
    if (!ref.size()) continue;
    ts::lazy<double> centred = acc - ts::amax(acc);
    CHECK(bitwise_equal_arrays(ts::compute(centred, pol), xt::xarray<double>(ref - xt::amax(ref)())));
  }
}

TEMPLATE_TEST_CASE("lazy: views, joins, reductions and random arrays over erased pieces",
                   "[lazy]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(1124);
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  const ts::index_t m = 6 + ts::index_t(rng() % 20), n = 6 + ts::index_t(rng() % 30);
  const xt::xarray<double> xd = testing::random_data<double>(rng, {m, n});
  auto x = ts::from_xtensor(xd, random_chunks(rng, {m, n}));
  INFO("shape " << m << " x " << n << " chunks " << describe(x.chunks()));

  // a loop of 20 steps against the fused (unerased) expression of the same steps
  ts::lazy<double> acc = x;
  auto fused = x * 1.0;
  for (int i = 0; i < 20; ++i) acc = acc * 0.75 + x;
  const auto reference = ts::compute(
      (((((((((((((((((((fused * 0.75 + x) * 0.75 + x) * 0.75 + x) * 0.75 + x) * 0.75 + x) *
                        0.75 + x) * 0.75 + x) * 0.75 + x) * 0.75 + x) * 0.75 + x) * 0.75 + x) *
                   0.75 + x) * 0.75 + x) * 0.75 + x) * 0.75 + x) * 0.75 + x) * 0.75 + x) * 0.75 +
         x) * 0.75 + x) * 0.75 + x,
      pol);
  const auto dense = ts::compute(acc, pol);
  REQUIRE(bitwise_equal_arrays(dense, reference));

  // a strided view binds only the selected box of the pieces
  auto v = ts::view(acc, ts::range(1, m, 2), ts::range(n - 1, 0, -3));
  CHECK(bitwise_equal_arrays(ts::compute(v, pol),
                             xt::xarray<double>(xt::view(dense, xt::range(1, m, 2),
                                                         xt::range(n - 1, 0, -3)))));
  // transposed, joined with itself, padded: boxes spanning pieces of the joins
  CHECK(bitwise_equal_arrays(ts::compute(ts::transpose(acc), pol),
                             xt::xarray<double>(xt::transpose(dense))));
  auto j = ts::concatenate(std::vector<ts::lazy<double>>{acc, ts::lazy<double>(x)}, 0);
  CHECK(bitwise_equal_arrays(ts::compute(ts::rechunk(j, {5, 7}), pol),
                             xt::xarray<double>(xt::concatenate(xt::xtuple(dense, xd), 0))));
  // reductions over a lazy, and lazies of reductions: exact ones bitwise
  CHECK(ts::item(ts::amax(acc), pol) == xt::amax(dense)());
  CHECK(bitwise_equal_arrays(ts::compute(ts::lazy<double>(ts::amin(acc, {0})), pol),
                             xt::xarray<double>(xt::amin(dense, {0}))));
  CHECK(ts::item(ts::sum(acc), pol) == Approx(xt::sum(dense)()).epsilon(1e-12));
  // the stages and tasks of an erased reduction are those of the same expression unerased
  auto unerased = x - ts::mean(x, {1}, ts::keepdims);
  ts::lazy<double> erased = unerased;
  CHECK(ts::stage_count(erased) == ts::stage_count(unerased));
  CHECK(ts::task_count(erased) == ts::task_count(unerased));
  CHECK(bitwise_equal_arrays(ts::compute(erased, pol), ts::compute(unerased, pol)));

  // random arrays: an erased generator gives the generator's values, any slice of them
  ts::random::generator g(seed);
  auto normals = g.normal<double>(2.0, 3.0, {m, n}, {4, 5});
  ts::lazy<double> ln = normals;
  CHECK(bitwise_equal_arrays(ts::compute(ts::view(ln, ts::range(0, m, 2), ts::range(1, n, 3)), pol),
                             ts::compute(ts::view(normals, ts::range(0, m, 2), ts::range(1, n, 3)), pol)));

  // element types: the same type converts implicitly (CTAD too), another only explicitly
  ts::lazy deduced = x + 1;
  STATIC_REQUIRE(std::is_same_v<decltype(deduced), ts::lazy<double>>);
  STATIC_REQUIRE(!std::is_convertible_v<decltype(x), ts::lazy<float>>);
  auto ints = ts::arange<std::int32_t>(0, 10, 1, {3});
  ts::lazy<double> widened(ints);
  CHECK(bitwise_equal_arrays(ts::compute(widened / 4, pol), xt::xarray<double>(xt::arange<double>(10) / 4)));
}

TEMPLATE_TEST_CASE("lazy: a deep time loop and the empty lazy", "[lazy]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  // 200 nested pieces (the stack stays bounded: every 16th level evaluates into scratch)
  auto u0 = ts::linspace<double>(0.0, 1.0, 64, {16});
  ts::lazy<double> u = u0;
  xt::xarray<double> ref = ts::compute(u0);
  for (int i = 0; i < 200; ++i) {
    u = u + 0.01 * (ts::roll(u, 1, 0) - u);
    ref = ref + 0.01 * (xt::roll(ref, 1, 0) - ref);
    if (i % 5 == 4) {  // persist now and then: each step reads u at a shifted box (the roll) too
      u = ts::persist(u, pol);
      REQUIRE(close(ts::compute(u, pol), ref));
    }
  }
  CHECK(close(ts::compute(u, pol), ref));
  ts::lazy<double> chain = u0;
  xt::xarray<double> chain_ref = ts::compute(u0);
  for (int i = 0; i < 200; ++i) {
    chain = chain + 1.0;
    chain_ref = chain_ref + 1.0;
  }
  CHECK(chain.depth() == 201);
  CHECK(bitwise_equal_arrays(ts::compute(chain, pol), chain_ref));

  ts::lazy<double> empty;
  CHECK(empty.empty());
  CHECK(empty.depth() == 0);
  CHECK_THROWS_WITH(empty + 1, Catch::Contains("ts::lazy<T> is empty"));
  CHECK_THROWS_WITH(ts::compute(empty, pol), Catch::Contains("assign an expression"));
}

TEMPLATE_TEST_CASE("lazy: a piece read twice per step is evaluated once per task, not 2^n times",
                   "[lazy]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(112403);
  std::mt19937_64 rng(seed);
  const xt::xarray<double> xd = testing::random_data<double>(rng, {12, 9});
  auto x = ts::from_xtensor(xd, {4, 3});  // 9 blocks
  INFO("seed " << seed);
  // a block function that counts its calls, inside a piece every step reads twice
  std::atomic<int> calls{0};
  ts::lazy<double> acc = ts::map_blocks([&calls](const auto& b) {
    ++calls;
    return xt::xarray<double>(b * 2.0);
  }, x);
  xt::xarray<double> ref = xd * 2.0;
  for (int i = 0; i < 40; ++i) {  // 2^40 evaluations of the first piece without sharing
    acc = acc + acc * 0.5;
    ref = ref + ref * 0.5;
  }
  CHECK(bitwise_equal_arrays(ts::compute(acc, pol), ref));
  CHECK(calls == 9);  // once per block: lowered once, evaluated once per task
  calls = 0;
  CHECK(ts::sum(acc).item(pol) == ts::sum(ts::from_xtensor(ref, {4, 3})).item(pol));
  CHECK(calls == 9);
  // a piece holding a reduction (a stage), read twice per step: the stage runs once per pass
  ts::lazy<double> c = x - ts::amax(x);
  xt::xarray<double> cref = xd - xt::amax(xd)();
  for (int i = 0; i < 30; ++i) {
    c = c * 0.5 + c;
    cref = cref * 0.5 + cref;
  }
  CHECK(bitwise_equal_arrays(ts::compute(c, pol), cref));
  // a shared piece read at different boxes (a roll) and at the same box
  ts::lazy<double> u = x;
  xt::xarray<double> uref = xd;
  for (int i = 0; i < 12; ++i) {
    u = u + 0.25 * (ts::roll(u, 1, 1) - u);
    uref = uref + 0.25 * (xt::roll(uref, 1, 1) - uref);
  }
  CHECK(bitwise_equal_arrays(ts::compute(u, pol), uref));
}

TEST_CASE("lazy: the placement probe counts a shared piece once per box, not 2^n times",
          "[lazy][placement]") {
  // ts::cuda (and ts::mpi over several ranks) probe each task's inputs before running it; a
  // shared piece's inputs count once, as it is evaluated once. Without that, 20 steps would
  // count block 0's 12 elements 2^20 times (and 40 steps would not finish: seen on an H200).
  const xt::xarray<double> xd = xt::ones<double>({12, 9});
  auto x = ts::from_xtensor(xd, {4, 3});
  ts::lazy<double> acc = x;
  for (int i = 0; i < 20; ++i) acc = acc + acc * 0.5;
  ts::detail::placement_probe p;
  (void)acc.bind(x.grid().block_box(0), p);
  CHECK(p.bytes_in(ts::memory_space::on_host()) == 12 * 8);
  // a roll reads the shared piece at two boxes: each counted once
  ts::lazy<double> u = x;
  for (int i = 0; i < 20; ++i) u = u + 0.25 * (ts::roll(u, 1, 1) - u);
  ts::detail::placement_probe q;
  (void)u.bind(x.grid().block_box(0), q);
  CHECK(q.bytes_in(ts::memory_space::on_host()) > 0);
  CHECK(q.bytes_in(ts::memory_space::on_host()) <= 20 * 2 * 12 * 8);
}

TEMPLATE_TEST_CASE("lazy: a lazy holding a reduction is lowered inside every node above it",
                   "[lazy]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(2411);
  std::mt19937_64 rng(seed);
  const ts::index_t m = 3 + ts::index_t(rng() % 9), n = 3 + ts::index_t(rng() % 9);
  const xt::xarray<double> xd = testing::random_data<double>(rng, {m, n});
  auto x = ts::from_xtensor(xd, random_chunks(rng, {m, n}));
  INFO("seed " << seed << " shape " << m << " x " << n << " chunks " << describe(x.chunks()));
  // a lazy whose piece runs a stage (max), used under nodes that keep themselves when their
  // operands lower to their own types: elementwise, rechunk, views, transposes, joins,
  // reductions, a lazy of a lazy
  ts::lazy<double> c = x - ts::amax(x);
  const xt::xarray<double> cd = xd - xt::amax(xd)();
  CHECK(bitwise_equal_arrays(ts::compute((c + 1.0) * 2.0, pol), xt::xarray<double>((cd + 1.0) * 2.0)));
  CHECK(bitwise_equal_arrays(ts::compute(ts::rechunk(c, random_chunks(rng, {m, n})), pol), cd));
  CHECK(bitwise_equal_arrays(ts::compute(ts::view(c, ts::range(1, m), ts::range(0, n, 2)), pol),
                             xt::xarray<double>(xt::view(cd, xt::range(1, m), xt::range(0, n, 2)))));
  CHECK(bitwise_equal_arrays(ts::compute(ts::transpose(c), pol), xt::xarray<double>(xt::transpose(cd))));
  CHECK(bitwise_equal_arrays(ts::compute(ts::concatenate(std::vector<ts::lazy<double>>{c, c}, 0), pol),
                             xt::xarray<double>(xt::concatenate(xt::xtuple(cd, cd), 0))));
  CHECK(ts::amin(c).item(pol) == xt::amin(cd)());
  ts::lazy<double> d = c * 2.0;  // a piece over a piece with a stage
  CHECK(bitwise_equal_arrays(ts::compute(d - 1.0, pol), xt::xarray<double>(cd * 2.0 - 1.0)));
  CHECK(ts::stage_count(d - 1.0) == 2);  // max inside, and the result's own
}
