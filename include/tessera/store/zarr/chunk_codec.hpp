// One Zarr chunk between its stored bytes and its elements (C order, the full chunk shape):
// bytes -> bytes codecs in reverse, the element bytes (byte order, dtype conversion to T), and
// an optional transpose. Also the shard layout of sharding_indexed: inner chunks and an index
// of (offset, nbytes) pairs, at the start or the end of the shard.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../../core/grid.hpp"
#include "metadata.hpp"

namespace tessera::detail::zarr {

inline index_t shape_count(const shape_t& s) {
  index_t n = 1;
  for (auto x : s) n *= x;
  return n;
}

/// The box of chunk-grid position `coords` at full chunk size (it may extend past the array).
inline box full_chunk_box(const std::vector<index_t>& coords, const shape_t& chunk) {
  box b;
  b.lo.n = b.hi.n = int(chunk.size());
  for (std::size_t d = 0; d < chunk.size(); ++d) {
    b.lo[int(d)] = coords[d] * chunk[d];
    b.hi[int(d)] = b.lo[int(d)] + chunk[d];
  }
  return b;
}

/// Scratch elements (std::vector<bool> has no data()); contents are not kept on resize.
template <class T>
class element_buffer {
 public:
  element_buffer() = default;
  explicit element_buffer(index_t n) { resize(n); }
  element_buffer(index_t n, T v) {
    resize(n);
    std::fill(p_.get(), p_.get() + n, v);
  }
  void resize(index_t n) {
    if (n > cap_) {
      p_.reset(new T[std::size_t(n)]);
      cap_ = n;
    }
  }
  T* data() { return p_.get(); }
  const T* data() const { return p_.get(); }

 private:
  std::unique_ptr<T[]> p_;
  index_t cap_ = 0;
};

inline bool same_box(const box& a, const box& b) { return contains(a, b) && contains(b, a); }

/// Copies between a chunk in C order (`decoded`) and its transposed layout (`encoded`, the C
/// order of the array whose axis i is the chunk's axis order[i]).
template <class T>
void transpose_copy(const T* src, T* dst, const shape_t& chunk, const std::vector<int>& order,
                    bool to_encoded) {
  const int r = int(chunk.size());
  std::vector<index_t> es(std::size_t(r), 1), se(std::size_t(r), 0);  // encoded strides
  for (int i = r - 2; i >= 0; --i) es[std::size_t(i)] = es[std::size_t(i) + 1] * chunk[std::size_t(order[std::size_t(i) + 1])];
  for (int i = 0; i < r; ++i) se[std::size_t(order[std::size_t(i)])] = es[std::size_t(i)];
  const index_t n = shape_count(chunk);
  if (n == 0) return;
  std::vector<index_t> d(std::size_t(r), 0);
  index_t oe = 0;
  for (index_t od = 0; od < n; ++od) {
    if (to_encoded) dst[oe] = src[od];
    else dst[od] = src[oe];
    for (int a = r - 1; a >= 0; --a) {  // next decoded index (C order)
      oe += se[std::size_t(a)];
      if (++d[std::size_t(a)] < chunk[std::size_t(a)]) break;
      oe -= se[std::size_t(a)] * chunk[std::size_t(a)];
      d[std::size_t(a)] = 0;
    }
  }
}

inline bool is_identity(const std::vector<int>& order) {
  for (std::size_t i = 0; i < order.size(); ++i)
    if (order[i] != int(i)) return false;
  return true;
}

/// Whether a chunk's stored elements are T's own bytes (no conversion, no transpose).
template <class T>
bool stored_as_is(const chunk_codecs& cc, dtype type) {
  type.little = cc.little;
  return !std::is_same_v<T, bool> && type == dtype::of<T>() && (cc.order.empty() || is_identity(cc.order));
}

/// Decodes the stored bytes of one chunk of shape `chunk` into `out` (C order, T elements).
template <class T>
void decode_chunk(bytes raw, const chunk_codecs& cc, dtype type, const shape_t& chunk, T* out,
                  const std::string& where) {
  const index_t n = shape_count(chunk);
  const std::size_t nbytes = std::size_t(n) * std::size_t(type.size);
  if (!cc.bytes_codecs.empty() && stored_as_is<T>(cc, type)) {  // the last codec writes `out`
    for (std::size_t k = cc.bytes_codecs.size(); k-- > 1;)
      raw = decode(cc.bytes_codecs[k], std::move(raw), 2 * nbytes + 65536, where);
    decode_into(cc.bytes_codecs[0], raw, reinterpret_cast<std::byte*>(out), nbytes, where);
    return;
  }
  for (std::size_t k = cc.bytes_codecs.size(); k-- > 0;)
    raw = decode(cc.bytes_codecs[k], std::move(raw), k == 0 ? nbytes : 2 * nbytes + 65536, where);
  if (raw.size() != nbytes)
    throw_io(where, ": decodes to ", raw.size(), " bytes, but a chunk of shape ", chunk, " and dtype ",
             type.name(), " has ", nbytes, " (corrupt or written with other metadata)");
  type.little = cc.little;
  if (cc.order.empty() || is_identity(cc.order)) {
    decode_elements(raw.data(), type, n, out);
  } else {
    element_buffer<T> tmp(n);
    decode_elements(raw.data(), type, n, tmp.data());
    transpose_copy(tmp.data(), out, chunk, cc.order, false);
  }
}

/// Encodes one chunk of shape `chunk` (C order at `in`) into its stored bytes.
template <class T>
bytes encode_chunk(const T* in, const chunk_codecs& cc, dtype type, const shape_t& chunk) {
  const index_t n = shape_count(chunk);
  if (!cc.bytes_codecs.empty() && stored_as_is<T>(cc, type)) {  // the first codec reads `in`
    bytes raw = encode(cc.bytes_codecs[0], reinterpret_cast<const std::byte*>(in), std::size_t(n) * sizeof(T));
    for (std::size_t k = 1; k < cc.bytes_codecs.size(); ++k) raw = encode(cc.bytes_codecs[k], raw);
    return raw;
  }
  bytes raw(std::size_t(n) * std::size_t(type.size));
  type.little = cc.little;
  if (cc.order.empty() || is_identity(cc.order)) {
    encode_elements(in, n, type, raw.data());
  } else {
    element_buffer<T> tmp(n);
    transpose_copy(in, tmp.data(), chunk, cc.order, true);
    encode_elements(tmp.data(), n, type, raw.data());
  }
  for (auto& c : cc.bytes_codecs) raw = encode(c, raw);
  return raw;
}

// --- shards ---------------------------------------------------------------------------------

inline constexpr std::uint64_t missing_inner = ~std::uint64_t(0);

/// Inner chunks per shard along each axis.
inline shape_t inner_per_shard(const metadata& m) {
  shape_t per(m.chunk_shape.size());
  for (std::size_t d = 0; d < per.size(); ++d) per[d] = m.chunk_shape[d] / m.shard->inner[d];
  return per;
}

/// Bytes of the encoded shard index.
inline std::size_t index_bytes(const sharding& s, index_t inner_count) {
  std::size_t n = std::size_t(inner_count) * 16;
  for (auto& c : s.index_codecs)
    if (c.what == byte_codec::kind::crc32c) n += 4;
  return n;
}

/// Decodes a shard index: (offset, nbytes) per inner chunk, C order over inner_per_shard.
inline std::vector<std::uint64_t> decode_index(bytes raw, const sharding& s, index_t inner_count,
                                               const std::string& where) {
  for (std::size_t k = s.index_codecs.size(); k-- > 0;)
    raw = decode(s.index_codecs[k], std::move(raw), raw.size(), where + " (shard index)");
  if (raw.size() != std::size_t(inner_count) * 16)
    throw_io(where, ": the shard index has ", raw.size(), " bytes, expected ", inner_count * 16);
  std::vector<std::uint64_t> idx(std::size_t(inner_count) * 2);
  dtype u64 = dtype::from_name("uint64");
  u64.little = s.index_little;
  decode_elements(raw.data(), u64, index_t(idx.size()), idx.data());
  return idx;
}

inline bytes encode_index(const std::vector<std::uint64_t>& idx, const sharding& s) {
  bytes raw(idx.size() * 8);
  dtype u64 = dtype::from_name("uint64");
  u64.little = s.index_little;
  encode_elements(idx.data(), index_t(idx.size()), u64, raw.data());
  for (auto& c : s.index_codecs) raw = encode(c, raw);
  return raw;
}

}  // namespace tessera::detail::zarr
