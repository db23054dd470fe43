// .npy files (tessera/npy.hpp): round trips on random shapes, chunkings and dtypes per backend;
// views read only the blocks they touch; files written by hand in every byte order, Fortran
// order and header version; NumPy writing files Tessera reads and reading (np.load) files
// Tessera writes, run at test time when /usr/bin/python3 has numpy; the fault paths (bad paths,
// magic, headers, dtypes, truncation, a failing chunk task); .npy stacks, ours and Dask's.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <xtensor/xarray.hpp>
#include <xtensor/xview.hpp>

#include <nlohmann/json.hpp>
#include <tessera/npy.hpp>

#include "support/backends.hpp"
#include "support/cases.hpp"
#include "support/files.hpp"
#include "support/stores.hpp"

namespace ts = tessera;
namespace fs = std::filesystem;
using namespace testing;
using ts::placeholders::_;


namespace {

bool any_temporary(const fs::path& p) {
  for (auto& e : fs::recursive_directory_iterator(p))
    if (e.path().filename().string().find(".tmp-") != std::string::npos) return true;
  return false;
}

/// A .npy file built here, independently of the library: the preamble of `version` (1, 2 or
/// 3), the header dict text as given, padding to 64 bytes, then `data`.
std::string npy_bytes(const std::string& dict, const std::string& data, int version = 1) {
  const std::size_t prefix = version == 1 ? 10 : 12;
  std::string h = dict;
  while ((prefix + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  std::string out = "\x93NUMPY";
  out += char(version);
  out += char(0);
  for (std::size_t k = 0; k < prefix - 8; ++k) out += char((h.size() >> (8 * k)) & 0xff);
  return out + h + data;
}

std::string shape_repr(const shape_t& s) {
  std::string r = "(";
  for (std::size_t d = 0; d < s.size(); ++d) r += (d ? ", " : "") + std::to_string(s[d]);
  return r + (s.size() == 1 ? ",)" : ")");
}

/// The elements of `a` as stored bytes: in C or Fortran order, little- or big-endian.
template <class T>
std::string element_bytes(const xt::xarray<T>& a, bool fortran, bool big) {
  const int r = int(a.dimension());
  std::vector<std::size_t> idx(std::size_t(r), 0);
  std::string out;
  for (std::size_t n = 0; n < a.size(); ++n) {
    std::size_t off = 0;  // row-major offset of idx
    for (int d = 0; d < r; ++d) off = off * a.shape()[std::size_t(d)] + idx[std::size_t(d)];
    char b[sizeof(T)];
    std::memcpy(b, a.data() + off, sizeof(T));
    if (big) std::reverse(b, b + sizeof(T));
    out.append(b, sizeof(T));
    // next index: the last axis fastest in C order, the first in Fortran order
    for (int k = 0; k < r; ++k) {
      const std::size_t d = std::size_t(fortran ? k : r - 1 - k);
      if (++idx[d] < a.shape()[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

/// Random values over T's whole range (specials included for floats).
template <class T>
xt::xarray<T> wide_data(std::mt19937_64& rng, const shape_t& shape) {
  auto a = testing::random_data<T>(rng, shape);
  for (auto& v : a) {
    if constexpr (std::is_same_v<T, bool>) {
      v = rng() & 1;
    } else if constexpr (std::is_floating_point_v<T>) {
      const T specials[] = {T(-0.0), std::numeric_limits<T>::infinity(), std::numeric_limits<T>::quiet_NaN(),
                            std::numeric_limits<T>::denorm_min(), std::numeric_limits<T>::max()};
      if (rng() % 8 == 0) v = specials[rng() % 5];
      else v = T(std::ldexp(double(std::int64_t(rng() % 2000001) - 1000000), int(rng() % 40) - 30));
    } else {
      const std::uint64_t bits = rng();
      std::memcpy(&v, &bits, sizeof(T));
    }
  }
  return a;
}

const char* python = "/usr/bin/python3";

/// Whether /usr/bin/python3 can import `module` (quietly).
bool python_has(const std::string& module) {
  if (!fs::exists(python)) return false;
  const std::string cmd = std::string(python) + " -c 'import " + module + "' > /dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

/// Runs a Python script (written to dir/name) with dir as its argument; its exit status.
int run_python(const temp_dir& dir, const std::string& name, const std::string& script) {
  spit(dir.path / name, script);
  const std::string cmd = std::string(python) + " " + (dir / name) + " " + dir.path.string();
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

/// Calls f(T{}) for the C++ type of a NumPy dtype name.
template <class F>
void with_type(const std::string& name, F&& f) {
  if (name == "bool") f(bool{});
  else if (name == "int8") f(std::int8_t{});
  else if (name == "int16") f(std::int16_t{});
  else if (name == "int32") f(std::int32_t{});
  else if (name == "int64") f(std::int64_t{});
  else if (name == "uint8") f(std::uint8_t{});
  else if (name == "uint16") f(std::uint16_t{});
  else if (name == "uint32") f(std::uint32_t{});
  else if (name == "uint64") f(std::uint64_t{});
  else if (name == "float32") f(float{});
  else if (name == "float64") f(double{});
  else FAIL("no C++ type for " << name);
}

const char* all_types[] = {"bool",   "int8",   "int16",  "int32",   "int64",  "uint8",
                           "uint16", "uint32", "uint64", "float32", "float64"};

}  // namespace

TEMPLATE_TEST_CASE("to_npy / from_npy round trips on random shapes, chunks and dtypes", "[npy]",
                   TESSERA_TEST_BACKENDS) {
  const auto seed = test_seed(20261124);
  std::mt19937_64 rng(seed);
  const TestType pol = make_policy<TestType>(3);
  temp_dir dir("tessera_npy");
  const shape_t fixed[] = {{}, {0}, {3, 0, 2}, {1, 1, 1, 1}};  // 0-d and empty axes every run
  for (int it = 0; it < test_iterations(40); ++it) {
    const shape_t shape = it < 4 ? fixed[it] : random_shape(rng, 0, 4, 9);
    const chunks_t wchunks = random_chunks(rng, shape), rchunks = random_chunks(rng, shape);
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape) << " write chunks "
                 << describe(wchunks) << " read chunks " << describe(rchunks));
    const std::string path = dir / ("a" + std::to_string(it) + ".npy");
    with_type(all_types[it % 11], [&](auto tag) {
      using T = decltype(tag);
      INFO("dtype " << ts::dtype::of<T>().numpy_str());
      const auto data = wide_data<T>(rng, shape);
      ts::to_npy(ts::from_xtensor(data, wchunks), path, pol);
      const auto info = ts::npy_info(path);
      CHECK(info.shape == shape);
      CHECK(info.type == ts::dtype::of<T>());
      CHECK_FALSE(info.fortran_order);
      CHECK(info.data_offset % 64 == 0);
      CHECK(std::int64_t(fs::file_size(path)) == info.data_offset + std::int64_t(data.size() * sizeof(T)));
      CHECK(slurp(path).substr(std::size_t(info.data_offset)) == element_bytes(data, false, false));
      auto back = ts::from_npy<T>(path, rchunks);
      CHECK(back.chunks() == rchunks);
      CHECK(bitwise_equal_arrays(ts::compute(back, pol), data));
      CHECK(bitwise_equal_arrays(ts::compute(ts::from_npy<T>(path), pol), data));  // auto chunks
      CHECK(back.store().blocks_read() == (ts::detail::checked_size(shape) ? back.grid().block_count() : 0));
    });
    CHECK_FALSE(any_temporary(dir.path));
  }
}

TEMPLATE_TEST_CASE("from_npy: views read only the blocks they touch; expressions over it compute as over memory",
                   "[npy][view]", TESSERA_TEST_BACKENDS) {
  const TestType pol = make_policy<TestType>(2);
  temp_dir dir("tessera_npy");
  std::mt19937_64 rng(test_seed(11));
  const auto data = testing::random_data<double>(rng, {40, 300});
  const std::string path = dir / "v.npy";
  ts::to_npy(ts::from_xtensor(data, {7, 64}), path, pol);
  {
    auto x = ts::from_npy<double>(path, {10, 50});
    // (x + 1)[::2, 100:200]: rows in all 4 row chunks, columns 100..199 = column chunks 2 and 3.
    auto v = ts::view(x + 1.0, ts::range(_, _, 2), ts::range(100, 200));
    xt::xarray<double> ref = xt::view(data + 1.0, xt::range(xt::placeholders::_, xt::placeholders::_, 2), xt::range(100, 200));
    CHECK(bitwise_equal_arrays(ts::compute(v, pol), ref));
    CHECK(x.store().blocks_read() == 4 * 2);
    CHECK(x.store().bytes_read() == 4 * 2 * 10 * 50 * 8);
  }
  {
    auto x = ts::from_npy<double>(path, {10, 50});
    auto v = ts::view(x, 13, ts::range(_, _, 2));  // one row: row chunk 1 only
    xt::xarray<double> ref = xt::view(data, 13, xt::range(xt::placeholders::_, xt::placeholders::_, 2));
    CHECK(bitwise_equal_arrays(ts::compute(v, pol), ref));
    CHECK(x.store().blocks_read() == 6);
  }
  {
    auto x = ts::from_npy<double>(path, {10, 50});
    CHECK(ts::item(ts::sum(x), pol) == Approx(xt::sum(data)()).epsilon(1e-12));
    CHECK(x.store().blocks_read() == 24);
  }
  // 1-d: x[::2] over chunks of 10 of 95 elements touches every chunk; x[5:25:3] chunks 0..2.
  xt::xarray<std::int32_t> line = xt::arange<std::int32_t>(0, 95);
  ts::to_npy(ts::from_xtensor(line, {30}), dir / "line.npy", pol);
  auto y = ts::from_npy<std::int32_t>(dir / "line.npy", {10});
  CHECK(bitwise_equal_arrays(ts::compute(ts::view(y, ts::range(5, 25, 3)), pol),
                             xt::xarray<std::int32_t>(xt::view(line, xt::range(5, 25, 3)))));
  CHECK(y.store().blocks_read() == 3);
  CHECK(y.store().bytes_read() == 3 * 10 * 4);
  // Reading and writing one path: the reader keeps the file it opened.
  auto z = ts::from_npy<double>(path, {16, 100});
  ts::to_npy(z * 2.0, path, pol);
  CHECK(bitwise_equal_arrays(ts::compute(ts::from_npy<double>(path), pol), xt::xarray<double>(data * 2.0)));
}

TEST_CASE("from_npy converts the stored dtype as ts::cast does", "[npy]") {
  temp_dir dir("tessera_npy");
  xt::xarray<double> d = {{1.5, -2.7, 300.0}, {std::nan(""), 1e30, -0.0}};
  ts::to_npy(ts::from_xtensor(d, {1, 2}), dir / "d.npy");
  auto i8 = ts::compute(ts::from_npy<std::int8_t>(dir / "d.npy"));
  CHECK(bool(i8 == xt::xarray<std::int8_t>{{1, -2, 127}, {0, 127, 0}}));
  auto b = ts::compute(ts::from_npy<bool>(dir / "d.npy", {2, 1}));
  CHECK(bool(b == xt::xarray<bool>{{true, true, true}, {true, true, false}}));
  xt::xarray<std::int16_t> s = {{-3, 7}, {32767, -32768}};
  ts::to_npy(ts::from_xtensor(s), dir / "s.npy");
  CHECK(bool(ts::compute(ts::from_npy<double>(dir / "s.npy", {1, 1})) == xt::xarray<double>{{-3, 7}, {32767, -32768}}));
}

TEMPLATE_TEST_CASE("from_npy reads files in both byte orders, Fortran order and header versions 1.0 to 3.0",
                   "[npy]", TESSERA_TEST_BACKENDS) {
  const auto seed = test_seed(5150);
  std::mt19937_64 rng(seed);
  const TestType pol = make_policy<TestType>(3);
  temp_dir dir("tessera_npy");
  for (int it = 0; it < test_iterations(48); ++it) {
    const shape_t shape = random_shape(rng, 0, 4, 8);
    const bool fortran = rng() % 2, big = rng() % 2;
    const int version = 1 + int(rng() % 3);
    const chunks_t chunks = random_chunks(rng, shape);
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape) << " chunks "
                 << describe(chunks) << (fortran ? " Fortran" : " C") << (big ? " big" : " little")
                 << "-endian, version " << version);
    with_type(all_types[it % 11], [&](auto tag) {
      using T = decltype(tag);
      const auto data = wide_data<T>(rng, shape);
      ts::dtype dt = ts::dtype::of<T>();
      if (dt.size > 1) dt.little = !big;  // one-byte types have no byte order ('|')
      const std::string dict = "{'descr': '" + dt.numpy_str() + "', 'fortran_order': " +
                               (fortran ? "True" : "False") + ", 'shape': " + shape_repr(shape) + ", }";
      const std::string path = dir / ("h" + std::to_string(it) + ".npy");
      spit(path, npy_bytes(dict, element_bytes(data, fortran, big && sizeof(T) > 1), version));
      const auto info = ts::npy_info(path);
      CHECK(info.fortran_order == fortran);
      CHECK(info.type == dt);
      CHECK(info.shape == shape);
      auto x = ts::from_npy<T>(path, chunks);
      CHECK(bitwise_equal_arrays(ts::compute(x, pol), data));
      // A view of a Fortran-order file: the transposed runs of the touched blocks only.
      if (shape.size() == 2 && shape[0] > 1) {
        auto v = ts::view(x, ts::range(1, _, 2), ts::all());
        xt::xarray<T> ref = xt::view(data, xt::range(1, xt::placeholders::_, 2), xt::all());
        CHECK(bitwise_equal_arrays(ts::compute(v, pol), ref));
      }
    });
  }
  // Python 2 era headers: long integers ('L') and no trailing comma; extra whitespace.
  xt::xarray<double> a = {{1, 2, 3}, {4, 5, 6}};
  spit(dir / "py2.npy", npy_bytes("{ 'descr' : '<f8' , 'fortran_order':False,'shape':(2L, 3L)}", element_bytes(a, false, false)));
  CHECK(bitwise_equal_arrays(ts::compute(ts::from_npy<double>(dir / "py2.npy", {1, 2}), pol), a));
  // Data past what the header announces is ignored (as np.load does).
  spit(dir / "tail.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", element_bytes(a, false, false) + "tail"));
  CHECK(bitwise_equal_arrays(ts::compute(ts::from_npy<double>(dir / "tail.npy"), pol), a));
}

TEST_CASE("NumPy writes .npy files Tessera reads, and np.load reads the files Tessera writes", "[npy][numpy]") {
  if (!python_has("numpy")) {
    WARN("skipped: " << python << " with numpy is not available, so the NumPy interoperability checks did not run");
    return;
  }
  temp_dir dir("tessera_npy");
  const auto seed = test_seed(90210);
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  // NumPy writes every dtype, byte order, memory order and header version, plus the raw
  // native-order C bytes of the same values to compare with.
  const std::string gen = R"(
import sys, os, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(1234)
names = ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'float32', 'float64']
shapes = {'a': (6, 5, 4), 'b': (9, 7), 'c': (13,), 'z': (), 'e': (0, 3)}
for name in names:
    dt = np.dtype(name)
    for key, shape in shapes.items():
        if dt.kind == 'b':
            a = rng.integers(0, 2, size=shape).astype(bool)
        elif dt.kind in 'iu':
            a = rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, size=shape, dtype=dt, endpoint=True)
        else:
            a = (rng.standard_normal(size=shape) * 10.0 ** rng.integers(-30, 30, size=shape)).astype(dt)
            if a.size > 4:
                a.flat[:4] = [np.nan, -0.0, np.inf, np.finfo(dt).tiny / 4]
        a = np.asarray(a)
        a.astype(dt.newbyteorder('=')).tofile(os.path.join(d, '%s_%s.bin' % (name, key)))
        for order in '<>':
            for fortran in (False, True):
                for version in ((1, 0), (2, 0), (3, 0)):
                    b = a.astype(dt.newbyteorder(order))
                    b = np.asfortranarray(b) if fortran else np.ascontiguousarray(b)
                    fn = '%s_%s_%s_%s_%d.npy' % (name, key, 'big' if order == '>' else 'little', 'F' if fortran else 'C', version[0])
                    with open(os.path.join(d, fn), 'wb') as f:
                        np.lib.format.write_array(f, b, version=version)
)";
  REQUIRE(run_python(dir, "gen.py", gen) == 0);
  int files = 0;
  for (const std::string name : all_types)
    for (const std::string key : {"a", "b", "c", "z", "e"})
      with_type(name, [&](auto tag) {
        using T = decltype(tag);
        const std::string raw = slurp(dir.path / (name + "_" + key + ".bin"));
        for (const std::string order : {"little", "big"})
          for (const std::string mem : {"C", "F"})
            for (const std::string version : {"1", "2", "3"}) {
              const std::string fn = name + "_" + key + "_" + order + "_" + mem + "_" + version + ".npy";
              INFO(fn);
              const auto info = ts::npy_info(dir / fn);
              CHECK(info.type.name() == name);
              if (info.type.size > 1) CHECK(info.type.little == (order == "little"));
              CHECK(info.fortran_order == (mem == "F" && info.shape.size() > 1 && ts::detail::checked_size(info.shape) > 1));
              auto x = ts::from_npy<T>(dir / fn, random_chunks(rng, info.shape));
              const auto got = ts::compute(x);
              REQUIRE(got.size() * sizeof(T) == raw.size());
              CHECK((raw.empty() || std::memcmp(got.data(), raw.data(), raw.size()) == 0));
              ++files;
            }
      });
  CHECK(files == 11 * 5 * 12);

  // Tessera writes; NumPy loads each file, checks dtype, shape and values against the raw bytes,
  // and that np.save writes the same bytes.
  nlohmann::json manifest = nlohmann::json::array();
  auto emit = [&](auto tag, const std::string& key, const shape_t& shape) {
    using T = decltype(tag);
    const auto data = wide_data<T>(rng, shape);
    const std::string base = ts::dtype::of<T>().name() + "_" + key;
    ts::to_npy(ts::from_xtensor(data, random_chunks(rng, shape)), dir / ("t_" + base + ".npy"));
    spit(dir.path / ("t_" + base + ".bin"), element_bytes(data, false, false));
    manifest.push_back({{"file", "t_" + base}, {"dtype", ts::dtype::of<T>().name()}, {"shape", shape}});
  };
  for (const std::string name : all_types)
    with_type(name, [&](auto tag) {
      emit(tag, "a", {5, 4, 3});
      emit(tag, "b", {17});
      emit(tag, "z", {});
      emit(tag, "e", {0, 4});
      emit(tag, "r", random_shape(rng, 1, 4, 7));
    });
  spit(dir.path / "manifest.json", manifest.dump());
  const std::string check = R"(
import sys, os, io, json, numpy as np
d = sys.argv[1]
bad = 0
for m in json.load(open(os.path.join(d, 'manifest.json'))):
    p = os.path.join(d, m['file'] + '.npy')
    a = np.load(p)
    want = np.fromfile(os.path.join(d, m['file'] + '.bin'), dtype=np.dtype(m['dtype'])).reshape(m['shape'])
    buf = io.BytesIO()
    np.save(buf, want)
    problems = []
    if a.dtype != np.dtype(m['dtype']): problems.append('dtype %s' % a.dtype)
    if a.shape != tuple(m['shape']): problems.append('shape %s' % (a.shape,))
    if a.tobytes() != want.tobytes(): problems.append('values differ')
    if open(p, 'rb').read() != buf.getvalue(): problems.append('bytes differ from np.save')
    if problems:
        bad += 1
        print('numpy check of', p, ':', ', '.join(problems))
sys.exit(1 if bad else 0)
)";
  CHECK(run_python(dir, "check.py", check) == 0);
}

TEST_CASE("from_npy / npy_info: bad files are io_errors that name the path and what is wrong", "[npy][errors]") {
  temp_dir dir("tessera_npy");
  const std::string missing = dir / "missing.npy";
  CHECK_THROWS_MATCHING(ts::from_npy<double>(missing), ts::io_error,
                        Catch::Contains(missing) && Catch::Contains("No such file"));
  CHECK_THROWS_MATCHING(ts::npy_info(missing), ts::io_error, Catch::Contains(missing));

  xt::xarray<double> a = xt::reshape_view(xt::arange<double>(0, 12), {3, 4});
  const std::string data = element_bytes(a, false, false);
  const std::string good_dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }";
  const std::string good = npy_bytes(good_dict, data);
  const std::string p = dir / "bad.npy";
  auto expect = [&](const std::string& bytes, const std::string& what) {
    INFO("expecting '" << what << "'");
    spit(p, bytes);
    CHECK_THROWS_MATCHING(ts::from_npy<double>(p), ts::io_error, Catch::Contains(p) && Catch::Contains(what));
    CHECK_THROWS_MATCHING(ts::npy_info(p), ts::io_error, Catch::Contains(p) && Catch::Contains(what));
  };
  spit(p, good);
  CHECK(bool(ts::compute(ts::from_npy<double>(p)) == a));

  expect("", "not a .npy file");
  expect("PK\x03\x04 a zip file, not an npy", "not a .npy file");
  expect("\x93NUMPX" + good.substr(6), "not a .npy file");
  expect(good.substr(0, 4), "header is truncated");  // the start of the magic
  expect(good.substr(0, 8), "header is truncated");
  expect(good.substr(0, 40), "header is truncated");
  std::string v = good;
  v[6] = 4;
  expect(v, "version 4.0");
  expect(good.substr(0, good.size() - 7), "data is truncated");
  expect(npy_bytes(good_dict, ""), "data is truncated");
  auto with = [&](const std::string& dict) { return npy_bytes(dict, data); };
  expect(with("{'descr': '<c16', 'fortran_order': False, 'shape': (3, 4), }"), "unsupported dtype '<c16'");
  expect(with("{'descr': '<f2', 'fortran_order': False, 'shape': (3, 4), }"), "unsupported dtype '<f2'");
  expect(with("{'descr': '<U5', 'fortran_order': False, 'shape': (3, 4), }"), "unsupported dtype '<U5'");
  expect(with("{'descr': [('a', '<i4'), ('b', '<f4')], 'fortran_order': False, 'shape': (3, 4), }"),
         "unsupported dtype [('a', '<i4'), ('b', '<f4')]");
  expect(with("{'descr': '<f8', 'fortran_order': False, 'shapes': (3, 4), }"), "unexpected key 'shapes'");
  expect(with("{'descr': '<f8', 'fortran_order': False, }"), "'shape' is missing");
  expect(with("{'descr': '<f8', 'fortran_order': 0, 'shape': (3, 4), }"), "'fortran_order' is 0");
  expect(with("{'descr': '<f8', 'fortran_order': False, 'shape': [3, 4], }"), "'shape' is [3, 4]");
  expect(with("{'descr': '<f8', 'fortran_order': False, 'shape': (3, -4), }"), "negative dimension -4");
  expect(with("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 99999999999999999999), }"), "does not fit");
  expect(with("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), 'descr': '<f8'}"), "appears twice");
  expect(with("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4)"), "malformed");
  expect(with("{'descr': '<f8 'fortran_order': False, 'shape': (3, 4)}"), "malformed");
  expect(with("['descr', '<f8']"), "malformed");
  expect(with("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4)} junk"), "unexpected text");
  expect(with("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1, 12), }"), "at most 8");
  expect(with("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }"), "too big");
  // A header length field past the end of the file.
  std::string h = good;
  h[8] = char(0xff);
  h[9] = char(0x7f);
  expect(h, "header is truncated");
}

TEMPLATE_TEST_CASE("a failing chunk task during to_npy leaves no file, and an existing file unchanged",
                   "[npy][fault]", TESSERA_TEST_BACKENDS) {
  const TestType pol = make_policy<TestType>(3);
  temp_dir dir("tessera_npy");
  const auto grid = ts::chunk_grid::make({30, 20}, {5, 10}, 8);
  const std::string path = dir / "f.npy";
  for (ts::index_t bad : {0, 7, 11}) {
    INFO("failing block " << bad);
    CHECK_THROWS_WITH(ts::to_npy(ts::from_store(std::make_shared<failing_store>(failing_store{grid, bad, 2.0})), path, pol),
                      Catch::Contains("injected failure in block " + std::to_string(bad)));
    CHECK_FALSE(fs::exists(path));
    CHECK_FALSE(any_temporary(dir.path));
  }
  ts::to_npy(ts::from_store(std::make_shared<failing_store>(failing_store{grid, -1, 1.0})), path, pol);
  const std::string before = slurp(path);
  CHECK_THROWS_WITH(ts::to_npy(ts::from_store(std::make_shared<failing_store>(failing_store{grid, 4, 2.0})), path, pol),
                    Catch::Contains("injected failure in block 4"));
  CHECK(slurp(path) == before);
  CHECK(bool(ts::compute(ts::from_npy<double>(path), pol) == xt::ones<double>({30, 20})));
  CHECK_FALSE(any_temporary(dir.path));
  // A directory at the path: named before anything is computed.
  fs::create_directories(dir.path / "isdir.npy");
  CHECK_THROWS_MATCHING(ts::to_npy(ts::from_store(std::make_shared<failing_store>(failing_store{grid, -1, 1.0})), dir / "isdir.npy", pol),
                        ts::io_error, Catch::Contains(dir / "isdir.npy") && Catch::Contains("is a directory"));
  // Parent directories are created.
  ts::to_npy(ts::from_xtensor(xt::xarray<float>{1.f, 2.f}), dir / "sub/dir/x.npy", pol);
  CHECK(bool(ts::compute(ts::from_npy<float>(dir / "sub/dir/x.npy")) == xt::xarray<float>{1.f, 2.f}));
}

TEMPLATE_TEST_CASE("to_npy_stack / from_npy_stack round trips; a view reads only the files it touches",
                   "[npy][stack]", TESSERA_TEST_BACKENDS) {
  const auto seed = test_seed(777);
  std::mt19937_64 rng(seed);
  const TestType pol = make_policy<TestType>(3);
  temp_dir dir("tessera_npy");
  for (int it = 0; it < test_iterations(24); ++it) {
    const shape_t shape = random_shape(rng, 1, 4, 9);
    const chunks_t chunks = random_chunks(rng, shape);
    const int r = int(shape.size());
    const int axis = int(rng() % std::uint64_t(r)) - (rng() % 2 ? r : 0);  // negative half the time
    const int a = axis < 0 ? axis + r : axis;
    INFO("seed " << seed << " iteration " << it << " shape " << describe(shape) << " chunks "
                 << describe(chunks) << " axis " << axis);
    const std::string d = dir / ("s" + std::to_string(it));
    with_type(all_types[it % 11], [&](auto tag) {
      using T = decltype(tag);
      const auto data = wide_data<T>(rng, shape);
      ts::to_npy_stack(d, ts::from_xtensor(data, chunks), axis, pol);
      const auto& ca = chunks[std::size_t(a)];
      CHECK(std::size_t(std::distance(fs::directory_iterator(d), fs::directory_iterator())) == ca.size() + 1);
      const auto info = nlohmann::json::parse(slurp(fs::path(d) / "info.json"));
      CHECK(info["axis"] == a);
      CHECK(info["chunks"].get<std::vector<index_t>>() == ca);
      CHECK(info["dtype"] == ts::dtype::of<T>().numpy_str());
      CHECK(info["shape"].get<shape_t>() == shape);
      index_t off = 0;
      for (std::size_t k = 0; k < ca.size(); ++k) {  // file k is chunk k along the axis
        shape_t s = shape;
        s[std::size_t(a)] = ca[k];
        CHECK(ts::npy_info(d + "/" + std::to_string(k) + ".npy").shape == s);
        xt::xstrided_slice_vector sv(std::size_t(r), xt::all());
        sv[std::size_t(a)] = xt::range(off, off + ca[k]);
        xt::xarray<T> slab = xt::strided_view(data, sv);
        CHECK(bitwise_equal_arrays(ts::compute(ts::from_npy<T>(d + "/" + std::to_string(k) + ".npy"), pol), slab));
        off += ca[k];
      }
      auto x = ts::from_npy_stack<T>(d, 5);  // info.json's axis wins
      CHECK(x.store().axis() == a);
      CHECK(x.chunks()[std::size_t(a)] == ca);
      CHECK(bitwise_equal_arrays(ts::compute(x, pol), data));
      // Without info.json: the files are discovered and concatenated along the given axis.
      fs::remove(fs::path(d) / "info.json");
      auto y = ts::from_npy_stack<T>(d, axis);
      CHECK(y.store().file_count() == ca.size());
      CHECK(bitwise_equal_arrays(ts::compute(y, pol), data));
      // A view inside one file reads that file only.
      if (ts::detail::checked_size(shape) > 0) {
        const index_t pos = index_t(rng() % std::uint64_t(shape[std::size_t(a)]));
        auto z = ts::from_npy_stack<T>(d, a);
        CHECK(bitwise_equal_arrays(ts::compute(z, pol), data));  // every file once
        CHECK(z.store().files_read() == index_t(ca.size()));
        auto w = ts::from_npy_stack<T>(d, a);
        xt::xstrided_slice_vector sv(std::size_t(r), xt::all());
        sv[std::size_t(a)] = xt::range(pos, pos + 1);
        std::vector<ts::index_t> lo(std::size_t(r), 0), hi(shape.begin(), shape.end());
        lo[std::size_t(a)] = pos;
        hi[std::size_t(a)] = pos + 1;
        xt::xarray<T> ref = xt::strided_view(data, sv);
        auto sel = [&] {
          switch (r) {
            case 1: return ts::compute(ts::view(w, ts::range(lo[0], hi[0])), pol);
            case 2: return ts::compute(ts::view(w, ts::range(lo[0], hi[0]), ts::range(lo[1], hi[1])), pol);
            case 3: return ts::compute(ts::view(w, ts::range(lo[0], hi[0]), ts::range(lo[1], hi[1]), ts::range(lo[2], hi[2])), pol);
            default: return ts::compute(ts::view(w, ts::range(lo[0], hi[0]), ts::range(lo[1], hi[1]), ts::range(lo[2], hi[2]), ts::range(lo[3], hi[3])), pol);
          }
        }();
        CHECK(bitwise_equal_arrays(sel, ref));
        CHECK(w.store().files_read() == 1);
      }
    });
    CHECK_FALSE(any_temporary(dir.path));
  }
}

TEST_CASE("npy stacks: bad directories, info.json and mismatched files are named io_errors; a failed write leaves nothing",
          "[npy][stack][errors]") {
  temp_dir dir("tessera_npy");
  CHECK_THROWS_MATCHING(ts::from_npy_stack<double>(dir / "none"), ts::io_error,
                        Catch::Contains(dir / "none") && Catch::Contains("does not exist"));
  fs::create_directories(dir.path / "empty");
  CHECK_THROWS_MATCHING(ts::from_npy_stack<double>(dir / "empty"), ts::io_error,
                        Catch::Contains(dir / "empty") && Catch::Contains("neither info.json nor 0.npy"));
  spit(dir.path / "file", "x");
  CHECK_THROWS_MATCHING(ts::from_npy_stack<double>(dir / "file"), ts::io_error, Catch::Contains("not a directory"));
  CHECK_THROWS_MATCHING(ts::to_npy_stack(dir / "file", ts::from_xtensor(xt::xarray<double>{1.0})), ts::io_error,
                        Catch::Contains("not a directory"));
  CHECK_THROWS_AS(ts::to_npy_stack(dir / "s0", ts::from_xtensor(xt::xarray<double>(3.0))), ts::invalid_argument);
  CHECK_THROWS_MATCHING(ts::to_npy_stack(dir / "s0", ts::from_xtensor(xt::xarray<double>{1.0}), 1), ts::invalid_argument,
                        Catch::Contains("axis 1"));

  xt::xarray<double> a = xt::reshape_view(xt::arange<double>(0, 60), {6, 10});
  const std::string s = dir / "s";
  ts::to_npy_stack(s, ts::from_xtensor(a, {2, 5}), 0);
  const fs::path sp(s);
  const std::string f1 = (sp / "1.npy").string();
  const std::string good1 = slurp(f1), info = slurp(sp / "info.json");
  // A file of another shape: with info.json, named when read; without, when opened.
  ts::to_npy(ts::from_xtensor(xt::xarray<double>(xt::zeros<double>({2, 9}))), f1);
  auto x = ts::from_npy_stack<double>(s);
  CHECK_THROWS_MATCHING(ts::compute(x), ts::io_error, Catch::Contains(f1) && Catch::Contains("(2, 9)") && Catch::Contains("inconsistent"));
  CHECK(bool(ts::compute(ts::view(x, ts::range(0, 2), ts::all())) == xt::view(a, xt::range(0, 2), xt::all())));
  fs::remove(sp / "info.json");
  CHECK_THROWS_MATCHING(ts::from_npy_stack<double>(s), ts::io_error, Catch::Contains(f1) && Catch::Contains("(2, 9)"));
  // Another dtype.
  ts::to_npy(ts::from_xtensor(xt::xarray<float>(xt::zeros<float>({2, 10}))), f1);
  CHECK_THROWS_MATCHING(ts::from_npy_stack<double>(s), ts::io_error, Catch::Contains(f1) && Catch::Contains("'<f4'"));
  spit(sp / "info.json", info);
  CHECK_THROWS_MATCHING(ts::compute(ts::from_npy_stack<double>(s)), ts::io_error, Catch::Contains(f1) && Catch::Contains("'<f4'"));
  // A missing file and a damaged one.
  spit(f1, good1);
  fs::rename(sp / "2.npy", sp / "2.moved");
  CHECK_THROWS_MATCHING(ts::compute(ts::from_npy_stack<double>(s)), ts::io_error, Catch::Contains((sp / "2.npy").string()));
  fs::rename(sp / "2.moved", sp / "2.npy");
  spit(f1, good1.substr(0, good1.size() - 1));
  CHECK_THROWS_MATCHING(ts::compute(ts::from_npy_stack<double>(s)), ts::io_error, Catch::Contains(f1) && Catch::Contains("truncated"));
  spit(f1, good1);
  CHECK(bool(ts::compute(ts::from_npy_stack<double>(s)) == a));
  // Bad info.json.
  const std::string ip = (sp / "info.json").string();
  for (auto [text, what] : std::vector<std::pair<std::string, std::string>>{
           {"{\"axis\": 0, \"chunks\": [2, 2", "not valid JSON"},
           {"{\"axis\": 0, \"chunks\": [2, 2, 2], \"dtype\": \"<f8\"}", "'shape'"},
           {"{\"axis\": 2, \"chunks\": [2, 2, 2], \"dtype\": \"<f8\", \"shape\": [6, 10]}", "'axis' 2"},
           {"{\"axis\": 0, \"chunks\": [2, 2, 3], \"dtype\": \"<f8\", \"shape\": [6, 10]}", "do not sum"},
           {"{\"axis\": 0, \"chunks\": [2, -2, 6], \"dtype\": \"<f8\", \"shape\": [6, 10]}", "-2"},
           {"{\"axis\": 0, \"chunks\": [2, 2, 2], \"dtype\": \"<c8\", \"shape\": [6, 10]}", "'<c8'"}}) {
    INFO(text);
    spit(ip, text);
    CHECK_THROWS_MATCHING(ts::from_npy_stack<double>(s), ts::io_error, Catch::Contains(ip) && Catch::Contains(what));
  }
  spit(ip, info);
  // A failing chunk task: nothing replaced, no temporary files, a new directory removed again.
  const auto before = tree(sp);
  const auto grid = ts::chunk_grid::make({6, 10}, {2, 5}, 8);
  CHECK_THROWS_WITH(ts::to_npy_stack(s, ts::from_store(std::make_shared<failing_store>(failing_store{grid, 3, 9.0}))),
                    Catch::Contains("injected failure in block 3"));
  CHECK(tree(sp) == before);
  CHECK_THROWS(ts::to_npy_stack(dir / "new", ts::from_store(std::make_shared<failing_store>(failing_store{grid, 0, 9.0}))));
  CHECK_FALSE(fs::exists(dir.path / "new"));
  CHECK_FALSE(any_temporary(dir.path));
}

TEST_CASE("from_npy_stack reads a stack Dask's to_npy_stack wrote", "[npy][stack][dask]") {
  if (!python_has("dask.array")) {
    WARN("skipped: " << python << " with dask.array is not available, so the Dask stack check did not run");
    return;
  }
  temp_dir dir("tessera_npy");
  const std::string gen = R"(
import sys, os, numpy as np, dask.array as da
d = sys.argv[1]
a = np.arange(7 * 11 * 3, dtype='>i4').reshape(7, 11, 3) * 3 - 100
da.to_npy_stack(os.path.join(d, 'axis1'), da.from_array(a, chunks=(4, (3, 5, 3), 2)), axis=1)
b = np.linspace(-1, 1, 40).reshape(10, 4)
da.to_npy_stack(os.path.join(d, 'axis0'), da.from_array(b, chunks=(3, 4)), axis=0)
a.astype('=i4').tofile(os.path.join(d, 'a.bin'))
b.tofile(os.path.join(d, 'b.bin'))
)";
  REQUIRE(run_python(dir, "dask_stack.py", gen) == 0);
  REQUIRE(fs::exists(dir.path / "axis1" / "info"));  // Dask's pickle: not read
  auto x = ts::from_npy_stack<std::int32_t>(dir / "axis1", 1);
  CHECK(x.shape() == shape_t{7, 11, 3});
  CHECK(x.chunks()[1] == std::vector<index_t>{3, 5, 3});
  const auto gx = ts::compute(x);
  CHECK(std::memcmp(gx.data(), slurp(dir.path / "a.bin").data(), gx.size() * 4) == 0);
  auto y = ts::from_npy_stack<double>(dir / "axis0");
  CHECK(y.chunks()[0] == std::vector<index_t>{3, 3, 3, 1});
  const auto gy = ts::compute(y);
  CHECK(std::memcmp(gy.data(), slurp(dir.path / "b.bin").data(), gy.size() * 8) == 0);
  auto v = ts::compute(ts::view(y, ts::range(4, 6), ts::all()));
  CHECK(y.store().files_read() == 4 + 1);
  CHECK(v(1, 3) == gy(5, 3));
}
