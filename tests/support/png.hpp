// A small PNG reader for tests that render pictures with real tools (rsvg-convert, Graphviz's
// dot) and look at the pixels: 8-bit grey, grey+alpha, RGB or RGBA, not interlaced (what those
// tools write); zlib inflates the image data. Throws std::runtime_error naming what it cannot
// read.
#pragma once
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "files.hpp"

namespace testing {

struct png_image {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgba;  // row-major, 4 bytes per pixel

  const std::uint8_t* at(int x, int y) const {
    return rgba.data() + (std::size_t(y) * std::size_t(width) + std::size_t(x)) * 4;
  }
  /// Channel c (0 red, 1 green, 2 blue) of pixel (x, y) composited over white.
  double channel(int x, int y, int c) const {
    const std::uint8_t* p = at(x, y);
    const double a = p[3] / 255.0;
    return a * p[c] + (1 - a) * 255;
  }
  /// Luminance 0 (black) .. 255 (white) of pixel (x, y) composited over white.
  double luminance(int x, int y) const {
    return 0.299 * channel(x, y, 0) + 0.587 * channel(x, y, 1) + 0.114 * channel(x, y, 2);
  }
};

inline png_image decode_png(const std::string& file, const std::string& what = "PNG") {
  auto fail = [&](const std::string& why) -> png_image {
    throw std::runtime_error(what + ": " + why);
  };
  static const char magic[] = "\x89PNG\r\n\x1a\n";
  if (file.size() < 8 || file.compare(0, 8, magic, 8) != 0) return fail("not a PNG file");
  auto u32 = [&](std::size_t o) {
    return std::uint32_t(std::uint8_t(file[o])) << 24 |
           std::uint32_t(std::uint8_t(file[o + 1])) << 16 |
           std::uint32_t(std::uint8_t(file[o + 2])) << 8 | std::uint32_t(std::uint8_t(file[o + 3]));
  };
  png_image img;
  int channels = 0;
  std::string idat;
  bool ended = false;
  for (std::size_t o = 8; o + 12 <= file.size() && !ended;) {
    const std::uint32_t len = u32(o);
    const std::string type = file.substr(o + 4, 4);
    if (o + 12 + len > file.size()) return fail("chunk " + type + " is truncated");
    const std::size_t d = o + 8;
    if (type == "IHDR") {
      img.width = int(u32(d));
      img.height = int(u32(d + 4));
      const int depth = std::uint8_t(file[d + 8]), color = std::uint8_t(file[d + 9]);
      const int interlace = std::uint8_t(file[d + 12]);
      if (depth != 8 || interlace != 0)
        return fail("bit depth " + std::to_string(depth) + ", interlace " +
                    std::to_string(interlace) + " is not supported (8-bit, not interlaced)");
      channels = color == 0 ? 1 : color == 4 ? 2 : color == 2 ? 3 : color == 6 ? 4 : 0;
      if (!channels) return fail("colour type " + std::to_string(color) + " is not supported");
    } else if (type == "IDAT") {
      idat.append(file, d, len);
    } else if (type == "IEND") {
      ended = true;
    }
    o += 12 + len;
  }
  if (!channels || img.width <= 0 || img.height <= 0) return fail("no image header");
  if (!ended) return fail("no IEND chunk");
  const std::size_t stride = std::size_t(img.width) * std::size_t(channels);
  std::vector<std::uint8_t> raw((stride + 1) * std::size_t(img.height));
  uLongf n = uLongf(raw.size());
  if (::uncompress(raw.data(), &n, reinterpret_cast<const Bytef*>(idat.data()),
                   uLong(idat.size())) != Z_OK ||
      n != raw.size())
    return fail("cannot inflate the image data");
  // Undo the per-row filters (PNG spec, section 9) in place.
  std::vector<std::uint8_t> px(stride * std::size_t(img.height));
  for (int y = 0; y < img.height; ++y) {
    const std::uint8_t filter = raw[std::size_t(y) * (stride + 1)];
    const std::uint8_t* in = &raw[std::size_t(y) * (stride + 1) + 1];
    std::uint8_t* out = &px[std::size_t(y) * stride];
    const std::uint8_t* up = y ? out - stride : nullptr;
    for (std::size_t i = 0; i < stride; ++i) {
      const int a = i >= std::size_t(channels) ? out[i - std::size_t(channels)] : 0;
      const int b = up ? up[i] : 0;
      const int c = up && i >= std::size_t(channels) ? up[i - std::size_t(channels)] : 0;
      int pred = 0;
      switch (filter) {
        case 0:
          pred = 0;
          break;
        case 1:
          pred = a;
          break;
        case 2:
          pred = b;
          break;
        case 3:
          pred = (a + b) / 2;
          break;
        case 4: {
          const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default:
          return fail("row " + std::to_string(y) + " has filter " + std::to_string(filter));
      }
      out[i] = std::uint8_t(in[i] + pred);
    }
  }
  img.rgba.resize(std::size_t(img.width) * std::size_t(img.height) * 4);
  for (std::size_t k = 0; k < std::size_t(img.width) * std::size_t(img.height); ++k) {
    const std::uint8_t* s = &px[k * std::size_t(channels)];
    std::uint8_t* t = &img.rgba[k * 4];
    const bool grey = channels <= 2, alpha = channels == 2 || channels == 4;
    t[0] = s[0];
    t[1] = grey ? s[0] : s[1];
    t[2] = grey ? s[0] : s[2];
    t[3] = alpha ? s[channels - 1] : 255;
  }
  return img;
}

inline png_image read_png(const std::string& path) { return decode_png(slurp(path), path); }

}  // namespace testing
