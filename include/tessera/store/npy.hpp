// NumPy's .npy files as chunk stores: the header (format versions 1.0, 2.0 and 3.0), the
// reading store npy_store<T> (store/chunk_store.hpp) and the writing target npy_writer<T>
// (exec/store.hpp), plus their stack forms (one .npy file per chunk along an axis, Dask's
// to_npy_stack layout): npy_stack_store<T> and npy_stack_writer<T>.
//
// A .npy file is a preamble ("\x93NUMPY", major and minor version, header length: 2 bytes
// little-endian in 1.0, 4 bytes in 2.0 and 3.0), a Python dict literal
//   {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
// padded with spaces and a newline so the data starts at a multiple of 64, then the elements in
// C order (Fortran order when fortran_order is True), nothing compressed. So a block of any
// chunk grid is a set of contiguous byte runs at known offsets: read_block preads only the runs
// of its block (of the transposed layout for fortran_order files) and never reads the whole
// file, and write_block pwrites its runs; distinct blocks touch distinct bytes, so chunk tasks
// write concurrently. Every failure is a tessera::io_error naming the path.
#pragma once
#include <algorithm>
#include <atomic>
#include <bit>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../core/grid.hpp"
#include "../core/memory_space.hpp"
#include "chunk_store.hpp"
#include "dtype.hpp"
#include "file.hpp"

namespace tessera {
namespace detail::npy {

inline constexpr char magic[] = "\x93NUMPY";  // 6 bytes, then major and minor version
inline constexpr std::int64_t magic_size = 6;
inline constexpr std::int64_t align = 64;     // NumPy's ARRAY_ALIGN: data starts at a multiple
inline constexpr std::int64_t growth_digits = 21;  // NumPy's spare header room (GROWTH_AXIS_MAX_DIGITS)
/// Longest header dict accepted (a header of max_rank dimensions needs about 200 bytes; this
/// only stops a damaged length field from allocating gigabytes).
inline constexpr std::int64_t max_header_bytes = std::int64_t(1) << 20;

/// What a .npy header says.
struct header {
  dtype type;
  shape_t shape;
  bool fortran_order = false;
  std::int64_t data_offset = 0;  // bytes before the first element
  int version = 1;               // major format version: 1, 2 or 3
  index_t count = 0;             // elements
  std::int64_t data_bytes() const { return count * std::int64_t(type.size); }
};

/// The message of an io_error or invalid_argument without its "tessera: " prefix.
inline std::string bare_message(const std::exception& e) {
  std::string m = e.what();
  const std::string prefix = "tessera: ";
  if (m.compare(0, prefix.size(), prefix) == 0) m.erase(0, prefix.size());
  return m;
}

/// At most n characters of s, with "..." when cut (headers quoted in messages).
inline std::string shorten(const std::string& s, std::size_t n = 200) {
  return s.size() <= n ? s : s.substr(0, n) + "...";
}

/// Bytes as a printable string: ASCII kept, others as \xNN (a bad magic in a message).
inline std::string printable(const std::byte* p, std::size_t n) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = std::to_integer<unsigned char>(p[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') out += char(c);
    else out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
  }
  return out;
}

/// The header dict: a Python literal with string keys and string, bool or int-tuple values
/// (other values, such as a structured dtype's list of fields, are kept as their text).
class dict_parser {
 public:
  struct value {
    enum kind_t { text, boolean, tuple, other } kind = other;
    std::string s;      // text: the string; every kind: the value's source text
    bool b = false;
    shape_t t;
  };
  struct item {
    std::string key;
    value v;
  };

  dict_parser(std::string src, std::string path) : s_(std::move(src)), path_(std::move(path)) {}

  std::vector<item> parse() {
    std::vector<item> out;
    ws();
    expect('{');
    while (true) {
      ws();
      if (peek() == '}') {
        ++i_;
        break;
      }
      item it;
      if (peek() != '\'' && peek() != '"') fail("expected a quoted key");
      it.key = string_literal();
      ws();
      expect(':');
      ws();
      it.v = parse_value();
      out.push_back(std::move(it));
      ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() == '}') {
        ++i_;
        break;
      }
      fail("expected ',' or '}'");
    }
    while (i_ < s_.size() && (is_space(s_[i_]) || s_[i_] == '\0')) ++i_;
    if (i_ != s_.size()) fail("unexpected text after the dict");
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw_io("cannot read ", path_, ": the .npy header is malformed: ", what, " at character ", i_,
             " of ", shorten(s_));
  }
  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void ws() {
    while (i_ < s_.size() && is_space(s_[i_])) ++i_;
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  bool word(const char* w) {
    const std::size_t n = std::strlen(w);
    if (s_.compare(i_, n, w) != 0) return false;
    const char next = i_ + n < s_.size() ? s_[i_ + n] : '\0';
    if (std::isalnum(static_cast<unsigned char>(next)) || next == '_') return false;
    i_ += n;
    return true;
  }
  std::string string_literal() {
    const char q = s_[i_++];
    std::string out;
    while (true) {
      if (i_ >= s_.size()) fail("unterminated string");
      const char c = s_[i_++];
      if (c == q) return out;
      if (c == '\\') {
        if (i_ >= s_.size()) fail("unterminated string");
        out += s_[i_++];
      } else {
        out += c;
      }
    }
  }
  /// A non-negative integer (Python 2 writers may add an 'L').
  index_t integer() {
    const std::size_t start = i_;
    const bool negative = peek() == '-';
    if (peek() == '-' || peek() == '+') ++i_;
    if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("expected an integer");
    index_t v = 0;
    bool overflow = false;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      overflow = overflow || __builtin_mul_overflow(v, index_t(10), &v) ||
                 __builtin_add_overflow(v, index_t(s_[i_] - '0'), &v);
      ++i_;
    }
    if (peek() == 'L' || peek() == 'l') ++i_;
    const std::string text = s_.substr(start, i_ - start);
    if (overflow) fail("dimension " + text + " in 'shape' does not fit 64 bits");
    if (negative && v != 0) fail("negative dimension " + text + " in 'shape'");
    return v;
  }
  /// Skips a value we do not interpret (nested brackets and strings), up to the ',' or '}'
  /// that ends it.
  void skip_value() {
    int depth = 0;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\'' || c == '"') {
        string_literal();
        continue;
      }
      if (c == '(' || c == '[' || c == '{') ++depth;
      else if (c == ')' || c == ']' || c == '}') {
        if (depth == 0) return;
        --depth;
      } else if (c == ',' && depth == 0) {
        return;
      }
      ++i_;
    }
  }
  value parse_value() {
    value v;
    const std::size_t start = i_;
    const char c = peek();
    if (c == '\'' || c == '"') {
      v.kind = value::text;
      v.s = string_literal();
      return v;
    }
    if (word("True") || word("False")) {
      v.kind = value::boolean;
      v.b = s_[start] == 'T';
      v.s = s_.substr(start, i_ - start);
      return v;
    }
    if (c == '(') {  // a tuple of integers, else an uninterpreted value
      ++i_;
      v.kind = value::tuple;
      ws();
      while (peek() != ')') {
        const char d = peek();
        if (!std::isdigit(static_cast<unsigned char>(d)) && d != '-' && d != '+') {
          i_ = start;
          skip_value();
          v.kind = value::other;
          v.s = s_.substr(start, i_ - start);
          return v;
        }
        v.t.push_back(integer());
        ws();
        if (peek() == ',') {
          ++i_;
          ws();
        } else if (peek() != ')') {
          fail("expected ',' or ')' in a tuple");
        }
      }
      ++i_;
      v.s = s_.substr(start, i_ - start);
      return v;
    }
    skip_value();
    if (i_ == start) fail("expected a value");
    v.s = s_.substr(start, i_ - start);
    while (!v.s.empty() && is_space(v.s.back())) v.s.pop_back();
    return v;
  }

  std::string s_;
  std::string path_;
  std::size_t i_ = 0;
};

/// Reads and checks the header of the open file f: the magic, the version, the dict, and that
/// the file holds all the data the header announces.
inline header read_header(const file_handle& f) {
  const std::string path = f.path().string();
  const std::int64_t size = f.size();
  if (size == 0) throw_io("cannot read ", path, ": not a .npy file (the file is empty)");
  std::byte pre[12] = {};
  const std::int64_t got = std::min<std::int64_t>(size, 12);
  f.read_at(0, std::size_t(got), pre);
  const std::int64_t m = std::min<std::int64_t>(got, magic_size);
  if (std::memcmp(pre, magic, std::size_t(m)) != 0)
    throw_io("cannot read ", path, ": not a .npy file (it starts with '", printable(pre, std::size_t(m)),
             "', not the magic '\\x93NUMPY')");
  if (got < 10)
    throw_io("cannot read ", path, ": the .npy header is truncated (the file has ", size,
             " bytes, fewer than the 10 of the preamble)");
  header h;
  const int major = std::to_integer<int>(pre[6]), minor = std::to_integer<int>(pre[7]);
  if (major < 1 || major > 3 || minor != 0)
    throw_io("cannot read ", path, ": .npy format version ", major, ".", minor,
             " is not supported (1.0, 2.0 and 3.0 are)");
  h.version = major;
  const std::int64_t prefix = major == 1 ? 10 : 12;
  if (got < prefix)
    throw_io("cannot read ", path, ": the .npy header is truncated (the file has ", size,
             " bytes, fewer than the ", prefix, " of a version ", major, ".0 preamble)");
  std::int64_t hlen = 0;
  for (std::int64_t k = prefix - 1; k >= 8; --k) hlen = hlen * 256 + std::to_integer<int>(pre[k]);
  if (hlen > max_header_bytes)
    throw_io("cannot read ", path, ": the .npy header length ", hlen, " is larger than the ",
             max_header_bytes, " bytes accepted (a damaged file?)");
  if (prefix + hlen > size)
    throw_io("cannot read ", path, ": the .npy header is truncated (it announces ", hlen,
             " bytes after the ", prefix, "-byte preamble; the file has ", size, " bytes)");
  std::string text(std::size_t(hlen), '\0');
  if (hlen > 0) f.read_at(prefix, std::size_t(hlen), text.data());
  h.data_offset = prefix + hlen;

  bool has_descr = false, has_order = false, has_shape = false;
  for (auto& [key, v] : dict_parser(text, path).parse()) {
    auto bad = [&](const std::string& what) {
      throw_io("cannot read ", path, ": the .npy header is malformed: ", what, " in ", shorten(text));
    };
    bool* seen = key == "descr" ? &has_descr : key == "fortran_order" ? &has_order
                 : key == "shape" ? &has_shape : nullptr;
    if (!seen) bad("unexpected key '" + key + "' (the keys are 'descr', 'fortran_order' and 'shape')");
    if (*seen) bad("key '" + key + "' appears twice");
    *seen = true;
    if (key == "descr") {
      if (v.kind != dict_parser::value::text)
        throw_io("cannot read ", path, ": unsupported dtype ", shorten(v.s), " (structured and ",
                 "subarray dtypes are not supported; bool, int8-64, uint8-64, float32 and float64 are)");
      try {
        h.type = dtype::from_numpy(v.s);
      } catch (const io_error& e) {
        throw_io("cannot read ", path, ": ", bare_message(e));
      }
    } else if (key == "fortran_order") {
      if (v.kind != dict_parser::value::boolean) bad("'fortran_order' is " + v.s + ", not True or False");
      h.fortran_order = v.b;
    } else {
      if (v.kind != dict_parser::value::tuple) bad("'shape' is " + v.s + ", not a tuple of integers");
      h.shape = v.t;
    }
  }
  if (!has_descr || !has_order || !has_shape)
    throw_io("cannot read ", path, ": the .npy header is malformed: the key '",
             !has_descr ? "descr" : !has_order ? "fortran_order" : "shape", "' is missing in ",
             shorten(text));
  try {
    check_rank(h.shape);
    h.count = checked_size(h.shape, std::size_t(h.type.size));
  } catch (const invalid_argument& e) {
    throw_io("cannot read ", path, ": ", bare_message(e));
  }
  if (h.data_bytes() > size - h.data_offset)
    throw_io("cannot read ", path, ": the data is truncated (shape ", h.shape, " of ",
             h.type.numpy_str(), " needs ", h.data_bytes(), " bytes from offset ", h.data_offset,
             "; the file has ", size, " bytes)");
  return h;
}

inline header read_header(const std::string& path) {
  return read_header(file_handle(path, O_RDONLY));
}

/// The preamble and header dict of a C- or Fortran-order array as NumPy writes it (the same
/// bytes as np.save): version 1.0 unless the header needs the 4-byte length of 2.0.
inline std::string format_header(const dtype& type, const shape_t& shape, bool fortran_order) {
  std::string d = "{'descr': '" + type.numpy_str() + "', 'fortran_order': " +
                  (fortran_order ? "True" : "False") + ", 'shape': " + cat(shape) + ", }";
  if (!shape.empty()) {  // spare room so the growing axis can be rewritten in place
    const std::string n = std::to_string(fortran_order ? shape.back() : shape.front());
    d.append(std::size_t(std::max<std::int64_t>(growth_digits - std::int64_t(n.size()), 0)), ' ');
  }
  for (int version : {1, 2}) {
    const std::int64_t prefix = version == 1 ? 10 : 12;
    const std::int64_t hlen = std::int64_t(d.size()) + 1;
    const std::int64_t pad = align - (prefix + hlen) % align;
    const std::int64_t total = hlen + pad;
    if (version == 1 && total > 0xffff) continue;
    std::string out(magic, std::size_t(magic_size));
    out += char(version);
    out += char(0);
    for (std::int64_t k = 0; k < prefix - 8; ++k) out += char((total >> (8 * k)) & 0xff);
    out += d;
    out.append(std::size_t(pad), ' ');
    out += '\n';
    return out;
  }
  throw_invalid("a .npy header of ", d.size(), " bytes");  // unreachable: 2.0 takes 4 GiB
}

/// Where the elements of one block lie: the array's axes in storage order (reversed for
/// fortran_order), the block's box in those axes, the file's element strides, and the stride
/// of each storage axis in the row-major block buffer. The block is a set of runs, each over
/// storage axes k..r-1 (axis k partly, the later ones whole): contiguous in the file.
struct block_runs {
  int r = 0;
  ivec dims, fstride, ostride;
  box bx;
  int k = 0;
  index_t run = 1;          // elements per run
  bool out_contiguous = true;  // a run is contiguous in the block buffer (C order)

  block_runs(const shape_t& shape, bool fortran, const box& blk) {
    r = int(shape.size());
    dims.n = fstride.n = ostride.n = r;
    bx.lo.n = bx.hi.n = r;
    const ivec os = row_major_strides(blk);
    for (int d = 0; d < r; ++d) {
      const int a = fortran ? r - 1 - d : d;  // the array axis of storage axis d
      dims[d] = shape[std::size_t(a)];
      bx.lo[d] = blk.lo[a];
      bx.hi[d] = blk.hi[a];
      ostride[d] = os[a];
    }
    index_t s = 1;
    for (int d = r - 1; d >= 0; --d) {
      fstride[d] = s;
      s *= dims[d];
    }
    if (r == 0) return;
    k = r - 1;
    run = bx.extent(k);
    while (k > 0 && bx.lo[k] == 0 && bx.hi[k] == dims[k]) {
      --k;
      run *= bx.extent(k);
    }
    out_contiguous = !fortran || r == 1;
  }

  /// Calls f(file element offset, block buffer offset) for each run, in row-major order of
  /// storage axes 0..k-1.
  template <class F>
  void for_each(F&& f) const {
    ivec i = bx.lo;
    while (true) {
      index_t file = 0, out = 0;
      for (int d = 0; d < r; ++d) {
        file += i[d] * fstride[d];
        out += (i[d] - bx.lo[d]) * ostride[d];
      }
      f(file, out);
      int d = k - 1;
      for (; d >= 0; --d) {
        if (++i[d] < bx.hi[d]) break;
        i[d] = bx.lo[d];
      }
      if (d < 0) return;
    }
  }

  /// Walks the elements of one run in file order, giving each one's block buffer offset
  /// (for fortran_order files, where a run is strided in the buffer).
  struct cursor {
    const block_runs* p;
    ivec i;  // position within the run, storage axes k..r-1
    index_t out;
    cursor(const block_runs& runs, index_t start) : p(&runs), out(start) { i.n = runs.r; }
    void next() {
      for (int d = p->r - 1; d >= p->k; --d) {
        const index_t ext = d == p->k ? p->bx.extent(d) : p->dims[d];
        out += p->ostride[d];
        if (++i[d] < ext) return;
        out -= ext * p->ostride[d];
        i[d] = 0;
      }
    }
  };
};

/// Elements per read or write of a converted run: bounds the staging buffer.
inline constexpr std::int64_t piece_bytes = std::int64_t(1) << 20;

/// Reads box blk of the array described by h from f into `out` (row-major over blk),
/// converting the stored dtype to T; returns the bytes read.
template <class T>
std::int64_t read_box(const file_handle& f, const header& h, const box& blk, T* out) {
  if (blk.count() == 0) return 0;
  const block_runs runs(h.shape, h.fortran_order, blk);
  const std::int64_t isz = h.type.size;
  const bool same = h.type == dtype::of<T>() && !std::is_same_v<T, bool>;
  const index_t piece = std::max<index_t>(1, std::min<index_t>(runs.run, piece_bytes / isz));
  std::vector<std::byte> raw;
  std::unique_ptr<T[]> conv;  // (not std::vector: T may be bool)
  if (!(same && runs.out_contiguous)) raw.resize(std::size_t(piece * isz));
  if (!runs.out_contiguous) conv.reset(new T[std::size_t(piece)]);
  std::int64_t total = 0;
  runs.for_each([&](index_t file, index_t o) {
    const std::int64_t at = h.data_offset + file * isz;
    total += runs.run * isz;
    if (same && runs.out_contiguous) {  // straight into the block
      f.read_at(at, std::size_t(runs.run * isz), out + o);
      return;
    }
    block_runs::cursor c(runs, o);
    for (index_t j = 0; j < runs.run; j += piece) {
      const index_t n = std::min(piece, runs.run - j);
      f.read_at(at + j * isz, std::size_t(n * isz), raw.data());
      if (runs.out_contiguous) {
        decode_elements(raw.data(), h.type, n, out + o + j);
      } else {
        decode_elements(raw.data(), h.type, n, conv.get());
        for (index_t e = 0; e < n; ++e, c.next()) out[c.out] = conv[std::size_t(e)];
      }
    }
  });
  return total;
}

/// Writes box blk (row-major at `data`) into the C-order array described by h in file f.
template <class T>
void write_box(const file_handle& f, const header& h, const box& blk, const T* data) {
  if (blk.count() == 0) return;
  const block_runs runs(h.shape, false, blk);
  const std::int64_t isz = h.type.size;
  const bool same = h.type == dtype::of<T>() && !std::is_same_v<T, bool>;
  const index_t piece = std::max<index_t>(1, std::min<index_t>(runs.run, piece_bytes / isz));
  std::vector<std::byte> raw;
  if (!same) raw.resize(std::size_t(piece * isz));
  runs.for_each([&](index_t file, index_t o) {
    const std::int64_t at = h.data_offset + file * isz;
    if (same) {
      f.write_at(at, std::size_t(runs.run * isz), data + o);
      return;
    }
    for (index_t j = 0; j < runs.run; j += piece) {
      const index_t n = std::min(piece, runs.run - j);
      encode_elements(data + o + j, n, h.type, raw.data());
      f.write_at(at + j * isz, std::size_t(n * isz), raw.data());
    }
  });
}

/// A .npy file being written: created under a temporary name beside `path` with its header and
/// its full size (ftruncate; the data reads as zeros until written), renamed onto `path` by
/// commit(), removed by the destructor when never committed.
class pending_file {
 public:
  pending_file(fs::path path, const dtype& type, const shape_t& shape) : path_(std::move(path)) {
    std::error_code ec;
    if (fs::is_directory(path_, ec))
      throw_io("cannot write ", path_.string(), ": it is a directory");
    if (path_.has_parent_path()) make_directories(path_.parent_path());
    const std::string text = format_header(type, shape, false);
    h_.type = type;
    h_.shape = shape;
    h_.data_offset = std::int64_t(text.size());
    try {
      h_.count = checked_size(shape, std::size_t(type.size));
    } catch (const invalid_argument& e) {
      throw_io("cannot write ", path_.string(), ": ", bare_message(e));
    }
    tmp_ = temporary_name(path_);
    try {
      file_handle f(tmp_, O_RDWR | O_CREAT | O_EXCL);
      f.write_at(0, text.size(), text.data());
      f.resize(h_.data_offset + h_.data_bytes());
    } catch (...) {
      discard();
      throw;
    }
  }
  pending_file(const pending_file&) = delete;
  pending_file& operator=(const pending_file&) = delete;
  ~pending_file() { discard(); }

  const header& head() const { return h_; }
  const fs::path& path() const { return path_; }
  const fs::path& temporary_path() const { return tmp_; }
  /// The temporary file, opened for reading and writing.
  file_handle open() const { return file_handle(tmp_, O_RDWR); }

  /// Renames the temporary file onto path (replacing a file there).
  void commit() {
    if (tmp_.empty()) throw_invalid("the .npy file ", path_.string(), " was already committed or discarded");
    rename_path(tmp_, path_);
    tmp_.clear();
  }
  /// Removes the temporary file (nothing when committed).
  void discard() noexcept {
    if (tmp_.empty()) return;
    std::error_code ec;
    fs::remove(tmp_, ec);
    tmp_.clear();
  }

 private:
  fs::path path_, tmp_;
  header h_;
};

/// The file name of stack file k.
inline std::string stack_file_name(std::size_t k) { return std::to_string(k) + ".npy"; }

}  // namespace detail::npy

/// A .npy file as a chunk store of T over a chunk grid of the caller's choosing: read_block
/// reads the byte runs of one block (pread, inside the chunk task that binds it) and converts
/// the stored dtype to T as ts::cast converts. The file stays open while the store lives, so
/// replacing the file at the path (e.g. ts::to_npy onto it) does not change what it reads.
template <class T>
class npy_store {
 public:
  using value_type = T;

  /// Opens `path` and checks its header (no data is read); `chunks` as everywhere (automatic
  /// when empty).
  explicit npy_store(const std::string& path, const chunks_arg& chunks = {})
      : file_(path, O_RDONLY), h_(detail::npy::read_header(file_)) {
    (void)dtype::of<T>();  // T must be a stored element type
    grid_ = chunk_grid::make(h_.shape, chunks, sizeof(T));
  }

  const chunk_grid& grid() const { return grid_; }
  memory_space block_space(index_t) const { return memory_space::elsewhere(0); }
  const T* block_pointer(index_t) const { return nullptr; }
  const detail::npy::header& header() const { return h_; }
  std::string path() const { return file_.path().string(); }

  /// Blocks read so far, and the data bytes read for them: what a view saves shows here.
  index_t blocks_read() const { return blocks_read_.load(); }
  std::int64_t bytes_read() const { return bytes_read_.load(); }

  /// Block b, row-major, into out.
  void read_block(index_t b, T* out) const {
    blocks_read_.fetch_add(1);
    bytes_read_.fetch_add(detail::npy::read_box(file_, h_, grid_.block_box(b), out));
  }

 private:
  detail::file_handle file_;
  detail::npy::header h_;
  chunk_grid grid_;
  mutable std::atomic<index_t> blocks_read_{0};
  mutable std::atomic<std::int64_t> bytes_read_{0};
};

/// A new .npy file of T (C order, T's dtype in this machine's byte order) as a writable store
/// over a chunk grid: ts::store's chunk tasks pwrite their blocks into a temporary file beside
/// the path; commit() renames it into place. Destroyed uncommitted (a failed write), it removes
/// the temporary file: nothing appears at the path, and a file already there stays as it was.
template <class T>
class npy_writer {
 public:
  using value_type = T;

  npy_writer(const std::string& path, chunk_grid g)
      : grid_(std::move(g)), file_(path, dtype::of<T>(), grid_.shape()) {
    handle_.emplace(file_.open());
  }

  const chunk_grid& write_grid() const { return grid_; }
  std::string path() const { return file_.path().string(); }
  std::string temporary_path() const { return file_.temporary_path().string(); }

  void write_block(index_t b, const T* data) {
    detail::npy::write_box(handle(), file_.head(), grid_.block_box(b), data);
  }
  /// What block b holds now (zeros where not yet written).
  void load_write_block(index_t b, T* out) const {
    detail::npy::read_box(handle(), file_.head(), grid_.block_box(b), out);
  }
  /// Puts the file in place (call once, after every block is written).
  void commit() {
    handle_.reset();
    file_.commit();
  }

 private:
  const detail::file_handle& handle() const {
    if (!handle_) throw_invalid("the .npy file ", file_.path().string(), " was already committed");
    return *handle_;
  }

  chunk_grid grid_;
  detail::npy::pending_file file_;
  std::optional<detail::file_handle> handle_;
};

/// A stack of .npy files in a directory as one array: file k (named "<k>.npy") holds the k-th
/// slab along `axis` (whole along the other axes), as Dask's to_npy_stack writes them. Block k
/// of the grid is file k: read_block opens and reads that file only, so a box reads only the
/// files it touches. The layout comes from "info.json" when present (then each file's header is
/// checked when first read), else from the headers of 0.npy, 1.npy, ... up to the first missing
/// number (a Dask-written directory, whose pickled "info" is not read), concatenated along the
/// caller's axis.
template <class T>
class npy_stack_store {
 public:
  using value_type = T;

  explicit npy_stack_store(const std::string& dir, int axis = 0) : dir_(dir) {
    (void)dtype::of<T>();
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(dir_, ec)) throw_io("cannot read the .npy stack ", dir, ": the directory does not exist");
    if (!fs::is_directory(dir_, ec)) throw_io("cannot read the .npy stack ", dir, ": it is not a directory");
    std::vector<index_t> lengths;  // along the axis, one per file
    if (fs::exists(dir_ / "info.json", ec)) {
      read_info(lengths);
    } else {
      discover(lengths, axis);
    }
    chunks_t chunks;
    for (int d = 0; d < int(shape_.size()); ++d) {
      if (d != axis_) {
        chunks.push_back({shape_[std::size_t(d)]});
        continue;
      }
      std::vector<index_t> c;  // files of length 0 hold no block
      for (std::size_t k = 0; k < lengths.size(); ++k)
        if (lengths[k] > 0) {
          c.push_back(lengths[k]);
          file_of_block_.push_back(k);
        }
      if (c.empty()) {
        c.push_back(0);
        file_of_block_.push_back(0);
      }
      chunks.push_back(std::move(c));
    }
    lengths_ = std::move(lengths);
    grid_ = chunk_grid(shape_, std::move(chunks));
    locks_ = std::make_unique<std::mutex[]>(lengths_.size());
    if (headers_.empty()) headers_.resize(lengths_.size());
  }

  const chunk_grid& grid() const { return grid_; }
  memory_space block_space(index_t) const { return memory_space::elsewhere(0); }
  const T* block_pointer(index_t) const { return nullptr; }
  int axis() const { return axis_; }
  /// The stored dtype (info.json's, or 0.npy's).
  const dtype& type() const { return type_; }
  /// Number of files in the stack (files of length 0 included).
  std::size_t file_count() const { return lengths_.size(); }
  /// Files read so far (one per block read).
  index_t files_read() const { return files_read_.load(); }

  void read_block(index_t b, T* out) const {
    files_read_.fetch_add(1);
    const std::size_t k = file_of_block_[std::size_t(grid_.block_index(b)[axis_])];
    const detail::fs::path p = dir_ / detail::npy::stack_file_name(k);
    detail::file_handle f(p, O_RDONLY);
    const detail::npy::header h = header_of(k, f);
    box local = grid_.block_box(b);
    local.hi[axis_] -= local.lo[axis_];
    local.lo[axis_] = 0;
    detail::npy::read_box(f, h, local, out);
  }

 private:
  /// The slab shape of file k.
  shape_t file_shape(std::size_t k) const {
    shape_t s = shape_;
    s[std::size_t(axis_)] = lengths_[k];
    return s;
  }

  /// File k's header, checked against the stack's layout when first read.
  detail::npy::header header_of(std::size_t k, const detail::file_handle& f) const {
    std::lock_guard<std::mutex> lock(locks_[k]);
    if (!headers_[k]) {
      detail::npy::header h = detail::npy::read_header(f);
      check_file(h, k, f.path().string(), "info.json says");
      headers_[k] = std::move(h);
    }
    return *headers_[k];
  }

  void check_file(const detail::npy::header& h, std::size_t k, const std::string& p, const char* who) const {
    if (h.shape != file_shape(k))
      throw_io("the .npy stack ", dir_.string(), " is inconsistent: ", p, " has shape ", h.shape,
               " but ", who, " ", file_shape(k), " (file ", k, " of the stack along axis ", axis_, ")");
    if (h.type != type_)
      throw_io("the .npy stack ", dir_.string(), " is inconsistent: ", p, " has dtype '",
               h.type.numpy_str(), "' but ", who, " '", type_.numpy_str(), "'");
  }

  void read_info(std::vector<index_t>& lengths) {
    const detail::fs::path ip = dir_ / "info.json";
    const detail::bytes raw = detail::read_file(ip);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(reinterpret_cast<const char*>(raw.data()),
                                reinterpret_cast<const char*>(raw.data()) + raw.size());
    } catch (const nlohmann::json::exception& e) {
      throw_io("cannot read ", ip.string(), ": not valid JSON (", e.what(), ")");
    }
    auto bad = [&](const std::string& what) {
      throw_io("cannot read ", ip.string(), ": ", what, " (expected {\"axis\": int, \"chunks\": ",
               "[int, ...], \"dtype\": \"<f8\", \"shape\": [int, ...]})");
    };
    auto ints = [&](const char* key) {
      if (!j.is_object() || !j.contains(key) || !j[key].is_array()) bad(std::string("'") + key + "' is missing or not a list");
      std::vector<index_t> v;
      for (auto& e : j[key]) {
        if (!e.is_number_integer() || e.get<std::int64_t>() < 0)
          bad(std::string("'") + key + "' holds " + e.dump() + ", not a non-negative integer");
        v.push_back(e.get<index_t>());
      }
      return v;
    };
    shape_ = ints("shape");
    lengths = ints("chunks");
    if (!j.contains("axis") || !j["axis"].is_number_integer()) bad("'axis' is missing or not an integer");
    if (!j.contains("dtype") || !j["dtype"].is_string()) bad("'dtype' is missing or not a string");
    try {
      type_ = dtype::from_numpy(j["dtype"].get<std::string>());
      detail::check_rank(shape_);
    } catch (const std::exception& e) {
      bad(detail::npy::bare_message(e));
    }
    const std::int64_t a = j["axis"].get<std::int64_t>();
    if (a < 0 || a >= std::int64_t(shape_.size()))
      bad("'axis' " + std::to_string(a) + " is out of range for 'shape' " + detail::cat(shape_));
    axis_ = int(a);
    index_t sum = 0;
    for (auto c : lengths) sum += c;
    if (lengths.empty() || sum != shape_[std::size_t(axis_)])
      bad("'chunks' " + detail::cat(lengths) + " do not sum to the length " +
          std::to_string(shape_[std::size_t(axis_)]) + " of axis " + std::to_string(axis_));
  }

  void discover(std::vector<index_t>& lengths, int axis) {
    namespace fs = std::filesystem;
    std::error_code ec;
    for (std::size_t k = 0;; ++k) {
      const fs::path p = dir_ / detail::npy::stack_file_name(k);
      if (!fs::exists(p, ec)) break;
      detail::npy::header h = detail::npy::read_header(p.string());
      if (k == 0) {
        const int r = int(h.shape.size());
        if (axis < -r || axis >= r || r == 0)
          throw_invalid("axis ", axis, " is out of range for the .npy stack ", dir_.string(),
                        " of arrays of shape ", h.shape);
        axis_ = axis < 0 ? axis + r : axis;
        shape_ = h.shape;
        shape_[std::size_t(axis_)] = 0;
        type_ = h.type;
      }
      shape_t want = shape_;
      want[std::size_t(axis_)] = h.shape.size() == shape_.size() ? h.shape[std::size_t(axis_)] : 0;
      if (h.shape != want)
        throw_io("the .npy stack ", dir_.string(), " is inconsistent: ", p.string(), " has shape ",
                 h.shape, " but ", (dir_ / "0.npy").string(), " has shape ", headers_[0]->shape,
                 " (the files must agree on every axis but ", axis_, ")");
      if (h.type != type_)
        throw_io("the .npy stack ", dir_.string(), " is inconsistent: ", p.string(), " has dtype '",
                 h.type.numpy_str(), "' but 0.npy has '", type_.numpy_str(), "'");
      lengths.push_back(h.shape[std::size_t(axis_)]);
      if (__builtin_add_overflow(shape_[std::size_t(axis_)], lengths.back(), &shape_[std::size_t(axis_)]))
        throw_io("the .npy stack ", dir_.string(), " is too long along axis ", axis_);
      headers_.push_back(std::move(h));
    }
    if (lengths.empty())
      throw_io("cannot read the .npy stack ", dir_.string(), ": it has neither info.json nor 0.npy");
    try {
      detail::checked_size(shape_, std::size_t(type_.size));
    } catch (const invalid_argument& e) {
      throw_io("cannot read the .npy stack ", dir_.string(), ": ", detail::npy::bare_message(e));
    }
  }

  detail::fs::path dir_;
  shape_t shape_;
  int axis_ = 0;
  dtype type_;
  std::vector<index_t> lengths_;           // per file, along the axis
  std::vector<std::size_t> file_of_block_;  // block index along the axis -> file number
  chunk_grid grid_;
  mutable std::vector<std::optional<detail::npy::header>> headers_;
  mutable std::unique_ptr<std::mutex[]> locks_;
  mutable std::atomic<index_t> files_read_{0};
};

/// A new stack of .npy files in directory `dir` as a writable store over a chunk grid: file k
/// holds the grid's k-th chunk along `axis` (C order, T's dtype). Each block of the grid lies in
/// one file; chunk tasks pwrite their blocks into temporary files beside the final names, and
/// commit() renames them into place and then writes info.json. Destroyed uncommitted, it
/// removes its temporary files (the files of an earlier stack there stay as they were).
template <class T>
class npy_stack_writer {
 public:
  using value_type = T;

  npy_stack_writer(const std::string& dir, chunk_grid g, int axis) : dir_(dir), grid_(std::move(g)), axis_(axis) {
    if (axis_ < 0 || axis_ >= grid_.rank())
      throw_invalid("axis ", axis, " is out of range for a .npy stack of shape ", grid_.shape());
    const auto& c = grid_.chunks()[std::size_t(axis_)];
    for (std::size_t k = 0; k < c.size(); ++k) {
      shape_t s = grid_.shape();
      s[std::size_t(axis_)] = c[k];
      files_.push_back(std::make_unique<detail::npy::pending_file>(
          dir_ / detail::npy::stack_file_name(k), dtype::of<T>(), s));
    }
  }

  const chunk_grid& write_grid() const { return grid_; }
  std::size_t file_count() const { return files_.size(); }

  void write_block(index_t b, const T* data) {
    std::size_t k;
    const box local = local_box(b, k);
    detail::npy::write_box(files_[k]->open(), files_[k]->head(), local, data);
  }
  void load_write_block(index_t b, T* out) const {
    std::size_t k;
    const box local = local_box(b, k);
    detail::npy::read_box(files_[k]->open(), files_[k]->head(), local, out);
  }

  /// Renames every file into place, then writes info.json (chunks along the axis, dtype, axis,
  /// shape).
  void commit() {
    for (auto& f : files_) f->commit();
    nlohmann::json info;
    info["axis"] = axis_;
    info["chunks"] = grid_.chunks()[std::size_t(axis_)];
    info["dtype"] = dtype::of<T>().numpy_str();
    info["shape"] = grid_.shape();
    detail::write_file_atomic(dir_ / "info.json", info.dump() + "\n");
  }

 private:
  box local_box(index_t b, std::size_t& k) const {
    box bx = grid_.block_box(b);
    k = std::size_t(grid_.block_index(b)[axis_]);
    const index_t off = grid_.offsets(axis_)[k];
    bx.lo[axis_] -= off;
    bx.hi[axis_] -= off;
    return bx;
  }

  detail::fs::path dir_;
  chunk_grid grid_;
  int axis_;
  std::vector<std::unique_ptr<detail::npy::pending_file>> files_;
};

}  // namespace tessera
