// Array summaries and the expression graph (issue 17): ts::describe / operator<< / repr and the
// fmt formatter compared with expected text for fixed shapes; task and stage counts of
// multi-stage expressions; a view's index in NumPy notation checked by NumPy itself on random
// views (/usr/bin/python3 at test time); ts::to_dot rendered by Graphviz's dot.
#define FMT_HEADER_ONLY
#include <catch2/catch.hpp>

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <tessera/diagnostics/dot.hpp>
#include <tessera/diagnostics/format.hpp>
#include <tessera/diagnostics/visualize.hpp>
#include <tessera/tessera.hpp>
#include <tessera/zarr.hpp>
#include <xtensor/xbuilder.hpp>

#include "support/cases.hpp"
#include "support/files.hpp"

namespace ts = tessera;
using ts::index_t;
using ts::shape_t;
using ts::placeholders::_;

namespace {

/// Runs a shell command, returning its exit status and standard output.
int run(const std::string& cmd, std::string* out = nullptr) {
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return -1;
  std::string s;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) s.append(buf, n);
  const int rc = ::pclose(p);
  if (out) *out = s;
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

bool have(const char* tool) { return run(std::string("command -v ") + tool + " >/dev/null 2>&1") == 0; }

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t i = s.find(what); i != std::string::npos; i = s.find(what, i + what.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("describe: the summary of a lazy expression, as expected text", "[describe]") {
  auto x = ts::full<double>({20000, 20000}, 10.0, {2000, 2000});
  auto y = x + 1.0;
  const std::string want =
      "tessera.array<add, shape=(20000, 20000), dtype=float64, chunksize=(2000, 2000)>\n"
      "  node      add (elementwise, fused into its chunk tasks)\n"
      "  dtype     float64\n"
      "  shape     (20000, 20000)\n"
      "  chunks    (2000, 2000), regular: 10 x 10 = 100 chunks\n"
      "  bytes     2.98 GiB array, 30.52 MiB per chunk\n"
      "  tasks     100 in 1 stage\n"
      "  backend   chosen at compute; inputs generated in the chunk tasks\n";
  CHECK(ts::describe(y) == want);
  std::ostringstream os;
  os << y;
  CHECK(os.str() == want);
  CHECK(fmt::format("{}", y) == want);
  CHECK(fmt::format("{:s}", y) == "tessera.array<add, shape=(20000, 20000), dtype=float64, chunksize=(2000, 2000)>");
  CHECK(ts::repr(y) == fmt::format("{:s}", y));
  CHECK_THROWS_AS(fmt::format(fmt::runtime("{:x}"), y), fmt::format_error);
}

TEST_CASE("describe: reductions are stages; task and stage counts", "[describe]") {
  auto x = ts::random::default_rng(3).normal<double>(10, 1, {20000, 20000}, {2000, 2000});
  auto a = ts::mean(ts::view(x + 1, ts::range(_, _, 2), ts::range(_, _, 2)));
  CHECK(ts::describe(a) ==
        "tessera.array<mean, shape=(), dtype=float64, chunksize=()>\n"
        "  node      mean (reduction, a stage of its own)\n"
        "  dtype     float64\n"
        "  shape     ()\n"
        "  chunks    (), regular: 1 chunk\n"
        "  bytes     8 B array, 8 B per chunk\n"
        "  tasks     100 in 1 stage\n"
        "  backend   chosen at compute; inputs generated in the chunk tasks\n");
  // 100 fold tasks of the view's (1000, 1000) chunks; their combine writes the 0-d result.
  CHECK(ts::task_count(a) == 100);
  auto m = ts::mean(x, {0});
  CHECK(ts::node_name(m) == "mean");
  CHECK(ts::node_detail(m) == "axis=(0,)");
  CHECK(ts::task_count(m) == 100);
  // Nested and repeated reductions each run their own stage.
  auto z = ts::mean(x) - ts::mean(x, {0}) / ts::amax(ts::sum(x, {1}, ts::keep_dims));
  CHECK(ts::stage_count(z) == 5);
  CHECK(ts::task_count(z) == 10 + 100 + 100 + 100 + 10);
  CHECK(ts::node_name(ts::amax(x)) == "amax");
  CHECK(ts::node_name(ts::argmin(x, 1)) == "argmin");
  CHECK(ts::node_name(ts::stddev(x)) == "stddev");
  CHECK(ts::node_detail(ts::sum(x, {0, 1}, ts::keep_dims)) == "keepdims");
  CHECK(ts::node_detail(ts::variance(ts::zeros<float>({3, 4, 5}, {1, 2, 5}), {0, 2})) == "axis=(0, 2)");
  // A persisted reduction is a leaf: one task per chunk.
  auto p = ts::persist(ts::sum(ts::ones<float>({7, 5}, {3, 5}), {1}));
  CHECK(ts::task_count(p) == 3);
  CHECK(ts::stage_count(p) == 1);
}

TEST_CASE("describe: leaves, dtypes, irregular and empty chunks", "[describe]") {
  auto a = ts::persist(ts::sin(ts::ones<float>({7}, {3})));
  CHECK(ts::describe(a) ==
        "tessera.array<array, shape=(7,), dtype=float32, chunksize=(3,)>\n"
        "  node      array (chunks in host memory)\n"
        "  dtype     float32\n"
        "  shape     (7,)\n"
        "  chunks    (3,), regular: 3 chunks\n"
        "  bytes     28 B array, 12 B per chunk\n"
        "  tasks     3 in 1 stage\n"
        "  backend   host (ts::array: persisted, host memory)\n");
  auto r = ts::rechunk(ts::arange<std::int16_t>(0, 30, 1, {10}), ts::chunks_t{{4, 9, 17}});
  CHECK(ts::repr(r) == "tessera.array<rechunk, shape=(30,), dtype=int16, chunksize=(17,)>");
  CHECK(ts::detail::chunks_text(r.grid()) == "(17,); axis 0 irregular (4, 9, 17): 3 chunks");
  std::vector<index_t> many(20, 3);
  many.back() = 5;
  auto m = ts::rechunk(ts::zeros<std::uint8_t>({62, 2}, {62, 1}), ts::chunks_t{many, {2}});
  CHECK(ts::detail::chunks_text(m.grid()) == "(5, 2); axis 0 irregular 20 chunks of 3 to 5: 20 x 1 = 20 chunks");
  CHECK(ts::detail::dtype_name<bool>() == "bool");
  CHECK(ts::detail::dtype_name<std::uint64_t>() == "uint64");
  CHECK(ts::detail::dtype_name<std::int8_t>() == "int8");
  auto e = ts::zeros<double>({0, 5}, {4, 5});
  CHECK(ts::task_count(ts::sum(e, {1})) == 0);  // an empty result: no folds, nothing to write
  CHECK(ts::stage_count(ts::sum(e, {1})) == 0);
  CHECK(ts::task_count(ts::sum(e, {0})) == 1);  // 5 sums of nothing: 1 fold of the empty chunk
  CHECK(ts::detail::chunks_text(e.grid()) == "(0, 5), regular: 1 x 1 = 1 chunk");
  CHECK(ts::describe(e).find("  bytes     0 B array, 0 B per chunk\n") != std::string::npos);
  CHECK(ts::node_name(ts::full<int>({3}, 7)) == "full");
  CHECK(ts::node_detail(ts::full<int>({3}, 7)) == "7");
  CHECK(ts::node_name(ts::arange<double>(0.0, 5.0, 0.5)) == "arange");
  CHECK(ts::node_detail(ts::arange<double>(1.0, 5.0, 0.5)) == "start=1, step=0.5");
  auto g = ts::random::default_rng(1);
  CHECK(ts::node_name(g.normal<double>(0, 1, {4}, {2})) == "normal");
  CHECK(ts::node_name(g.uniform<float>(0, 1, {4}, {2})) == "uniform");
  CHECK(ts::node_name(ts::cast<int>(a)) == "astype");
  CHECK(ts::node_name(ts::where(a > 0.5f, a, 0.0f)) == "where");
  CHECK(ts::node_name(ts::map([](float v) { return v * 2; }, a)) == "map");
  CHECK(ts::node_name(-a) == "negative");
  CHECK(ts::node_name(ts::transpose(ts::zeros<double>({2, 3}))) == "transpose");
  CHECK(ts::node_detail(ts::transpose(ts::zeros<double>({2, 3, 4}), {2, 0, 1})) == "axes=(2, 0, 1)");
  CHECK(ts::detail::format_bytes(1023) == "1023 B");
  CHECK(ts::detail::format_bytes(1536) == "1.50 kiB");
  CHECK(ts::detail::format_bytes(3.2e9) == "2.98 GiB");
}

TEST_CASE("describe: a Zarr store is a leaf read from files", "[describe]") {
  testing::temp_dir dir("tessera_describe");
  const std::string path = dir / "a.zarr";
  ts::to_zarr(ts::arange<std::int32_t>(0, 12, 1, {5}), path);
  auto z = ts::from_zarr<std::int32_t>(path);
  CHECK(ts::node_name(z) == "from_zarr");
  CHECK(ts::node_detail(z) == path);
  const std::string d = ts::describe(z * 2);
  CHECK(d.find("  backend   chosen at compute; inputs read from files\n") != std::string::npos);
  CHECK(d.find("  chunks    (5,), regular: 3 chunks\n") != std::string::npos);
}

TEST_CASE("describe: a view's index in NumPy notation selects what the view selects (NumPy checks)",
          "[describe][numpy]") {
  INFO("/usr/bin/python3 must have numpy: scripts/install-deps.sh installs python3-numpy");
  REQUIRE(run("/usr/bin/python3 -c 'import numpy' 2>/dev/null") == 0);
  // Fixed cases first, then random ones: each a view of arange(prod(shape)).reshape(shape).
  CHECK(ts::node_detail(ts::view(ts::zeros<double>({20, 30}), ts::range(_, _, 2), ts::range(_, _, 2))) == "[::2, ::2]");
  CHECK(ts::node_detail(ts::view(ts::zeros<double>({20, 30}), ts::range(1, 5))) == "[1:5, :]");
  CHECK(ts::node_detail(ts::view(ts::zeros<double>({5, 6, 7}), 1, ts::newaxis(), ts::range(1, 5), ts::all())) ==
        "[1, None, 1:5, :]");
  CHECK(ts::node_detail(ts::view(ts::zeros<double>({9}), ts::range(_, _, -1))) == "[::-1]");
  // Random views (and views of views and of transposes, which compose into one remap) of
  // a = arange(n).reshape(shape) with random chunks: NumPy evaluates a<notation> (or
  // a.transpose(...)[...]) and compares with Tessera's values of the view.
  const auto seed = testing::test_seed(20261123);
  WARN("seed " << seed << " (TESSERA_TEST_SEED overrides)");
  std::mt19937_64 rng(seed);
  auto pick = [&](index_t lo, index_t hi) { return lo + index_t(rng() % std::uint64_t(hi - lo + 1)); };
  auto random_slices = [&](const shape_t& shape) {
    ts::slice_vector s;
    for (index_t n : shape) {
      switch (pick(0, 5)) {
        case 0:  // an integer index (a length-0 axis of a view has none: all of it)
          s.push_back(n > 0 ? ts::slice(pick(-n, n - 1)) : ts::slice(ts::all()));
          break;
        case 1: s.push_back(ts::slice(ts::all())); break;
        case 2: s.push_back(ts::slice(ts::newaxis())); s.push_back(ts::slice(ts::all())); break;
        default: {
          index_t step = pick(-3, 3);
          if (step == 0) step = 1;
          const index_t a = pick(-n - 2, n + 2), b = pick(-n - 2, n + 2);
          const int form = int(pick(0, 3));
          if (form == 0) s.push_back(ts::slice(ts::range(a, b, step)));
          else if (form == 1) s.push_back(ts::slice(ts::range(_, b, step)));
          else if (form == 2) s.push_back(ts::slice(ts::range(a, _, step)));
          else s.push_back(ts::slice(ts::range(_, _, step)));
        }
      }
    }
    return s;
  };
  std::ostringstream script;
  script << "import numpy as np, sys\nbad = 0\n";
  const int cases = 200;
  for (int c = 0; c < cases; ++c) {
    const int rank = int(pick(1, 3));
    shape_t shape;
    index_t n = 1;
    for (int d = 0; d < rank; ++d) shape.push_back(pick(1, 8)), n *= shape.back();
    std::vector<std::size_t> xs(shape.begin(), shape.end());
    xt::xarray<std::int64_t> dense = xt::arange<std::int64_t>(n);
    dense.reshape(xs);
    std::vector<index_t> chunks;
    for (index_t s : shape) chunks.push_back(pick(1, s));
    auto a = ts::from_xtensor(dense, chunks);
    std::string note;
    xt::xarray<std::int64_t> got;
    shape_t got_shape;
    const int form = int(pick(0, 2));
    auto record = [&](const auto& v) {
      note = ts::node_detail(v);
      if (ts::node_name(v) == "transpose") note = "transpose" + note.substr(5);  // axes=(..)
      got = ts::compute(v);
      got_shape = v.shape();
    };
    if (form == 0) record(ts::dynamic_view(a, random_slices(shape)));
    else if (form == 1) {
      auto v = ts::dynamic_view(a, random_slices(shape));
      record(ts::dynamic_view(v, random_slices(v.shape())));
    } else {
      std::vector<index_t> perm(shape.size());
      for (std::size_t d = 0; d < perm.size(); ++d) perm[d] = index_t(d);
      std::shuffle(perm.begin(), perm.end(), rng);
      auto t = ts::transpose(a, perm);
      record(ts::dynamic_view(t, random_slices(t.shape())));
    }
    std::string expr = note.rfind("transpose", 0) == 0 ? "a." + note : "a" + note;
    script << "a = np.arange(" << n << ").reshape(" << ts::detail::tuple_text(shape) << ")\n"
           << "got = np.array([";
    for (std::size_t i = 0; i < got.size(); ++i) script << (i ? "," : "") << got.data()[i];
    script << "], dtype=np.int64).reshape(" << ts::detail::tuple_text(got_shape) << ")\n"
           << "want = " << expr << "\n"
           << "if want.shape != got.shape or not np.array_equal(want, got):\n"
           << "    bad += 1; print('case " << c << ": shape " << ts::detail::tuple_text(shape) << " " << expr
           << " gives', want.shape, 'Tessera', got.shape)\n";
  }
  script << "print(bad, 'of', " << cases << ", 'differ')\nsys.exit(1 if bad else 0)\n";
  testing::temp_dir dir("tessera_describe_views");
  testing::spit(dir / "check.py", script.str());
  std::string out;
  const int rc = run("/usr/bin/python3 " + (dir / "check.py") + " 2>&1", &out);
  INFO(out);
  CHECK(rc == 0);
}

TEST_CASE("to_dot: the graph renders with Graphviz; one cluster per stage", "[describe][dot]") {
  auto x = ts::random::default_rng(3).normal<double>(10, 1, {2000, 2000}, {500, 500});
  auto z = ts::mean(ts::view(x + 1, ts::range(_, _, 2), ts::range(_, _, 2))) - ts::mean(x, {0});
  const std::string dot = ts::to_dot(z);
  CHECK(count(dot, "subgraph cluster_stage") == std::size_t(ts::stage_count(z)));
  // normal, full 1 -> add -> getitem -> mean -> subtract; normal -> mean(0) -> subtract
  CHECK(count(dot, " -> ") == 7);
  CHECK(dot.find("label=\"stage 1: 16 tasks (a fold per input chunk") != std::string::npos);
  CHECK(dot.find("label=\"stage 3: 4 tasks (one fused kernel per chunk)\"") != std::string::npos);
  CHECK(dot.find("getitem [::2, ::2]\\nfloat64 (1000, 1000)\\nchunks (250, 250), 16 in all") != std::string::npos);
  testing::temp_dir dir("tessera_dot");
  const std::string file = dir / "graph.dot";
  ts::write_dot(z, file);
  CHECK(testing::slurp(file) == dot);
  INFO("Graphviz's dot must be on PATH: scripts/install-deps.sh installs graphviz");
  REQUIRE(have("dot"));
  std::string plain;
  REQUIRE(run("dot -Tplain " + file, &plain) == 0);
  CHECK(count(plain, "\nnode ") == 8);
  CHECK(count(plain, "\nedge ") == 7);
  REQUIRE(run("dot -Tsvg " + file + " -o " + (dir / "graph.svg")) == 0);
  const std::string svg = testing::slurp(dir / "graph.svg");
  CHECK(count(svg, "class=\"cluster\"") == 3);
  CHECK(count(svg, "class=\"node\"") == 8);
  CHECK_THROWS_AS(ts::write_dot(z, "/proc/no/such/dir/graph.dot"), ts::io_error);
  // visualize (Dask's): rendered by Graphviz into the file's format
  CHECK(ts::visualize(z, dir / "v.svg") == dir / "v.svg");
  const std::string vsvg = testing::slurp(dir / "v.svg");
  CHECK(count(vsvg, "class=\"node\"") == 8);
  ts::visualize(z, dir / "v.png");
  CHECK(testing::slurp(dir / "v.png").substr(1, 3) == "PNG");
  ts::visualize(z, dir / "v.dot");
  CHECK(testing::slurp(dir / "v.dot") == dot);
  CHECK_THROWS_MATCHING(ts::visualize(z, dir / "v.jpeg"), ts::invalid_argument, Catch::Contains("'jpeg'"));
  ::setenv("TESSERA_DOT", "/no/such/dot", 1);
  CHECK_THROWS_MATCHING(ts::visualize(z, dir / "w.svg"), ts::io_error,
                        Catch::Contains("/no/such/dot") && Catch::Contains("exit status 127"));
  ::unsetenv("TESSERA_DOT");
  CHECK(!std::filesystem::exists(dir / "w.svg"));
  CHECK(!std::filesystem::exists(dir / "w.svg.tessera-dot"));  // the temporary DOT file is removed
  // A reduction at the root: its fold stage alone (its combine tree writes the result).
  auto m = ts::mean(ts::view(x + 1, ts::range(_, _, 2), ts::range(_, _, 2)));
  const std::string md = ts::to_dot(m);
  CHECK(count(md, "subgraph cluster_stage") == std::size_t(ts::stage_count(m)));
  CHECK(ts::stage_count(m) == 1);
  CHECK(count(md, " -> ") == 4);  // normal, full -> add -> getitem -> mean
  ts::write_dot(m, file);
  std::string mplain;
  REQUIRE(run("dot -Tplain " + file, &mplain) == 0);
  CHECK(count(mplain, "\nnode ") == 5);
}
