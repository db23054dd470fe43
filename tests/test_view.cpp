// Views: ts::view / ts::dynamic_view (NumPy basic indexing), transpose and swapaxes, the output
// chunk rule, composition into one remap, and pushdown (only selected elements are evaluated,
// only contributing input chunks are bound); against xt::strided_view / xt::transpose on the
// dense computed array.
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <xtensor/xadapt.hpp>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <type_traits>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <xtensor/xarray.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xstrided_view.hpp>

#include <tessera/tessera.hpp>
#include <tessera/view.hpp>

#include "support/backends.hpp"
#include "support/cases.hpp"

namespace ts = tessera;
using namespace testing;

namespace {

// ---------------------------------------------------------------------------------------------
// Instrumented leaves

/// Number of elements produced by counted_index (host side).
std::atomic<long long> g_generated{0};

/// F(i) = i, counting every element it produces (per element and in fill).
template <bool Batched>
struct counted_index {
  using value_type = double;
  static constexpr bool batched = Batched;
  TESSERA_HD double operator()(index_t i) const {
#if !defined(__CUDA_ARCH__)
    g_generated.fetch_add(1, std::memory_order_relaxed);
#endif
    return double(i);
  }
  void fill(index_t flat0, index_t dflat, index_t n, double* out) const {
    g_generated.fetch_add(n, std::memory_order_relaxed);
    for (index_t k = 0; k < n; ++k) out[k] = double(flat0 + k * dflat);
  }
};

/// Element counters only see host evaluation (device code does not count).
template <class P>
constexpr bool counts_elements = std::is_same_v<P, ts::host>;

template <bool Batched = true>
ts::generated<counted_index<Batched>> counted(const shape_t& shape, const chunks_t& chunks) {
  return {counted_index<Batched>{}, ts::chunk_grid(shape, chunks)};
}

/// The dense array of counted(shape): element at flat index i is i.
xt::xarray<double> dense_index(const shape_t& shape) {
  std::vector<std::size_t> sh(shape.begin(), shape.end());
  auto a = xt::xarray<double>::from_shape(sh);
  for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = double(i);
  return a;
}

/// True for the placement probe (it finds where inputs live; no data bound).
template <class Ctx>
constexpr bool is_probe = std::is_same_v<Ctx, ts::detail::placement_probe>;

/// A stored leaf that records every box it is bound on for evaluation.
struct bind_log {
  std::mutex m;
  std::vector<ts::box> boxes;
};
class recording : public ts::expression<recording> {
 public:
  using value_type = double;
  explicit recording(ts::array<double> a) : a_(std::move(a)), log_(std::make_shared<bind_log>()) {}
  const ts::chunk_grid& grid() const { return a_.grid(); }
  template <class Ctx>
  auto bind(const ts::box& b, Ctx& ctx) const {
    if (!is_probe<Ctx>) {  // the CUDA planner's affinity probe binds nothing
      std::lock_guard<std::mutex> g(log_->m);
      log_->boxes.push_back(b);
    }
    return a_.bind(b, ctx);
  }
  bind_log& log() const { return *log_; }

 private:
  ts::array<double> a_;
  std::shared_ptr<bind_log> log_;
};

// ---------------------------------------------------------------------------------------------
// Helpers

template <class T>
bool bitwise_equal(const xt::xarray<T>& a, const xt::xarray<T>& b) {
  return a.shape() == b.shape() &&  // memcmp of an empty array's null data() is UB (UBSan)
         (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

std::vector<std::size_t> ushape(const shape_t& s) { return {s.begin(), s.end()}; }

std::vector<double> values(const xt::xarray<double>& a) { return {a.begin(), a.end()}; }

/// For every element of grid g, the flat number of the block that holds it.
xt::xarray<double> block_ids(const ts::chunk_grid& g) {
  auto ids = xt::xarray<double>::from_shape(ushape(g.shape()));
  for (index_t b = 0; b < g.block_count(); ++b) {
    ts::box bx = g.block_box(b);
    if (bx.count() == 0) continue;
    ts::ivec st = ts::detail::row_major_strides(g.shape());
    ts::for_each_row(bx, st, [&](const ts::ivec& start, index_t) {
      index_t off = 0;
      for (int d = 0; d < start.n; ++d) off += start[d] * st[d];
      const index_t n = bx.rank() ? bx.extent(bx.rank() - 1) : 1;
      for (index_t j = 0; j < n; ++j) ids.data()[off + j] = double(b);
    });
    if (bx.rank() == 0) ids.data()[0] = double(b);
  }
  return ids;
}

/// Checks the chunk rule: `sel` holds, for every element of the output grid `out`, the block
/// of the input it comes from. Every output chunk must come from one input chunk, and along
/// every axis neighbouring chunks must come from different input chunks (so the chunks are
/// the per-input-chunk counts, zeros dropped); an empty axis has the single chunk {0}.
bool chunk_rule_holds(const ts::chunk_grid& out, const xt::xarray<double>& sel, std::string& why) {
  if (ushape(out.shape()) != std::vector<std::size_t>(sel.shape().begin(), sel.shape().end())) {
    why = "shape differs: " + ts::detail::cat(out.shape()) + " vs selected " +
          ts::detail::cat(shape_t(sel.shape().begin(), sel.shape().end()));
    return false;
  }
  for (int d = 0; d < out.rank(); ++d)
    if (out.shape()[std::size_t(d)] == 0 && out.chunks()[std::size_t(d)] != std::vector<index_t>{0}) {
      why = "empty axis without the single chunk {0}";
      return false;
    }
  if (out.size() == 0) return true;
  const ts::ivec st = ts::detail::row_major_strides(out.shape());
  for (index_t b = 0; b < out.block_count(); ++b) {
    ts::box bx = out.block_box(b);
    index_t off0 = 0;
    for (int d = 0; d < bx.rank(); ++d) off0 += bx.lo[d] * st[d];
    const double id = sel.data()[off0];
    bool same = true;
    if (bx.rank() > 0)
      ts::for_each_row(bx, st, [&](const ts::ivec& start, index_t) {
        index_t off = 0;
        for (int d = 0; d < start.n; ++d) off += start[d] * st[d];
        for (index_t j = 0; j < bx.extent(bx.rank() - 1); ++j)
          if (sel.data()[off + j] != id) same = false;
      });
    if (!same) {
      why = "output block " + std::to_string(b) + " mixes input chunks";
      return false;
    }
  }
  for (int d = 0; d < out.rank(); ++d) {
    const auto& o = out.offsets(d);
    for (std::size_t c = 1; c + 1 < o.size(); ++c)
      if (sel.data()[o[c] * st[d]] == sel.data()[(o[c] - 1) * st[d]]) {
        why = "chunks " + std::to_string(c - 1) + " and " + std::to_string(c) + " of axis " +
              std::to_string(d) + " come from the same input chunk";
        return false;
      }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Random slices, built with both the tessera and the xtensor API

using xslice = xt::xstrided_slice<std::ptrdiff_t>;

struct slice_pair {
  ts::slice t;
  xslice x;
};

/// The xtensor slice for a range adaptor on an axis of length n. xtensor 0.24's
/// xstepped_range computes a negative size for an empty stepped range (e.g. 3:12:-5); such
/// ranges are replaced by the empty range 0:0 (xtensor's own start/stop normalization and size
/// decide emptiness).
template <class A, class B, class C>
xslice xt_range(const xt::xrange_adaptor<A, B, C>& r, index_t n) {
  if (std::ptrdiff_t(r.get(std::size_t(n)).size()) <= 0) return xt::range(std::ptrdiff_t(0), std::ptrdiff_t(0));
  return r;
}

/// A range with optional bounds and step, through ts::range / xt::range with placeholders.
slice_pair make_range(bool hs, bool hp, bool hst, std::ptrdiff_t a, std::ptrdiff_t b,
                      std::ptrdiff_t s, bool step_as_placeholder, index_t n) {
  using ts::placeholders::_;
  namespace xp = xt::placeholders;
  auto pr = [n](ts::range_t t, const auto& x) { return slice_pair{t, xt_range(x, n)}; };
  switch (int(hs) * 4 + int(hp) * 2 + int(hst)) {
    case 7: return pr(ts::range(a, b, s), xt::range(a, b, s));
    case 6:
      if (step_as_placeholder) return pr(ts::range(a, b, _), xt::range(a, b));
      return pr(ts::range(a, b), xt::range(a, b));
    case 5: return pr(ts::range(a, _, s), xt::range(a, xp::_, s));
    case 4:
      if (step_as_placeholder) return pr(ts::range(a, _, _), xt::range(a, xp::_));
      return pr(ts::range(a, _), xt::range(a, xp::_));
    case 3: return pr(ts::range(_, b, s), xt::range(xp::_, b, s));
    case 2:
      if (step_as_placeholder) return pr(ts::range(_, b, _), xt::range(xp::_, b));
      return pr(ts::range(_, b), xt::range(xp::_, b));
    case 1: return pr(ts::range(_, _, s), xt::range(xp::_, xp::_, s));
    default:
      if (step_as_placeholder) return pr(ts::range(_, _, _), xt::range(xp::_, xp::_, xp::_));
      return pr(ts::range(_, _), xt::range(xp::_, xp::_));
  }
}

/// One slice for an axis of length n (consuming): integer, range or all.
slice_pair random_consuming(std::mt19937_64& rng, index_t n) {
  const unsigned k = unsigned(rng() % 10);
  if (k < 2 && n > 0) {  // integer, maybe negative; xt::strided_view wants it normalized
    index_t i = index_t(rng() % std::uint64_t(2 * n)) - n;
    return {ts::slice(i), xslice(std::ptrdiff_t(i < 0 ? i + n : i))};
  }
  if (k < 3) return {ts::all(), xt::all()};
  auto bound = [&] {  // mostly inside [-n, n], sometimes out of range (clips)
    const std::ptrdiff_t w = rng() % 4 == 0 ? std::ptrdiff_t(n) + 4 : std::ptrdiff_t(n);
    return std::ptrdiff_t(rng() % std::uint64_t(2 * w + 1)) - w;
  };
  std::ptrdiff_t s = 1 + std::ptrdiff_t(rng() % 7);
  if (rng() % 2) s = -s;
  bool hs = rng() % 4 != 0, hp = rng() % 4 != 0, hst = rng() % 5 != 0;
  if (!hst) s = 1;
  std::ptrdiff_t a = bound(), b = bound();
  if (rng() % 3 != 0) {  // mostly bounds in the step's direction, so most ranges select something
    const auto pos = [n](std::ptrdiff_t v) { return v < 0 ? v + std::ptrdiff_t(n) : v; };
    if ((s > 0) == (pos(a) > pos(b))) std::swap(a, b);
  }
  return make_range(hs, hp, hst, a, b, s, rng() % 2, n);
}

struct random_view {
  ts::slice_vector t;
  xt::xstrided_slice_vector x;
};

/// Random slices for shape: integers, ranges, all, newaxis, ellipsis; at most `max_out` axes out.
random_view make_random_view(std::mt19937_64& rng, const shape_t& shape, int max_out = 6) {
  const int r = int(shape.size());
  const int m = int(rng() % std::uint64_t(r + 1));  // consuming slices
  const bool ell = rng() % 4 == 0;
  const int epos = ell ? int(rng() % std::uint64_t(m + 1)) : m;
  std::vector<slice_pair> seq;
  for (int i = 0; i < m; ++i) {
    const int axis = i < epos ? i : r - (m - i);
    seq.push_back(random_consuming(rng, shape[std::size_t(axis)]));
  }
  if (ell) seq.insert(seq.begin() + epos, slice_pair{ts::ellipsis(), xt::ellipsis()});
  int out_rank = r;
  for (auto& p : seq)
    if (p.t.type() == ts::slice::kind::index) --out_rank;
  int nnew = rng() % 3 == 0 ? 1 + int(rng() % 2) : 0;
  nnew = std::min(nnew, max_out - out_rank);
  for (int i = 0; i < nnew; ++i)
    seq.insert(seq.begin() + std::ptrdiff_t(rng() % (seq.size() + 1)),
               slice_pair{ts::newaxis(), xt::newaxis()});
  random_view v;
  for (auto& p : seq) {
    v.t.push_back(p.t);
    v.x.push_back(p.x);
  }
  return v;
}

/// Applies 1-3 random views or transposes to `v` (a remap) and the same to the dense `ref`;
/// checks the chunk rule of every step. Returns false (with a description) on a rule failure.
template <class V>
bool random_chain(std::mt19937_64& rng, V& v, xt::xarray<double>& ref, std::string& log) {
  const int steps = 1 + int(rng() % 3);
  for (int s = 0; s < steps; ++s) {
    const int r = v.dimension();
    if (r >= 2 && rng() % 4 == 0) {
      std::vector<std::size_t> perm(std::size_t(r), 0);
      std::iota(perm.begin(), perm.end(), std::size_t(0));
      std::shuffle(perm.begin(), perm.end(), rng);
      std::vector<index_t> axes(perm.begin(), perm.end());
      chunks_t expect;
      for (auto p : perm) expect.push_back(v.chunks()[p]);
      if (rng() % 3 == 0) {
        const index_t a = index_t(rng() % std::uint64_t(r)), b = index_t(rng() % std::uint64_t(r));
        log += " swapaxes(" + std::to_string(a) + "," + std::to_string(b - r) + ")";
        v = ts::swapaxes(v, a, b - r);
        std::vector<std::size_t> sw(std::size_t(r), 0);
        std::iota(sw.begin(), sw.end(), std::size_t(0));
        std::swap(sw[std::size_t(a)], sw[std::size_t(b)]);
        ref = xt::transpose(ref, sw);
        continue;
      }
      if (rng() % 3 == 0) {  // no axes: reverse them
        log += " transpose()";
        for (std::size_t i = 0; i < perm.size(); ++i) expect[i] = v.chunks()[perm.size() - 1 - i];
        v = ts::transpose(v);
        ref = xt::transpose(ref);
      } else {
        for (auto& ax : axes)
          if (rng() % 2) ax -= r;  // negative axes count from the end
        log += " transpose" + ts::detail::cat(axes);
        v = ts::transpose(v, axes);
        ref = xt::transpose(ref, perm);
      }
      if (v.chunks() != expect) {
        log += " <- transpose chunks wrong";
        return false;
      }
      continue;
    }
    random_view rv = make_random_view(rng, v.shape());
    log += " view" + ts::describe_slices(rv.t);
    xt::xarray<double> ids = block_ids(v.grid());
    v = ts::dynamic_view(v, rv.t);
    ref = xt::strided_view(ref, rv.x);
    xt::xarray<double> sel = xt::strided_view(ids, rv.x);
    std::string why;
    if (!chunk_rule_holds(v.grid(), sel, why)) {
      log += " <- chunk rule: " + why + " (chunks " + describe(v.chunks()) + ")";
      return false;
    }
  }
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

TEMPLATE_TEST_CASE("slices follow NumPy basic indexing", "[view]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  using namespace ts::placeholders;
  auto a = ts::arange<double>(0, 10, 1, {3});
  auto v = [&](auto s) { return values(ts::compute(ts::view(a, s), pol)); };
  using V = std::vector<double>;
  // Expected values from NumPy 1.24 on np.arange(10).
  CHECK(v(ts::range(_, _, -3)) == V{9, 6, 3, 0});
  CHECK(v(ts::range(8, 2, -2)) == V{8, 6, 4});
  CHECK(v(ts::range(-3, _)) == V{7, 8, 9});
  CHECK(v(ts::range(20, _)).empty());
  CHECK(v(ts::range(_, 100, 7)) == V{0, 7});
  CHECK(v(ts::range(-100, 3)) == V{0, 1, 2});
  CHECK(v(ts::range(5, -100, -4)) == V{5, 1});
  CHECK(v(ts::range(_, _, 15)) == V{0});
  CHECK(v(ts::range(_, _, -15)) == V{9});
  CHECK(v(ts::range(-1, -12, -1)) == V{9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
  CHECK(v(ts::range(3, 3)).empty());
  CHECK(v(ts::range(7, 2)).empty());
  CHECK(v(ts::range(2, -1, 2)) == V{2, 4, 6, 8});
  CHECK(v(ts::range(-2, _, -1)) == V{8, 7, 6, 5, 4, 3, 2, 1, 0});
  CHECK(v(ts::range(_, -1)) == V{0, 1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(v(ts::all()) == V{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(v(ts::range(std::size_t(7), ~std::size_t(0))) == V{7, 8, 9});  // huge unsigned stop clips
  CHECK(v(ts::range(-3, std::int8_t(-1))) == V{7, 8});
  CHECK_THROWS_AS(ts::view(a, ~std::size_t(0)), std::out_of_range);
  CHECK(ts::view(a, 7).dimension() == 0);
  CHECK(ts::item(ts::view(a, -3), pol) == 7.0);

  auto x = counted({2, 3, 4}, {{1, 1}, {2, 1}, {3, 1}});  // np.arange(24).reshape(2, 3, 4)
  CHECK(ts::view(x, ts::ellipsis(), 1).shape() == shape_t{2, 3});
  CHECK(ts::view(x, ts::newaxis(), 0, ts::ellipsis(), ts::newaxis()).shape() == shape_t{1, 3, 4, 1});
  CHECK(ts::view(x, 1).shape() == shape_t{3, 4});
  CHECK(ts::item(ts::view(x, -1, -1, -1), pol) == 23.0);
  auto y = ts::view(x, ts::all(), ts::range(_, _, -2), ts::newaxis(), ts::range(1, 3));
  CHECK(y.shape() == shape_t{2, 2, 1, 2});
  CHECK(values(ts::compute(y, pol)) == V{9, 10, 1, 2, 21, 22, 13, 14});
  auto z = ts::view(x, -1, ts::ellipsis(), ts::range(_, _, -3));
  CHECK(z.shape() == shape_t{3, 2});
  CHECK(values(ts::compute(z, pol)) == V{15, 12, 19, 16, 23, 20});
  CHECK(ts::view(x).shape() == shape_t{2, 3, 4});  // no slices: the whole array
  CHECK(ts::view(x, ts::ellipsis()).shape() == shape_t{2, 3, 4});
  CHECK(ts::view(x, 0, ts::ellipsis(), 0, 0).dimension() == 0);

  // 0-d inputs take newaxis and ellipsis only.
  auto s = ts::full<double>({}, 5.0);
  CHECK(ts::view(s, ts::newaxis()).shape() == shape_t{1});
  CHECK(values(ts::compute(ts::view(s, ts::ellipsis(), ts::newaxis(), ts::newaxis()), pol)) == V{5.0});
}

TEMPLATE_TEST_CASE("extreme steps select as NumPy's (no overflow at INT64_MIN)", "[view]",
                   TESSERA_TEST_BACKENDS) {
  using namespace ts::placeholders;
  TestType pol{};
  const ts::index_t lo = std::numeric_limits<ts::index_t>::min(), hi = std::numeric_limits<ts::index_t>::max();
  xt::xarray<std::int64_t> a = xt::xarray<std::int64_t>::from_shape({5, 10});
  for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = std::int64_t(i);
  auto x = ts::from_xtensor(a, {2, 3});  // row stride 10: a huge step times it must not overflow
  auto one = [&](const auto& v, std::int64_t expect) {
    auto c = ts::compute(v, pol);
    REQUIRE(c.size() == 1);
    CHECK(c.data()[0] == expect);
  };
  // NumPy: a[::-2**63, ::2**63-1] == [[40]], a[3:-2**63:-2**63, 5::-2**63] == [[35]]
  one(ts::view(x, ts::range(_, _, lo), ts::range(_, _, hi)), 40);
  one(ts::view(x, ts::range(3, lo, lo), ts::range(5, _, lo)), 35);
  one(ts::view(x, ts::range(lo, hi, hi), ts::range(hi, lo, lo)), 9);
  // A view of a view: a[::2][::-2**63, 1::2**63-1] == [[41]]
  one(ts::view(ts::view(x, ts::range(_, _, 2), ts::all()), ts::range(_, _, lo), ts::range(1, _, hi)), 41);
  CHECK(ts::view(x, ts::range(_, _, lo), ts::all()).shape() == ts::shape_t{1, 10});
}

TEST_CASE("view arguments are validated", "[view][errors]") {
  using namespace ts::placeholders;
  auto x = ts::zeros<double>({4, 5}, {2, 2});
  CHECK_THROWS_AS(ts::view(x, 4), std::out_of_range);
  CHECK_THROWS_AS(ts::view(x, -5), std::out_of_range);
  CHECK_THROWS_AS(ts::view(x, 0, 5), std::out_of_range);
  CHECK_THROWS_AS(ts::view(x, ts::all(), -6), std::out_of_range);
  CHECK_THROWS_WITH(ts::view(x, 0, 7), Catch::Contains("7") && Catch::Contains("axis 1"));
  CHECK_THROWS_AS(ts::view(x, ts::range(0, 4, 0)), std::invalid_argument);
  CHECK_THROWS_AS(ts::view(x, ts::all(), ts::range(_, _, 0)), std::invalid_argument);
  CHECK_THROWS_WITH(ts::view(x, ts::range(1, 4, 0)), Catch::Contains("step") && Catch::Contains("1:4:0"));
  CHECK_THROWS_AS(ts::view(x, 0, 0, 0), std::invalid_argument);
  CHECK_THROWS_AS(ts::view(x, ts::all(), ts::all(), ts::newaxis(), ts::all()), std::invalid_argument);
  CHECK_THROWS_WITH(ts::view(x, 1, 2, ts::all()), Catch::Contains("too many indices"));
  CHECK_THROWS_AS(ts::view(x, ts::ellipsis(), 0, ts::ellipsis()), std::invalid_argument);
  auto e = ts::zeros<double>({0, 3});
  CHECK_THROWS_AS(ts::view(e, 0), std::out_of_range);
  CHECK_NOTHROW(ts::view(e, ts::range(5, -5, -2), 2));
  // More than max_rank output axes.
  ts::slice_vector many(std::size_t(ts::max_rank) - 2, ts::newaxis());  // 2 + 6 = max_rank axes
  CHECK_NOTHROW(ts::dynamic_view(x, many));
  many.push_back(ts::newaxis());
  CHECK_THROWS_AS(ts::dynamic_view(x, many), std::invalid_argument);
  // transpose / swapaxes errors name the axes.
  CHECK_THROWS_AS(ts::transpose(x, {1, 1}), std::invalid_argument);
  CHECK_THROWS_AS(ts::transpose(x, {0}), std::invalid_argument);
  CHECK_THROWS_WITH(ts::swapaxes(x, 0, 3), Catch::Contains("3"));
}

TEST_CASE("view output chunks follow the one-input-chunk rule", "[view][chunks]") {
  using namespace ts::placeholders;
  // [::2] on 10000-wide chunks gives 5000-wide chunks.
  auto x = ts::ones<double>({100000}, {10000});
  auto v = ts::view(x, ts::range(_, _, 2));
  CHECK(v.chunks() == chunks_t{std::vector<index_t>(10, 5000)});
  // Counts per input chunk, in output order, zeros dropped.
  auto y = ts::ones<double>({10}, {{3, 3, 4}});
  CHECK(ts::view(y, ts::range(1, _, 3)).chunks() == chunks_t{{1, 1, 1}});     // 1 | 4 | 7
  CHECK(ts::view(y, ts::range(_, _, -4)).chunks() == chunks_t{{1, 1, 1}});    // 9 | 5 | 1
  CHECK(ts::view(y, ts::range(4, 5)).chunks() == chunks_t{{1}});
  CHECK(ts::view(y, ts::range(2, 8)).chunks() == chunks_t{{1, 3, 2}});
  CHECK(ts::view(y, ts::range(8, 2, -1)).chunks() == chunks_t{{3, 3}});     // 8 7 6 | 5 4 3
  CHECK(ts::view(y, ts::range(9, 0, -2)).chunks() == chunks_t{{2, 2, 1}});  // 9 7 | 5 3 | 1
  CHECK(ts::view(y, ts::range(_, _, 20)).chunks() == chunks_t{{1}});
  CHECK(ts::view(y, ts::range(6, 3)).chunks() == chunks_t{{0}});
  CHECK(ts::view(y, ts::newaxis(), 3).chunks() == chunks_t{{1}});
  // A slice of a huge array has about as many chunks as the input.
  auto h = ts::zeros<double>({index_t(1) << 40}, {index_t(1) << 26});  // 16384 chunks, never allocated
  auto hv = ts::view(h, ts::range(12345, -777, 3));
  CHECK(hv.numblocks() == shape_t{16384});
  index_t total = 0;
  for (auto c : hv.chunks()[0]) total += c;
  CHECK(total == hv.shape()[0]);
  CHECK(hv.shape()[0] == ((index_t(1) << 40) - 777 - 12345 + 2) / 3);
}

TEST_CASE("views compose into one remap", "[view][compose]") {
  using namespace ts::placeholders;
  auto a = ts::zeros<double>({6, 7, 8}, {2, 3, 4});
  using R = ts::remap<ts::generated<ts::generators::constant<double>>>;
  auto v1 = ts::view(a, ts::range(_, _, 2), 1);
  auto v2 = ts::view(v1, ts::range(_, _, -1), ts::newaxis());
  auto v3 = ts::transpose(ts::view(ts::transpose(v2), 0, ts::ellipsis()));
  STATIC_REQUIRE(std::is_same_v<decltype(v1), R>);
  STATIC_REQUIRE(std::is_same_v<decltype(v2), R>);
  STATIC_REQUIRE(std::is_same_v<decltype(v3), R>);
  STATIC_REQUIRE(std::is_same_v<decltype(ts::swapaxes(v3, 0, 1)), R>);
  CHECK(v3.shape() == shape_t{3, 1});
}

TEMPLATE_TEST_CASE("strided views evaluate only the selected elements", "[view][pushdown]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  using namespace ts::placeholders;
  const shape_t shape{3000, 2000};
  const chunks_t chunks{ts::detail::regular(3000, 700), ts::detail::regular(2000, 600)};
  auto dense = dense_index(shape);
  auto run = [&](const auto& expr, const xt::xarray<double>& expected, int leaves = 1) {
    g_generated = 0;
    auto r = ts::compute(expr, pol);
    const long long produced = g_generated.load();
    if constexpr (counts_elements<TestType>) CHECK(produced == leaves * expr.size());
    CHECK(bitwise_equal(r, expected));
  };
  auto g = counted<true>(shape, chunks);
  auto u = counted<false>(shape, chunks);
  xt::xstrided_slice_vector s22{xt::range(xt::placeholders::_, xt::placeholders::_, 2),
                                xt::range(xt::placeholders::_, xt::placeholders::_, 2)};
  xt::xarray<double> d22 = xt::strided_view(dense, s22);
  run(ts::view(g, ts::range(_, _, 2), ts::range(_, _, 2)), d22);  // batched fill path
  run(ts::view(u, ts::range(_, _, 2), ts::range(_, _, 2)), d22);  // per-element path
  run(ts::view(g + 1.0, ts::range(_, _, 2), ts::range(_, _, 2)), xt::xarray<double>(d22 + 1.0));
  run(ts::view(g * 2.0 - u, ts::range(_, _, 2), ts::range(_, _, 2)) + 1.0,
      xt::xarray<double>(d22 * 2.0 - d22 + 1.0), 2);  // two counted leaves: 2 * size
  // Negative steps, integers, newaxis, a view of a view and a transpose in between.
  auto w = ts::view(ts::transpose(ts::view(g + 0.5, ts::range(-1, 10, -3), ts::range(3, -3, 5))),
                    ts::range(_, _, -2), ts::newaxis(), ts::range(1, _, 4));
  xt::xstrided_slice_vector sa{xt::range(-1, 10, -3), xt::range(3, -3, 5)};
  xt::xarray<double> ref1 = xt::transpose(xt::xarray<double>(xt::strided_view(dense, sa)) + 0.5);
  xt::xstrided_slice_vector sb{xt::range(xt::placeholders::_, xt::placeholders::_, -2), xt::newaxis(),
                               xt::range(1, xt::placeholders::_, 4)};
  run(w, xt::xarray<double>(xt::strided_view(ref1, sb)));
  run(ts::view(g, 2999, ts::range(_, _, 999)), xt::xarray<double>{2999.0 * 2000, 2999.0 * 2000 + 999,
                                                                   2999.0 * 2000 + 1998});
  // A slice that selects nothing evaluates nothing.
  run(ts::view(g + 1.0, ts::range(5, 5), ts::all()), xt::xarray<double>::from_shape({0, 2000}));
}

TEMPLATE_TEST_CASE("views bind only the input chunks that contribute", "[view][pushdown]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(40404);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(150); ++it) {
    const shape_t shape = random_shape(rng, 1, 3, 30);
    const chunks_t chunks = random_chunks(rng, shape);
    auto dense = testing::random_data<double>(rng, shape);
    random_view rv = make_random_view(rng, shape);
    const bool under = rng() % 2;
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape) << " chunks "
                 << describe(chunks) << " view " << ts::describe_slices(rv.t)
                 << (under ? " of (x + 1)" : ""));
    recording rec(ts::from_xtensor(dense, chunks));
    std::vector<ts::box> boxes;
    xt::xarray<double> got;
    index_t out_blocks = 0;
    if (under) {
      auto v = ts::dynamic_view(rec + 1.0, rv.t);
      got = ts::compute(v, pol) - 1.0;
      for (index_t b = 0; b < v.grid().block_count(); ++b) out_blocks += v.grid().block_box(b).count() > 0;
    } else {
      auto v = ts::dynamic_view(rec, rv.t);
      got = ts::compute(v, pol);
      for (index_t b = 0; b < v.grid().block_count(); ++b) out_blocks += v.grid().block_box(b).count() > 0;
    }
    CHECK(bitwise_equal(got, xt::xarray<double>(xt::strided_view(dense, rv.x))));
    boxes = rec.log().boxes;
    const ts::chunk_grid& g = rec.grid();
    // The chunks that hold a selected element.
    xt::xarray<double> sel = xt::strided_view(block_ids(g), rv.x);
    std::set<index_t> contributing;
    for (double id : sel) contributing.insert(index_t(id));
    // One bind per non-empty output chunk, each inside one input chunk, each a different one.
    std::set<index_t> bound;
    bool inside = true;
    for (const auto& b : boxes) {
      index_t flat = 0;
      for (int d = 0; d < g.rank(); ++d) {
        const index_t k = g.block_along(d, b.lo[d]);
        if (g.block_along(d, b.hi[d] - 1) != k) inside = false;
        flat = flat * index_t(g.chunks()[std::size_t(d)].size()) + k;
      }
      bound.insert(flat);
    }
    CHECK(inside);
    if (testing::processes(pol) > 1) continue;  // each rank binds only the chunks of its tasks
    const auto evals = testing::evaluations_per_compute<TestType>;  // each binds the same boxes
    CHECK(index_t(boxes.size()) == out_blocks * evals);
    CHECK(boxes.size() == bound.size() * evals);
    CHECK(bound == contributing);
  }
}

TEMPLATE_TEST_CASE("randomized views match xt::strided_view", "[view][random]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const auto seed = test_seed(20261121);
  INFO("seed " << seed << " (override with TESSERA_TEST_SEED)");
  std::mt19937_64 rng(seed);
  int cases = 0, failures = 0;
  for (int it = 0; it < test_iterations(6000) && failures < 5; ++it) {
    shape_t shape = random_shape(rng, 1, 4, it % 3 == 0 ? 12 : 7);
    for (auto& n : shape)  // random_shape makes 1 axis in 10 empty; keep only a third of those
      if (n == 0 && rng() % 3 != 0) n = 1 + index_t(rng() % 7);
    const chunks_t chunks = random_chunks(rng, shape);
    const int scenario = int(rng() % 4);
    std::string log;
    bool ok = true, same = true;
    long long produced = -1, expected_count = -1;
    if (scenario == 0) {  // a chain of views / transposes of a stored array
      auto dense = testing::random_data<double>(rng, shape);
      auto v = ts::view(ts::from_xtensor(dense, chunks));
      xt::xarray<double> ref = dense;
      ok = random_chain(rng, v, ref, log);
      if (ok) same = bitwise_equal(ts::compute(v, pol), ref);
    } else if (scenario == 1) {  // views of a generated leaf: count the elements it produces
      auto v = ts::view(counted(shape, chunks));
      xt::xarray<double> ref = dense_index(shape);
      ok = random_chain(rng, v, ref, log);
      if (ok) {
        g_generated = 0;
        same = bitwise_equal(ts::compute(v, pol), ref);
        produced = g_generated.load();
        expected_count = v.size();
      }
    } else {  // expressions under views and views under expressions
      auto dense = testing::random_data<double>(rng, shape);
      auto a = ts::from_xtensor(dense, chunks);
      auto gen = counted<false>(shape, random_chunks(rng, shape));  // other chunks: refinement
      auto v = ts::view(a * 2.0 + gen);
      xt::xarray<double> ref = dense * 2.0 + dense_index(shape);
      ok = random_chain(rng, v, ref, log);
      if (ok && scenario == 3) {
        log += " then (- 0.5)";
        auto w = ts::view(v - 0.5);
        xt::xarray<double> ref2 = ref - 0.5;
        ok = random_chain(rng, w, ref2, log);
        if (ok) {
          g_generated = 0;
          same = bitwise_equal(ts::compute(w, pol), ref2);
          produced = g_generated.load();
          expected_count = w.size();
        }
      } else if (ok) {
        g_generated = 0;
        same = bitwise_equal(ts::compute(v, pol), ref);
        produced = g_generated.load();
        expected_count = v.size();
      }
    }
    ++cases;
    INFO("iteration " << it << " scenario " << scenario << " shape " << describe(shape)
                      << " chunks " << describe(chunks) << " ops" << log);
    CHECK(ok);
    CHECK(same);
    if constexpr (!counts_elements<TestType>) produced = expected_count;
    CHECK(produced == expected_count);
    if (!ok || !same || produced != expected_count) ++failures;
  }
  CHECK(cases >= test_iterations(6000));
}

#if __has_include(<tessera/random.hpp>)
#include <tessera/random.hpp>

namespace {

/// Wraps a generated leaf's function, counting every element it produces.
template <class F>
struct counting_fn {
  using value_type = typename F::value_type;
  static constexpr bool batched = ts::detail::batched_fn<F>;
  F f;
  TESSERA_HD value_type operator()(index_t i) const {
#if !defined(__CUDA_ARCH__)
    g_generated.fetch_add(1, std::memory_order_relaxed);
#endif
    return f(i);
  }
  void fill(index_t flat0, index_t dflat, index_t n, value_type* out) const {
    g_generated.fetch_add(n, std::memory_order_relaxed);
    f.fill(flat0, dflat, n, out);
  }
};
template <class F>
ts::generated<counting_fn<F>> counting(const ts::generated<F>& x) {
  return {counting_fn<F>{x.function()}, x.grid()};
}

/// Checks view(normal(10, 1, {n, m}, chunks) + 1, ::2, ::2) against the dense array sliced
/// by xtensor, `slab` input rows at a time, and that exactly size() normals are generated.
template <class P>
void check_strided_normals(const P& pol, index_t n, index_t m, index_t c, index_t slab) {
  using namespace ts::placeholders;
  namespace xp = xt::placeholders;
  auto g = ts::random::default_rng(2026);
  auto x = g.normal<double>(10, 1, {n, m}, {c, c});
  auto v = ts::view(counting(x) + 1.0, ts::range(_, _, 2), ts::range(_, _, 2));
  CHECK(v.shape() == shape_t{(n + 1) / 2, (m + 1) / 2});
  CHECK(v.numblocks() == x.numblocks());
  g_generated = 0;
  auto got = ts::compute(v, pol);
  if constexpr (counts_elements<P>) CHECK(g_generated.load() == v.size());
  CHECK(index_t(got.size()) == v.size());
  bool same = true;
  for (index_t r0 = 0; r0 < n && same; r0 += slab) {
    // The dense rows [r0, r0 + slab) of x + 1, computed without the view, sliced by xtensor.
    auto dense = ts::compute(ts::view(x + 1.0, ts::range(r0, r0 + slab)), pol);
    xt::xarray<double> ref = xt::strided_view(dense, {xt::range(xp::_, xp::_, 2), xt::range(xp::_, xp::_, 2)});
    xt::xarray<double> part = xt::strided_view(got, {xt::range(r0 / 2, r0 / 2 + std::ptrdiff_t(ref.shape()[0])), xt::all()});
    same = bitwise_equal(part, ref);
  }
  CHECK(same);
}

}  // namespace

TEMPLATE_TEST_CASE("strided view of random normals generates only the selected ones",
                   "[view][pushdown][random]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  check_strided_normals(pol, 2001, 1999, 200, 2001);  // odd sizes, ragged last chunks
  check_strided_normals(pol, 3000, 2000, 333, 1000);
}

// The "done when" case at full size: 20000 x 20000 normals in 2000 x 2000 chunks,
// [::2, ::2] of (x + 1): exactly 1e8 normals generated, values equal to the sliced dense array
// (compared 2000 rows = 320 MB of dense array at a time).
TEMPLATE_TEST_CASE("done when: view(normal({20000, 20000}) + 1, ::2, ::2)", "[view][pushdown][random][large]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  check_strided_normals(pol, 20000, 20000, 2000, 2000);
}
#endif

TEMPLATE_TEST_CASE("range bounds known only at run time: std::optional", "[view][optional]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  const xt::xarray<double> xd = xt::arange<double>(12);
  auto x = ts::from_xtensor(xd, {5});
  for (int lo = -1; lo < 12; lo += 4)
    for (int step : {0, 1, -2, 3}) {
      const std::optional<int> start = lo < 0 ? std::nullopt : std::optional<int>(lo);
      const std::optional<int> st = step == 0 ? std::nullopt : std::optional<int>(step);
      const std::optional<long> stop;  // empty: the end for the step's direction
      INFO("start " << lo << " step " << step);
      auto v = ts::compute(ts::view(x, ts::range(start, stop, st)), pol);
      const int s = step == 0 ? 1 : step;
      std::vector<double> w;  // NumPy: start defaults to 0 (step > 0) or the last index
      for (int i = lo >= 0 ? lo : (s > 0 ? 0 : 11); i >= 0 && i < 12; i += s) w.push_back(xd(std::size_t(i)));
      const xt::xarray<double> want = xt::adapt(w, {w.size()});
      CHECK(bool(v == want));
    }
}
