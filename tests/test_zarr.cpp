// Zarr format 2 and 3 (tessera/zarr.hpp): round trips on random shapes, chunkings, dtypes and
// codecs per backend; views read only the chunks they touch; dtype conversion; the write modes;
// attributes; and the fault paths (bad paths and metadata, corrupt chunks, a failing chunk task,
// two processes writing disjoint regions). Interoperability with Python's zarr and Dask:
// tests/interop/.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <xtensor/xarray.hpp>
#include <xtensor/xview.hpp>

#include <tessera/zarr.hpp>

#include "support/backends.hpp"
#include "support/cases.hpp"
#include "support/files.hpp"
#include "support/stores.hpp"

namespace ts = tessera;
namespace fs = std::filesystem;
using namespace testing;
using ts::placeholders::_;


namespace {

ts::zarr_options options_case(int k, std::mt19937_64& rng) {
  ts::zarr_options o;
  o.format = 2 + k % 2;
  const char* codecs[] = {"zstd", "blosc", "gzip", "zlib", "none"};
  o.codec = codecs[(k / 2) % 5];
  if (o.format == 3 && o.codec == "zlib") o.codec = "gzip";
  o.level = int(rng() % 4) + 1;
  const char* cnames[] = {"lz4", "lz4hc", "blosclz", "zstd", "zlib"};
  o.blosc_cname = cnames[rng() % 5];
  o.blosc_shuffle = int(rng() % 3);
  o.separator = rng() % 2 ? '/' : 0;
  if (o.format == 3) o.checksum = rng() % 2;
  return o;
}

}  // namespace

TEMPLATE_TEST_CASE("to_zarr / from_zarr round trips on random shapes, chunks, dtypes and codecs",
                   "[zarr]", TESSERA_TEST_BACKENDS) {
  const auto seed = test_seed(20261123);
  std::mt19937_64 rng(seed);
  const TestType pol = make_policy<TestType>(3);
  temp_dir dir("tessera_zarr");
  for (int it = 0; it < test_iterations(24); ++it) {
    const shape_t shape = random_shape(rng, 0, 3, 23);
    const chunks_t wchunks = ts::chunk_grid::make(shape, [&] {
      std::vector<index_t> c;
      for (auto n : shape) c.push_back(1 + index_t(rng() % std::uint64_t(std::max<index_t>(n, 1))));
      return c;
    }(), 8).chunks();
    ts::zarr_options o = options_case(it, rng);
    if (o.format == 3 && it % 3 == 0 && !shape.empty()) {
      for (std::size_t d = 0; d < shape.size(); ++d) o.shards.push_back(wchunks[d][0] * index_t(1 + rng() % 3));
    }
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape) << " chunks "
                 << describe(wchunks) << " format " << o.format << " codec " << o.codec
                 << " shards " << describe(o.shards));
    const std::string path = dir / ("a" + std::to_string(it) + ".zarr");
    auto check = [&](auto tag) {
      using T = decltype(tag);
      const auto data = testing::random_data<T>(rng, shape);
      ts::to_zarr(ts::from_xtensor(data, wchunks), path, o, pol);
      auto back = ts::from_zarr<T>(path);
      CHECK(back.chunks() == wchunks);
      CHECK(bitwise_equal_arrays(ts::compute(back, pol), data));
      const chunks_t rchunks = random_chunks(rng, shape);
      CHECK(bitwise_equal_arrays(ts::compute(ts::from_zarr<T>(path, rchunks), pol), data));
      const auto info = ts::zarr_info(path);
      CHECK(info.shape == shape);
      CHECK(info.data_type == ts::dtype::of<T>().name());
    };
    switch (it % 6) {
      case 0: check(double{}); break;
      case 1: check(float{}); break;
      case 2: check(std::int64_t{}); break;
      case 3: check(std::uint16_t{}); break;
      case 4: check(std::int8_t{}); break;
      default: check(bool{}); break;
    }
  }
}

TEMPLATE_TEST_CASE("from_zarr: an expression over a store computes as over memory; views read only the chunks they touch",
                   "[zarr][view]", TESSERA_TEST_BACKENDS) {
  const TestType pol = make_policy<TestType>(2);
  temp_dir dir("tessera_zarr");
  std::mt19937_64 rng(test_seed(7));
  const auto data = testing::random_data<double>(rng, {40, 300});
  for (int format : {2, 3}) {
    ts::zarr_options o;
    o.format = format;
    if (format == 3) o.shards = {20, 100};
    const std::string path = dir / ("v" + std::to_string(format));
    ts::to_zarr(ts::from_xtensor(data, {10, 50}), path, o, pol);
    auto x = ts::from_zarr<double>(path);
    // (x + 1)[::2, 100:200]: rows all chunks, columns 100..199 = chunks 2 and 3 of 6.
    auto v = ts::view(x + 1.0, ts::range(_, _, 2), ts::range(100, 200));
    xt::xarray<double> ref = xt::view(data + 1.0, xt::range(xt::placeholders::_, xt::placeholders::_, 2), xt::range(100, 200));
    CHECK(bitwise_equal_arrays(ts::compute(v, pol), ref));
    CHECK(x.store().chunks_read() == 4 * 2);
    // Reductions over the stored array.
    CHECK(ts::item(ts::sum(x), pol) == Approx(xt::sum(data)()).epsilon(1e-12));
    const auto col = ts::compute(ts::mean(x, {0}), pol);
    xt::xarray<double> colref = xt::mean(data, {0});
    CHECK(xt::allclose(col, colref, 1e-13, 1e-13));
  }
}

TEST_CASE("from_zarr converts the stored dtype as ts::cast does; fill values fill missing chunks", "[zarr]") {
  temp_dir dir("tessera_zarr");
  xt::xarray<double> d = {{1.5, -2.7, 300.0}, {std::nan(""), 1e30, -0.0}};
  ts::zarr_options o;
  o.format = 2;
  ts::to_zarr(ts::from_xtensor(d, {1, 2}), dir / "d", o);
  auto i8 = ts::compute(ts::from_zarr<std::int8_t>(dir / "d"));
  xt::xarray<std::int8_t> ref = {{1, -2, 127}, {0, 127, 0}};
  CHECK(bool(i8 == ref));
  auto b = ts::compute(ts::from_zarr<bool>(dir / "d"));
  CHECK(bool(b == xt::xarray<bool>{{true, true, true}, {true, true, false}}));
  // Fill values: NaN in the metadata, one chunk removed.
  for (const char* fill : {"\"NaN\"", "\"-Infinity\"", "42.5"}) {
    auto meta = slurp(dir.path / "d" / ".zarray");
    const auto at = meta.find("\"fill_value\"");
    const auto end = meta.find_first_of(",\n}", meta.find(':', at));
    meta.replace(at, end - at, std::string("\"fill_value\": ") + fill);
    spit(dir.path / "d" / ".zarray", meta);
    fs::remove(dir.path / "d" / "1.0");
    auto back = ts::compute(ts::from_zarr<double>(dir / "d"));
    const double want = std::string(fill) == "\"NaN\"" ? std::nan("") : std::string(fill) == "42.5" ? 42.5 : -INFINITY;
    for (int j = 0; j < 2; ++j) {
      if (std::isnan(want)) CHECK(std::isnan(back(1, j)));
      else CHECK(back(1, j) == want);
    }
    CHECK(back(1, 2) == 0.0);  // chunk 1.1 still there (-0.0 == 0.0)
    CHECK(back(0, 0) == 1.5);
  }
}

TEMPLATE_TEST_CASE("to_zarr write modes: create, overwrite, append, region", "[zarr][modes]",
                   TESSERA_TEST_BACKENDS) {
  const TestType pol = make_policy<TestType>(2);
  temp_dir dir("tessera_zarr");
  for (int format : {2, 3}) {
    INFO("format " << format);
    const std::string path = dir / ("m" + std::to_string(format));
    ts::zarr_options o;
    o.format = format;
    o.attributes = {{"units", "m"}, {"n", 3}};
    xt::xarray<double> a = xt::reshape_view(xt::arange<double>(0, 60), {6, 10});
    ts::to_zarr(ts::from_xtensor(a, {4, 3}), path, o, pol);
    CHECK(ts::zarr_attributes(path)["units"] == "m");
    // create again: an error that says what to do
    CHECK_THROWS_MATCHING(ts::to_zarr(ts::from_xtensor(a, {4, 3}), path, o, pol), ts::io_error,
                         Catch::Contains("already exists") && Catch::Contains("overwrite"));
    // append along axis 0 (not chunk-aligned: 6 rows, chunks of 4)
    ts::zarr_options ap = o;
    ap.mode = ts::write_mode::append;
    ap.attributes = nullptr;
    xt::xarray<double> more = xt::reshape_view(xt::arange<double>(100, 150), {5, 10});
    ts::to_zarr(ts::from_xtensor(more, {2, 10}), path, ap, pol);
    auto both = ts::compute(ts::from_zarr<double>(path), pol);
    REQUIRE(both.shape()[0] == 11);
    CHECK(bool(xt::view(both, xt::range(0, 6)) == a));
    CHECK(bool(xt::view(both, xt::range(6, 11)) == more));
    CHECK(ts::zarr_attributes(path)["n"] == 3);
    // append along axis 1 with a wrong shape: named
    ap.append_axis = 1;
    CHECK_THROWS_MATCHING(ts::to_zarr(ts::from_xtensor(more, {2, 10}), path, ap, pol), ts::invalid_argument,
                         Catch::Contains("(5, 10)") && Catch::Contains("(11, 10)"));
    // region: a 3x4 block at (2, 5), across chunk boundaries
    ts::zarr_options rg = o;
    rg.mode = ts::write_mode::region;
    rg.region = {2, 5};
    rg.attributes = nullptr;
    xt::xarray<double> patch = -xt::ones<double>({3, 4});
    ts::to_zarr(ts::from_xtensor(patch, {2, 2}), path, rg, pol);
    auto after = ts::compute(ts::from_zarr<double>(path), pol);
    auto expect = both;
    xt::view(expect, xt::range(2, 5), xt::range(5, 9)) = patch;
    CHECK(bool(after == expect));
    rg.region = {9, 8};
    CHECK_THROWS_MATCHING(ts::to_zarr(ts::from_xtensor(patch), path, rg, pol), ts::invalid_argument,
                         Catch::Contains("does not fit"));
    // overwrite with another layout (float32, other chunks)
    ts::zarr_options ow = o;
    ow.mode = ts::write_mode::overwrite;
    ow.attributes = nullptr;
    xt::xarray<float> f = {1.f, 2.f, 3.f};
    ts::to_zarr(ts::from_xtensor(f, {2}), path, ow, pol);
    CHECK(ts::zarr_info(path).shape == shape_t{3});
    CHECK(bool(ts::compute(ts::from_zarr<float>(path), pol) == f));
  }
}

TEST_CASE("to_zarr: irregular chunks and bad options are named errors", "[zarr][errors]") {
  temp_dir dir("tessera_zarr");
  xt::xarray<double> a = xt::zeros<double>({10});
  CHECK_THROWS_MATCHING(ts::to_zarr(ts::from_xtensor(a, chunks_t{{3, 5, 2}}), dir / "x"), ts::invalid_argument,
                       Catch::Contains("regular chunks") && Catch::Contains("ts::rechunk"));
  ts::zarr_options o;
  o.codec = "lzma";
  CHECK_THROWS_MATCHING(ts::to_zarr(ts::from_xtensor(a, {5}), dir / "x", o), ts::invalid_argument, Catch::Contains("'lzma'"));
  o = {};
  o.format = 4;
  CHECK_THROWS_MATCHING(ts::to_zarr(ts::from_xtensor(a, {5}), dir / "x", o), ts::invalid_argument, Catch::Contains("format 4"));
  o = {};
  o.shards = {7};
  CHECK_THROWS_MATCHING(ts::to_zarr(ts::from_xtensor(a, {5}), dir / "x", o), ts::invalid_argument, Catch::Contains("multiple"));
  o = {};
  o.format = 2;
  o.checksum = true;
  CHECK_THROWS_MATCHING(ts::to_zarr(ts::from_xtensor(a, {5}), dir / "x", o), ts::invalid_argument, Catch::Contains("format 3"));
  CHECK_FALSE(fs::exists(dir.path / "x"));
  fs::create_directories(dir.path / "notzarr");
  spit(dir.path / "notzarr" / "mine.txt", "user data");
  CHECK_THROWS_MATCHING(ts::to_zarr(ts::from_xtensor(a, {5}), dir / "notzarr"), ts::io_error, Catch::Contains("not a Zarr array"));
  CHECK(slurp(dir.path / "notzarr" / "mine.txt") == "user data");
}

TEST_CASE("from_zarr: bad paths, metadata and chunks are io_errors that name what to fix", "[zarr][errors]") {
  temp_dir dir("tessera_zarr");
  CHECK_THROWS_MATCHING(ts::from_zarr<double>(dir / "missing"), ts::io_error, Catch::Contains("does not exist"));
  fs::create_directories(dir.path / "empty");
  CHECK_THROWS_MATCHING(ts::from_zarr<double>(dir / "empty"), ts::io_error, Catch::Contains("neither zarr.json"));
  fs::create_directories(dir.path / "group");
  spit(dir.path / "group" / ".zgroup", "{\"zarr_format\": 2}");
  CHECK_THROWS_MATCHING(ts::from_zarr<double>(dir / "group"), ts::io_error, Catch::Contains("is a Zarr group"));

  xt::xarray<double> a = xt::reshape_view(xt::arange<double>(0, 20), {4, 5});
  for (int format : {2, 3}) {
    INFO("format " << format);
    const std::string path = dir / ("a" + std::to_string(format));
    ts::zarr_options o;
    o.format = format;
    o.checksum = format == 3;
    ts::to_zarr(ts::from_xtensor(a, {2, 5}), path, o);
    const fs::path meta = fs::path(path) / (format == 2 ? ".zarray" : "zarr.json");
    const std::string good = slurp(meta);
    spit(meta, good.substr(0, good.size() / 2));  // truncated metadata
    CHECK_THROWS_MATCHING(ts::from_zarr<double>(path), ts::io_error, Catch::Contains("not valid JSON") && Catch::Contains(meta.string()));
    auto with = [&](const std::string& from, const std::string& to) {
      std::string s = good;
      const auto at = s.find(from);
      REQUIRE(at != std::string::npos);
      s.replace(at, from.size(), to);
      spit(meta, s);
    };
    if (format == 2) {
      with("\"<f8\"", "\"<c16\"");
      CHECK_THROWS_MATCHING(ts::from_zarr<double>(path), ts::io_error, Catch::Contains("'<c16'"));
      with("\"zstd\"", "\"lzma\"");
      CHECK_THROWS_MATCHING(ts::from_zarr<double>(path), ts::io_error, Catch::Contains("'lzma'"));
      with("\"shape\": [", "\"shape\": [-7, ");
      CHECK_THROWS_MATCHING(ts::from_zarr<double>(path), ts::io_error, Catch::Contains("'shape'"));
    } else {
      with("\"float64\"", "\"complex128\"");
      CHECK_THROWS_MATCHING(ts::from_zarr<double>(path), ts::io_error, Catch::Contains("'complex128'"));
      with("\"zstd\"", "\"lzma\"");
      CHECK_THROWS_MATCHING(ts::from_zarr<double>(path), ts::io_error, Catch::Contains("'lzma'"));
      with("\"chunk_grid\"", "\"chunk_grud\"");
      CHECK_THROWS_MATCHING(ts::from_zarr<double>(path), ts::io_error, Catch::Contains("missing"));
    }
    spit(meta, good);
    // A corrupt chunk (one byte flipped) and a truncated one: the key is named.
    const std::string key = format == 2 ? "1.0" : "c/1/0";
    const fs::path chunk = fs::path(path) / key;
    const std::string bytes = slurp(chunk);
    std::string bad = bytes;
    // A flipped payload byte: Tessera's zstd frames carry a content checksum (format 2),
    // and format 3 adds the crc32c codec here.
    const std::size_t at = bad.size() / 2;
    bad[at] = char(bad[at] ^ 0x5a);
    spit(chunk, bad);
    CHECK_THROWS_MATCHING(ts::compute(ts::from_zarr<double>(path)), ts::io_error, Catch::Contains("'" + key + "'"));
    spit(chunk, bytes.substr(0, bytes.size() - 7));
    CHECK_THROWS_MATCHING(ts::compute(ts::from_zarr<double>(path)), ts::io_error, Catch::Contains("'" + key + "'"));
    spit(chunk, bytes);
    CHECK(bool(ts::compute(ts::from_zarr<double>(path)) == a));
  }
}

TEMPLATE_TEST_CASE("a failing chunk task leaves every chunk old or new and the metadata intact",
                   "[zarr][fault]", TESSERA_TEST_BACKENDS) {
  const TestType pol = make_policy<TestType>(3);
  temp_dir dir("tessera_zarr");
  for (int format : {2, 3}) {
    INFO("format " << format);
    const std::string path = dir / ("f" + std::to_string(format));
    ts::zarr_options o;
    o.format = format;
    const auto grid = ts::chunk_grid::make({30, 20}, {5, 10}, 8);
    ts::to_zarr(ts::from_store(std::make_shared<failing_store>(failing_store{grid, -1, 1.0})), path, o, pol);
    const auto meta_before = tree(path).at(format == 2 ? ".zarray" : "zarr.json");
    // Overwrite in place (same layout) with 2.0; block 7 fails.
    o.mode = ts::write_mode::overwrite;
    CHECK_THROWS_WITH(ts::to_zarr(ts::from_store(std::make_shared<failing_store>(failing_store{grid, 7, 2.0})), path, o, pol),
                      Catch::Contains("injected failure in block 7"));
    const auto files = tree(path);
    CHECK(files.at(format == 2 ? ".zarray" : "zarr.json") == meta_before);
    for (auto& [name, _b] : files) CHECK(name.find(".tmp-") == std::string::npos);
    auto back = ts::compute(ts::from_zarr<double>(path), pol);
    for (index_t b = 0; b < grid.block_count(); ++b) {
      const auto bx = grid.block_box(b);
      const double v = back(bx.lo[0], bx.lo[1]);
      INFO("block " << b);
      CHECK((v == 1.0 || v == 2.0));
      if (b == 7) CHECK(v == 1.0);
      for (index_t i = bx.lo[0]; i < bx.hi[0]; ++i)
        for (index_t j = bx.lo[1]; j < bx.hi[1]; ++j) CHECK(back(i, j) == v);
    }
    // Overwrite with another layout fails: the old array stays as it was.
    o.codec = "gzip";
    const auto before = tree(path);
    CHECK_THROWS(ts::to_zarr(ts::from_store(std::make_shared<failing_store>(failing_store{grid, 3, 5.0})), path, o, pol));
    CHECK(tree(path) == before);
    // A failed create leaves nothing at the path and no staging directory beside it.
    o.mode = ts::write_mode::create;
    CHECK_THROWS(ts::to_zarr(ts::from_store(std::make_shared<failing_store>(failing_store{grid, 0, 5.0})), dir / "new", o, pol));
    CHECK_FALSE(fs::exists(dir.path / "new"));
  }
  for (auto& e : fs::directory_iterator(dir.path)) CHECK(e.path().filename().string().find(".tmp-") == std::string::npos);
}

#ifdef TESSERA_ZARR_REGION_WRITER
TEST_CASE("two processes writing disjoint regions give the bytes of one process", "[zarr][processes]") {
  temp_dir dir("tessera_zarr");
  for (int format : {2, 3}) {
    INFO("format " << format);
    const std::string one = dir / ("one" + std::to_string(format)), two = dir / ("two" + std::to_string(format));
    const std::string w = TESSERA_ZARR_REGION_WRITER, f = std::to_string(format);
    // One process writes the whole array; then two processes write the halves of a second one.
    REQUIRE(std::system((w + " " + one + " " + f + " create all").c_str()) == 0);
    REQUIRE(std::system((w + " " + two + " " + f + " create none").c_str()) == 0);
    const std::string both = w + " " + two + " " + f + " region top & p=$!; " + w + " " + two + " " + f +
                             " region bottom; r=$?; wait $p && test $r -eq 0";
    REQUIRE(std::system(both.c_str()) == 0);
    CHECK(tree(one) == tree(two));
  }
}
#endif
