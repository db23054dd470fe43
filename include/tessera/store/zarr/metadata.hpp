// Zarr array metadata, format 2 (.zarray, .zattrs) and format 3 (zarr.json): parsed into one
// description of shape, chunk grid, element type, fill value, chunk keys and the codec pipeline
// of a chunk (and of a shard's inner chunks), and written back. Malformed or unsupported
// metadata is a tessera::io_error naming the file and the field.
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../../core/grid.hpp"
#include "../codecs.hpp"
#include "../dtype.hpp"
#include "../file.hpp"

namespace tessera::detail::zarr {

using json = nlohmann::json;

/// The codecs of one chunk: an optional transpose (array -> array), the element bytes
/// (array -> bytes; byte order), then bytes -> bytes codecs in encoding order.
struct chunk_codecs {
  std::vector<int> order;        // transpose: encoded axis i is decoded axis order[i]; empty: none
  bool little = true;            // byte order of the elements
  std::vector<byte_codec> bytes_codecs;
};

/// sharding_indexed: a chunk of the chunk grid (a shard) holds inner chunks and an index.
struct sharding {
  shape_t inner;                 // inner chunk shape (divides the shard shape)
  chunk_codecs inner_codecs;
  std::vector<byte_codec> index_codecs;  // after the index's bytes codec (crc32c only)
  bool index_little = true;
  bool index_at_end = true;
};

struct metadata {
  int format = 3;
  fs::path path;                 // the array's directory
  shape_t shape;
  shape_t chunk_shape;           // the chunk grid's chunks (shards when sharded)
  dtype type;                    // byte order: that of the stored elements
  json fill_json;                // fill_value as written
  std::array<std::byte, 8> fill{};  // the fill value, one element of `type` in native order
  char separator = '/';
  bool v2_keys = false;          // format 2 keys ("0.1"), also v3's "v2" chunk_key_encoding
  char order = 'C';              // format 2 only
  chunk_codecs codecs;           // outer codecs; with sharding: bytes_codecs after it
  std::optional<sharding> shard;
  json attributes = json::object();
  json extra = json::object();   // format 3 fields kept as they are (dimension_names, ...)

  /// The unit Tessera reads: the chunk, or a shard's inner chunk.
  const shape_t& read_shape() const { return shard ? shard->inner : chunk_shape; }
  /// Key of chunk-grid position `coords` (one entry per axis).
  std::string key(const std::vector<index_t>& coords) const {
    std::string k = v2_keys ? std::string() : std::string("c");
    if (coords.empty()) return v2_keys ? "0" : "c";
    for (std::size_t d = 0; d < coords.size(); ++d) {
      if (!(v2_keys && d == 0)) k += separator;
      k += std::to_string(coords[d]);
    }
    return k;
  }
  fs::path metadata_file() const { return path / (format == 2 ? ".zarray" : "zarr.json"); }
};

inline fs::path metadata_file_for(const fs::path& p, int format) {
  return p / (format == 2 ? ".zarray" : "zarr.json");
}

// --- parsing --------------------------------------------------------------------------------

[[noreturn]] inline void bad_field(const fs::path& file, const std::string& what) {
  throw_io("malformed Zarr metadata in ", file.string(), ": ", what);
}

inline shape_t parse_shape(const json& j, const fs::path& file, const char* field, bool positive) {
  if (!j.is_array()) bad_field(file, std::string("'") + field + "' must be a list of integers");
  shape_t s;
  for (auto& v : j) {
    if (!v.is_number_integer()) bad_field(file, std::string("'") + field + "' must be a list of integers, got " + j.dump());
    const auto x = v.get<std::int64_t>();
    if (x < 0 || (positive && x == 0))
      bad_field(file, std::string("'") + field + "' has the length " + std::to_string(x) +
                          (positive ? " (chunk lengths must be positive)" : " (lengths must not be negative)"));
    s.push_back(x);
  }
  if (s.size() > std::size_t(max_rank))
    bad_field(file, std::string("'") + field + "' has " + std::to_string(s.size()) +
                        " dimensions; Tessera supports at most " + std::to_string(max_rank));
  return s;
}

/// Parses a fill value for type t (JSON number, bool, "NaN", "Infinity", "-Infinity", a
/// format 3 hex string "0x7fc00000", or null for zero).
inline std::array<std::byte, 8> parse_fill(const json& j, const dtype& t, const fs::path& file) {
  std::array<std::byte, 8> out{};
  dtype native = t;
  native.little = std::endian::native == std::endian::little;
  auto put = [&](auto v) { encode_elements(&v, 1, native, out.data()); };
  if (j.is_null()) return out;
  if (j.is_boolean()) {
    put(j.get<bool>());
  } else if (j.is_number_unsigned()) {
    put(j.get<std::uint64_t>());
  } else if (j.is_number_integer()) {
    put(j.get<std::int64_t>());
  } else if (j.is_number_float()) {
    const double v = j.get<double>();
    if (t.kind != 'f' && v != std::trunc(v))
      bad_field(file, "fill_value " + j.dump() + " is not a value of " + t.name());
    put(v);
  } else if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (t.kind != 'f') bad_field(file, "fill_value \"" + s + "\" is not a value of " + t.name());
    double v;
    if (s == "NaN") v = std::numeric_limits<double>::quiet_NaN();
    else if (s == "Infinity") v = std::numeric_limits<double>::infinity();
    else if (s == "-Infinity") v = -std::numeric_limits<double>::infinity();
    else if (s.size() > 2 && s[0] == '0' && s[1] == 'x') {  // the bits, as a hex integer
      std::uint64_t bits = 0;
      try {
        bits = std::stoull(s.substr(2), nullptr, 16);
      } catch (...) {
        bad_field(file, "fill_value \"" + s + "\" is not a hex number");
      }
      if (t.size == 4) {
        const auto b32 = std::uint32_t(bits);
        float f;
        std::memcpy(&f, &b32, 4);
        put(f);
      } else {
        double d;
        std::memcpy(&d, &bits, 8);
        put(d);
      }
      return out;
    } else bad_field(file, "fill_value \"" + s + "\" (expected a number, \"NaN\", \"Infinity\" or \"-Infinity\")");
    put(v);
  } else {
    bad_field(file, "fill_value " + j.dump() + " is not a number");
  }
  return out;
}

/// A format 2 compressor ({"id": "blosc", ...}) as a byte codec.
inline byte_codec parse_v2_compressor(const json& c, const dtype& t, const fs::path& file) {
  if (!c.is_object() || !c.contains("id")) bad_field(file, "compressor " + c.dump() + " has no 'id'");
  const std::string id = c.at("id").get<std::string>();
  byte_codec b;
  if (id == "blosc") {
    b.what = byte_codec::kind::blosc;
    b.cname = c.value("cname", std::string("lz4"));
    b.level = c.value("clevel", 5);
    b.shuffle = c.value("shuffle", 1);
    b.blocksize = c.value("blocksize", std::int64_t(0));
    b.typesize = t.size;
  } else if (id == "zstd") {
    b.what = byte_codec::kind::zstd;
    b.level = c.value("level", 1);
    b.checksum = c.value("checksum", false);
  } else if (id == "zlib") {
    b.what = byte_codec::kind::zlib;
    b.level = c.value("level", 1);
  } else if (id == "gzip") {
    b.what = byte_codec::kind::gzip;
    b.level = c.value("level", 1);
  } else if (id == "crc32c") {
    b.what = byte_codec::kind::crc32c;
  } else {
    throw_io("unsupported Zarr compressor '", id, "' in ", file.string(),
             " (supported: blosc, zstd, zlib, gzip, crc32c, none)");
  }
  return b;
}

inline byte_codec parse_v3_bytes_codec(const std::string& name, const json& cfg, const dtype& t,
                                       const fs::path& file) {
  byte_codec b;
  if (name == "blosc") {
    b.what = byte_codec::kind::blosc;
    b.cname = cfg.value("cname", std::string("zstd"));
    b.level = cfg.value("clevel", 5);
    const json sh = cfg.value("shuffle", json("noshuffle"));
    if (sh.is_string()) {
      const std::string s = sh.get<std::string>();
      b.shuffle = s == "noshuffle" ? 0 : s == "shuffle" ? 1 : s == "bitshuffle" ? 2 : -2;
      if (b.shuffle == -2) bad_field(file, "blosc shuffle \"" + s + "\" (noshuffle, shuffle, bitshuffle)");
    } else b.shuffle = sh.get<int>();
    b.typesize = cfg.value("typesize", t.size);
    b.blocksize = cfg.value("blocksize", std::int64_t(0));
  } else if (name == "zstd" || name == "numcodecs.zstd") {
    b.what = byte_codec::kind::zstd;
    b.level = cfg.value("level", 0);
    b.checksum = cfg.value("checksum", false);
  } else if (name == "gzip" || name == "numcodecs.gzip") {
    b.what = byte_codec::kind::gzip;
    b.level = cfg.value("level", 5);
  } else if (name == "numcodecs.zlib") {
    b.what = byte_codec::kind::zlib;
    b.level = cfg.value("level", 1);
  } else if (name == "crc32c" || name == "numcodecs.crc32c") {
    b.what = byte_codec::kind::crc32c;
  } else {
    throw_io("unsupported Zarr codec '", name, "' in ", file.string(),
             " (supported: bytes, transpose, blosc, zstd, gzip, numcodecs.zlib, crc32c, sharding_indexed)");
  }
  return b;
}

/// Parses a format 3 codec list into chunk codecs; a sharding_indexed codec fills `shard`
/// (when allowed: not inside a shard).
inline chunk_codecs parse_v3_codecs(const json& list, const dtype& t, int rank, const fs::path& file,
                                    std::optional<sharding>* shard) {
  if (!list.is_array() || list.empty()) bad_field(file, "'codecs' must be a non-empty list");
  chunk_codecs cc;
  bool have_array_to_bytes = false;
  for (auto& c : list) {
    std::string name;
    json cfg = json::object();
    if (c.is_string()) name = c.get<std::string>();
    else if (c.is_object() && c.contains("name")) {
      name = c.at("name").get<std::string>();
      if (c.contains("configuration")) cfg = c.at("configuration");
    } else bad_field(file, "codec " + c.dump() + " has no 'name'");
    if (name == "transpose") {
      if (have_array_to_bytes) bad_field(file, "transpose after the bytes codec");
      const json& o = cfg.at("order");
      std::vector<int> ord;
      if (o.is_string()) {  // an early draft's "C" / "F"
        for (int d = 0; d < rank; ++d) ord.push_back(o.get<std::string>() == "F" ? rank - 1 - d : d);
      } else ord = o.get<std::vector<int>>();
      std::vector<int> seen(std::size_t(rank), 0);
      bool ok = int(ord.size()) == rank;
      for (int a : ord) ok = ok && a >= 0 && a < rank && !seen[std::size_t(a)]++;
      if (!ok) bad_field(file, "transpose order " + o.dump() + " is not a permutation of " +
                                   std::to_string(rank) + " axes");
      if (cc.order.empty()) cc.order = ord;
      else {  // two transposes compose
        std::vector<int> comp(ord.size());
        for (std::size_t i = 0; i < ord.size(); ++i) comp[i] = cc.order[std::size_t(ord[i])];
        cc.order = comp;
      }
    } else if (name == "bytes" || name == "endian") {
      if (have_array_to_bytes) bad_field(file, "two array-to-bytes codecs");
      have_array_to_bytes = true;
      const std::string e = cfg.value("endian", std::string("little"));
      if (e != "little" && e != "big") bad_field(file, "bytes endian \"" + e + "\" (little or big)");
      cc.little = e == "little";
    } else if (name == "sharding_indexed") {
      if (have_array_to_bytes) bad_field(file, "two array-to-bytes codecs");
      have_array_to_bytes = true;
      if (!shard) throw_io("nested sharding_indexed codecs in ", file.string(), " are not supported");
      if (!cc.order.empty())
        throw_io("a transpose before sharding_indexed in ", file.string(), " is not supported");
      sharding s;
      s.inner = parse_shape(cfg.at("chunk_shape"), file, "chunk_shape", true);
      if (int(s.inner.size()) != rank) bad_field(file, "sharding chunk_shape rank differs from the array's");
      s.inner_codecs = parse_v3_codecs(cfg.at("codecs"), t, rank, file, nullptr);
      const json ic = cfg.value("index_codecs", json::array({json{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}, json{{"name", "crc32c"}}}));
      chunk_codecs idx = parse_v3_codecs(ic, dtype::from_name("uint64"), 1, file, nullptr);
      for (auto& b : idx.bytes_codecs)
        if (b.what != byte_codec::kind::crc32c)
          throw_io("sharding index codec '", b.name(), "' in ", file.string(),
                   " is not supported (bytes and crc32c are)");
      s.index_codecs = idx.bytes_codecs;
      s.index_little = idx.little;
      const std::string loc = cfg.value("index_location", std::string("end"));
      if (loc != "end" && loc != "start") bad_field(file, "index_location \"" + loc + "\" (start or end)");
      s.index_at_end = loc == "end";
      *shard = std::move(s);
    } else {
      if (!have_array_to_bytes) bad_field(file, "codec '" + name + "' before the bytes codec");
      cc.bytes_codecs.push_back(parse_v3_bytes_codec(name, cfg, t, file));
    }
  }
  if (!have_array_to_bytes) bad_field(file, "no array-to-bytes codec ('bytes' or 'sharding_indexed')");
  return cc;
}

inline void check_chunk_size(const shape_t& c, const dtype& t, const fs::path& file) {
  index_t n = 1;
  for (auto x : c)
    if (__builtin_mul_overflow(n, x, &n) || n > (index_t(1) << 34) / t.size)
      throw_io("chunk shape ", c, " in ", file.string(), " is too large (more than 16 GiB per chunk)");
}

/// The metadata of the Zarr array at p (format 3 if zarr.json exists, else format 2).
inline metadata read_metadata(const fs::path& p) {
  std::error_code ec;
  if (!fs::exists(p, ec)) throw_io("no Zarr array at ", p.string(), ": the path does not exist");
  if (!fs::is_directory(p, ec))
    throw_io("no Zarr array at ", p.string(), ": not a directory (a Zarr array is a directory with zarr.json or .zarray)");
  metadata m;
  m.path = p;
  auto v3 = read_file_if_exists(p / "zarr.json");
  std::optional<bytes> v2;
  if (!v3) v2 = read_file_if_exists(p / ".zarray");
  if (!v3 && !v2) {
    if (fs::exists(p / ".zgroup"))
      throw_io(p.string(), " is a Zarr group, not an array: open one of its arrays (a subdirectory)");
    throw_io("no Zarr array at ", p.string(), ": the directory has neither zarr.json (format 3) nor .zarray (format 2)");
  }
  const fs::path file = p / (v3 ? "zarr.json" : ".zarray");
  const bytes& raw = v3 ? *v3 : *v2;
  json j;
  try {
    j = json::parse(reinterpret_cast<const char*>(raw.data()),
                    reinterpret_cast<const char*>(raw.data()) + raw.size());
  } catch (const json::exception& e) {
    throw_io("malformed Zarr metadata in ", file.string(), ": not valid JSON (", e.what(), ")");
  }
  try {
    if (!j.is_object()) bad_field(file, "the document is not a JSON object");
    if (v3) {
      m.format = 3;
      if (!j.contains("zarr_format") || j.at("zarr_format") != 3)
        bad_field(file, "zarr_format is " + (j.contains("zarr_format") ? j.at("zarr_format").dump() : std::string("missing")) + ", not 3");
      const std::string node = j.value("node_type", std::string());
      if (node == "group") throw_io(p.string(), " is a Zarr group, not an array: open one of its arrays");
      if (node != "array") bad_field(file, "node_type \"" + node + "\" (expected \"array\")");
      m.shape = parse_shape(j.at("shape"), file, "shape", false);
      const json& grid = j.at("chunk_grid");
      if (grid.value("name", std::string()) != "regular")
        throw_io("chunk grid '", grid.value("name", std::string("?")), "' in ", file.string(),
                 " is not supported (only 'regular')");
      m.chunk_shape = parse_shape(grid.at("configuration").at("chunk_shape"), file, "chunk_shape", true);
      const json& dt = j.at("data_type");
      if (!dt.is_string()) throw_io("unsupported data_type ", dt.dump(), " in ", file.string());
      try {
        m.type = dtype::from_name(dt.get<std::string>());
      } catch (const io_error& e) {
        throw_io(std::string(e.what()).substr(9), " in ", file.string());
      }
      const json cke = j.value("chunk_key_encoding", json{{"name", "default"}});
      const std::string kname = cke.value("name", std::string("default"));
      const json kcfg = cke.value("configuration", json::object());
      if (kname == "default") {
        m.v2_keys = false;
        m.separator = kcfg.value("separator", std::string("/")).at(0);
      } else if (kname == "v2") {
        m.v2_keys = true;
        m.separator = kcfg.value("separator", std::string(".")).at(0);
      } else throw_io("chunk_key_encoding '", kname, "' in ", file.string(), " is not supported (default, v2)");
      if (m.separator != '/' && m.separator != '.') bad_field(file, "key separator must be '/' or '.'");
      if (j.contains("storage_transformers") && !j.at("storage_transformers").empty())
        throw_io("storage_transformers in ", file.string(), " are not supported");
      std::optional<sharding> sh;
      m.codecs = parse_v3_codecs(j.at("codecs"), m.type, int(m.shape.size()), file, &sh);
      m.shard = std::move(sh);
      m.type.little = m.shard ? m.shard->inner_codecs.little : m.codecs.little;
      m.attributes = j.value("attributes", json::object());
      for (auto& [k, v] : j.items())
        if (k == "dimension_names" || k == "storage_transformers") m.extra[k] = v;
      m.fill_json = j.at("fill_value");
    } else {
      m.format = 2;
      if (!j.contains("zarr_format") || j.at("zarr_format") != 2)
        bad_field(file, "zarr_format is " + (j.contains("zarr_format") ? j.at("zarr_format").dump() : std::string("missing")) + ", not 2");
      m.shape = parse_shape(j.at("shape"), file, "shape", false);
      m.chunk_shape = parse_shape(j.at("chunks"), file, "chunks", true);
      const json& dt = j.at("dtype");
      if (!dt.is_string()) throw_io("unsupported dtype ", dt.dump(), " in ", file.string(), " (structured dtypes are not supported)");
      try {
        m.type = dtype::from_numpy(dt.get<std::string>());
      } catch (const io_error& e) {
        throw_io(std::string(e.what()).substr(9), " in ", file.string());
      }
      m.codecs.little = m.type.little;
      const std::string order = j.value("order", std::string("C"));
      if (order != "C" && order != "F") bad_field(file, "order \"" + order + "\" (C or F)");
      m.order = order[0];
      if (m.order == 'F')
        for (int d = 0; d < int(m.shape.size()); ++d) m.codecs.order.push_back(int(m.shape.size()) - 1 - d);
      const json filters = j.value("filters", json());
      if (!filters.is_null() && !filters.empty())
        throw_io("Zarr filters ", filters.dump(), " in ", file.string(), " are not supported");
      const json comp = j.value("compressor", json());
      if (!comp.is_null()) m.codecs.bytes_codecs.push_back(parse_v2_compressor(comp, m.type, file));
      const std::string sep = j.value("dimension_separator", std::string("."));
      if (sep != "." && sep != "/") bad_field(file, "dimension_separator \"" + sep + "\" ('.' or '/')");
      m.separator = sep[0];
      m.v2_keys = true;
      m.fill_json = j.value("fill_value", json());
      if (auto a = read_file_if_exists(p / ".zattrs")) {
        try {
          m.attributes = json::parse(reinterpret_cast<const char*>(a->data()),
                                     reinterpret_cast<const char*>(a->data()) + a->size());
        } catch (const json::exception& e) {
          throw_io("malformed Zarr attributes in ", (p / ".zattrs").string(), ": ", e.what());
        }
      }
    }
  } catch (const json::exception& e) {
    bad_field(file, std::string("a field is missing or has the wrong type (") + e.what() + ")");
  }
  if (m.chunk_shape.size() != m.shape.size())
    bad_field(file, "the chunk shape has " + std::to_string(m.chunk_shape.size()) +
                        " dimensions but the shape has " + std::to_string(m.shape.size()));
  if (m.shard)
    for (std::size_t d = 0; d < m.shape.size(); ++d)
      if (m.chunk_shape[d] % m.shard->inner[d] != 0)
        bad_field(file, "the shard shape does not divide into the sharding chunk_shape on axis " + std::to_string(d));
  check_chunk_size(m.chunk_shape, m.type, file);
  try {
    detail::checked_size(m.shape, std::size_t(m.type.size));
  } catch (const invalid_argument& e) {
    throw_io(std::string(e.what()).substr(9), " (in ", file.string(), ")");
  }
  m.fill = parse_fill(m.fill_json, m.type, file);
  return m;
}

// --- writing --------------------------------------------------------------------------------

inline json fill_to_json(const metadata& m) {
  dtype native = m.type;
  native.little = std::endian::native == std::endian::little;
  json out;
  native.visit([&](auto u) {
    using U = decltype(u);
    U v;
    decode_elements(m.fill.data(), native, 1, &v);
    if constexpr (std::is_floating_point_v<U>) {
      if (std::isnan(v)) out = "NaN";
      else if (std::isinf(v)) out = v > 0 ? "Infinity" : "-Infinity";
      else out = double(v);
    } else out = v;
  });
  return out;
}

inline json codec_to_json_v2(const byte_codec& b) {
  switch (b.what) {
    case byte_codec::kind::blosc:
      return {{"id", "blosc"}, {"cname", b.cname}, {"clevel", b.level}, {"shuffle", b.shuffle}, {"blocksize", b.blocksize}};
    case byte_codec::kind::zstd: return {{"id", "zstd"}, {"level", b.level}};
    case byte_codec::kind::zlib: return {{"id", "zlib"}, {"level", b.level}};
    case byte_codec::kind::gzip: return {{"id", "gzip"}, {"level", b.level}};
    default: return {{"id", "crc32c"}};
  }
}

inline json codec_to_json_v3(const byte_codec& b) {
  switch (b.what) {
    case byte_codec::kind::blosc: {
      const char* sh[] = {"noshuffle", "shuffle", "bitshuffle"};
      return {{"name", "blosc"},
              {"configuration", {{"cname", b.cname}, {"clevel", b.level}, {"shuffle", sh[std::clamp(b.shuffle, 0, 2)]},
                                 {"typesize", b.typesize}, {"blocksize", b.blocksize}}}};
    }
    case byte_codec::kind::zstd: return {{"name", "zstd"}, {"configuration", {{"level", b.level}, {"checksum", b.checksum}}}};
    case byte_codec::kind::zlib: return {{"name", "numcodecs.zlib"}, {"configuration", {{"level", b.level}}}};
    case byte_codec::kind::gzip: return {{"name", "gzip"}, {"configuration", {{"level", b.level}}}};
    default: return {{"name", "crc32c"}};
  }
}

inline json codecs_to_json_v3(const chunk_codecs& c) {
  json list = json::array();
  if (!c.order.empty()) list.push_back({{"name", "transpose"}, {"configuration", {{"order", c.order}}}});
  list.push_back({{"name", "bytes"}, {"configuration", {{"endian", c.little ? "little" : "big"}}}});
  for (auto& b : c.bytes_codecs) list.push_back(codec_to_json_v3(b));
  return list;
}

/// The metadata document of m (format 2: the .zarray; attributes go to .zattrs).
inline json to_json(const metadata& m) {
  if (m.format == 2) {
    json j = {{"zarr_format", 2}, {"shape", m.shape}, {"chunks", m.chunk_shape},
              {"dtype", m.type.numpy_str()}, {"fill_value", fill_to_json(m)},
              {"order", std::string(1, m.order)}, {"filters", nullptr},
              {"dimension_separator", std::string(1, m.separator)}};
    j["compressor"] = m.codecs.bytes_codecs.empty() ? json() : codec_to_json_v2(m.codecs.bytes_codecs[0]);
    return j;
  }
  json j = {{"zarr_format", 3}, {"node_type", "array"}, {"shape", m.shape},
            {"data_type", m.type.name()},
            {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", m.chunk_shape}}}}},
            {"chunk_key_encoding", {{"name", m.v2_keys ? "v2" : "default"},
                                    {"configuration", {{"separator", std::string(1, m.separator)}}}}},
            {"fill_value", fill_to_json(m)}, {"attributes", m.attributes}};
  if (m.shard) {
    json idx = json::array({{{"name", "bytes"}, {"configuration", {{"endian", m.shard->index_little ? "little" : "big"}}}}});
    for (auto& b : m.shard->index_codecs) idx.push_back(codec_to_json_v3(b));
    json list = json::array({{{"name", "sharding_indexed"},
                              {"configuration", {{"chunk_shape", m.shard->inner},
                                                 {"codecs", codecs_to_json_v3(m.shard->inner_codecs)},
                                                 {"index_codecs", idx},
                                                 {"index_location", m.shard->index_at_end ? "end" : "start"}}}}});
    for (auto& b : m.codecs.bytes_codecs) list.push_back(codec_to_json_v3(b));
    j["codecs"] = list;
  } else j["codecs"] = codecs_to_json_v3(m.codecs);
  for (auto& [k, v] : m.extra.items()) j[k] = v;
  return j;
}

/// Writes m's metadata (and format 2 attributes) into m.path, each file atomically.
inline void write_metadata(const metadata& m) {
  if (m.format == 2) {
    if (!m.attributes.is_null() && !m.attributes.empty())
      write_file_atomic(m.path / ".zattrs", m.attributes.dump(2));
    else {
      std::error_code ec;
      fs::remove(m.path / ".zattrs", ec);
    }
  }
  write_file_atomic(m.metadata_file(), to_json(m).dump(2));
}

/// The codec names of m, outermost first, as zarr_info reports them.
inline std::vector<std::string> codec_names(const metadata& m) {
  std::vector<std::string> out;
  auto add = [&](const chunk_codecs& c) {
    if (!c.order.empty()) out.push_back("transpose");
    out.push_back(std::string("bytes(") + (c.little ? "little" : "big") + ")");
    for (auto& b : c.bytes_codecs)
      out.push_back(b.what == byte_codec::kind::blosc ? "blosc(" + b.cname + ")" : b.name());
  };
  if (m.shard) {
    out.push_back("sharding_indexed");
    add(m.shard->inner_codecs);
    for (auto& b : m.codecs.bytes_codecs) out.push_back(b.name());
  } else add(m.codecs);
  return out;
}

}  // namespace tessera::detail::zarr
