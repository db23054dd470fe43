// What only ts::mpi shows, run by ctest under mpirun -n 1, 2 and 3: results bitwise identical to
// one process (ts::host) on random shapes and chunkings, persisted chunks that stay on their
// owners with only the needed boxes fetched, random arrays with no communication, compute to
// a root, a failing chunk task that reaches every rank as ts::rank_failure, and QR / SVD by
// TSQR across ranks (bitwise identical to one process, Q and U distributed by rows).
#include <tessera/linalg_mpi.hpp>

#include <catch2/catch.hpp>

#include "support/cases.hpp"
#include "support/stores.hpp"

namespace ts = tessera;
using namespace ts::placeholders;
using testing::bitwise_equal_arrays;
using testing::test_seed;

namespace {

const ts::mpi<ts::host> world{.local = ts::host{1}};

/// The same value on every rank?
bool same_on_all_ranks(std::int64_t v) {
  std::int64_t lo = v, hi = v;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}
std::int64_t sum_over_ranks(std::int64_t v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return v;
}

/// x under ts::mpi (1 and 3 threads per rank) against `host_x` (x, or the same expression
/// without distributed arrays) on one process.
template <class X, class H>
void check_same_bits(const X& x, const H& host_x, const std::string& what) {
  INFO(what << " on " << world.size() << " ranks");
  auto one = ts::compute(host_x, ts::host{1});
  auto many = ts::compute(x, world);
  CHECK(bitwise_equal_arrays(many, one));
  auto threads = ts::compute(x, ts::mpi<ts::host>{.local = ts::host{3}});
  CHECK(bitwise_equal_arrays(threads, one));
}
template <class X>
void check_same_bits(const X& x, const std::string& what) {
  check_same_bits(x, x, what);
}

}  // namespace

TEST_CASE("ts::mpi results are bitwise identical to one process", "[mpi][determinism]") {
  const auto seed = test_seed(2026);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < testing::test_iterations(12); ++it) {
    ts::shape_t shape = testing::random_shape(rng, 1, 3, 40);
    for (auto& s : shape) s = std::max<ts::index_t>(s, 1);  // (argmax has no identity)
    const ts::chunks_t ca = testing::random_chunks(rng, shape), cb = testing::random_chunks(rng, shape);
    INFO("iteration " << it << " shape " << testing::describe(shape) << " chunks " << testing::describe(ca)
                      << " and " << testing::describe(cb));
    auto a = ts::from_xtensor(testing::random_data<double>(rng, shape), ca);
    auto g = ts::random::default_rng(seed + std::uint64_t(it)).standard_normal<double>(shape, cb);
    auto e = ts::sin(a) * 2.0 + g;  // two chunkings: the task boxes are a's
    const int r = int(shape.size());
    check_same_bits(e, "elementwise");
    check_same_bits(ts::view(e, ts::range(_, _, 2)), "strided view");
    check_same_bits(ts::sum(e), "sum");
    check_same_bits(ts::mean(e, {r - 1}), "mean over the last axis");
    check_same_bits(ts::variance(e, {0}, {.ddof = 0, .split_every = 2}), "variance, split_every 2");
    check_same_bits(ts::argmax(e), "argmax");
    check_same_bits(ts::cumsum(e, 0), "cumsum");
    check_same_bits(ts::amax(ts::abs(e - ts::mean(e))), "two stages");
    auto p = ts::persist(e, world);  // chunks stay on their owners
    check_same_bits(ts::rechunk(p * 3.0, cb), ts::rechunk(e * 3.0, cb), "persisted, read with other chunks");
    check_same_bits(ts::sum(ts::rechunk(p, cb), {0}), ts::sum(ts::rechunk(e, cb), {0}),
                    "persisted, reduced with other chunks");
    bool all_here = true;
    for (ts::index_t b = 0; b < p.grid().block_count(); ++b) all_here = all_here && p.here(b);
    if (!all_here)  // another policy cannot read chunks of other ranks: a clear error
      CHECK_THROWS_WITH(ts::compute(p, ts::host{}), Catch::Contains("under its ts::mpi policy"));
  }
}

TEST_CASE("persisted chunks stay on their owners; other ranks fetch only the boxes they read",
          "[mpi][persist]") {
  const int n = world.size(), me = world.rank();
  // 1-d, 120 elements in chunks of 10: blocks are owned in contiguous runs.
  auto src = ts::arange<double>(0, 120, 1, {10});
  auto p = ts::persist(src * 2.0, world);
  STATIC_REQUIRE(std::is_same_v<decltype(p), ts::distributed_array<double, ts::host>>);
  std::int64_t held = 0;
  for (ts::index_t b = 0; b < 12; ++b) {
    CHECK(same_on_all_ranks(p.owner(b)));
    CHECK((p.owner(b) >= 0 && p.owner(b) < n));
    CHECK(p.here(b) == (p.owner(b) == me));
    CHECK(sum_over_ranks(p.here(b) ? 1 : 0) == 1);  // exactly one rank holds each chunk
    held += p.here(b);
  }
  CHECK(sum_over_ranks(held) == 12);

  // Read in chunks of 25: a task needs pieces of up to 4 blocks and runs on the rank holding
  // most of them; it receives exactly the pieces of the other blocks.
  std::int64_t expect = 0;  // bytes this rank should receive
  for (ts::index_t t = 0; t < 5; ++t) {
    const ts::index_t lo = t * 25, hi = std::min<ts::index_t>(120, lo + 25);
    std::vector<std::int64_t> by_rank(std::size_t(n), 0);
    for (ts::index_t b = lo / 10; b * 10 < hi; ++b)
      by_rank[std::size_t(p.owner(b))] += (std::min(hi, (b + 1) * 10) - std::max(lo, b * 10)) * 8;
    int best = 0;  // ownership.hpp: most input bytes, the lower rank on ties
    for (int r = 1; r < n; ++r)
      if (by_rank[std::size_t(r)] > by_rank[std::size_t(best)]) best = r;
    if (best == me)
      for (int r = 0; r < n; ++r)
        if (r != me) expect += by_rank[std::size_t(r)];
  }
  ts::mpi_traffic().reset();
  auto got = ts::compute(ts::rechunk(p, {25}), world);
  CHECK(ts::mpi_traffic().piece_bytes_received == expect);
  CHECK(ts::mpi_traffic().piece_bytes_received < 120 * 8);
  xt::xarray<double> want = xt::arange<double>(0, 120) * 2.0;
  CHECK(bitwise_equal_arrays(got, want));

  // A small box inside one chunk of another rank: only that box moves.
  ts::mpi_traffic().reset();
  const double v = ts::item(ts::sum(ts::view(p, ts::range(3, 6))), world);
  CHECK(v == 2.0 * (3 + 4 + 5));
  CHECK(sum_over_ranks(ts::mpi_traffic().piece_bytes_received) == 0);  // the owner runs it
}

TEST_CASE("block functions read distributed arrays: the boxes they need are fetched",
          "[mpi][blocks]") {
  auto x = ts::random::default_rng(9).standard_normal<double>({60, 50}, {20, 25});
  auto p = ts::persist(x * 2.0, world);
  auto f = [](const auto& b) { return xt::xarray<double>(b * 3.0 + 1.0); };
  CHECK(bitwise_equal_arrays(ts::compute(ts::map_blocks(f, ts::rechunk(p, {30, 20})), world),
                             ts::compute(ts::map_blocks(f, ts::rechunk(x * 2.0, {30, 20})), ts::host{1})));
  auto stencil = [](const auto& b) { return xt::xarray<double>(b + 0.5 * xt::roll(b, 1, 0)); };
  CHECK(bitwise_equal_arrays(ts::compute(ts::map_overlap(stencil, p, 2, "periodic"), world),
                             ts::compute(ts::map_overlap(stencil, x * 2.0, 2, "periodic"), ts::host{1})));
}

TEST_CASE("random arrays need no communication", "[mpi][random]") {
  auto x = ts::random::default_rng(3).normal<double>(10, 1, {400, 300}, {100, 60});
  ts::mpi_traffic().reset();
  const double m = ts::item(ts::mean(ts::view(x + 1.0, ts::range(_, _, 2), ts::range(_, _, 2))), world);
  CHECK(m == ts::item(ts::mean(ts::view(x + 1.0, ts::range(_, _, 2), ts::range(_, _, 2))), ts::host{}));
  CHECK(ts::mpi_traffic().piece_bytes_received == 0);
  // What arrives: the other ranks' partials (20 tasks, one small state each), nothing else.
  CHECK(ts::mpi_traffic().bytes_received <= 20 * 64);
}

TEST_CASE("compute to a root: only the root holds the result", "[mpi][root]") {
  auto x = ts::random::default_rng(5).uniform<float>(0, 1, {50, 70}, {20, 30});
  const auto want = ts::compute(x, ts::host{});
  for (int root = 0; root < world.size(); ++root) {
    auto pol = world;
    pol.root = root;
    ts::mpi_traffic().reset();
    auto got = ts::compute(x, pol);
    if (world.rank() == root) {
      CHECK(bitwise_equal_arrays(got, want));
    } else {
      CHECK(got.size() == 0);
      CHECK(ts::mpi_traffic().bytes_received == 0);
    }
    CHECK(ts::item(ts::sum(x), pol) == ts::item(ts::sum(x), ts::host{}));  // item: every rank
  }
  auto bad = world;
  bad.root = world.size();
  CHECK_THROWS_WITH(ts::compute(x, bad), Catch::Contains("root must be -1") &&
                                            Catch::Contains(std::to_string(world.size())));
}

TEST_CASE("a failing chunk task reaches every rank as ts::rank_failure", "[mpi][faults]") {
  const int n = world.size();
  // 8 blocks of 10: the last block's task runs on the last rank (contiguous ownership).
  auto g = ts::chunk_grid::make({80}, ts::chunks_arg{10}, sizeof(double));
  auto bad = ts::from_store(std::make_shared<testing::failing_store>(testing::failing_store{g, 7, 1.5}));
  for (int round = 0; round < 2; ++round) {  // a failure leaves nothing behind: twice
    int caught_rank = -1;
    std::string what;
    try {
      (void)ts::item(ts::sum(bad * 2.0), world);
    } catch (const ts::rank_failure& e) {
      caught_rank = e.rank();
      what = e.what();
      CHECK((e.cause() != nullptr) == (world.rank() == e.rank()));
    }
    INFO(what);
    CHECK(caught_rank == n - 1);
    CHECK_THAT(what, Catch::Contains("rank " + std::to_string(n - 1) + " of " + std::to_string(n)) &&
                         Catch::Contains("injected failure in block 7"));
    CHECK(same_on_all_ranks(caught_rank));
    // The next call on every rank works.
    CHECK(ts::item(ts::sum(ts::view(bad, ts::range(0, 70))), world) == 1.5 * 70);
  }
}

TEST_CASE("qr and svd across ranks: bitwise identical to one process, Q and U stay on their ranks",
          "[mpi][linalg]") {
  const auto seed = test_seed(77);
  UNSCOPED_INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd;
  struct shape_case {
    ts::index_t m, n;
    std::vector<ts::index_t> rows;
    ts::linalg::tsqr_options opt;
    const char* what;
  };
  constexpr auto householder = ts::linalg::tsqr_method::householder;
  const std::vector<shape_case> cases = {
      {300, 7, {60, 80, 50, 70, 40}, {.leaf_rows = 16, .method = householder}, "tree path, several leaves per block"},
      {300, 7, {60, 80, 50, 70, 40}, {.method = householder}, "tree path, one leaf per block"},
      {300, 7, {60, 80, 50, 70, 40}, {.tree = false, .method = householder}, "stacked path"},
      {120, 9, {30, 5, 40, 3, 42}, {.method = householder}, "blocks shorter than n (stacked)"},
      {200, 6, {200}, {.method = householder}, "one row block"},
      {403, 12, {101, 101, 101, 100}, {.fanin = 2, .method = householder}, "stacked, fan-in 2 (a tree of stacks)"},
      {300, 7, {60, 80, 50, 70, 40}, {}, "CholeskyQR2 (the default for tall input)"},
      {120, 9, {30, 5, 40, 3, 42}, {}, "CholeskyQR2, blocks shorter than n"},
      {200, 6, {200}, {}, "CholeskyQR2, one row block"},
  };
  for (const auto& c : cases) {
    INFO(c.what << ": " << c.m << " x " << c.n << " on " << world.size() << " ranks");
    xt::xarray<double> dense = xt::xarray<double>::from_shape({std::size_t(c.m), std::size_t(c.n)});
    for (auto& v : dense) v = nd(rng);
    auto a = ts::from_xtensor(dense, ts::chunks_t{c.rows, {c.n}});
    auto [q1, r1] = ts::linalg::qr(a, ts::host{1}, c.opt);
    auto [q, r] = ts::linalg::qr(a, world, c.opt);
    STATIC_REQUIRE(std::is_same_v<decltype(q), ts::distributed_array<double, ts::host>>);
    CHECK(bitwise_equal_arrays(ts::compute(q, world), ts::compute(q1, ts::host{})));
    CHECK(bitwise_equal_arrays(ts::compute(r, ts::host{}), ts::compute(r1, ts::host{})));
    for (ts::index_t b = 0; b < q.grid().block_count(); ++b) CHECK(sum_over_ranks(q.here(b) ? 1 : 0) == 1);
    auto [u1, s1, vt1] = ts::linalg::svd(a, ts::host{1}, c.opt);
    auto [u, s, vt] = ts::linalg::svd(a, world, c.opt);
    CHECK(bitwise_equal_arrays(ts::compute(u, world), ts::compute(u1, ts::host{})));
    CHECK(bitwise_equal_arrays(ts::compute(s, ts::host{}), ts::compute(s1, ts::host{})));
    CHECK(bitwise_equal_arrays(ts::compute(vt, ts::host{}), ts::compute(vt1, ts::host{})));
    const ts::index_t k = std::min<ts::index_t>(3, c.n);
    for (ts::index_t iters : {0, 1}) {
      const ts::linalg::svd_compressed_options so{.n_power_iter = iters, .seed = 5, .oversampling = 2, .tsqr = c.opt};
      auto [uc1, sc1, vtc1] = ts::linalg::svd_compressed(a, k, ts::host{1}, so);
      auto [uc, sc, vtc] = ts::linalg::svd_compressed(a, k, world, so);
      INFO("svd_compressed, " << iters << " power iterations");
      CHECK(bitwise_equal_arrays(ts::compute(uc, world), ts::compute(uc1, ts::host{})));
      CHECK(bitwise_equal_arrays(ts::compute(sc, ts::host{}), ts::compute(sc1, ts::host{})));
      CHECK(bitwise_equal_arrays(ts::compute(vtc, ts::host{}), ts::compute(vtc1, ts::host{})));
    }
    // The factors are usable in further expressions on the ranks: Q' Q = I.
    auto qtq = ts::compute(ts::matmul(ts::transpose(q), q), world);
    CHECK(xt::allclose(qtq, xt::eye<double>(std::size_t(c.n)), 1e-12, 1e-12));
  }
  {  // the cases above are well conditioned: svd takes CholeskyQR2's Gram route (cond(A) <= 8);
     // columns scaled to cond about 1e3 take CholeskyQR2 itself, as one process does
    xt::xarray<double> dense = xt::xarray<double>::from_shape({300, 7});
    for (std::size_t i = 0; i < 300; ++i)
      for (std::size_t j = 0; j < 7; ++j) dense(i, j) = nd(rng) * std::pow(10.0, -3.0 * double(j) / 6.0);
    auto a = ts::from_xtensor(dense, ts::chunks_t{{60, 80, 50, 70, 40}, {7}});
    auto [u1, s1, vt1] = ts::linalg::svd(a, ts::host{1});
    auto [u, s, vt] = ts::linalg::svd(a, world);
    INFO("svd of a matrix with cond about 1e3 on " << world.size() << " ranks");
    CHECK(bitwise_equal_arrays(ts::compute(u, world), ts::compute(u1, ts::host{})));
    CHECK(bitwise_equal_arrays(ts::compute(s, ts::host{}), ts::compute(s1, ts::host{})));
    CHECK(bitwise_equal_arrays(ts::compute(vt, ts::host{}), ts::compute(vt1, ts::host{})));
    xt::xarray<double> sc = ts::compute(s, ts::host{});
    CHECK(sc(0) / sc(6) > 8.0);
  }
  // A distributed input (persisted on the ranks, other row chunks): its rows move only where a
  // row block spans chunks of two ranks.
  xt::xarray<double> dense = xt::xarray<double>::from_shape({240, 5});
  for (auto& v : dense) v = nd(rng);
  auto a = ts::from_xtensor(dense, ts::chunks_t{{40, 40, 40, 40, 40, 40}, {5}});
  auto p = ts::persist(a * 2.0, world);
  auto [qp, rp] = ts::linalg::qr(ts::rechunk(p, ts::chunks_t{{60, 60, 60, 60}, {5}}), world);
  auto [qh, rh] = ts::linalg::qr(ts::rechunk(a * 2.0, ts::chunks_t{{60, 60, 60, 60}, {5}}), ts::host{1});
  CHECK(bitwise_equal_arrays(ts::compute(qp, world), ts::compute(qh, ts::host{})));
  CHECK(bitwise_equal_arrays(ts::compute(rp, ts::host{}), ts::compute(rh, ts::host{})));
  // Short-fat (the transpose of the distributed input): factored through the transpose as one
  // process does; vt, the large factor, stays distributed (each block on one rank), u is on
  // every rank.
  auto check_short_fat = [&](const auto& r, const auto& r1) {
    CHECK(bitwise_equal_arrays(ts::compute(r.u, world), ts::compute(r1.u, ts::host{})));
    CHECK(bitwise_equal_arrays(ts::compute(r.s, ts::host{}), ts::compute(r1.s, ts::host{})));
    CHECK(bitwise_equal_arrays(ts::compute(r.vt, world), ts::compute(r1.vt, ts::host{})));
    CHECK(r.vt.chunks()[1] == p.chunks()[0]);
    for (ts::index_t b = 0; b < r.vt.grid().block_count(); ++b) CHECK(sum_over_ranks(r.vt.here(b) ? 1 : 0) == 1);
    for (ts::index_t b = 0; b < r.u.grid().block_count(); ++b) CHECK((r.u.owner(b) == -1 && r.u.here(b)));
  };
  check_short_fat(ts::linalg::svd(ts::transpose(p), world), ts::linalg::svd(ts::transpose(a * 2.0), ts::host{1}));
  check_short_fat(ts::linalg::svd_compressed(ts::transpose(p), 2, world, {.seed = 3}),
                  ts::linalg::svd_compressed(ts::transpose(a * 2.0), 2, ts::host{1}, {.seed = 3}));
}
