// The device reduction's fold logic run on the CPU: the thread body (fold_segment) over the
// segment/thread split of the fold kernel, merged in thread order, equals the host chunk fold
// (reduce/tree.hpp fold_box) for exact ops (integer sums, argmax, min) and is close for
// compensated float sums. Runs on every machine.
#include <catch2/catch.hpp>

#include <random>

#include <tessera/cuda.hpp>
#include <tessera/random.hpp>
#include <tessera/reduce.hpp>

#include "support/cases.hpp"

namespace ts = tessera;
namespace cuda_backend = tessera::detail::cuda_backend;
using namespace testing;

namespace {

/// The fold kernel's schedule for one chunk, simulated: S segments per partial, nt threads per
/// segment, thread states merged left to right (CUB's order for a non-commutative operator),
/// segments merged left to right (as the host does after the copy back).
template <class Op, class Acc>
std::vector<typename Op::state> simulate(const Op& op, const Acc& acc, const cuda_backend::fold_layout& L,
                                         ts::index_t S, ts::index_t nt) {
  std::vector<typename Op::state> out;
  for (ts::index_t p = 0; p < L.P; ++p) {
    auto seg = op.identity();
    for (ts::index_t s = 0; s < S; ++s) {
      auto blk = op.identity();
      for (ts::index_t t = 0; t < nt; ++t) {
        ts::index_t q0, q1;
        cuda_backend::segment_range(L.Q, S, s, t, nt, q0, q1);
        auto st = op.identity();
        cuda_backend::fold_segment(op, acc, L, p, q0, q1, st);
        if (t == 0) blk = st;
        else op.merge(blk, st);
      }
      if (s == 0) seg = blk;
      else op.merge(seg, blk);
    }
    out.push_back(seg);
  }
  return out;
}

template <class Op, class X, class Eq>
void compare_folds(std::mt19937_64& rng, const X& x, const Op& op, const ts::reduce_spec& spec, Eq eq) {
  const auto& g = x.grid();
  ts::ivec istride;
  istride.n = g.rank();
  ts::index_t a = 1;
  for (int d = g.rank() - 1; d >= 0; --d) {
    istride[d] = spec.flat_index ? a : (d == spec.index_axis ? 1 : 0);
    a *= g.shape()[std::size_t(d)];
  }
  for (ts::index_t b = 0; b < g.block_count(); ++b) {
    const ts::box bx = g.block_box(b);
    if (bx.count() == 0) continue;
    ts::host_context ctx;
    auto acc = x.bind(bx, ctx);
    const cuda_backend::fold_layout L = cuda_backend::make_fold_layout(bx, spec, istride);
    std::vector<typename Op::state> host(static_cast<std::size_t>(L.P), op.identity());
    ts::detail::fold_box(op, acc, bx, spec, istride, host.data());
    const ts::index_t S = 1 + ts::index_t(rng() % 4), nt = 1 + ts::index_t(rng() % 6);
    auto dev = simulate(op, acc, L, S, nt);
    REQUIRE(dev.size() == host.size());
    for (std::size_t k = 0; k < dev.size(); ++k) CHECK(eq(dev[k], host[k]));
  }
}

}  // namespace

TEST_CASE("device fold schedule equals the host chunk fold", "[cuda][reduce]") {
  const auto seed = test_seed(2718);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < 120; ++it) {
    auto shape = random_shape(rng, 0, 4, 9);
    const int r = int(shape.size());
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape));
    auto di = testing::random_data<int>(rng, shape);
    auto dd = testing::random_data<double>(rng, shape);
    auto xi = ts::from_xtensor(di, random_chunks(rng, shape));
    auto xd = ts::from_xtensor(dd, random_chunks(rng, shape));
    ts::reduce_spec spec;
    for (int d = 0; d < r; ++d)
      if (rng() % 2) spec.mask |= 1u << d;
    ts::reducers::sum<int> isum;
    compare_folds(rng, ts::transpose(xi * 3 - 1), isum, spec, [](auto a, auto b) { return a == b; });
    ts::reducers::amin<double> mn;
    compare_folds(rng, xd, mn, spec, [](double a, double b) { return a == b; });
    ts::reducers::sum<double> dsum;
    compare_folds(rng, xd + 0.5, dsum, spec, [](const auto& a, const auto& b) {
      return std::abs(a.value() - b.value()) <= 1e-12 * (1 + std::abs(b.value()));
    });
    // argmax over one axis (or all axes, flat index).
    ts::reduce_spec as;
    if (r > 0 && rng() % 2) {
      as.index_axis = int(rng() % std::uint64_t(r));
      as.mask = 1u << as.index_axis;
    } else {
      as.flat_index = true;
      as.mask = r == 0 ? 0u : (1u << r) - 1u;
    }
    ts::reducers::argmax<double> am;
    compare_folds(rng, xd, am, as, [](const auto& a, const auto& b) { return a.i == b.i && a.v == b.v; });
    // Random normals: the fold walks contiguous lines in Box-Muller pairs (paired_line).
    auto xn = ts::random::default_rng(seed + std::uint64_t(it)).normal<double>(10, 1, shape,
                                                                              random_chunks(rng, shape)) + 1.0;
    compare_folds(rng, xn, am, as, [](const auto& a, const auto& b) { return a.i == b.i && a.v == b.v; });
    compare_folds(rng, xn, mn, spec, [](double a, double b) { return a == b; });
    ts::reducers::argmin<float> fam;
    auto xf = ts::random::default_rng(seed + 7 * std::uint64_t(it)).standard_normal<float>(shape, random_chunks(rng, shape));
    compare_folds(rng, xf, fam, as, [](const auto& a, const auto& b) { return a.i == b.i && a.v == b.v; });
  }
}

TEST_CASE("fold segments cover every element once", "[cuda][reduce]") {
  for (ts::index_t Q : {0, 1, 7, 128, 129, 100000}) {
    for (ts::index_t S : {1, 3, 1024}) {
      ts::index_t covered = 0, prev = 0;
      for (ts::index_t s = 0; s < S; ++s)
        for (ts::index_t t = 0; t < 128; ++t) {
          ts::index_t q0, q1;
          cuda_backend::segment_range(Q, S, s, t, 128, q0, q1);
          if (q1 > q0) {
            CHECK(q0 == prev);  // contiguous, in order
            prev = q1;
            covered += q1 - q0;
          }
        }
      CHECK(covered == Q);
    }
  }
  CHECK(cuda_backend::fold_segments(1, 1 << 24) == 8192);
  CHECK(cuda_backend::fold_segments(1, 100) == 1);
  CHECK(cuda_backend::fold_segments(1 << 20, 1 << 20) * (1 << 20) <= (1 << 22));
}

TEST_CASE("device fold of strided views of random normals equals the host chunk fold",
          "[cuda][reduce]") {
  // A view of step 2 along the last axis reads whole Box-Muller pairs (neighbours on its lines,
  // line gap 1); steps 1 (pairs two apart, line gap 2) and 3 (no pairs) for contrast.
  using namespace ts::placeholders;
  const auto seed = test_seed(3141);
  std::mt19937_64 rng(seed);
  ts::reducers::amin<double> mn;
  ts::reducers::argmax<double> am;
  for (int it = 0; it < 80; ++it) {
    const ts::shape_t shape{ts::index_t(1 + rng() % 9), ts::index_t(1 + rng() % 31)};
    const ts::index_t c0 = ts::index_t(rng() % std::uint64_t(std::min<ts::index_t>(4, shape[1])));
    const ts::index_t step = 1 + ts::index_t(rng() % 3);
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape) << " start " << c0
                 << " step " << step);
    auto x = ts::random::default_rng(seed + std::uint64_t(it)).normal<double>(10, 1, shape,
                                                                              random_chunks(rng, shape));
    auto v = ts::view(x + 1.0, ts::range(_, _, 2), ts::range(c0, _, step));
    ts::reduce_spec spec;
    spec.mask = unsigned(rng() % 4);
    compare_folds(rng, v, mn, spec, [](double a, double b) { return a == b; });
    ts::reduce_spec as;
    as.flat_index = true;
    as.mask = 3u;
    compare_folds(rng, v, am, as, [](const auto& a, const auto& b) { return a.i == b.i && a.v == b.v; });
  }
}
