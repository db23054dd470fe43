// Byte codecs of the on-disk formats, each a thin layer over a packaged library: Blosc
// (c-blosc: lz4, lz4hc, blosclz, zstd, zlib inside; no/byte/bit shuffle), Zstandard (libzstd),
// zlib and gzip (zlib), CRC32C (ISA-L's crc32_iscsi). Encoding and decoding of one buffer;
// decoding checks sizes and headers, so a truncated or corrupt input is an io_error naming
// `where` (the chunk key and file), never a crash or a silent wrong value.
#pragma once
#include <blosc.h>
#include <isa-l/crc.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "../core/errors.hpp"
#include "file.hpp"

namespace tessera::detail {

/// CRC32C (Castagnoli) of n bytes, as Zarr v3's crc32c codec and iSCSI define it.
inline std::uint32_t crc32c(const std::byte* p, std::size_t n) {
  std::uint32_t state = 0xFFFFFFFFu;  // ISA-L's crc32_iscsi keeps the non-inverted state
  while (n > 0) {
    const std::size_t k = std::min<std::size_t>(n, std::size_t(1) << 30);
    state = crc32_iscsi(reinterpret_cast<unsigned char*>(const_cast<std::byte*>(p)), int(k), state);
    p += k;
    n -= k;
  }
  return ~state;
}

/// One bytes-to-bytes codec with its settings.
struct byte_codec {
  enum class kind { blosc, zstd, zlib, gzip, crc32c };
  kind what = kind::zstd;
  int level = 0;               // zstd, zlib, gzip, blosc clevel
  std::string cname = "lz4";   // blosc: lz4, lz4hc, blosclz, zstd, zlib
  int shuffle = 1;             // blosc: 0 none, 1 byte, 2 bit, -1 automatic (writing only)
  int typesize = 1;            // blosc
  std::int64_t blocksize = 0;  // blosc (0: automatic)
  bool checksum = false;       // zstd content checksum

  std::string name() const {
    switch (what) {
      case kind::blosc: return "blosc";
      case kind::zstd: return "zstd";
      case kind::zlib: return "zlib";
      case kind::gzip: return "gzip";
      default: return "crc32c";
    }
  }
};

namespace codec_impl {

inline bytes blosc_encode(const byte_codec& c, const std::byte* in, std::size_t in_size) {
  if (in_size > std::size_t(BLOSC_MAX_BUFFERSIZE))
    throw_io("blosc cannot compress a chunk of ", in_size, " bytes (at most ",
             BLOSC_MAX_BUFFERSIZE, "); use smaller chunks or another codec");
  const char* names[] = {"lz4", "lz4hc", "blosclz", "zstd", "zlib", "snappy"};
  if (std::find(std::begin(names), std::end(names), c.cname) == std::end(names))
    throw_io("unknown blosc compressor '", c.cname, "' (lz4, lz4hc, blosclz, zstd, zlib)");
  int shuffle = c.shuffle;
  if (shuffle == -1) shuffle = c.typesize > 1 ? BLOSC_SHUFFLE : BLOSC_BITSHUFFLE;
  bytes out(in_size + BLOSC_MAX_OVERHEAD);
  const int n = blosc_compress_ctx(c.level, shuffle, std::size_t(std::max(c.typesize, 1)), in_size,
                                   in, out.data(), out.size(), c.cname.c_str(),
                                   std::size_t(c.blocksize), 1);
  if (n <= 0)
    throw_io("blosc compression with '", c.cname, "' failed (code ", n,
             "; is this compressor built into the installed c-blosc?)");
  out.resize(std::size_t(n));
  return out;
}

inline bytes blosc_decode(const bytes& in, std::size_t cap, const std::string& where) {
  std::size_t nbytes = 0;
  if (in.size() < BLOSC_MIN_HEADER_LENGTH || blosc_cbuffer_validate(in.data(), in.size(), &nbytes) != 0)
    throw_io(where, ": not a valid blosc buffer (", in.size(), " bytes; truncated or corrupt)");
  if (nbytes > cap) throw_io(where, ": blosc header claims ", nbytes, " bytes, more than the ", cap, " expected");
  bytes out(nbytes);
  if (nbytes == 0) return out;
  const int n = blosc_decompress_ctx(in.data(), out.data(), out.size(), 1);
  if (n < 0 || std::size_t(n) != nbytes)
    throw_io(where, ": blosc decompression failed (code ", n, "; corrupt data)");
  return out;
}

inline bytes zstd_encode(const byte_codec& c, const std::byte* in, std::size_t in_size) {
  ZSTD_CCtx* cx = ZSTD_createCCtx();
  if (!cx) throw_io("zstd: out of memory");
  bytes out(ZSTD_compressBound(in_size));
  ZSTD_CCtx_setParameter(cx, ZSTD_c_compressionLevel, c.level);
  ZSTD_CCtx_setParameter(cx, ZSTD_c_checksumFlag, c.checksum ? 1 : 0);
  const std::size_t n = ZSTD_compress2(cx, out.data(), out.size(), in, in_size);
  ZSTD_freeCCtx(cx);
  if (ZSTD_isError(n)) throw_io("zstd compression failed: ", ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

inline bytes zstd_decode(const bytes& in, std::size_t cap, const std::string& where) {
  ZSTD_DCtx* dx = ZSTD_createDCtx();
  if (!dx) throw_io("zstd: out of memory");
  bytes out;
  ZSTD_inBuffer ib{in.data(), in.size(), 0};
  std::size_t ret = 1;
  const unsigned long long known = ZSTD_getFrameContentSize(in.data(), in.size());
  out.resize(known != ZSTD_CONTENTSIZE_UNKNOWN && known != ZSTD_CONTENTSIZE_ERROR && known <= cap
                 ? std::size_t(known)
                 : std::min<std::size_t>(cap, std::size_t(1) << 20));
  std::size_t pos = 0;
  while (true) {
    if (pos == out.size()) {
      if (out.size() >= cap) break;
      out.resize(std::min(cap, std::max<std::size_t>(out.size() * 2, 4096)));
    }
    ZSTD_outBuffer ob{out.data(), out.size(), pos};
    ret = ZSTD_decompressStream(dx, &ob, &ib);
    pos = ob.pos;
    if (ZSTD_isError(ret)) break;
    if (ret == 0 && ib.pos == ib.size) break;
    if (ib.pos == ib.size && ob.pos < ob.size) break;  // input ended inside a frame
  }
  ZSTD_freeDCtx(dx);
  if (ZSTD_isError(ret)) throw_io(where, ": zstd decompression failed: ", ZSTD_getErrorName(ret));
  if (ret != 0 || ib.pos != ib.size)
    throw_io(where, ": zstd data is truncated or longer than the ", cap, " bytes expected");
  out.resize(pos);
  return out;
}

inline bytes deflate_encode(const byte_codec& c, const std::byte* in, std::size_t in_size, bool gzip) {
  if (in_size > UINT_MAX) throw_io(c.name(), " cannot compress a chunk of ", in_size, " bytes");
  z_stream z{};
  if (deflateInit2(&z, c.level, Z_DEFLATED, gzip ? 31 : 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw_io(c.name(), ": bad level ", c.level, " (0 to 9)");
  bytes out(deflateBound(&z, uLong(in_size)) + 32);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in));
  z.avail_in = uInt(in_size);
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  const int r = deflate(&z, Z_FINISH);
  const std::size_t n = z.total_out;
  deflateEnd(&z);
  if (r != Z_STREAM_END) throw_io(c.name(), " compression failed (zlib code ", r, ")");
  out.resize(n);
  return out;
}

inline bytes inflate_decode(const bytes& in, std::size_t cap, const std::string& where,
                            const char* name) {
  if (in.size() > UINT_MAX) throw_io(where, ": ", name, " input of ", in.size(), " bytes is too large");
  z_stream z{};
  if (inflateInit2(&z, 15 + 32) != Z_OK) throw_io(where, ": zlib could not start");  // zlib or gzip
  bytes out(std::min<std::size_t>(cap, std::max<std::size_t>(in.size() * 4, 4096)));
  z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
  z.avail_in = uInt(in.size());
  int r = Z_OK;
  while (true) {
    if (z.total_out == out.size()) {
      if (out.size() >= cap) break;
      out.resize(std::min(cap, out.size() * 2));
    }
    z.next_out = reinterpret_cast<Bytef*>(out.data()) + z.total_out;
    z.avail_out = uInt(std::min<std::size_t>(out.size() - z.total_out, UINT_MAX));
    r = inflate(&z, Z_NO_FLUSH);
    if (r == Z_STREAM_END) break;
    if (r != Z_OK) break;
    if (z.avail_in == 0 && z.avail_out > 0) {
      r = Z_BUF_ERROR;
      break;
    }
  }
  const std::size_t n = z.total_out;
  const char* msg = z.msg;
  inflateEnd(&z);
  if (r != Z_STREAM_END)
    throw_io(where, ": ", name, " data is truncated, corrupt or longer than the ", cap,
             " bytes expected", msg ? std::string(" (") + msg + ")" : std::string());
  out.resize(n);
  return out;
}

}  // namespace codec_impl

/// Encodes the n bytes at `in` with codec c.
inline bytes encode(const byte_codec& c, const std::byte* in, std::size_t n) {
  switch (c.what) {
    case byte_codec::kind::blosc: return codec_impl::blosc_encode(c, in, n);
    case byte_codec::kind::zstd: return codec_impl::zstd_encode(c, in, n);
    case byte_codec::kind::zlib: return codec_impl::deflate_encode(c, in, n, false);
    case byte_codec::kind::gzip: return codec_impl::deflate_encode(c, in, n, true);
    default: {
      if (n > std::numeric_limits<std::size_t>::max() - 4)  // n + 4 would wrap
        throw std::length_error("tessera: cannot encode " + std::to_string(n) + " bytes (too large)");
      bytes out(n + 4);
      std::memcpy(out.data(), in, n);
      const std::uint32_t v = crc32c(in, n);
      for (std::size_t k = 0; k < 4; ++k) out[n + k] = std::byte((v >> (8 * k)) & 0xFF);  // little-endian
      return out;
    }
  }
}
inline bytes encode(const byte_codec& c, const bytes& in) { return encode(c, in.data(), in.size()); }

/// Decodes `in` with codec c; the result has at most `cap` bytes (else the input is corrupt).
inline bytes decode(const byte_codec& c, bytes in, std::size_t cap, const std::string& where) {
  switch (c.what) {
    case byte_codec::kind::blosc: return codec_impl::blosc_decode(in, cap, where);
    case byte_codec::kind::zstd: return codec_impl::zstd_decode(in, cap, where);
    case byte_codec::kind::zlib: return codec_impl::inflate_decode(in, cap, where, "zlib");
    case byte_codec::kind::gzip: return codec_impl::inflate_decode(in, cap, where, "gzip");
    case byte_codec::kind::crc32c: {
      if (in.size() < 4) throw_io(where, ": too short for its crc32c checksum (", in.size(), " bytes)");
      const std::size_t n = in.size() - 4;
      std::uint32_t stored = 0;
      for (int k = 0; k < 4; ++k) stored |= std::uint32_t(std::to_integer<unsigned>(in[n + std::size_t(k)])) << (8 * k);
      if (crc32c(in.data(), n) != stored) throw_io(where, ": crc32c checksum mismatch (corrupt data)");
      in.resize(n);
      return in;
    }
  }
  return in;
}

/// Decodes `in` with codec c into exactly n bytes at `out` (a chunk's elements), without an
/// intermediate buffer where the library allows.
inline void decode_into(const byte_codec& c, const bytes& in, std::byte* out, std::size_t n,
                        const std::string& where) {
  auto wrong_size = [&](std::size_t got) {
    throw_io(where, ": ", c.name(), " data decodes to ", got, " bytes, expected ", n,
             " (corrupt or written with other metadata)");
  };
  if (c.what == byte_codec::kind::blosc) {
    std::size_t nbytes = 0;
    if (in.size() < BLOSC_MIN_HEADER_LENGTH || blosc_cbuffer_validate(in.data(), in.size(), &nbytes) != 0)
      throw_io(where, ": not a valid blosc buffer (", in.size(), " bytes; truncated or corrupt)");
    if (nbytes != n) wrong_size(nbytes);
    if (n > 0 && blosc_decompress_ctx(in.data(), out, n, 1) != int(n))
      throw_io(where, ": blosc decompression failed (corrupt data)");
    return;
  }
  if (c.what == byte_codec::kind::zstd) {
    const unsigned long long known = ZSTD_getFrameContentSize(in.data(), in.size());
    if (known == n) {  // (several frames, or no size in the header: the streaming path below)
      const std::size_t r = ZSTD_decompress(out, n, in.data(), in.size());
      if (ZSTD_isError(r)) throw_io(where, ": zstd decompression failed: ", ZSTD_getErrorName(r));
      if (r != n) wrong_size(r);
      return;
    }
  }
  const bytes d = decode(c, in, n, where);
  if (d.size() != n) wrong_size(d.size());
  std::memcpy(out, d.data(), n);
}

}  // namespace tessera::detail
