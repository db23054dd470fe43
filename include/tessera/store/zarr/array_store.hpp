// zarr_store<T>: a Zarr array on the local file system as a chunk store (store/chunk_store.hpp)
// and a writable store (exec/store.hpp). Its read grid is the array's chunks (a shard's inner
// chunks when sharded): read_block reads and decodes one chunk file (or one inner chunk, with
// two ranged reads of its shard: the index and the chunk) inside the chunk task that binds it,
// converting the stored dtype to T. Its write grid is the chunk grid (the shards): write_block
// encodes one chunk or shard, pads edge chunks with the fill value as Zarr stores them, and
// replaces the file atomically.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "../chunk_store.hpp"
#include "../copy.hpp"
#include "chunk_codec.hpp"
#include "metadata.hpp"

namespace tessera {

template <class T>
class zarr_store {
 public:
  using value_type = T;

  explicit zarr_store(detail::zarr::metadata m) : md_(std::move(m)) {
    grid_ = make_grid(md_.read_shape());
    write_grid_ = md_.shard ? make_grid(md_.chunk_shape) : grid_;
    dtype native = md_.type;
    native.little = std::endian::native == std::endian::little;
    decode_elements(md_.fill.data(), native, 1, &fill_);
  }
  /// Opens the Zarr array at `path` (format 2 or 3).
  explicit zarr_store(const std::string& path) : zarr_store(detail::zarr::read_metadata(path)) {}

  const chunk_grid& grid() const { return grid_; }
  const chunk_grid& write_grid() const { return write_grid_; }
  memory_space block_space(index_t) const { return memory_space::elsewhere(0); }
  const T* block_pointer(index_t) const { return nullptr; }
  const detail::zarr::metadata& metadata() const { return md_; }
  /// The fill value, as T.
  T fill_value() const { return fill_; }

  /// Chunks (inner chunks when sharded) read so far, present or missing, and the bytes read
  /// from files for them: what a view's pushdown saves shows here.
  index_t chunks_read() const { return chunks_read_.load(); }
  std::int64_t bytes_read() const { return bytes_read_.load(); }

  /// Block b of grid(), row-major, into out: decoded, or the fill value where no chunk exists.
  void read_block(index_t b, T* out) const {
    chunks_read_.fetch_add(1);
    const box blk = grid_.block_box(b);
    const std::vector<index_t> coords = block_coords(grid_, b);
    const shape_t& cs = md_.read_shape();
    const box full = detail::zarr::full_chunk_box(coords, cs);
    std::optional<detail::bytes> raw;
    std::string where;
    const detail::zarr::chunk_codecs* cc = &md_.codecs;
    if (md_.shard) {
      cc = &md_.shard->inner_codecs;
      raw = read_inner(coords, where);
    } else {
      const std::string key = md_.key(coords);
      where = "chunk '" + key + "' of " + md_.path.string();
      raw = detail::read_file_if_exists(md_.path / key);
      if (raw) bytes_read_.fetch_add(std::int64_t(raw->size()));
    }
    if (!raw) {
      std::fill(out, out + blk.count(), fill_);
      return;
    }
    if (detail::zarr::same_box(full, blk)) {
      detail::zarr::decode_chunk(std::move(*raw), *cc, md_.type, cs, out, where);
    } else {
      detail::zarr::element_buffer<T> tmp(full.count());
      detail::zarr::decode_chunk(std::move(*raw), *cc, md_.type, cs, tmp.data(), where);
      detail::copy_box_overlap(static_cast<const T*>(tmp.data()), full, out, blk);
    }
  }

  /// Replaces write block b (a chunk, or a shard) with `data` (row-major over its box).
  void write_block(index_t b, const T* data) {
    const box blk = write_grid_.block_box(b);
    const std::vector<index_t> coords = block_coords(write_grid_, b);
    const box full = detail::zarr::full_chunk_box(coords, md_.chunk_shape);
    detail::zarr::element_buffer<T> padded;
    const T* chunk = data;
    if (!detail::zarr::same_box(full, blk)) {  // an edge chunk: stored at full size, padded with the fill value
      padded = detail::zarr::element_buffer<T>(full.count(), fill_);
      detail::copy_box_overlap(data, blk, padded.data(), full);
      chunk = padded.data();
    }
    detail::bytes encoded = md_.shard ? encode_shard(chunk, full)
                                      : detail::zarr::encode_chunk(chunk, md_.codecs, md_.type, md_.chunk_shape);
    detail::write_file_atomic(md_.path / md_.key(coords), encoded);
  }

  /// The current values of write block b (for writes that cover it partly).
  void load_write_block(index_t b, T* out) const {
    const box blk = write_grid_.block_box(b);
    if (!md_.shard) return read_block(b, out);
    detail::zarr::element_buffer<T> tmp;
    grid_.for_each_block_in(blk, [&](index_t f) {
      const box fb = grid_.block_box(f);
      tmp.resize(fb.count());
      read_block(f, tmp.data());
      detail::copy_box_overlap(static_cast<const T*>(tmp.data()), fb, out, blk);
    });
  }

 private:
  chunk_grid make_grid(const shape_t& c) const {
    chunks_t ch;
    for (std::size_t d = 0; d < md_.shape.size(); ++d) ch.push_back(detail::regular(md_.shape[d], c[d]));
    return chunk_grid(md_.shape, std::move(ch));
  }
  static std::vector<index_t> block_coords(const chunk_grid& g, index_t b) {
    const ivec bi = g.block_index(b);
    return std::vector<index_t>(bi.v, bi.v + bi.n);
  }

  /// The stored bytes of the inner chunk at `coords` (nothing when it or its shard is missing).
  std::optional<detail::bytes> read_inner(const std::vector<index_t>& coords, std::string& where) const {
    namespace z = detail::zarr;
    const shape_t per = z::inner_per_shard(md_);
    std::vector<index_t> shard(coords.size());
    index_t local = 0;
    for (std::size_t d = 0; d < coords.size(); ++d) {
      shard[d] = coords[d] / per[d];
      local = local * per[d] + coords[d] % per[d];
    }
    const std::string key = md_.key(shard);
    where = "shard '" + key + "' of " + md_.path.string();
    const detail::fs::path file = md_.path / key;
    const index_t inner_count = z::shape_count(per);
    const std::size_t ib = z::index_bytes(*md_.shard, inner_count);
    std::optional<detail::bytes> whole;  // the decoded shard, when codecs follow sharding
    std::optional<detail::file_handle> fh;
    std::int64_t size = 0;
    if (!md_.codecs.bytes_codecs.empty()) {
      whole = detail::read_file_if_exists(file);
      if (!whole) return std::nullopt;
      bytes_read_.fetch_add(std::int64_t(whole->size()));
      for (std::size_t k = md_.codecs.bytes_codecs.size(); k-- > 0;)
        *whole = detail::decode(md_.codecs.bytes_codecs[k], std::move(*whole), std::size_t(1) << 36, where);
      size = std::int64_t(whole->size());
    } else {
      std::error_code ec;
      if (!detail::fs::exists(file, ec)) return std::nullopt;
      fh.emplace(file, O_RDONLY);
      size = fh->size();
    }
    auto read = [&](std::int64_t off, std::size_t n) {
      detail::bytes out(n);
      if (whole) std::memcpy(out.data(), whole->data() + off, n);
      else {
        fh->read_at(off, n, out.data());
        bytes_read_.fetch_add(std::int64_t(n));
      }
      return out;
    };
    if (size < std::int64_t(ib))
      throw_io(where, " is truncated: ", size, " bytes, smaller than its index (", ib, " bytes)");
    const std::int64_t index_at = md_.shard->index_at_end ? size - std::int64_t(ib) : 0;
    const auto idx = z::decode_index(read(index_at, ib), *md_.shard, inner_count, where);
    const std::uint64_t off = idx[std::size_t(2 * local)], n = idx[std::size_t(2 * local + 1)];
    if (off == z::missing_inner && n == z::missing_inner) return std::nullopt;
    if (off > std::uint64_t(size) || n > std::uint64_t(size) - off)
      throw_io(where, ": its index points past the end of the shard (inner chunk ", local,
               " at offset ", off, ", ", n, " bytes; the shard has ", size, ")");
    where = "inner chunk " + std::to_string(local) + " of " + where;
    return read(std::int64_t(off), std::size_t(n));
  }

  /// Encodes a full shard (C order at `data`, box `full`): inner chunks that hold no element of
  /// the array are left out (missing in the index).
  detail::bytes encode_shard(const T* data, const box& full) const {
    namespace z = detail::zarr;
    const z::sharding& s = *md_.shard;
    const shape_t per = z::inner_per_shard(md_);
    const index_t inner_count = z::shape_count(per);
    const std::size_t ib = z::index_bytes(s, inner_count);
    std::vector<std::uint64_t> idx(std::size_t(2 * inner_count), z::missing_inner);
    detail::bytes body;
    const std::uint64_t base = s.index_at_end ? 0 : ib;
    z::element_buffer<T> inner(z::shape_count(s.inner));
    for (index_t k = 0; k < inner_count; ++k) {
      std::vector<index_t> c(per.size());
      index_t rest = k;
      for (std::size_t d = per.size(); d-- > 0;) {
        c[d] = full.lo[int(d)] / s.inner[d] + rest % per[d];
        rest /= per[d];
      }
      const box ibox = z::full_chunk_box(c, s.inner);
      bool inside = true;
      for (int d = 0; d < ibox.rank(); ++d) inside = inside && ibox.lo[d] < md_.shape[std::size_t(d)];
      if (!inside) continue;
      detail::copy_box_overlap(data, full, inner.data(), ibox);
      const detail::bytes e = z::encode_chunk(inner.data(), s.inner_codecs, md_.type, s.inner);
      idx[std::size_t(2 * k)] = base + body.size();
      idx[std::size_t(2 * k + 1)] = e.size();
      body.insert(body.end(), e.begin(), e.end());
    }
    const detail::bytes index = z::encode_index(idx, s);
    detail::bytes out;
    out.reserve(body.size() + index.size());
    if (!s.index_at_end) out.insert(out.end(), index.begin(), index.end());
    out.insert(out.end(), body.begin(), body.end());
    if (s.index_at_end) out.insert(out.end(), index.begin(), index.end());
    for (auto& c : md_.codecs.bytes_codecs) out = detail::encode(c, out);
    return out;
  }

  detail::zarr::metadata md_;
  chunk_grid grid_, write_grid_;
  T fill_{};
  mutable std::atomic<index_t> chunks_read_{0};
  mutable std::atomic<std::int64_t> bytes_read_{0};
};

}  // namespace tessera
