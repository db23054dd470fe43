// Zarr arrays on disk, format 2 and 3 (link tessera::io):
//   ts::from_zarr<T>(path [, chunks])   a lazy array over the store's chunks; a chunk is read
//                                       and decoded inside the chunk task that needs it, and a
//                                       view reads only the chunks it touches
//   ts::to_zarr(x, path, options [, policy])  evaluates x chunk by chunk and writes each chunk as
//                                       it is produced (create, overwrite, append, region)
//   ts::zarr_info(path)                 dtype, shape, chunks, codecs; reads no data
//   ts::zarr_attributes / set_zarr_attributes
// docs/io.md has the formats, options, guarantees and errors.
#pragma once
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "exec/store.hpp"
#include "nodes/rechunk.hpp"
#include "nodes/stored.hpp"
#include "store/zarr/array_store.hpp"
#include "tessera.hpp"

namespace tessera {

/// What ts::to_zarr does with the path.
enum class write_mode {
  create,     // a new array; an existing one is an error
  overwrite,  // replace an existing array (in place when its layout is the same)
  append,     // grow an existing array along `append_axis` by x
  region,     // write x into an existing array, starting at `region`
};

struct zarr_options {
  int format = 3;                       // 2 or 3
  std::string codec = "zstd";           // zstd, blosc, gzip, zlib, none
  int level = 3;                        // codec level (blosc: clevel)
  std::string blosc_cname = "lz4";      // lz4, lz4hc, blosclz, zstd, zlib
  int blosc_shuffle = 1;                // 0 none, 1 byte, 2 bit
  bool checksum = false;                // format 3: a crc32c codec after compression
  std::vector<index_t> shards = {};     // format 3: shard shape (multiples of the chunks)
  char separator = 0;                   // chunk key separator; 0: '.' (format 2), '/' (format 3)
  write_mode mode = write_mode::create;
  int append_axis = 0;                  // write_mode::append
  std::vector<index_t> region = {};     // write_mode::region: where x starts
  nlohmann::json attributes = nullptr;  // written when not null
};

/// What zarr_info tells about a stored array (no chunk is read).
struct zarr_array_info {
  int format = 3;
  shape_t shape;
  shape_t chunks;             // the unit of reading: the chunks, or a shard's inner chunks
  shape_t shards;             // the shard shape; empty when not sharded
  std::string dtype;          // NumPy's type string, e.g. "<f8"
  std::string data_type;      // its name, e.g. "float64"
  char order = 'C';           // format 2's order ('C' for format 3)
  nlohmann::json fill_value;  // as written in the metadata
  std::vector<std::string> codecs;
  nlohmann::json attributes;
};

inline zarr_array_info zarr_info(const std::string& path) {
  const auto m = detail::zarr::read_metadata(path);
  zarr_array_info i;
  i.format = m.format;
  i.shape = m.shape;
  i.chunks = m.read_shape();
  if (m.shard) i.shards = m.chunk_shape;
  i.dtype = m.type.numpy_str();
  i.data_type = m.type.name();
  i.order = m.order;
  i.fill_value = m.fill_json;
  i.codecs = detail::zarr::codec_names(m);
  i.attributes = m.attributes;
  return i;
}

/// A lazy array of T over the Zarr array at `path`, chunked as stored (a sharded array: by its
/// inner chunks). A stored dtype other than T is converted as ts::cast converts.
template <class T>
stored<zarr_store<T>> from_zarr(const std::string& path) {
  return from_store(std::make_shared<zarr_store<T>>(path));
}

/// The same, with other chunks (each task reads the stored chunks its chunk overlaps).
template <class T>
auto from_zarr(const std::string& path, const chunks_arg& chunks) {
  return rechunk(from_zarr<T>(path), chunks);
}

/// The attributes (.zattrs, or zarr.json's "attributes") of the array at path.
inline nlohmann::json zarr_attributes(const std::string& path) {
  return detail::zarr::read_metadata(path).attributes;
}

namespace detail::zarr {

/// Rewrites fields of an existing array's metadata, keeping every other field as written.
template <class F>
void update_metadata(const metadata& m, F&& change) {
  const fs::path file = m.metadata_file();
  const bytes raw = read_file(file);
  json j = json::parse(reinterpret_cast<const char*>(raw.data()),
                       reinterpret_cast<const char*>(raw.data()) + raw.size());
  change(j);
  write_file_atomic(file, j.dump(2));
}

inline void write_attributes(const metadata& m, const json& attrs) {
  if (!attrs.is_object()) throw_invalid("Zarr attributes must be a JSON object, got ", attrs.dump());
  if (m.format == 2) write_file_atomic(m.path / ".zattrs", attrs.dump(2));
  else update_metadata(m, [&](json& j) { j["attributes"] = attrs; });
}

inline byte_codec codec_from_options(const zarr_options& o, int typesize) {
  byte_codec b;
  b.level = o.level;
  if (o.codec == "zstd") {
    b.what = byte_codec::kind::zstd;
    b.checksum = true;  // a content checksum in every frame: any zstd reader verifies it
    if (o.level < -131072 || o.level > 22) throw_invalid("zstd level ", o.level, " is outside -131072..22");
  } else if (o.codec == "blosc") {
    b.what = byte_codec::kind::blosc;
    b.cname = o.blosc_cname;
    b.shuffle = o.blosc_shuffle;
    b.typesize = typesize;
    if (o.level < 0 || o.level > 9) throw_invalid("blosc level ", o.level, " is outside 0..9");
    if (o.blosc_shuffle < 0 || o.blosc_shuffle > 2)
      throw_invalid("blosc_shuffle ", o.blosc_shuffle, " (0 none, 1 byte, 2 bit)");
    const char* names[] = {"lz4", "lz4hc", "blosclz", "zstd", "zlib"};
    if (std::find(std::begin(names), std::end(names), o.blosc_cname) == std::end(names))
      throw_invalid("blosc_cname '", o.blosc_cname, "' (lz4, lz4hc, blosclz, zstd, zlib)");
  } else if (o.codec == "gzip" || o.codec == "zlib") {
    b.what = o.codec == "gzip" ? byte_codec::kind::gzip : byte_codec::kind::zlib;
    if (o.level < 0 || o.level > 9) throw_invalid(o.codec, " level ", o.level, " is outside 0..9");
  } else {
    throw_invalid("codec '", o.codec, "' (zstd, blosc, gzip, zlib or none)");
  }
  return b;
}

/// Metadata for a new array of x's shape and chunks with options o.
template <class T>
metadata new_metadata(const chunk_grid& g, const fs::path& p, const zarr_options& o) {
  if (o.format != 2 && o.format != 3) throw_invalid("Zarr format ", o.format, " (2 or 3)");
  metadata m;
  m.format = o.format;
  m.path = p;
  m.shape = g.shape();
  for (int d = 0; d < g.rank(); ++d) {
    const auto& c = g.chunks()[std::size_t(d)];
    for (std::size_t k = 0; k + 1 < c.size(); ++k)
      if (c[k] != c[0] || (k + 2 == c.size() && c.back() > c[0]))
        throw_invalid("ts::to_zarr needs regular chunks (equal lengths along each axis, the last ",
                      "one possibly shorter), but axis ", d, " has chunks ", c,
                      "; rechunk first, e.g. ts::rechunk(x, {...})");
    m.chunk_shape.push_back(std::max<index_t>(c[0], 1));
  }
  m.type = dtype::of<T>();
  m.codecs.little = m.type.little;
  m.fill_json = m.type.kind == 'b' ? json(false) : m.type.kind == 'f' ? json(0.0) : json(0);
  m.separator = o.separator ? o.separator : (o.format == 2 ? '.' : '/');
  if (m.separator != '.' && m.separator != '/') throw_invalid("separator '", o.separator, "' ('.' or '/')");
  m.v2_keys = o.format == 2;
  if (o.codec != "none") m.codecs.bytes_codecs.push_back(codec_from_options(o, m.type.size));
  if (o.format == 2) {
    if (o.checksum) throw_invalid("checksum (crc32c) needs Zarr format 3");
    if (!o.shards.empty()) throw_invalid("shards need Zarr format 3");
  } else {
    if (o.checksum) {
      byte_codec c;
      c.what = byte_codec::kind::crc32c;
      m.codecs.bytes_codecs.push_back(c);
    }
    if (!o.shards.empty()) {
      if (o.shards.size() != m.shape.size())
        throw_invalid("shards ", o.shards, " have ", o.shards.size(), " entries for an array of ",
                      m.shape.size(), " dimensions");
      sharding s;
      s.inner = m.chunk_shape;
      for (std::size_t d = 0; d < o.shards.size(); ++d)
        if (o.shards[d] <= 0 || o.shards[d] % s.inner[d] != 0)
          throw_invalid("shard shape ", o.shards, " is not a multiple of the chunks ", s.inner,
                        " on axis ", d);
      s.inner_codecs = m.codecs;
      byte_codec crc;
      crc.what = byte_codec::kind::crc32c;
      s.index_codecs = {crc};
      m.shard = std::move(s);
      m.codecs = chunk_codecs{};
      m.chunk_shape = o.shards;
    }
  }
  check_chunk_size(m.chunk_shape, m.type, p);
  m.fill = parse_fill(m.fill_json, m.type, p);
  if (!o.attributes.is_null()) {
    if (!o.attributes.is_object()) throw_invalid("Zarr attributes must be a JSON object, got ", o.attributes.dump());
    m.attributes = o.attributes;
  }
  return m;
}

enum class path_state { missing, empty_directory, array, group, other };

inline path_state inspect(const fs::path& p) {
  std::error_code ec;
  if (!fs::exists(p, ec)) return path_state::missing;
  if (!fs::is_directory(p, ec)) return path_state::other;
  if (fs::exists(p / "zarr.json") || fs::exists(p / ".zarray")) {
    if (fs::exists(p / ".zarray")) return path_state::array;
    try {
      const bytes raw = read_file(p / "zarr.json");
      const json j = json::parse(reinterpret_cast<const char*>(raw.data()),
                                 reinterpret_cast<const char*>(raw.data()) + raw.size());
      return j.value("node_type", std::string()) == "group" ? path_state::group : path_state::array;
    } catch (const json::exception&) {
      return path_state::array;  // a damaged array: replaceable by overwrite
    }
  }
  if (fs::exists(p / ".zgroup")) return path_state::group;
  return fs::is_empty(p, ec) ? path_state::empty_directory : path_state::other;
}

/// Whether chunks written for `a` decode as `b`'s (everything but attributes equal).
inline bool same_layout(const metadata& a, const metadata& b) {
  json ja = to_json(a), jb = to_json(b);
  ja.erase("attributes");
  jb.erase("attributes");
  return ja == jb;
}

}  // namespace detail::zarr

/// Replaces the attributes of the array at path.
inline void set_zarr_attributes(const std::string& path, const nlohmann::json& attrs) {
  detail::zarr::write_attributes(detail::zarr::read_metadata(path), attrs);
}

/// Evaluates x with `policy` and writes it to the Zarr array at `path`, each chunk (or shard) as
/// its task finishes it: memory holds the chunks in flight, not the array. See write_mode; a
/// new array (create, or overwrite with another layout) is assembled beside `path` and renamed
/// into place when complete, so a failure leaves what was there before. Chunk files are
/// replaced atomically; append and region writes update the metadata last.
template <expression_type X, execution_policy P = host>
void to_zarr(const X& x, const std::string& path, const zarr_options& opt = {},
             const P& policy = P{}) {
  namespace z = detail::zarr;
  namespace fs = std::filesystem;
  using T = typename X::value_type;
  const fs::path p(path);
  const z::path_state state = z::inspect(p);
  switch (opt.mode) {
    case write_mode::create:
    case write_mode::overwrite: {
      z::metadata m = z::new_metadata<T>(x.grid(), p, opt);
      if (state == z::path_state::other)
        throw_io("cannot write a Zarr array to ", path, ": it exists and is not a Zarr array or an ",
                 "empty directory (remove it first)");
      if (opt.mode == write_mode::create && (state == z::path_state::array || state == z::path_state::group))
        throw_io("a Zarr ", state == z::path_state::group ? "group" : "array", " already exists at ", path,
                 "; pass .mode = ts::write_mode::overwrite to replace it");
      if (state == z::path_state::array) {
        std::optional<z::metadata> old;
        try {
          old = z::read_metadata(p);
        } catch (const io_error&) {
        }
        if (old && z::same_layout(*old, m)) {  // in place: each chunk old or new, never a mix
          zarr_store<T> target(m);
          store(x, target, policy);
          z::write_metadata(m);
          return;
        }
      }
      const fs::path staging = detail::temporary_name(p);
      try {
        m.path = staging;
        detail::make_directories(staging);
        zarr_store<T> target(m);
        store(x, target, policy);
        z::write_metadata(m);
        if (state == z::path_state::array || state == z::path_state::group) {
          const fs::path old = detail::temporary_name(p);
          detail::rename_path(p, old);
          try {
            detail::rename_path(staging, p);
          } catch (...) {
            detail::rename_path(old, p);  // put the old array back
            throw;
          }
          detail::remove_all(old);
        } else {
          if (p.has_parent_path()) detail::make_directories(p.parent_path());
          detail::rename_path(staging, p);  // replaces an empty directory
        }
      } catch (...) {
        std::error_code ec;
        fs::remove_all(staging, ec);
        throw;
      }
      return;
    }
    case write_mode::append:
    case write_mode::region: {
      if (state != z::path_state::array)
        throw_io("no Zarr array at ", path, " to ", opt.mode == write_mode::append ? "append to" : "write a region of",
                 " (use write_mode::create to make one)");
      z::metadata m = z::read_metadata(p);
      const int r = int(m.shape.size());
      if (int(x.shape().size()) != r)
        throw_invalid("cannot write an array of shape ", x.shape(), " into the Zarr array ", path,
                      " of shape ", m.shape, " (", x.shape().size(), " dimensions against ", r, ")");
      std::vector<index_t> start = opt.region;
      if (opt.mode == write_mode::append) {
        const int a = opt.append_axis < 0 ? opt.append_axis + r : opt.append_axis;
        if (a < 0 || a >= r)
          throw_invalid("append_axis ", opt.append_axis, " is out of range for the Zarr array ", path,
                        " of ", r, " dimensions");
        for (int d = 0; d < r; ++d)
          if (d != a && x.shape()[std::size_t(d)] != m.shape[std::size_t(d)])
            throw_invalid("cannot append an array of shape ", x.shape(), " to the Zarr array ", path,
                          " of shape ", m.shape, " along axis ", a, ": axis ", d, " differs");
        start.assign(std::size_t(r), 0);
        start[std::size_t(a)] = m.shape[std::size_t(a)];
        m.shape[std::size_t(a)] += x.shape()[std::size_t(a)];
      } else if (start.size() != std::size_t(r)) {
        throw_invalid("write_mode::region needs .region with one start per axis (", r, "), got ", start);
      }
      zarr_store<T> target(m);
      store(x, target, policy, start);
      if (opt.mode == write_mode::append)
        z::update_metadata(m, [&](nlohmann::json& j) { j["shape"] = m.shape; });
      if (!opt.attributes.is_null()) z::write_attributes(m, opt.attributes);
      return;
    }
  }
}

}  // namespace tessera
