// Arrays assembled from pieces: concatenate, stack, hstack, vstack, dstack, column_stack,
// block, append (join.hpp) and pad, roll, tile (pad.hpp), against NumPy run at test time on
// random shapes, chunkings, axes and widths (tests/support/numpy_reference.hpp); boxes that
// span pieces (rechunk over the node, reductions); the chunks; errors naming the bad value.
// Instantiated per backend (tests/cuda/test_backend_manipulation.cu includes it too).
#define TESSERA_NO_DISPATCH 1  // one kernel copy per expression: dispatch is tested elsewhere
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include <tessera/tessera.hpp>
#include <xtensor/xadapt.hpp>

#include "support/backends.hpp"
#include "support/cases.hpp"
#include "support/numpy_reference.hpp"

namespace ts = tessera;
using namespace testing;

namespace {

std::string joined(const std::vector<ts::index_t>& v) {
  std::string s;
  for (auto x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s.empty() ? "-" : s;
}

ts::index_t signed_axis(std::mt19937_64& rng, int r) {
  const ts::index_t d = ts::index_t(rng() % unsigned(r));
  return rng() % 2 ? d : d - r;
}

/// Joining: same-type lists of random length, a heterogeneous tuple, and the stack family.
template <class P>
void join_cases(case_writer<P>& w, std::mt19937_64& rng) {
  auto shape = random_shape(rng, 1, 4, 5);
  const int r = int(shape.size());
  const ts::index_t ax = signed_axis(rng, r);
  std::vector<ts::array<double>> xs;
  std::vector<std::string> names;
  const int k = 1 + int(rng() % 4);
  for (int i = 0; i < k; ++i) {
    auto s = shape;
    s[std::size_t(ax < 0 ? ax + r : ax)] = ts::index_t(rng() % 4);  // 0 to 3 along the axis
    xs.push_back(ts::from_xtensor(edgy_data<double>(rng, s), random_chunks(rng, s)));
    names.push_back(w.input(xs.back()));
  }
  auto line = [&](const std::string& f, const auto& e, const std::string& param) {
    const std::string out = "out" + std::to_string(w.n++) + ".npy";
    ts::to_npy(e, w.dir / out, w.pol);
    w.list << f << ' ' << out << ' ' << param;
    for (auto& nm : names) w.list << ' ' << nm;
    w.list << '\n';
  };
  line("concatenate", ts::concatenate(xs, ax), std::to_string(ax));
  // a different node type and element type next to x: the NumPy result type (int32 + double)
  auto s2 = shape;
  s2[std::size_t(ax < 0 ? ax + r : ax)] = 2;
  auto y = ts::from_xtensor(edgy_data<std::int32_t>(rng, s2), random_chunks(rng, s2));
  const auto iy = w.input(y);
  w.add("concatenate", ts::concatenate(std::tuple{y, xs[0] * 2.0, y}, ax), {iy, w.input(xs[0] * 2.0), iy},
        std::to_string(ax));
  w.add("append", ts::append(xs[0], y, ax), {names[0], iy}, std::to_string(ax));
  // the stack family: equal shapes
  std::vector<ts::array<float>> same;
  std::vector<std::string> same_names;
  auto ssh = random_shape(rng, 0, 3, 4);
  for (int i = 0; i < k; ++i) {
    same.push_back(ts::from_xtensor(edgy_data<float>(rng, ssh), random_chunks(rng, ssh)));
    same_names.push_back(w.input(same.back()));
  }
  names = same_names;
  const ts::index_t sax = signed_axis(rng, int(ssh.size()) + 1);
  line("stack", ts::stack(same, sax), std::to_string(sax));
  line("hstack", ts::hstack(same), "-");
  line("vstack", ts::vstack(same), "-");
  line("dstack", ts::dstack(same), "-");
  if (ssh.size() <= 2) line("column_stack", ts::column_stack(same), "-");
  // block: a rows x cols grid of 2-d blocks with matching heights and widths
  const int br = 1 + int(rng() % 3), bc = 1 + int(rng() % 3);
  std::vector<ts::index_t> hs, ws;
  for (int i = 0; i < br; ++i) hs.push_back(ts::index_t(rng() % 4));
  for (int j = 0; j < bc; ++j) ws.push_back(ts::index_t(1 + rng() % 3));
  std::vector<std::vector<ts::array<std::int64_t>>> grid(static_cast<std::size_t>(br));
  names.clear();
  for (int i = 0; i < br; ++i)
    for (int j = 0; j < bc; ++j) {
      ts::shape_t s{hs[std::size_t(i)], ws[std::size_t(j)]};
      grid[std::size_t(i)].push_back(ts::from_xtensor(edgy_data<std::int64_t>(rng, s), random_chunks(rng, s)));
      names.push_back(w.input(grid[std::size_t(i)].back()));
    }
  line("block", ts::block(grid), std::to_string(br) + "," + std::to_string(bc));
  names.resize(std::size_t(bc));
  line("block", ts::block(grid[0]), "flat");
}

template <class T, class P>
void pad_cases(case_writer<P>& w, std::mt19937_64& rng) {
  auto shape = random_shape(rng, 0, 3, 5);
  const int r = int(shape.size());
  auto x = ts::from_xtensor(edgy_data<T>(rng, shape), random_chunks(rng, shape));
  const auto ix = w.input(x);
  const char* modes[] = {"constant", "edge", "reflect", "symmetric", "wrap"};
  for (int j = 0; j < 3; ++j) {
    const char* mode = modes[rng() % 5];
    std::vector<std::pair<ts::index_t, ts::index_t>> width;
    std::string wp;
    bool empty_axis_padded = false;
    const int pairs = rng() % 4 == 0 ? 1 : r;
    for (int d = 0; d < pairs; ++d) {
      const ts::index_t b = ts::index_t(rng() % 4 == 0 ? rng() % 13 : rng() % 4);
      const ts::index_t a = ts::index_t(rng() % 4 == 0 ? rng() % 13 : rng() % 4);
      width.push_back({b, a});
      wp += (wp.empty() ? "" : ",") + std::to_string(b) + ":" + std::to_string(a);
    }
    for (int d = 0; d < r; ++d) {
      auto [b, a] = width.size() == 1 ? width[0] : width[std::size_t(d)];
      if (shape[std::size_t(d)] == 0 && (a || b)) empty_axis_padded = true;
    }
    if (empty_axis_padded && std::string(mode) != "constant") continue;  // NumPy raises too (errors test)
    if (width.empty()) continue;
    const double value = double(rng() % 7);  // in range of every element type
    const std::string param = wp + ";" + mode + ";" + std::to_string(int(value));
    auto p = ts::pad(x, width, mode, value);
    w.add("pad", p, {ix}, param);
    // a box spanning pieces: the padded array rechunked, and summed over an axis
    auto re = random_chunks(rng, p.shape());
    w.add("pad", ts::rechunk(p, re), {ix}, param);
  }
  if (r >= 1) {
    std::vector<ts::index_t> shifts, axes;
    const int m = 1 + int(rng() % 3);
    for (int i = 0; i < m; ++i) {
      shifts.push_back(ts::index_t(rng() % 31) - 15);
      axes.push_back(signed_axis(rng, r));
    }
    w.add("roll", ts::roll(x, shifts, axes), {ix}, joined(shifts) + ";" + joined(axes));
    w.add("roll", ts::roll(x, shifts[0], axes[0]), {ix}, std::to_string(shifts[0]) + ";" + std::to_string(axes[0]));
  }
  std::vector<ts::index_t> reps;
  for (int i = int(rng() % 5); i > 0; --i) reps.push_back(ts::index_t(rng() % 4));
  if (int(std::max<std::size_t>(reps.size(), std::size_t(r))) <= ts::max_rank)
    w.add("tile", ts::tile(x, reps), {ix}, joined(reps));
}

/// A random shape of `size` elements (rank 0 to 4; one length -1 at times).
ts::shape_t random_factoring(std::mt19937_64& rng, ts::index_t size, bool& inferred) {
  ts::shape_t s;
  const int r = size == 1 ? int(rng() % 3) : 1 + int(rng() % 4);
  ts::index_t left = size;
  for (int d = 0; d + 1 < r; ++d) {
    std::vector<ts::index_t> divisors;
    for (ts::index_t k = 1; k <= left; ++k)
      if (left % k == 0) divisors.push_back(k);
    if (left == 0) divisors = {0, 1, 2};
    const ts::index_t k = divisors[rng() % divisors.size()];
    s.push_back(k);
    if (k != 0) left /= k;
  }
  if (r > 0) s.push_back(left);
  if (size == 0 && r > 0 && std::find(s.begin(), s.end(), 0) == s.end()) s.back() = 0;
  inferred = false;
  if (r > 0 && size > 0 && rng() % 3 == 0) {
    s[rng() % s.size()] = -1;
    inferred = true;
  }
  return s;
}

template <class T, class P>
void reshape_cases(case_writer<P>& w, std::mt19937_64& rng) {
  auto shape = random_shape(rng, 0, 4, 6);
  auto x = ts::from_xtensor(edgy_data<T>(rng, shape), random_chunks(rng, shape));
  const auto ix = w.input(x);
  const int r = int(shape.size());
  for (int j = 0; j < 2; ++j) {
    bool inferred;
    auto to = random_factoring(rng, x.size(), inferred);
    w.add("reshape", ts::reshape(x, to), {ix}, joined(to));
    // through a transpose (a remap child), and summed over the last axis (a fold over
    // reshaped lines); the reshaped array rechunked at random
    if (r >= 2) {
      auto t = ts::transpose(x);
      w.add("reshape_t", ts::reshape(t, to), {ix}, joined(to));
    }
    auto rs = ts::reshape(x, to);
    w.add("reshape", ts::rechunk(rs, random_chunks(rng, rs.shape())), {ix}, joined(to));
  }
  w.add("ravel", ts::ravel(x), {ix});
  const ts::index_t rep = ts::index_t(rng() % 4);
  w.add("repeat", ts::repeat(x, rep), {ix}, std::to_string(rep));
  if (r >= 1) {
    const ts::index_t ax = signed_axis(rng, r);
    w.add("repeat", ts::repeat(x, rep, ax), {ix}, std::to_string(rep) + "," + std::to_string(ax));
  }
  const ts::index_t sh = ts::index_t(rng() % 41) - 20;
  w.add("roll", ts::roll(x, sh), {ix}, std::to_string(sh) + ";-");
  w.add("append", ts::append(x, ts::view(x, ts::ellipsis())), {ix, ix}, "-");
}

template <class T, class P>
void diagonal_cases(case_writer<P>& w, std::mt19937_64& rng) {
  auto shape = random_shape(rng, 2, 4, 6);
  const int r = int(shape.size());
  auto x = ts::from_xtensor(edgy_data<T>(rng, shape), random_chunks(rng, shape));
  const auto ix = w.input(x);
  const ts::index_t off = ts::index_t(rng() % 9) - 4, a1 = signed_axis(rng, r);
  ts::index_t a2 = signed_axis(rng, r);
  while ((a2 + r) % r == (a1 + r) % r) a2 = signed_axis(rng, r);
  const std::string p = std::to_string(off) + "," + std::to_string(a1) + "," + std::to_string(a2);
  w.add("diagonal", ts::diagonal(x, off, a1, a2), {ix}, p);
  auto dg = ts::diagonal(x, off, a1, a2);
  w.add("diagonal", ts::rechunk(dg, random_chunks(rng, dg.shape())), {ix}, p);
  if constexpr (!std::is_same_v<T, bool>) {  // sums exact in any order: values on a 1/8 grid
    auto e = ts::from_xtensor(testing::random_data<T>(rng, shape), x.chunks());
    w.add("trace", ts::trace(e, off, a1, a2), {w.input(e)}, p);
  }
  auto v = ts::from_xtensor(edgy_data<T>(rng, {ts::index_t(rng() % 7)}), ts::chunks_arg{ts::index_t(1 + rng() % 3)});
  const auto iv = w.input(v);
  w.add("diag", ts::diag(v, off), {iv}, std::to_string(off));
  w.add("diagflat", ts::diagflat(x, off), {ix}, std::to_string(off));
  const int n = int(rng() % 5);
  const ts::index_t ax = signed_axis(rng, r);
  w.add("diff", ts::diff(x, n, ax), {ix}, std::to_string(n) + "," + std::to_string(ax));
  auto df = ts::diff(x, n, ax);
  w.add("diff", ts::rechunk(df, random_chunks(rng, df.shape())), {ix}, std::to_string(n) + "," + std::to_string(ax));
}

struct index_sum {
  TESSERA_HD ts::index_t operator()(ts::index_t i) const { return i; }
};

template <class P>
void product_cases(case_writer<P>& w, std::mt19937_64& rng) {
  auto sa = random_shape(rng, 1, 3, 4), sb = random_shape(rng, 1, 2, 5);
  auto a = ts::from_xtensor(testing::random_data<double>(rng, sa), random_chunks(rng, sa));
  auto b = ts::from_xtensor(testing::random_data<std::int32_t>(rng, sb), random_chunks(rng, sb));
  const auto ia = w.input(a), ib = w.input(b);
  w.add("outer", ts::outer(a, b), {ia, ib});
  w.add("vdot", ts::vdot(a, ts::reshape(a * 3.0, {-1})), {ia, w.input(ts::reshape(a * 3.0, {-1}))});
  w.add("vdot", ts::vdot(b, b), {ib, ib});
  auto [gx, gy] = ts::meshgrid(ts::ravel(a), b);
  w.add("meshgrid", gx, {ia, ib}, "xy,0");
  w.add("meshgrid", gy, {ia, ib}, "xy,1");
  auto [hx, hy, hz] = ts::meshgrid("ij", b, a, b);
  w.add("meshgrid", hx, {ib, ia, ib}, "ij,0");
  w.add("meshgrid", hz, {ib, ia, ib}, "ij,2");
  (void)hy;
  // average: weights of x's shape, and 1-d along the axis; integer x averages in float64
  const int r = int(sa.size());
  const ts::index_t ax = signed_axis(rng, r);
  if (sa[std::size_t(ax < 0 ? ax + r : ax)] == 0) return;  // NumPy raises (the errors test)
  auto wt = ts::from_xtensor(testing::random_data<float>(rng, sa), random_chunks(rng, sa));
  w.add("average", ts::average(a, ts::abs(wt) + 1.0f, ax), {ia, w.input(ts::abs(wt) + 1.0f)}, std::to_string(ax));
  auto w1 = ts::from_xtensor(testing::random_data<std::uint8_t>(rng, {sa[std::size_t(ax < 0 ? ax + r : ax)]}),
                             ts::chunks_arg{ts::index_t(1 + rng() % 3)});
  auto ai = ts::cast<std::int16_t>(a);
  w.add("average", ts::average(ai, w1 + std::uint8_t(1), ax), {w.input(ai), w.input(w1 + std::uint8_t(1))}, std::to_string(ax));
}

template <class T, class P>
void indexing_cases(case_writer<P>& w, std::mt19937_64& rng) {
  auto shape = random_shape(rng, 1, 3, 6);
  const int r = int(shape.size());
  auto x = ts::from_xtensor(edgy_data<T>(rng, shape), random_chunks(rng, shape));
  const auto ix = w.input(x);
  const ts::index_t ax = signed_axis(rng, r);
  const ts::index_t n = shape[std::size_t(ax < 0 ? ax + r : ax)];
  std::vector<ts::index_t> idx;
  for (int k = int(rng() % 8); k > 0 && n > 0; --k) idx.push_back(ts::index_t(rng() % std::uint64_t(2 * n)) - n);
  w.add("take", ts::take(x, idx, ax), {ix}, joined(idx) + ";" + std::to_string(ax));
  auto tk = ts::take(x, idx, ax);
  w.add("take", ts::rechunk(tk, random_chunks(rng, tk.shape())), {ix}, joined(idx) + ";" + std::to_string(ax));
  if (x.size() > 0) {
    std::vector<ts::index_t> fl;
    for (int k = int(rng() % 6); k > 0; --k) fl.push_back(ts::index_t(rng() % std::uint64_t(x.size())));
    w.add("take", ts::take(x, fl), {ix}, joined(fl) + ";-");
  }
  std::vector<bool> cond;
  std::string cp;
  for (ts::index_t k = 0; k < n; ++k) {
    cond.push_back(rng() % 2);
    cp += cond.back() ? "1" : "0";
  }
  w.add("compress", ts::compress(cond, x, ax), {ix}, (cp.empty() ? "-" : cp) + ";" + std::to_string(ax));
  auto mask = ts::from_xtensor(edgy_data<bool>(rng, shape), random_chunks(rng, shape));
  const auto im = w.input(mask);
  w.add("extract", ts::extract(mask, x), {im, ix});
  w.add("flatnonzero", ts::flatnonzero(x), {ix});
  w.add("argwhere", ts::argwhere(x), {ix});
  const auto nz = ts::nonzero(x);
  for (int d = 0; d < r; ++d) w.add("nonzero", nz[std::size_t(d)], {ix}, std::to_string(d));
  // isin, searchsorted, digitize against small tables (NaN included for floats)
  std::vector<T> table;
  for (int k = int(rng() % 6); k > 0; --k) table.push_back(x.size() > 0 && rng() % 2 ? ts::compute(ts::ravel(x))(rng() % std::uint64_t(x.size())) : T(int(rng() % 7) - 3));
  auto tab = ts::from_xtensor(xt::xarray<T>(xt::adapt(table, {table.size()})));
  const auto it = w.input(tab);
  const bool inv = rng() % 2;
  w.add("isin", ts::isin(x, table, inv), {ix, it}, inv ? "1" : "0");
  auto sorted = table;
  std::sort(sorted.begin(), sorted.end(), [](T a, T b) { return ts::lookups::sort_less(a, b); });
  auto srt = ts::from_xtensor(xt::xarray<T>(xt::adapt(sorted, {sorted.size()})));
  const auto is = w.input(srt);
  const char* side = rng() % 2 ? "right" : "left";
  w.add("searchsorted", ts::searchsorted(sorted, x, side), {is, ix}, side);
  if constexpr (!std::is_same_v<T, bool>) {
    std::vector<T> bins = sorted;
    bins.erase(std::remove_if(bins.begin(), bins.end(), [](T v) { return v != v; }), bins.end());
    const bool dec = rng() % 2, right = rng() % 2;
    if (dec) std::reverse(bins.begin(), bins.end());
    auto bn = ts::from_xtensor(xt::xarray<T>(xt::adapt(bins, {bins.size()})));
    w.add("digitize", ts::digitize(x, bins, right), {ix, w.input(bn)}, right ? "1" : "0");
  }
  // choose: an index array picking among three choices, broadcast
  auto pick = ts::from_xtensor(xt::xarray<std::int32_t>(testing::random_data<std::uint8_t>(rng, shape) % std::uint8_t(3)),
                               random_chunks(rng, shape));
  w.add("choose", ts::choose(pick, std::tuple{x, x * T(2), ts::full<T>({}, T(1))}),
        {w.input(pick), ix, w.input(x * T(2)), w.input(ts::full<T>({}, T(1)))});
}

}  // namespace

TEMPLATE_TEST_CASE("concatenate, stack, block, pad, roll and tile agree with NumPy run at test time",
                   "[assembly][numpy]", TESSERA_TEST_BACKENDS) {
  TestType pol{};
  check_against_numpy(pol, 4107, 8, 0, [&](case_writer<TestType>& w, std::mt19937_64& rng) {
    join_cases(w, rng);
    pad_cases<double>(w, rng);
    pad_cases<std::uint8_t>(w, rng);
    reshape_cases<double>(w, rng);
    reshape_cases<std::int16_t>(w, rng);
    diagonal_cases<double>(w, rng);
    diagonal_cases<std::uint16_t>(w, rng);
    diagonal_cases<bool>(w, rng);
    product_cases(w, rng);
    indexing_cases<double>(w, rng);
    indexing_cases<std::int16_t>(w, rng);
  });
}

TEMPLATE_TEST_CASE("assembled arrays: chunks, fused use, reductions and errors", "[assembly]",
                   TESSERA_TEST_BACKENDS) {
  TestType pol{};
  auto a = ts::from_xtensor(xt::xarray<double>{{1, 2, 3}, {4, 5, 6}}, {1, 2});
  auto b = ts::from_xtensor(xt::xarray<double>{{7, 8, 9}}, {1, 3});
  // chunks: the inputs' along the axis, the common refinement elsewhere
  auto c = ts::concatenate({a, b}, 0);
  CHECK(c.chunks() == ts::chunks_t{{1, 1, 1}, {2, 1}});
  CHECK(ts::concatenate({a, a}, 1).chunks() == ts::chunks_t{{1, 1}, {2, 1, 2, 1}});
  // pad: constant stretches in pieces no longer than the input's chunks; reflected chunks
  // follow the input's boundaries
  CHECK(ts::pad(a, {{0, 0}, {3, 0}}, "reflect").chunks() == ts::chunks_t{{1, 1}, {1, 1, 1, 2, 1}});
  // fused use: an expression over the join, and reductions through boxes that span pieces
  const xt::xarray<double> abc{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
  CHECK(bool(ts::compute(c * 2.0 - 1.0, pol) == abc * 2.0 - 1.0));
  CHECK(ts::sum(c).item(pol) == 45.0);
  CHECK(bool(ts::compute(ts::sum(ts::rechunk(c, {3, 3}), {0}), pol) == xt::xarray<double>{12, 15, 18}));
  CHECK(bool(ts::compute(ts::rechunk(ts::roll(c, 1, 0), {2, 2}), pol) ==
             xt::xarray<double>{{7, 8, 9}, {1, 2, 3}, {4, 5, 6}}));
  CHECK(ts::amax(ts::pad(c, 2, "edge")).item(pol) == 9.0);
  CHECK(ts::sum(ts::tile(a, {2, 3})).item(pol) == 6 * 21.0);
  // a view of a padded array (a remap of the piecewise node)
  CHECK(bool(ts::compute(ts::view(ts::pad(a, 1, ts::pad_mode::constant, -1), ts::range(0, 4, 3), ts::all()), pol) ==
             xt::xarray<double>{{-1, -1, -1, -1, -1}, {-1, -1, -1, -1, -1}}));
  // persist keeps the pieces' values
  CHECK(bool(ts::compute(ts::persist(ts::vstack({a, b}), pol), pol) == abc));
  // from_function: f of the element's indices
  auto f = ts::from_function<double, 2>([] TESSERA_HD(ts::index_t i, ts::index_t j) { return double(10 * i + j); },
                                        {2, 3}, {1, 2});
  CHECK(bool(ts::compute(f, pol) == xt::xarray<double>{{0, 1, 2}, {10, 11, 12}}));
  CHECK(ts::sum(ts::fromfunction(index_sum{}, {5})).item(pol) == 10);  // T and N deduced
  // errors name the value
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const ts::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  CHECK_THAT(message([&] { (void)ts::concatenate({a, b}, 1); }),
             Catch::Contains("array 1 has shape (1, 3) but array 0 has shape (2, 3)"));
  CHECK_THAT(message([&] { (void)ts::concatenate({a, a}, 2); }), Catch::Contains("axis 2 is out of range"));
  CHECK_THAT(message([&] { (void)ts::concatenate(std::vector<decltype(a)>{}, 0); }), Catch::Contains("at least one array"));
  CHECK_THAT(message([&] { (void)ts::concatenate({ts::view(a, 0, 0), ts::view(a, 0, 1)}); }),
             Catch::Contains("zero-dimensional"));
  CHECK_THAT(message([&] { (void)ts::stack({a, b}); }), Catch::Contains("same shape"));
  CHECK_THAT(message([&] { (void)ts::pad(a, {{1, -2}, {0, 0}}); }), Catch::Contains("(1, -2) of axis 0"));
  CHECK_THAT(message([&] { (void)ts::pad(a, {{1, 1}, {0, 0}, {0, 0}}); }), Catch::Contains("3 (before, after) pairs"));
  CHECK_THAT(message([&] { (void)ts::pad(a, 1, "mirror"); }), Catch::Contains("mode 'mirror'"));
  CHECK_THAT(message([&] { (void)ts::pad(ts::zeros<double>({0, 2}), 1, "wrap"); }),
             Catch::Contains("empty axis 0 with mode wrap"));
  CHECK_THAT(message([&] { (void)ts::roll(a, 1, 2); }), Catch::Contains("roll axis 2"));
  CHECK_THAT(message([&] { (void)ts::tile(a, {-1}); }), Catch::Contains("repetition -1"));
  CHECK_THAT(message([&] { (void)ts::reshape(a, {4, -1}); }),
             Catch::Contains("cannot reshape an array of size 6 (shape (2, 3)) into shape (4, -1)"));
  CHECK_THAT(message([&] { (void)ts::reshape(a, {-1, -1}); }), Catch::Contains("one unknown dimension"));
  CHECK_THAT(message([&] { (void)ts::reshape(a, {5}); }), Catch::Contains("into shape (5,)"));
  CHECK_THAT(message([&] { (void)ts::repeat(a, -1, 0); }), Catch::Contains("repeats -1"));
  // reshape's chunks (Dask's rule): merging whole trailing axes scales the first axis's chunks
  auto m = ts::from_xtensor(xt::xarray<double>(xt::zeros<double>({6, 4})), {2, 4});
  CHECK(ts::reshape(m, {24}).chunks() == ts::chunks_t{{8, 8, 8}});
  CHECK(ts::reshape(m, {3, 2, 4}).chunks() == ts::chunks_t{{1, 1, 1}, {2}, {4}});
  CHECK(ts::repeat(a, 2, 1).chunks() == ts::chunks_t{{1, 1}, {4, 2}});
  // diagonal chunks break where either axis's chunks do; diff's lose n at the end
  CHECK(ts::diagonal(ts::from_xtensor(xt::xarray<double>(xt::zeros<double>({5, 5})), {2, 3})).chunks() ==
        ts::chunks_t{{2, 1, 1, 1}});
  CHECK(ts::diff(a, 2, 1).chunks() == ts::chunks_t{{1, 1}, {1}});
  CHECK(ts::trace(a).item(pol) == 6.0);
  CHECK_THAT(message([&] { (void)ts::diagonal(a, 0, 1, -1); }), Catch::Contains("both are axis 1"));
  CHECK_THAT(message([&] { (void)ts::diagonal(ts::view(a, 0)); }), Catch::Contains("at least 2-d, not 1-d"));
  CHECK_THAT(message([&] { (void)ts::diag(a); }), Catch::Contains("ts::diagonal(x, k)"));
  CHECK_THAT(message([&] { (void)ts::diff(a, -1); }), Catch::Contains("n = -1"));
  CHECK_THAT(message([&] { (void)ts::diff(a, 65); }), Catch::Contains("n = 65"));
  CHECK_THAT(message([&] { (void)ts::from_function([](ts::index_t i) { return i; }, {2, 2}); }),
             Catch::Contains("f takes 1 indices but the shape (2, 2) has 2 axes"));
  CHECK_THAT(message([&] { (void)ts::vdot(a, b); }), Catch::Contains("6 and 3 elements"));
  CHECK_THAT(message([&] { (void)ts::meshgrid("yx", a); }), Catch::Contains("indexing 'yx'"));
  CHECK_THAT(message([&] { (void)ts::take(a, {0, 3}, 1); }), Catch::Contains("index 3 is out of bounds for axis 1 with size 3"));
  CHECK_THAT(message([&] { (void)ts::take(a, {-3}, 0); }), Catch::Contains("index -3"));
  CHECK_THAT(message([&] { (void)ts::extract(ts::view(a, 0) > 1.0, a); }), Catch::Contains("mask of shape (3,)"));
  CHECK_THAT(message([&] { (void)ts::vindex(a, {{0}}); }), Catch::Contains("1 index arrays"));
  CHECK_THAT(message([&] { (void)ts::compress(std::vector<bool>{1, 0, 1, 1}, a, 1); }), Catch::Contains("length 4"));
  CHECK_THAT(message([&] { (void)ts::digitize(a, std::vector<double>{1, 3, 2}); }), Catch::Contains("monotonically"));
  CHECK_THAT(message([&] { (void)ts::searchsorted(std::vector<double>{1}, a, "middle"); }), Catch::Contains("side 'middle'"));
  // vindex: points
  CHECK(bool(ts::compute(ts::vindex(a, {{1, 0, -1}, {2, 0, 1}}), pol) == xt::xarray<double>{6, 1, 5}));
  CHECK_THAT(message([&] { (void)ts::average(a, b, 1); }), Catch::Contains("weights of shape (1, 3)"));
  CHECK_THAT(message([&] { (void)ts::average(ts::zeros<double>({2, 0}), ts::zeros<double>({0}), 1); }),
             Catch::Contains("is empty"));
}
