// Interoperability of Tessera's Zarr format 2 and 3 with the real Python clients (issue 14), run
// by ctest as fixtures (tests/CMakeLists.txt, driver tests/interop/interop.sh):
//
//   TESSERA_INTEROP_READ=DIR    DIR/manifest.json lists arrays zarr-python wrote
//                               (zarr_py_write.py); Tessera reads each bitwise equal to the
//                               expected values, also as float64, through strided views and with
//                               other chunks, and zarr_info / zarr_attributes match the metadata.
//   TESSERA_INTEROP_WRITE=DIR   Tessera writes arrays of several dtypes, formats and codecs (random
//                               data from a printed seed; TESSERA_TEST_SEED overrides) and
//                               DIR/manifest.json + the expected values for zarr_py_check.py;
//                               also a random array x as .npy and (x + 1)[::2, ::2] as Zarr,
//                               which zarr_py_check.py recomputes with NumPy from that .npy.
//
// Expected values are files of C-order little-endian elements of the array's dtype.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xview.hpp>

#include <tessera/io.hpp>
#include <tessera/random.hpp>

#include "support/cases.hpp"

namespace ts = tessera;
namespace fs = std::filesystem;
using json = nlohmann::json;
using ts::index_t;
using ts::shape_t;
using ts::placeholders::_;

static_assert(std::endian::native == std::endian::little,
              "the interop tests compare little-endian expected files with memory");

namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + p.string());
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void spit(const fs::path& p, const std::string& s) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << s;
  if (!f) throw std::runtime_error("cannot write " + p.string());
}

index_t count(const shape_t& s) {
  index_t n = 1;
  for (auto v : s) n *= v;
  return n;
}

/// The expected values (C order) as an xarray of T.
template <class T>
xt::xarray<T> load_expected(const fs::path& file, const shape_t& shape) {
  const std::string raw = slurp(file);
  const index_t n = count(shape);
  if (index_t(raw.size()) != n * index_t(sizeof(T)))
    throw std::runtime_error(file.string() + " has " + std::to_string(raw.size()) + " bytes, expected " +
                             std::to_string(n * index_t(sizeof(T))));
  std::vector<std::size_t> sh(shape.begin(), shape.end());
  auto a = xt::xarray<T>::from_shape(sh);
  if constexpr (std::is_same_v<T, bool>) {
    for (index_t i = 0; i < n; ++i) a.data()[i] = raw[std::size_t(i)] != 0;
  } else if (n > 0) {
    std::memcpy(a.data(), raw.data(), raw.size());
  }
  return a;
}

template <class T>
std::string to_bytes(const xt::xarray<T>& a) {
  std::string s(a.size() * sizeof(T), '\0');
  if (a.size()) std::memcpy(s.data(), a.data(), s.size());
  return s;
}

/// Equal values, any NaN equal to any NaN (for conversions: the payload is not specified).
template <class A, class B>
bool equal_nan_aware(const A& got, const B& want) {
  if (got.shape() != want.shape()) return false;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto g = got.data()[i], w = want.data()[i];
    if constexpr (std::is_floating_point_v<std::decay_t<decltype(g)>>)
      if (std::isnan(g) && std::isnan(w)) continue;
    if (!(g == w)) return false;
  }
  return true;
}

/// First differing flat index of two same-shape dense arrays, bitwise (-1: none).
template <class T>
std::ptrdiff_t first_difference(const xt::xarray<T>& a, const xt::xarray<T>& b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a.data()[i], &b.data()[i], sizeof(T)) != 0) return std::ptrdiff_t(i);
  return -1;
}

/// A strided selection of a (per axis start, step, length), computed by index arithmetic.
struct axis_slice {
  index_t start, step, length;
};
template <class T>
xt::xarray<T> strided(const xt::xarray<T>& a, const std::vector<axis_slice>& s) {
  const std::size_t r = a.dimension();
  std::vector<std::size_t> sh(r);
  for (std::size_t d = 0; d < r; ++d) sh[d] = std::size_t(s[d].length);
  auto out = xt::xarray<T>::from_shape(sh);
  std::vector<std::size_t> idx(r, 0), src(r);
  for (std::size_t k = 0; k < out.size(); ++k) {
    std::size_t rem = k;
    for (std::size_t d = r; d-- > 0;) {
      idx[d] = rem % sh[d];
      rem /= sh[d];
    }
    std::size_t off = 0;
    for (std::size_t d = 0; d < r; ++d)
      off += std::size_t(s[d].start + index_t(idx[d]) * s[d].step) * a.strides()[d];
    out.data()[k] = a.data()[off];
  }
  return out;
}

/// NumPy's slice start:stop:step of an axis of length n (omitted start/stop: _).
axis_slice numpy_slice(index_t n, std::optional<index_t> start, index_t step) {
  index_t s = start ? *start : (step > 0 ? 0 : n - 1);
  if (s >= n) s = step > 0 ? n : n - 1;
  const index_t len = step > 0 ? (s < n ? (n - s + step - 1) / step : 0) : (s >= 0 ? (s + 1 + (-step) - 1) / (-step) : 0);
  return {s, step, std::max<index_t>(len, 0)};
}

/// Calls f(T{}) with the C++ type of a NumPy dtype string ("<f8", "|b1", ">i4", ...).
template <class F>
void with_dtype(const std::string& dt, F&& f) {
  if (dt.size() < 3) throw std::runtime_error("bad dtype '" + dt + "'");
  const std::string k = dt.substr(1);
  if (k == "b1") f(bool{});
  else if (k == "i1") f(std::int8_t{});
  else if (k == "i2") f(std::int16_t{});
  else if (k == "i4") f(std::int32_t{});
  else if (k == "i8") f(std::int64_t{});
  else if (k == "u1") f(std::uint8_t{});
  else if (k == "u2") f(std::uint16_t{});
  else if (k == "u4") f(std::uint32_t{});
  else if (k == "u8") f(std::uint64_t{});
  else if (k == "f4") f(float{});
  else if (k == "f8") f(double{});
  else throw std::runtime_error("dtype '" + dt + "' has no C++ type here");
}

shape_t as_shape(const json& j) { return j.get<shape_t>(); }

// --- read mode ------------------------------------------------------------------------------

// CHECK that also clears `ok` (the condition is evaluated twice: keep it cheap).
#define TRACK_CHECK(...)          \
  do {                            \
    if (!(__VA_ARGS__)) ok = false; \
    CHECK(__VA_ARGS__);           \
  } while (0)

/// Reads one manifest entry every way; false if a check failed.
template <class T>
bool read_entry(const fs::path& dir, const json& e) {
  const std::string name = e.at("name");
  const std::string path = (dir / e.at("path").get<std::string>()).string();
  const shape_t shape = as_shape(e.at("shape"));
  const shape_t chunks = as_shape(e.at("chunks"));
  const shape_t shards = as_shape(e.value("shards", json::array()));
  const int r = int(shape.size());
  INFO("array " << name << " (written by " << e.value("writer", std::string("?")) << "), shape "
                << testing::describe(shape) << ", chunks " << testing::describe(chunks) << ", stored dtype "
                << e.value("stored_dtype", std::string("?")) << ", codecs " << e.value("codecs_written", json()).dump());
  bool ok = true;
  const xt::xarray<T> want = load_expected<T>(dir / e.at("expected").get<std::string>(), shape);

  // Metadata, without reading data.
  const ts::zarr_array_info info = ts::zarr_info(path);
  TRACK_CHECK(info.format == e.at("format").get<int>());
  TRACK_CHECK(info.shape == shape);
  TRACK_CHECK(info.chunks == chunks);
  TRACK_CHECK(info.shards == shards);
  if (e.contains("stored_dtype")) TRACK_CHECK(info.dtype == e.at("stored_dtype").get<std::string>());
  TRACK_CHECK(info.data_type == ts::dtype::of<T>().name());
  if (e.contains("order")) TRACK_CHECK(info.order == e.at("order").get<std::string>().at(0));
  if (e.contains("fill_value_written")) TRACK_CHECK(info.fill_value == e.at("fill_value_written"));
  const json attrs = e.value("attributes", json::object());
  TRACK_CHECK(info.attributes == attrs);
  const json attrs_read = ts::zarr_attributes(path);
  TRACK_CHECK(attrs_read == attrs);

  // The values, in the store's chunks.
  auto x = ts::from_zarr<T>(path);
  TRACK_CHECK(x.shape() == shape);
  const xt::xarray<T> got = ts::compute(x);
  if (got.shape() != want.shape()) {
    FAIL_CHECK("Tessera reads shape " << testing::describe(shape_t(got.shape().begin(), got.shape().end())));
    return false;
  }
  const auto diff = first_difference(got, want);
  if (diff >= 0) {
    ok = false;
    FAIL_CHECK("values differ first at flat index " << diff << ": Tessera reads " << +got.data()[diff]
                                                     << ", zarr-python wrote " << +want.data()[diff]);
  }
  // Reading everything reads each stored chunk at most once (missing chunks are not read).
  index_t grid_chunks = 1;
  for (int d = 0; d < r; ++d)
    grid_chunks *= (shape[std::size_t(d)] + chunks[std::size_t(d)] - 1) / chunks[std::size_t(d)];
  const index_t reads = x.store().chunks_read();
  TRACK_CHECK(reads <= std::max<index_t>(grid_chunks, 1));

  // As float64 (converted as ts::cast converts: static_cast for these types).
  const xt::xarray<double> as_f8 = ts::compute(ts::from_zarr<double>(path));
  const xt::xarray<double> as_f8_ref = xt::cast<double>(want);
  TRACK_CHECK(equal_nan_aware(as_f8, as_f8_ref));
  if (r >= 1) {
    // x[::2] and, at rank >= 2, x[1::3, ::-1]: views read through the store.
    std::vector<axis_slice> s;
    s.push_back(numpy_slice(shape[0], 0, 2));
    for (int d = 1; d < r; ++d) s.push_back({0, 1, shape[std::size_t(d)]});
    const xt::xarray<T> v = ts::compute(ts::view(x, ts::range(_, _, 2)));
    TRACK_CHECK(testing::bitwise_equal_arrays(v, strided(want, s)));
    if (r >= 2) {
      const xt::xarray<T> w = ts::compute(ts::view(ts::from_zarr<T>(path), ts::range(1, _, 3), ts::range(_, _, -1)));
      s[0] = numpy_slice(shape[0], 1, 3);
      s[1] = numpy_slice(shape[1], std::nullopt, -1);
      TRACK_CHECK(testing::bitwise_equal_arrays(w, strided(want, s)));
    }
    // Other chunks (7 along every axis): each task reads the stored chunks it overlaps.
    const xt::xarray<T> rc = ts::compute(ts::from_zarr<T>(path, std::vector<index_t>(std::size_t(r), 7)));
    TRACK_CHECK(testing::bitwise_equal_arrays(rc, want));
  }
  return ok;
}

// --- write mode -----------------------------------------------------------------------------

/// Random values spanning T's range; floats with NaN, infinities, -0.0 and subnormals.
template <class T>
xt::xarray<T> random_values(std::mt19937_64& rng, const shape_t& shape) {
  std::vector<std::size_t> sh(shape.begin(), shape.end());
  auto a = xt::xarray<T>::from_shape(sh);
  const std::size_t n = a.size();
  for (std::size_t i = 0; i < n; ++i) {
    T& v = a.data()[i];
    if constexpr (std::is_same_v<T, bool>) v = rng() & 1;
    else if constexpr (std::is_integral_v<T>) v = T(rng());
    else v = T(std::normal_distribution<double>(0, 1000)(rng));
  }
  if constexpr (std::is_floating_point_v<T>) {
    using L = std::numeric_limits<T>;
    const T specials[] = {L::quiet_NaN(), L::infinity(), -L::infinity(), T(-0.0), L::denorm_min(), L::max(), L::lowest()};
    for (std::size_t k = 0; k < std::size(specials); ++k)
      if (n > 3 * k + 1) a.data()[(7 * k + 1) % n] = specials[k];
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (n >= 2) {
      a.data()[0] = std::numeric_limits<T>::lowest();
      a.data()[n - 1] = std::numeric_limits<T>::max();
    }
  }
  return a;
}

struct write_case {
  std::string name;
  std::string dtype;  // little-endian NumPy str
  shape_t shape;
  std::vector<index_t> chunks;
  ts::zarr_options opt;
  std::vector<std::string> codecs;  // names zarr-python must report
};

template <class T>
json write_entry(const fs::path& dir, const write_case& c, std::mt19937_64& rng) {
  INFO("array " << c.name);
  const xt::xarray<T> data = random_values<T>(rng, c.shape);
  ts::to_zarr(ts::from_xtensor(data, c.chunks), (dir / c.name).string(), c.opt);
  fs::create_directories(dir / "expected");
  spit(dir / "expected" / (c.name + ".bin"), to_bytes(data));
  json e;
  e["name"] = c.name;
  e["path"] = c.name;
  e["format"] = c.opt.format;
  e["dtype"] = ts::dtype::of<T>().numpy_str();
  e["shape"] = c.shape;
  e["chunks"] = c.chunks;
  e["shards"] = c.opt.shards;
  e["expected"] = "expected/" + c.name + ".bin";
  e["attributes"] = c.opt.attributes.is_null() ? json::object() : c.opt.attributes;
  e["fill_value"] = std::is_same_v<T, bool> ? json(false) : json(0);
  e["codecs"] = c.codecs;
  e["options"] = {{"codec", c.opt.codec},          {"level", c.opt.level},
                  {"blosc_cname", c.opt.blosc_cname}, {"blosc_shuffle", c.opt.blosc_shuffle},
                  {"checksum", c.opt.checksum},
                  {"separator", std::string(1, c.opt.separator ? c.opt.separator : c.opt.format == 2 ? '.' : '/')}};
  return e;
}

std::vector<write_case> write_cases() {
  std::vector<write_case> out;
  auto add = [&](std::string name, std::string dtype, shape_t shape, std::vector<index_t> chunks, int format,
                 std::string codec, auto&& tweak) {
    write_case c;
    c.name = "v" + std::to_string(format) + "_" + name;
    c.dtype = std::move(dtype);
    c.shape = std::move(shape);
    c.chunks = std::move(chunks);
    c.opt.format = format;
    c.opt.codec = codec;
    tweak(c.opt);
    if (codec != "none") c.codecs.push_back(codec);
    if (format == 3) c.codecs.push_back(c.opt.shards.empty() ? "bytes" : "sharding_indexed");
    if (c.opt.checksum) c.codecs.push_back("crc32c");
    out.push_back(std::move(c));
  };
  auto same = [](ts::zarr_options&) {};
  const shape_t s1{37}, s2{23, 17}, s3{9, 7, 6};
  const std::vector<index_t> c1{10}, c2{8, 5}, c3{4, 3, 5};
  for (int f : {2, 3}) {
    add("f8_zstd", "<f8", s2, c2, f, "zstd", same);
    add("f4_blosc_lz4_byteshuffle", "<f4", s3, c3, f, "blosc", [](auto& o) { o.blosc_cname = "lz4"; o.blosc_shuffle = 1; });
    add("u1_blosc_zstd_bitshuffle", "|u1", s2, c2, f, "blosc", [](auto& o) { o.blosc_cname = "zstd"; o.blosc_shuffle = 2; o.level = 7; });
    add("i1_blosc_blosclz_noshuffle", "|i1", s1, c1, f, "blosc", [](auto& o) { o.blosc_cname = "blosclz"; o.blosc_shuffle = 0; });
    add("u8_blosc_lz4hc", "<u8", s2, c2, f, "blosc", [](auto& o) { o.blosc_cname = "lz4hc"; o.level = 9; });
    add("f8_blosc_zlib", "<f8", s1, c1, f, "blosc", [](auto& o) { o.blosc_cname = "zlib"; o.level = 1; });
    add("i4_gzip", "<i4", s2, c2, f, "gzip", [](auto& o) { o.level = 6; });
    add("u2_none", "<u2", s3, c3, f, "none", same);
    add("i8_zstd_level1", "<i8", s1, c1, f, "zstd", [](auto& o) { o.level = 1; });
    add("bool_zstd", "|b1", s2, c2, f, "zstd", same);
    add("u4_gzip_level9", "<u4", s3, c3, f, "gzip", [](auto& o) { o.level = 9; });
    add("i2_sep_other", "<i2", s2, c2, f, "zstd", [f](auto& o) { o.separator = f == 2 ? '/' : '.'; });
    add("f8_attrs", "<f8", s1, c1, f, "zstd", [](auto& o) {
      o.attributes = {{"units", "m/s"}, {"scale", 0.5}, {"tags", {"a", "b"}}, {"nested", {{"k", {1, 2, nullptr}}}}};
    });
    add("f4_scalar", "<f4", {}, {}, f, "zstd", same);
    add("f8_one_chunk", "<f8", {6, 4}, {6, 4}, f, "none", same);
    add("i4_4d", "<i4", {5, 4, 3, 7}, {2, 3, 3, 4}, f, "zstd", same);
  }
  add("zlib_f8", "<f8", s2, c2, 2, "zlib", [](auto& o) { o.level = 5; });
  add("zlib_i8_sep_slash", "<i8", s3, c3, 2, "zlib", [](auto& o) { o.separator = '/'; });
  add("f8_checksum", "<f8", s2, c2, 3, "zstd", [](auto& o) { o.checksum = true; });
  add("u2_gzip_checksum", "<u2", s1, c1, 3, "gzip", [](auto& o) { o.checksum = true; });
  add("f8_shards", "<f8", {45, 31}, {5, 4}, 3, "zstd", [](auto& o) { o.shards = {15, 12}; });
  add("i2_shards_checksum", "<i2", {103}, {8}, 3, "blosc", [](auto& o) { o.shards = {32}; o.checksum = true; });
  add("f4_shards_3d_none", "<f4", {11, 9, 7}, {2, 3, 4}, 3, "none", [](auto& o) { o.shards = {4, 6, 8}; });
  add("bool_shards_gzip", "|b1", {30, 20}, {5, 5}, 3, "gzip", [](auto& o) { o.shards = {10, 20}; });
  add("u1_shards_attrs", "|u1", {30, 20}, {5, 5}, 3, "zstd", [](auto& o) {
    o.shards = {10, 10};
    o.attributes = {{"title", "sharded"}};
  });
  return out;
}

}  // namespace

TEST_CASE("interop: Tessera reads the Zarr arrays zarr-python wrote (TESSERA_INTEROP_READ=DIR)", "[interop][read]") {
  const char* d = env("TESSERA_INTEROP_READ");
  if (!d) {
    WARN("TESSERA_INTEROP_READ is not set: nothing to read (ctest sets it)");
    return;
  }
  const fs::path dir(d);
  const json manifest = json::parse(slurp(dir / "manifest.json"));
  REQUIRE(manifest.is_array());
  REQUIRE(!manifest.empty());
  std::vector<std::string> failed;
  for (const json& e : manifest) {
    const std::string name = e.at("name");
    bool ok = true;
    try {
      with_dtype(e.at("dtype").get<std::string>(), [&](auto tag) { ok = read_entry<decltype(tag)>(dir, e); });
    } catch (const std::exception& ex) {
      ok = false;
      FAIL_CHECK(name << ": " << ex.what());
    }
    if (!ok) failed.push_back(name);
  }
  std::string list;
  for (auto& f : failed) list += " " + f;
  WARN("read " << manifest.size() << " arrays from " << dir.string() << "; " << failed.size()
               << " with failures" << (failed.empty() ? "" : ":") << list);
}

TEST_CASE("interop: Tessera writes Zarr arrays for zarr-python and Dask (TESSERA_INTEROP_WRITE=DIR)", "[interop][write]") {
  const char* d = env("TESSERA_INTEROP_WRITE");
  if (!d) {
    WARN("TESSERA_INTEROP_WRITE is not set: nothing to write (ctest sets it)");
    return;
  }
  const fs::path dir(d);
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto seed = testing::test_seed(20261114);
  WARN("seed " << seed << " (TESSERA_TEST_SEED overrides)");
  std::mt19937_64 rng(seed);
  json manifest = json::array();
  for (const write_case& c : write_cases()) {
    try {
      with_dtype(c.dtype, [&](auto tag) {
        using T = decltype(tag);
        manifest.push_back(write_entry<T>(dir, c, rng));
      });
    } catch (const std::exception& ex) {
      FAIL_CHECK(c.name << ": " << ex.what());
    }
  }
  // The view round trip (issue 14, interop 3): x is a Tessera random array, never stored whole;
  // Tessera writes x itself as .npy (ts::to_npy) and (x + 1)[::2, ::2] as Zarr of each format;
  // zarr_py_check.py np.load()s the .npy and recomputes the view with NumPy. x's shape and
  // chunks are drawn from the seed, so odd extents and ragged edge chunks are covered.
  {
    std::uniform_int_distribution<index_t> extent(17, 61), chunk(3, 16);
    const shape_t xs{extent(rng), extent(rng)}, xc{chunk(rng), chunk(rng)};
    const auto x = ts::random::default_rng(seed).normal<double>(0.0, 1.0, xs, xc);
    const std::string npy = "random_x.npy";
    ts::to_npy(x, (dir / npy).string());
    const xt::xarray<double> xv = ts::compute(x);
    const xt::xarray<double> ref = xt::view(xv + 1.0, xt::range(_, _, 2), xt::range(_, _, 2));
    for (int f : {2, 3}) {
      const std::string name = "v" + std::to_string(f) + "_random_add1_step2";
      INFO("array " << name << ", x of shape " << xs[0] << "x" << xs[1] << " chunks " << xc[0] << "x" << xc[1]);
      try {
        // A step-2 view of odd chunks is irregular; Zarr needs regular chunks: rechunk, as
        // to_zarr's error message suggests.
        auto y = ts::rechunk(ts::view(x + 1.0, ts::range(_, _, 2), ts::range(_, _, 2)), {xc[0], xc[1]});
        ts::zarr_options o;
        o.format = f;
        ts::to_zarr(y, (dir / name).string(), o);
        spit(dir / "expected" / (name + ".bin"), to_bytes(ref));
        const ts::zarr_array_info info = ts::zarr_info((dir / name).string());
        CHECK(info.shape == shape_t{(xs[0] + 1) / 2, (xs[1] + 1) / 2});
        json e;
        e["name"] = name;
        e["path"] = name;
        e["format"] = f;
        e["dtype"] = "<f8";
        e["shape"] = info.shape;
        e["chunks"] = info.chunks;
        e["shards"] = json::array();
        e["expected"] = "expected/" + name + ".bin";
        e["attributes"] = json::object();
        e["fill_value"] = 0;
        e["codecs"] = {"zstd"};
        e["recompute"] = {{"npy", npy}, {"shape", xs}, {"op", "add1_step2"}};
        manifest.push_back(e);
      } catch (const std::exception& ex) {
        FAIL_CHECK(name << ": " << ex.what());
      }
    }
  }
  spit(dir / "manifest.json", manifest.dump(1));
  WARN("wrote " << manifest.size() << " arrays and " << (dir / "manifest.json").string());
}
