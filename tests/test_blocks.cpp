// Block functions (blocks.hpp): map_blocks (one or several inputs, broadcasting, block_info,
// declared output chunks, element type from f), from_blocks, map_overlap (every boundary, any
// depth) against dense xtensor references built block by block on random shapes and chunkings;
// errors (a wrong block shape, bad depth or boundary, out_chunks of the wrong block count) and
// a throwing f. Also topk/argtopk (built on two block passes) against a dense stable sort, and
// from_buffer (user memory read in place: row-major, column-major and
// reversed strides). Instantiated per backend (tests/cuda/test_backend_blocks.cu).
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <tessera/tessera.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xstrided_view.hpp>
#include <xtensor/xview.hpp>

#include "support/backends.hpp"
#include "support/cases.hpp"

namespace ts = tessera;
using namespace testing;

namespace {

/// The slice of a dense array that box b covers.
xt::xstrided_slice_vector slices_of(const ts::box& b) {
  xt::xstrided_slice_vector sv;
  for (int d = 0; d < b.rank(); ++d) sv.push_back(xt::range(b.lo[d], b.hi[d]));
  return sv;
}

/// A 3-point sum along every axis, same shape; cells at the block's edges keep their value
/// (so the result is the global stencil wherever a halo of 1 was supplied).
template <class B>
xt::xarray<double> stencil(const B& b) {
  xt::xarray<double> r = b;
  for (std::size_t d = 0; d < b.dimension(); ++d) {
    const auto n = b.shape()[d];
    if (n < 3) continue;
    xt::xarray<double> s = r;
    xt::xstrided_slice_vector mid(b.dimension(), xt::all()), lo(b.dimension(), xt::all()),
        hi(b.dimension(), xt::all());
    mid[d] = xt::range(1, n - 1);
    lo[d] = xt::range(0, n - 2);
    hi[d] = xt::range(2, n);
    auto sm = xt::strided_view(s, mid);
    xt::noalias(sm) = xt::strided_view(r, lo) + xt::strided_view(r, mid) + xt::strided_view(r, hi);
    r = s;
  }
  return r;
}

/// x padded by `depth` on every side as Dask's map_overlap boundaries say, element by element:
/// "nearest" repeats the edge cell, "periodic" wraps, "reflect" mirrors with the edge cell
/// repeated (NumPy's symmetric), "constant" is `value`. (xtensor 0.24's xt::pad mis-sizes a
/// temporary, so the test pads on its own.)
xt::xarray<double> pad_dense(const xt::xarray<double>& x, ts::index_t depth, const std::string& mode,
                             double value) {
  std::vector<std::size_t> shape(x.shape().begin(), x.shape().end());
  for (auto& n : shape) n += std::size_t(2 * depth);
  xt::xarray<double> p = xt::zeros<double>(shape);
  std::vector<std::size_t> src(shape.size());
  for (std::size_t f = 0; f < p.size(); ++f) {
    std::size_t r = f;
    bool outside = false;
    for (std::size_t d = shape.size(); d-- > 0;) {
      const auto i = ts::index_t(r % shape[d]) - depth;
      r /= shape[d];
      const auto n = ts::index_t(x.shape()[d]);
      ts::index_t s = i;
      if (mode == "nearest") s = std::clamp<ts::index_t>(i, 0, n - 1);
      else if (mode == "periodic") s = ((i % n) + n) % n;
      else if (mode == "reflect") {
        const ts::index_t m = ((i % (2 * n)) + 2 * n) % (2 * n);
        s = m < n ? m : 2 * n - 1 - m;
      } else outside = outside || i < 0 || i >= n;
      src[d] = std::size_t(std::clamp<ts::index_t>(s, 0, n - 1));
    }
    p.flat(f) = outside ? value : x.element(src.begin(), src.end());
  }
  return p;
}

}  // namespace

TEMPLATE_TEST_CASE("map_blocks: one and several inputs, block_info and element types against block-by-block references",
                   "[blocks]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(20261125);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(10); ++it) {
    const auto shape = random_shape(rng, 0, 3, 9);
    const auto xd = testing::random_data<double>(rng, shape);
    auto x = ts::from_xtensor(xd, random_chunks(rng, shape));
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape) << " chunks "
                 << describe(x.chunks()));

    // a plain block function: the elementwise result, blocks in place
    auto y = ts::map_blocks([](const auto& b) { return xt::xarray<double>(b * 2.0 + 1.0); }, x);
    CHECK(y.chunks() == x.chunks());
    CHECK(ts::node_name(y) == "map_blocks");
    CHECK(bitwise_equal_arrays(ts::compute(y, pol), xt::xarray<double>(xd * 2.0 + 1.0)));

    // block_info: each block adds its location; the reference walks the same blocks
    auto z = ts::map_blocks(
        [](const ts::block_info& info, const auto& b) {
          double k = 0;
          for (std::size_t d = 0; d < info.chunk_location.size(); ++d)
            k += double(info.chunk_location[d] + 1) * 100.0 + double(info.array_location[d].first);
          REQUIRE(info.inputs.size() == 1);
          REQUIRE(info.inputs[0].block_shape() == info.block_shape());
          REQUIRE(info.shape == info.inputs[0].shape);
          return xt::xarray<double>(b + k);
        },
        x);
    xt::xarray<double> zref = xd;
    for (ts::index_t b = 0; b < x.grid().block_count(); ++b) {
      const ts::box bx = x.grid().block_box(b);
      const ts::ivec k = x.grid().block_index(b);
      double add = 0;
      for (int d = 0; d < bx.rank(); ++d) add += double(k[d] + 1) * 100.0 + double(bx.lo[d]);
      auto v = xt::strided_view(zref, slices_of(bx));
      xt::noalias(v) = v + add;  // (noalias: xtensor 0.24 mis-sizes this temporary)
    }
    CHECK(bitwise_equal_arrays(ts::compute(z, pol), zref));

    // another element type: bool from a comparison, then reduced lazily
    auto m = ts::map_blocks([](const auto& b) { return b > 0.25; }, x);
    static_assert(std::is_same_v<typename decltype(m)::value_type, bool>);
    CHECK(bitwise_equal_arrays(ts::compute(m, pol), xt::xarray<bool>(xd > 0.25)));
    if (xd.size() > 0)
      CHECK(ts::sum(m).item(pol) == ts::index_t(xt::sum(xt::cast<ts::index_t>(xd > 0.25))()));

    // two inputs with different chunkings: blocks on the common refinement, then broadcast
    // against a length-1 axis (passed unbroadcast, as Dask does)
    if (shape.empty()) continue;
    const auto wd = testing::random_data<double>(rng, shape);
    auto w = ts::from_xtensor(wd, random_chunks(rng, shape));
    auto sum2 = ts::map_blocks([](const auto& a, const auto& b) { return xt::xarray<double>(a - 3.0 * b); }, x, w);
    for (int d = 0; d < x.dimension(); ++d)
      CHECK(sum2.chunks()[std::size_t(d)] == ts::detail::refine(x.chunks()[std::size_t(d)], w.chunks()[std::size_t(d)]));
    CHECK(bitwise_equal_arrays(ts::compute(sum2, pol), xt::xarray<double>(xd - 3.0 * wd)));
    ts::shape_t rshape = shape;
    rshape[0] = 1;
    const auto rd = testing::random_data<double>(rng, rshape);
    auto row = ts::from_xtensor(rd, random_chunks(rng, rshape));
    auto bc = ts::map_blocks(
        [](const ts::block_info& info, const auto& a, const auto& r) {
          REQUIRE(r.shape()[0] == 1);
          REQUIRE(info.inputs[1].chunk_location[0] == 0);
          return xt::xarray<double>(a * r);
        },
        x, row);
    CHECK(bitwise_equal_arrays(ts::compute(bc, pol), xt::xarray<double>(xd * rd)));
  }
}

TEMPLATE_TEST_CASE("map_blocks: declared out_chunks (blocks of other shapes) and from_blocks",
                   "[blocks]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(1125);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(8); ++it) {
    const ts::shape_t shape{1 + ts::index_t(rng() % 12), 1 + ts::index_t(rng() % 12)};
    const auto xd = testing::random_data<double>(rng, shape);
    auto x = ts::from_xtensor(xd, random_chunks(rng, shape));
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape) << " chunks "
                 << describe(x.chunks()));
    // each block's row sums: one column per block along axis 1
    const auto& c = x.chunks();
    auto s = ts::map_blocks([](const auto& b) { return xt::xarray<double>(xt::sum(b, {1}, xt::keep_dims)); },
                            ts::out_chunks({c[0], std::vector<ts::index_t>(c[1].size(), 1)}), x);
    CHECK(s.shape() == ts::shape_t{shape[0], ts::index_t(c[1].size())});
    xt::xarray<double> ref = xt::zeros<double>({std::size_t(shape[0]), c[1].size()});
    ts::index_t lo = 0;
    for (std::size_t j = 0; j < c[1].size(); ++j) {
      auto part = xt::view(xd, xt::all(), xt::range(lo, lo + c[1][j]));
      xt::view(ref, xt::all(), j) = xt::sum(part, {1});
      lo += c[1][j];
    }
    CHECK(bitwise_equal_arrays(ts::compute(s, pol), ref));

    // from_blocks: blocks made from their location alone; only touched blocks are made
    std::atomic<int> made{0};
    auto g = ts::from_blocks(
        [&made](const ts::block_info& info) {
          ++made;
          xt::xarray<int> b = xt::zeros<int>(info.block_shape());
          for (std::size_t i = 0; i < b.shape()[0]; ++i)
            for (std::size_t j = 0; j < b.shape()[1]; ++j)
              b(i, j) = int(info.array_location[0].first + ts::index_t(i)) * 100 +
                        int(info.array_location[1].first + ts::index_t(j));
          return b;
        },
        shape, c);
    xt::xarray<int> gref = xt::zeros<int>(shape);
    for (ts::index_t i = 0; i < shape[0]; ++i)
      for (ts::index_t j = 0; j < shape[1]; ++j) gref(i, j) = int(i * 100 + j);
    CHECK(bitwise_equal_arrays(ts::compute(g, pol), gref));
    made = 0;
    CHECK(ts::compute(ts::view(g, ts::range(0, 1), ts::range(0, 1)), pol)(0, 0) == 0);
    CHECK(made == 1);
  }
}

TEMPLATE_TEST_CASE("map_blocks: drop_axis and new_axis (Dask's), axes passed whole or added",
                   "[blocks]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(112402);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(8); ++it) {
    const ts::shape_t shape{1 + ts::index_t(rng() % 9), 1 + ts::index_t(rng() % 9), 1 + ts::index_t(rng() % 5)};
    const auto xd = testing::random_data<double>(rng, shape);
    const auto yd = testing::random_data<double>(rng, {shape[1], shape[2]});
    auto x = ts::from_xtensor(xd, random_chunks(rng, shape));
    auto y = ts::from_xtensor(yd, random_chunks(rng, {shape[1], shape[2]}));
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape) << " chunks "
                 << describe(x.chunks()) << " and " << describe(y.chunks()));
    // drop axis 1: f sees the whole axis (blocks along it concatenated) and sums it away
    auto s = ts::map_blocks(
        [](const ts::block_info& info, const auto& b) {
          if (info.inputs[0].array_location[1] != std::pair<ts::index_t, ts::index_t>{0, b.shape()[1]})
            throw std::logic_error("the dropped axis was not passed whole");
          return xt::xarray<double>(xt::sum(b, {1}));
        },
        ts::drop_axis{1}, x);
    CHECK(s.shape() == ts::shape_t{shape[0], shape[2]});
    CHECK(s.chunks()[0] == x.chunks()[0]);
    CHECK(bitwise_equal_arrays(ts::compute(s, pol), xt::xarray<double>(xt::sum(xd, {1}))));
    // two inputs aligned at the end (x: ijk, y: jk), dropping the last axis: sum_k x * y
    auto d = ts::map_blocks([](const auto& a, const auto& b) { return xt::xarray<double>(xt::sum(a * b, {2})); },
                            ts::drop_axis{-1}, x, y);
    CHECK(d.shape() == ts::shape_t{shape[0], shape[1]});
    CHECK(bitwise_equal_arrays(ts::compute(d, pol), xt::xarray<double>(xt::sum(xd * yd, {2}))));
    // new axis at the front, of length 2: [block, -block]
    auto n = ts::map_blocks(
        [](const auto& b) {
          xt::xarray<double> o = xt::stack(xt::xtuple(xt::xarray<double>(b), xt::xarray<double>(-b)));
          return o;
        },
        ts::new_axis({0}, {2}), y);
    CHECK(n.shape() == ts::shape_t{2, shape[1], shape[2]});
    CHECK(n.chunks()[0] == std::vector<ts::index_t>{2});
    CHECK(bitwise_equal_arrays(ts::compute(n, pol), xt::xarray<double>(xt::stack(xt::xtuple(yd, xt::xarray<double>(-yd))))));
    // both: drop axis 2 of x, add a length-1 axis at the end
    auto b = ts::map_blocks([](const auto& a) { return xt::xarray<double>(xt::amax(a, {2}, xt::keep_dims)); },
                            ts::drop_axis{2}, ts::new_axis{2}, x);
    CHECK(b.shape() == ts::shape_t{shape[0], shape[1], 1});
    CHECK(bitwise_equal_arrays(ts::compute(b, pol), xt::xarray<double>(xt::amax(xd, {2}, xt::keep_dims))));
  }
  auto x = ts::zeros<double>({4, 3}, {2, 2});
  CHECK_THROWS_MATCHING(ts::map_blocks([](const auto& a) { return xt::xarray<double>(a); }, ts::drop_axis{2}, x),
                        ts::invalid_argument, Catch::Contains("drop_axis"));
  CHECK_THROWS_MATCHING(ts::map_blocks([](const auto& a, const auto& c) { return xt::xarray<double>(a + c); },
                                       ts::drop_axis{0}, x, ts::zeros<double>({1, 3})),
                        ts::invalid_argument, Catch::Contains("lengths 4 and 1"));
  // f must return the declared shape: here it keeps the dropped axis
  auto bad = ts::map_blocks([](const auto& a) { return xt::xarray<double>(a); }, ts::drop_axis{0}, x);
  CHECK_THROWS_MATCHING(ts::compute(bad, pol), ts::invalid_argument, Catch::Contains("f returned shape"));
}

TEMPLATE_TEST_CASE("map_overlap: a stencil with halos equals the global stencil for every boundary",
                   "[blocks]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(251125);
  std::mt19937_64 rng(seed);
  const char* boundaries[] = {"none", "reflect", "periodic", "nearest", "constant"};
  for (int it = 0; it < test_iterations(15); ++it) {
    const auto shape = random_shape(rng, 1, 3, 10);
    bool empty = false;
    for (auto n : shape) empty = empty || n == 0;
    if (empty) continue;
    const auto xd = testing::random_data<double>(rng, shape);
    auto x = ts::from_xtensor(xd, random_chunks(rng, shape));
    const char* boundary = boundaries[rng() % 5];
    const ts::index_t depth = 1 + ts::index_t(rng() % 3);
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape) << " chunks "
                 << describe(x.chunks()) << " boundary " << boundary << " depth " << depth);
    const bool none = std::string(boundary) == "none";
    auto y = ts::map_overlap(
        [none, depth](const ts::block_info& info, const auto& b) {
          // the input box is the block plus the halo, in the array's coordinates
          for (std::size_t d = 0; d < b.dimension(); ++d) {
            const auto [lo, hi] = info.inputs[0].array_location[d];
            const auto [olo, ohi] = info.array_location[d];
            REQUIRE(lo == (none ? std::max<ts::index_t>(olo - depth, 0) : olo - depth));
            REQUIRE(hi == (none ? std::min<ts::index_t>(ohi + depth, info.shape[d]) : ohi + depth));
            REQUIRE(ts::index_t(b.shape()[d]) == hi - lo);
          }
          REQUIRE(info.inputs[0].shape == info.shape);
          return stencil(b);
        },
        x, depth, boundary, 0.5);
    CHECK(ts::node_name(y) == "map_overlap");
    CHECK(y.chunks() == x.chunks());
    // reference: the stencil of the whole padded array, halo cut (with "none" the array's edge
    // cells keep their value, as the stencil of the unpadded array does)
    auto global = [&](const xt::xarray<double>& data) {
      if (std::string(boundary) == "none") return xt::xarray<double>(stencil(data));
      const xt::xarray<double> p = pad_dense(data, depth, boundary, 0.5);
      xt::xarray<double> sp = stencil(p);
      xt::xstrided_slice_vector sv;
      for (auto n : shape) sv.push_back(xt::range(depth, depth + n));
      return xt::xarray<double>(xt::strided_view(sp, sv));
    };
    const xt::xarray<double> ref = global(xd);
    CHECK(bitwise_equal_arrays(ts::compute(y, pol), ref));
    // two arrays of one shape, other chunks (unified): f sees both with the same halo
    if (std::string(boundary) != "constant") {  // (a padded product is the product padded)
      const auto wd = testing::random_data<double>(rng, shape);
      auto w = ts::from_xtensor(wd, random_chunks(rng, shape));
      auto two = ts::map_overlap([](const auto& a, const auto& b) { return stencil(xt::xarray<double>(a * b)); },
                                 ts::overlap{{depth}, boundary, 0.5}, x, w);
      CHECK(bitwise_equal_arrays(ts::compute(two, pol), global(xt::xarray<double>(xd * wd))));
    }
    // trim = false (Dask's trim=False): f cuts the halo itself, from what block_info says
    auto z = ts::map_overlap(
        [](const ts::block_info& info, const auto& b) {
          xt::xarray<double> st = stencil(b);
          xt::xstrided_slice_vector sv;
          for (std::size_t d = 0; d < b.dimension(); ++d) {
            const ts::index_t below = info.array_location[d].first - info.inputs[0].array_location[d].first;
            const auto [olo, ohi] = info.array_location[d];
            sv.push_back(xt::range(below, below + (ohi - olo)));
          }
          return xt::xarray<double>(xt::strided_view(st, sv));
        },
        x, depth, boundary, 0.5, false);
    CHECK(bitwise_equal_arrays(ts::compute(z, pol), ref));
  }
  // trim = false and f returning the block with its halo: the error says what was expected
  auto x = ts::zeros<double>({6}, {3});
  auto bad = ts::map_overlap([](const auto& b) { return xt::xarray<double>(b); }, x, 1, "reflect", 0, false);
  CHECK_THROWS_MATCHING(ts::compute(bad, pol), ts::invalid_argument, Catch::Contains("trim = false"));
  CHECK_THROWS_MATCHING(ts::map_overlap([](const auto& a, const auto& b) { return xt::xarray<double>(a + b); },
                                        ts::overlap{{1}}, x, ts::zeros<double>({5}, {5})),
                        ts::invalid_argument, Catch::Contains("(6,) and (5,)"));
}

TEMPLATE_TEST_CASE("map_blocks: errors name the bad value; an exception in f reaches the caller",
                   "[blocks]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const xt::xarray<double> xd = xt::arange<double>(24).reshape({4, 6});
  auto x = ts::from_xtensor(xd, {2, 3});
  // a block of the wrong shape
  auto bad = ts::map_blocks([](const auto&) { return xt::xarray<double>(xt::zeros<double>({3})); }, x);
  CHECK_THROWS_MATCHING(ts::compute(bad, pol), ts::invalid_argument,
                        Catch::Contains("f returned shape (3,) for block (0, 0)") &&
                            Catch::Contains("has shape (2, 3)"));
  // out_chunks whose block count differs from the inputs'
  CHECK_THROWS_MATCHING(ts::map_blocks([](const auto& b) { return xt::xarray<double>(b); },
                                       ts::out_chunks({{4}, {3, 3}}), x),
                        ts::invalid_argument, Catch::Contains("(1, 2) blocks per axis") && Catch::Contains("(2, 2)"));
  // mismatched shapes
  auto other = ts::from_xtensor(xt::xarray<double>(xt::zeros<double>({3, 6})), {3, 3});
  CHECK_THROWS_AS(ts::map_blocks([](const auto& a, const auto&) { return xt::xarray<double>(a); }, x, other),
                  ts::invalid_argument);
  // map_overlap arguments
  auto id = [](const auto& b) { return xt::xarray<double>(b); };
  CHECK_THROWS_MATCHING(ts::map_overlap(id, x, 1, "mirror"), ts::invalid_argument,
                        Catch::Contains("boundary 'mirror'"));
  CHECK_THROWS_MATCHING(ts::map_overlap(id, x, std::vector<ts::index_t>{1, -2}), ts::invalid_argument,
                        Catch::Contains("depth (1, -2)"));
  CHECK_THROWS_MATCHING(ts::map_overlap(id, x, std::vector<ts::index_t>{1}), ts::invalid_argument,
                        Catch::Contains("depth (1,) has 1 entries"));
  // f returning its block without cutting room for the halo is caught by the shape check
  auto no_halo = ts::map_overlap([](const ts::block_info& i, const auto&) { return xt::xarray<double>(xt::zeros<double>(i.block_shape())); },
                                 x, 1, "periodic");
  CHECK_THROWS_MATCHING(ts::compute(no_halo, pol), ts::invalid_argument, Catch::Contains("with its halo"));
  // an exception thrown by f on one block
  auto throws = ts::map_blocks(
      [](const ts::block_info& info, const auto& b) {
        if (info.chunk_location[0] == 1 && info.chunk_location[1] == 1) throw std::runtime_error("block (1, 1) failed");
        return xt::xarray<double>(b);
      },
      x);
  CHECK_THROWS_MATCHING(ts::compute(throws, pol), std::runtime_error, Catch::Contains("block (1, 1) failed"));
  CHECK_THROWS_AS(ts::sum(throws).item(pol), std::runtime_error);
  // the blocks before the failing one are fine: a view that avoids it computes
  CHECK(bitwise_equal_arrays(ts::compute(ts::view(throws, ts::range(0, 2)), pol), xt::xarray<double>(xt::view(xd, xt::range(0, 2)))));
}

TEMPLATE_TEST_CASE("from_buffer: user memory in any strides, read in place", "[blocks][buffer]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(31125);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(10); ++it) {
    const auto shape = random_shape(rng, 0, 3, 9);
    const auto xd = testing::random_data<double>(rng, shape);
    const auto chunks = random_chunks(rng, shape);
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape));
    // row-major: the xarray's own memory
    std::vector<double> rows(xd.begin(), xd.end());
    auto a = ts::from_buffer(rows.data(), shape, chunks);
    CHECK(ts::node_name(a) == "from_buffer");
    CHECK(bitwise_equal_arrays(ts::compute(a, pol), xd));
    CHECK(bitwise_equal_arrays(ts::compute(a * 2.0 + 1.0, pol), xt::xarray<double>(xd * 2.0 + 1.0)));
    // column-major (Fortran) strides and reversed (negative) strides over the same values
    const int r = int(shape.size());
    std::vector<ts::index_t> fstrides(static_cast<std::size_t>(r)), rstrides(static_cast<std::size_t>(r));
    ts::index_t acc = 1;
    for (int d = 0; d < r; ++d) {
      fstrides[std::size_t(d)] = acc;
      acc *= shape[std::size_t(d)];
    }
    std::vector<double> cols(xd.size()), reversed(xd.rbegin(), xd.rend());
    acc = 1;
    for (int d = r - 1; d >= 0; --d) {
      rstrides[std::size_t(d)] = -acc;
      acc *= shape[std::size_t(d)];
    }
    for (std::size_t f = 0; f < xd.size(); ++f) {  // element f (row-major) -> its Fortran offset
      std::size_t rem = f;
      ts::index_t off = 0;
      for (int d = r - 1; d >= 0; --d) {
        off += ts::index_t(rem % std::size_t(shape[std::size_t(d)])) * fstrides[std::size_t(d)];
        rem /= std::size_t(shape[std::size_t(d)]);
      }
      cols[std::size_t(off)] = xd.flat(f);
    }
    auto fm = ts::from_buffer(cols.data(), shape, chunks, fstrides);
    CHECK(bitwise_equal_arrays(ts::compute(fm, pol), xd));
    if (xd.size() > 0) {
      auto rv = ts::from_buffer(reversed.data() + reversed.size() - 1, shape, random_chunks(rng, shape), rstrides);
      CHECK(bitwise_equal_arrays(ts::compute(rv, pol), xd));
      CHECK(ts::sum(fm).item(pol) == Approx(ts::sum(a).item(pol)));
      // nothing was copied: a change to the buffer shows in the next evaluation
      rows[0] = 1e300;
      CHECK(ts::amax(a).item(pol) == 1e300);
    }
  }
  // errors name the value
  double one = 1;
  CHECK_THROWS_MATCHING(ts::from_buffer<double>(nullptr, {3, 2}), ts::invalid_argument,
                        Catch::Contains("null pointer for shape (3, 2)"));
  CHECK_THROWS_MATCHING(ts::from_buffer(&one, {1, 1}, {}, {1}), ts::invalid_argument,
                        Catch::Contains("strides (1,) have 1 entries but shape (1, 1)"));
  CHECK(ts::from_buffer(&one, {}).item(pol) == 1.0);  // 0-d
}

TEMPLATE_TEST_CASE("topk and argtopk: the dense stable sort's first |k| along any axis", "[blocks][topk]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(41125);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(12); ++it) {
    auto shape = random_shape(rng, 1, 3, 9);
    for (auto& n : shape) n = std::max<ts::index_t>(n, 1);
    auto xd = testing::random_data<double>(rng, shape);  // multiples of 1/8: many ties
    if (rng() % 2) xd.flat(rng() % xd.size()) = std::numeric_limits<double>::quiet_NaN();
    auto x = ts::from_xtensor(xd, random_chunks(rng, shape));
    const int r = int(shape.size());
    const int axis = int(rng() % std::size_t(r));
    const ts::index_t n = shape[std::size_t(axis)];
    const ts::index_t m = 1 + ts::index_t(rng() % std::size_t(n));
    const ts::index_t k = rng() % 2 ? m : -m;
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape) << " chunks "
                 << describe(x.chunks()) << " axis " << axis << " k " << k);
    // reference: each lane stably sorted (NaN largest; largest first when k > 0)
    std::vector<std::size_t> oshape(shape.begin(), shape.end());
    oshape[std::size_t(axis)] = std::size_t(m);
    xt::xarray<double> vref = xt::zeros<double>(oshape);
    xt::xarray<ts::index_t> iref = xt::zeros<ts::index_t>(oshape);
    std::size_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= std::size_t(shape[std::size_t(d)]);
    for (int d = axis + 1; d < r; ++d) inner *= std::size_t(shape[std::size_t(d)]);
    for (std::size_t o = 0; o < outer; ++o)
      for (std::size_t i = 0; i < inner; ++i) {
        std::vector<ts::index_t> order(static_cast<std::size_t>(n));
        std::iota(order.begin(), order.end(), 0);
        auto val = [&](ts::index_t j) { return xd.flat((o * std::size_t(n) + std::size_t(j)) * inner + i); };
        std::stable_sort(order.begin(), order.end(), [&](ts::index_t a, ts::index_t b) {
          const double va = val(a), vb = val(b);
          const bool an = std::isnan(va), bn = std::isnan(vb);
          if (an != bn) return k > 0 ? an : bn;
          if (an) return false;
          return k > 0 ? va > vb : va < vb;
        });
        for (std::size_t j = 0; j < std::size_t(m); ++j) {
          const std::size_t at = (o * std::size_t(m) + j) * inner + i;
          iref.flat(at) = order[j];
          vref.flat(at) = val(order[j]);
        }
      }
    CHECK(bitwise_equal_arrays(ts::compute(ts::topk(x, k, axis), pol), vref));
    CHECK(bitwise_equal_arrays(ts::compute(ts::argtopk(x, k, axis - r), pol), iref));
  }
  auto x = ts::arange<double>(5);
  CHECK_THROWS_MATCHING(ts::topk(x, 6), ts::invalid_argument, Catch::Contains("k = 6"));
  CHECK_THROWS_MATCHING(ts::argtopk(x, 0), ts::invalid_argument, Catch::Contains("k = 0"));
}

TEMPLATE_TEST_CASE("apply_along_axis: numbers drop the axis, 1-d results replace it", "[blocks][apply]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(91125);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(10); ++it) {
    auto shape = random_shape(rng, 1, 3, 7);
    for (auto& n : shape) n = std::max<ts::index_t>(n, 1);
    const auto xd = testing::random_data<double>(rng, shape);
    auto x = ts::from_xtensor(xd, random_chunks(rng, shape));
    const int r = int(shape.size());
    const int axis = int(rng() % std::size_t(r));
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape) << " chunks "
                 << describe(x.chunks()) << " axis " << axis);
    // a number per lane: the lane's sum (sequential, as the reference below)
    auto lane_sum = [](const auto& v) {
      double s = 0;
      for (double e : v) s += e;
      return s;
    };
    // two numbers per lane: first and last element minus the lane's minimum
    auto ends = [](const auto& v) {
      const double lo = xt::amin(v)();
      return xt::xarray<double>{v(0) - lo, v(v.size() - 1) - lo};
    };
    const auto s = ts::compute(ts::apply_along_axis(lane_sum, axis, x), pol);
    const auto e = ts::compute(ts::apply_along_axis(ends, axis - r, x), pol);
    std::vector<std::size_t> sshape, eshape(shape.begin(), shape.end());
    for (int d = 0; d < r; ++d)
      if (d != axis) sshape.push_back(std::size_t(shape[std::size_t(d)]));
    eshape[std::size_t(axis)] = 2;
    REQUIRE(s.shape() == sshape);
    REQUIRE(e.shape() == eshape);
    std::size_t outer = 1, inner = 1, len = std::size_t(shape[std::size_t(axis)]);
    for (int d = 0; d < axis; ++d) outer *= std::size_t(shape[std::size_t(d)]);
    for (int d = axis + 1; d < r; ++d) inner *= std::size_t(shape[std::size_t(d)]);
    bool ok = true;
    for (std::size_t o = 0; o < outer; ++o)
      for (std::size_t i = 0; i < inner; ++i) {
        double sum = 0, lo = xd.flat(o * len * inner + i);
        for (std::size_t j = 0; j < len; ++j) {
          const double v = xd.flat((o * len + j) * inner + i);
          sum += v;
          lo = std::min(lo, v);
        }
        ok = ok && s.flat(o * inner + i) == sum;
        ok = ok && e.flat((o * 2) * inner + i) == xd.flat(o * len * inner + i) - lo;
        ok = ok && e.flat((o * 2 + 1) * inner + i) == xd.flat((o * len + len - 1) * inner + i) - lo;
      }
    CHECK(ok);
  }
  auto x = ts::ones<double>({3, 4}, {2, 2});
  CHECK_THROWS_MATCHING(ts::apply_along_axis([](const auto& v) { return xt::xarray<double>(xt::zeros<double>({v.size(), v.size()})); }, 1, x),
                        ts::invalid_argument, Catch::Contains("returned a 2-d result"));
  // a length that changes from lane to lane is caught when computed
  auto varying = ts::apply_along_axis([](const auto& v) { return xt::xarray<double>(xt::zeros<double>({v(0) > 0 ? 3u : 2u})); }, 1, x);
  CHECK_THROWS_MATCHING(ts::compute(varying, pol), ts::invalid_argument, Catch::Contains("f must return one length"));
}

TEMPLATE_TEST_CASE("reduction (Dask's): chunk, combine and aggregate functions over a tree of any depth",
                   "[blocks][reduction]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(101125);
  std::mt19937_64 rng(seed);
  auto sum = [](const auto& b, const auto& ax) { return xt::xarray<double>(xt::sum(b, ax, xt::keep_dims)); };
  auto biggest = [](const auto& b, const auto& ax) { return xt::xarray<double>(xt::amax(b, ax, xt::keep_dims)); };
  auto count_positive = [](const auto& b, const auto& ax) {
    return xt::xarray<std::int64_t>(xt::sum(xt::cast<std::int64_t>(b > 0.0), ax, xt::keep_dims));
  };
  auto add_counts = [](const auto& b, const auto& ax) { return xt::xarray<std::int64_t>(xt::sum(b, ax, xt::keep_dims)); };
  auto as_double = [](const auto& b, const auto& ax) { return xt::xarray<double>(xt::cast<double>(xt::sum(b, ax, xt::keep_dims))); };
  for (int it = 0; it < test_iterations(12); ++it) {
    auto shape = random_shape(rng, 1, 3, 12);
    for (auto& n : shape) n = std::max<ts::index_t>(n, 1);
    const auto xd = testing::random_data<double>(rng, shape);  // multiples of 1/8: exact sums
    auto x = ts::from_xtensor(xd, random_chunks(rng, shape));
    const int r = int(shape.size());
    std::vector<ts::index_t> axes;
    std::vector<std::size_t> xa;
    for (int d = 0; d < r; ++d)
      if (rng() % 2) {
        axes.push_back(rng() % 2 ? d : d - r);
        xa.push_back(std::size_t(d));
      }
    if (axes.empty())
      for (int d = 0; d < r; ++d) xa.push_back(std::size_t(d));
    const bool keep = rng() % 2;
    const int every = 2 + int(rng() % 3);
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape) << " chunks "
                 << describe(x.chunks()) << " axes " << describe(axes) << " keep " << keep << " split_every " << every);
    const ts::reduce_options o{.keep_dims = keep, .split_every = every};
    const xt::xarray<double> want_sum = keep ? xt::xarray<double>(xt::sum(xd, xa, xt::keep_dims)) : xt::xarray<double>(xt::sum(xd, xa));
    const xt::xarray<double> want_max = keep ? xt::xarray<double>(xt::amax(xd, xa, xt::keep_dims)) : xt::xarray<double>(xt::amax(xd, xa));
    const xt::xarray<std::int64_t> pos = xt::cast<std::int64_t>(xd > 0.0);
    const xt::xarray<double> want_pos = keep ? xt::xarray<double>(xt::cast<double>(xt::sum(pos, xa, xt::keep_dims)))
                                             : xt::xarray<double>(xt::cast<double>(xt::sum(pos, xa)));
    CHECK(bitwise_equal_arrays(ts::compute(ts::reduction(x, sum, sum, sum, axes, o), pol), want_sum));
    CHECK(bitwise_equal_arrays(ts::compute(ts::reduction(x, biggest, biggest, biggest, axes, o), pol), want_max));
    CHECK(bitwise_equal_arrays(ts::compute(ts::reduction(x, count_positive, add_counts, as_double, axes, o), pol), want_pos));
  }
  auto x = ts::ones<double>({4, 4}, {1, 1});
  CHECK_THROWS_MATCHING(ts::reduction(x, sum, sum, sum, {0}, {.split_every = 1}), ts::invalid_argument,
                        Catch::Contains("split_every = 1"));
  CHECK_THROWS_MATCHING(ts::reduction(x, sum, sum, sum, {0, -2}), ts::invalid_argument, Catch::Contains("axis -2 repeats"));
}

TEMPLATE_TEST_CASE("blocks: Dask's x.blocks[...] as a view counted in blocks", "[blocks][view]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(111125);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(10); ++it) {
    auto shape = random_shape(rng, 1, 3, 9);
    for (auto& n : shape) n = std::max<ts::index_t>(n, 1);
    const auto xd = testing::random_data<double>(rng, shape);
    auto x = ts::from_xtensor(xd, random_chunks(rng, shape));
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape) << " chunks " << describe(x.chunks()));
    ts::slice_vector s;
    xt::xstrided_slice_vector ref;
    for (int d = 0; d < x.dimension(); ++d) {
      const auto& off = x.grid().offsets(d);
      const auto n = ts::index_t(off.size()) - 1;
      const ts::index_t a = ts::index_t(rng() % std::size_t(n));
      if (rng() % 2) {  // one block (negative half the time)
        s.push_back(rng() % 2 ? ts::slice(a) : ts::slice(a - n));
        ref.push_back(xt::range(off[std::size_t(a)], off[std::size_t(a + 1)]));
      } else {  // a run of blocks
        const ts::index_t b = a + 1 + ts::index_t(rng() % std::size_t(n - a));
        s.push_back(ts::range(a, b));
        ref.push_back(xt::range(off[std::size_t(a)], off[std::size_t(b)]));
      }
    }
    auto v = ts::blocks(x, s);
    CHECK(bitwise_equal_arrays(ts::compute(v, pol), xt::xarray<double>(xt::strided_view(xd, ref))));
  }
  auto x = ts::ones<double>({4, 6}, {2, 2});
  CHECK(ts::blocks(x, {1}).shape() == ts::shape_t{2, 6});
  CHECK_THROWS_MATCHING(ts::blocks(x, {0, 3}), ts::invalid_argument, Catch::Contains("block 3 is out of range for axis 1 with 3 blocks"));
  CHECK_THROWS_MATCHING(ts::blocks(x, {ts::range(0, 2, 2)}), ts::invalid_argument, Catch::Contains("needs step 1"));
}

TEMPLATE_TEST_CASE("blockwise: index notation with contracted, transposed and outer indices", "[blocks][blockwise]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(121125);
  std::mt19937_64 rng(seed);
  auto matmul = [](const auto& p, const auto& q) {
    xt::xarray<double> r = xt::zeros<double>({p.shape()[0], q.shape()[1]});
    for (std::size_t i = 0; i < p.shape()[0]; ++i)
      for (std::size_t k = 0; k < q.shape()[1]; ++k)
        for (std::size_t j = 0; j < p.shape()[1]; ++j) r(i, k) += p(i, j) * q(j, k);
    return r;
  };
  for (int it = 0; it < test_iterations(8); ++it) {
    const ts::index_t m = 1 + ts::index_t(rng() % 9), n = 1 + ts::index_t(rng() % 9), l = 1 + ts::index_t(rng() % 9);
    const auto ad = testing::random_data<double>(rng, {m, n}), bd = testing::random_data<double>(rng, {n, l});
    auto a = ts::from_xtensor(ad, random_chunks(rng, {m, n}));
    auto b = ts::from_xtensor(bd, random_chunks(rng, {n, l}));
    INFO("seed " << seed << " iteration " << it << " a chunks " << describe(a.chunks()) << " b chunks " << describe(b.chunks()));
    auto c = ts::blockwise(matmul, "ik", a, "ij", b, "jk");
    CHECK(c.chunks() == ts::chunks_t{a.chunks()[0], b.chunks()[1]});
    CHECK(bitwise_equal_arrays(ts::compute(c, pol), matmul(ad, bd)));  // the same sums, in order
    // a transpose and an outer product of two vectors (letters only in the output's order)
    CHECK(bitwise_equal_arrays(ts::compute(ts::blockwise([](const auto& p) { return xt::xarray<double>(xt::transpose(p)); }, "ji", a, "ij"), pol),
                               xt::xarray<double>(xt::transpose(ad))));
    auto u = ts::from_xtensor(xt::xarray<double>(xt::view(ad, xt::all(), 0)), random_chunks(rng, {m}));
    auto v = ts::from_xtensor(xt::xarray<double>(xt::view(bd, 0, xt::all())), random_chunks(rng, {l}));
    auto outer = ts::blockwise([](const auto& p, const auto& q) {
      return xt::xarray<double>(xt::view(p, xt::all(), xt::newaxis()) * xt::view(q, xt::newaxis(), xt::all()));
    }, "ij", u, "i", v, "j");
    CHECK(bitwise_equal_arrays(ts::compute(outer, pol), xt::xarray<double>(xt::view(ad, xt::all(), 0, xt::newaxis()) *
                                                                           xt::view(bd, xt::newaxis(), 0, xt::all()))));
  }
  auto x = ts::ones<double>({3, 4}, {2, 2});
  auto id = [](const auto& p) { return xt::xarray<double>(p); };
  CHECK_THROWS_MATCHING(ts::blockwise(id, "ik", x, "ij"), ts::invalid_argument, Catch::Contains("has 'k', which no input has"));
  CHECK_THROWS_MATCHING(ts::blockwise(id, "ij", x, "i"), ts::invalid_argument, Catch::Contains("index 'i' names 1"));
  CHECK_THROWS_MATCHING(ts::blockwise(id, "ii", x, "ii"), ts::invalid_argument, Catch::Contains("repeats 'i'"));
  CHECK_THROWS_MATCHING(ts::blockwise([](const auto& p, const auto&) { return xt::xarray<double>(p); }, "ij", x, "ij",
                                      ts::ones<double>({5}), "j"),
                        ts::invalid_argument, Catch::Contains("'j' has length 4 in one input and 5 in input 1"));
}

TEMPLATE_TEST_CASE("einsum: explicit and implicit subscripts against direct sums", "[blocks][einsum]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(131125);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(8); ++it) {
    const ts::index_t m = 1 + ts::index_t(rng() % 7), n = 1 + ts::index_t(rng() % 7), l = 1 + ts::index_t(rng() % 7);
    const auto ad = testing::random_data<double>(rng, {m, n}), bd = testing::random_data<double>(rng, {n, l});
    const auto td = testing::random_data<double>(rng, {m, n, l});
    auto a = ts::from_xtensor(ad, random_chunks(rng, {m, n}));
    auto b = ts::from_xtensor(bd, random_chunks(rng, {n, l}));
    auto t = ts::from_xtensor(td, random_chunks(rng, {m, n, l}));
    INFO("seed " << seed << " iteration " << it << " m n l " << m << " " << n << " " << l);
    xt::xarray<double> ab = xt::zeros<double>({std::size_t(m), std::size_t(l)});
    for (std::size_t i = 0; i < std::size_t(m); ++i)
      for (std::size_t k = 0; k < std::size_t(l); ++k)
        for (std::size_t j = 0; j < std::size_t(n); ++j) ab(i, k) += ad(i, j) * bd(j, k);
    CHECK(bitwise_equal_arrays(ts::compute(ts::einsum("ij,jk->ik", a, b), pol), ab));
    CHECK(bitwise_equal_arrays(ts::compute(ts::einsum("ij,jk", a, b), pol), ab));  // implicit: "ik"
    CHECK(bitwise_equal_arrays(ts::compute(ts::einsum("ij->ji", a), pol), xt::xarray<double>(xt::transpose(ad))));
    // a contraction of a 3-d operand with a matrix: tjl,lk... here "ijk,jk->i"
    xt::xarray<double> r = xt::zeros<double>({std::size_t(m)});
    for (std::size_t i = 0; i < std::size_t(m); ++i)
      for (std::size_t j = 0; j < std::size_t(n); ++j)
        for (std::size_t k = 0; k < std::size_t(l); ++k) r(i) += td(i, j, k) * bd(j, k);
    CHECK(bitwise_equal_arrays(ts::compute(ts::einsum("ijk, jk -> i", t, b), pol), r));
    // a full contraction: a 0-d result
    double s = 0;
    for (std::size_t i = 0; i < std::size_t(m); ++i)
      for (std::size_t j = 0; j < std::size_t(n); ++j) s += ad(i, j) * ad(i, j);
    CHECK(ts::einsum("ij,ij->", a, a).item(pol) == s);
    // an output letter innermost (no contraction): an outer product, transposed
    xt::xarray<double> outer = xt::zeros<double>({std::size_t(l), std::size_t(m)});
    for (std::size_t k = 0; k < std::size_t(l); ++k)
      for (std::size_t i = 0; i < std::size_t(m); ++i) outer(k, i) += bd(0, k) * ad(i, 0);  // 0 + p: no -0
    auto b0 = ts::view(b, 0, ts::all());
    auto a0 = ts::view(a, ts::all(), 0);
    CHECK(bitwise_equal_arrays(ts::compute(ts::einsum("k,i->ki", b0, a0), pol), outer));
    // batched (t's first axis with a's), three operands, two contracted letters
    xt::xarray<double> bt = xt::zeros<double>({std::size_t(m), std::size_t(l)});
    for (std::size_t i = 0; i < std::size_t(m); ++i)
      for (std::size_t k = 0; k < std::size_t(l); ++k)
        for (std::size_t j = 0; j < std::size_t(n); ++j) bt(i, k) += td(i, j, k) * ad(i, j) * bd(j, k);
    CHECK(bitwise_equal_arrays(ts::compute(ts::einsum("ijk,ij,jk->ik", t, a, b), pol), bt));
  }
  auto x = ts::ones<double>({3, 3}, {2, 2});
  CHECK_THROWS_MATCHING(ts::einsum("...i->i", x), ts::invalid_argument, Catch::Contains("ellipsis"));
  CHECK_THROWS_MATCHING(ts::einsum("ii->i", x), ts::invalid_argument, Catch::Contains("repeats 'i'"));
  CHECK_THROWS_MATCHING(ts::einsum("ij,jk->ik", x), ts::invalid_argument, Catch::Contains("names 2 operands but 1"));
  CHECK_THROWS_MATCHING(ts::einsum("ij->iz", x), ts::invalid_argument, Catch::Contains("'z', which no input has"));
}
