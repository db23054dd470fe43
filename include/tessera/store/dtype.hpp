// Element types of stored arrays (NumPy's dtypes as Zarr and .npy write them): kind, size and
// byte order, parsed from NumPy type strings ("<f8", "|b1", ">i4") and Zarr v3 names
// ("float64"), and conversion between stored bytes and a C++ element type. A stored type other
// than the requested one is converted as ts::cast converts (ops/functors.hpp): integer and
// float conversions as NumPy's astype for every value in range; float to integer truncates, NaN
// gives 0 and values out of range saturate (NumPy's result there is platform-dependent).
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "../core/errors.hpp"
#include "../ops/functors.hpp"

namespace tessera {

/// A stored element type: bool, int8-64, uint8-64, float32 or float64, little- or big-endian.
struct dtype {
  char kind = 'f';  // 'b' bool, 'i' signed, 'u' unsigned, 'f' floating
  int size = 8;     // bytes
  bool little = true;

  friend bool operator==(const dtype&, const dtype&) = default;

  /// The dtype of C++ element type T, in this machine's byte order.
  template <class T>
  static dtype of() {
    static_assert(std::is_arithmetic_v<T>, "stored elements are bool, integers or floats");
    dtype d;
    d.size = int(sizeof(T));
    d.little = std::endian::native == std::endian::little;
    if constexpr (std::is_same_v<T, bool>) d.kind = 'b';
    else if constexpr (std::is_floating_point_v<T>) {
      static_assert(sizeof(T) == 4 || sizeof(T) == 8, "stored floats are float32 or float64");
      d.kind = 'f';
    } else d.kind = std::is_signed_v<T> ? 'i' : 'u';
    return d;
  }

  /// Parses a NumPy type string: "<f8", ">i2", "|u1", "|b1", "=f4" (native order).
  static dtype from_numpy(const std::string& s) {
    auto bad = [&]() -> dtype {
      throw_io("unsupported dtype '", s, "' (supported: bool '|b1', int8-64 '<i1'..'<i8', ",
               "uint8-64 '<u1'..'<u8', float32 '<f4', float64 '<f8', either byte order)");
    };
    if (s.size() != 3) return bad();
    dtype d;
    switch (s[0]) {
      case '<': d.little = true; break;
      case '>': d.little = false; break;
      case '|':
      case '=': d.little = std::endian::native == std::endian::little; break;
      default: return bad();
    }
    d.kind = s[1];
    if (s[2] < '1' || s[2] > '8') return bad();
    d.size = s[2] - '0';
    if (!d.valid()) return bad();
    if (d.size > 1 && s[0] == '|') return bad();
    return d;
  }

  /// Parses a Zarr v3 data_type name ("float64", "int16", "bool", ...); byte order comes from
  /// the `bytes` codec.
  static dtype from_name(const std::string& s) {
    dtype d;
    d.little = true;
    if (s == "bool") {
      d.kind = 'b';
      d.size = 1;
      return d;
    }
    auto bits = [&](const char* prefix, char kind) {
      const std::size_t n = std::strlen(prefix);
      if (s.compare(0, n, prefix) != 0) return false;
      const std::string b = s.substr(n);
      if (b != "8" && b != "16" && b != "32" && b != "64") return false;
      d.kind = kind;
      d.size = std::stoi(b) / 8;
      return true;
    };
    if ((bits("uint", 'u') || bits("int", 'i') || bits("float", 'f')) && d.valid()) return d;
    throw_io("unsupported data_type '", s, "' (supported: bool, int8, int16, int32, int64, ",
             "uint8, uint16, uint32, uint64, float32, float64)");
  }

  bool valid() const {
    switch (kind) {
      case 'b': return size == 1;
      case 'i':
      case 'u': return size == 1 || size == 2 || size == 4 || size == 8;
      case 'f': return size == 4 || size == 8;
      default: return false;
    }
  }
  /// NumPy's type string, e.g. "<f8" ("|" for one-byte types).
  std::string numpy_str() const {
    std::string s(1, size == 1 ? '|' : (little ? '<' : '>'));
    s += kind;
    s += char('0' + size);
    return s;
  }
  /// NumPy's / Zarr v3's name, e.g. "float64".
  std::string name() const {
    if (kind == 'b') return "bool";
    const std::string bits = std::to_string(size * 8);
    return (kind == 'f' ? "float" : kind == 'i' ? "int" : "uint") + bits;
  }
  bool native_order() const { return size == 1 || little == (std::endian::native == std::endian::little); }

  /// Calls f(U{}) with the C++ type U of this dtype.
  template <class F>
  decltype(auto) visit(F&& f) const {
    switch (kind) {
      case 'b': return f(bool{});
      case 'i':
        switch (size) {
          case 1: return f(std::int8_t{});
          case 2: return f(std::int16_t{});
          case 4: return f(std::int32_t{});
          default: return f(std::int64_t{});
        }
      case 'u':
        switch (size) {
          case 1: return f(std::uint8_t{});
          case 2: return f(std::uint16_t{});
          case 4: return f(std::uint32_t{});
          default: return f(std::uint64_t{});
        }
      default: return size == 4 ? f(float{}) : f(double{});
    }
  }
};

namespace detail {

/// The unsigned integer of U's size: the bits of one element.
template <class U>
using bits_of = std::conditional_t<sizeof(U) == 1, std::uint8_t,
                std::conditional_t<sizeof(U) == 2, std::uint16_t,
                std::conditional_t<sizeof(U) == 4, std::uint32_t, std::uint64_t>>>;

template <class I>
I swap_bytes(I i) {
  if constexpr (sizeof(I) == 2) return __builtin_bswap16(i);
  else if constexpr (sizeof(I) == 4) return __builtin_bswap32(i);
  else if constexpr (sizeof(I) == 8) return __builtin_bswap64(i);
  else return i;
}

template <class U>
U load_swapped(const std::byte* p, bool swap) {
  if constexpr (std::is_same_v<U, bool>) {
    return std::to_integer<unsigned char>(*p) != 0;
  } else {
    bits_of<U> i;
    std::memcpy(&i, p, sizeof(i));
    if (swap) i = swap_bytes(i);
    U u;
    std::memcpy(&u, &i, sizeof(U));
    return u;
  }
}

template <class U>
void store_swapped(U u, std::byte* p, bool swap) {
  if constexpr (std::is_same_v<U, bool>) {
    *p = std::byte(u ? 1 : 0);
  } else {
    bits_of<U> i;
    std::memcpy(&i, &u, sizeof(i));
    if (swap) i = swap_bytes(i);
    std::memcpy(p, &i, sizeof(i));
  }
}

}  // namespace detail

/// Converts n stored elements of type `dt` at src into T (see the top of this file).
template <class T>
void decode_elements(const std::byte* src, const dtype& dt, std::int64_t n, T* out) {
  if (dt == dtype::of<T>() && !std::is_same_v<T, bool>) {
    std::memcpy(out, src, std::size_t(n) * sizeof(T));
    return;
  }
  const bool swap = !dt.native_order();
  dt.visit([&](auto u) {
    using U = decltype(u);
    const ops::cast_to<T> conv;
    for (std::int64_t i = 0; i < n; ++i)
      out[i] = conv(detail::load_swapped<U>(src + i * dt.size, swap));
  });
}

/// Converts n elements of T into stored elements of type `dt` at out.
template <class T>
void encode_elements(const T* src, std::int64_t n, const dtype& dt, std::byte* out) {
  if (dt == dtype::of<T>() && !std::is_same_v<T, bool>) {
    std::memcpy(out, src, std::size_t(n) * sizeof(T));
    return;
  }
  const bool swap = !dt.native_order();
  dt.visit([&](auto u) {
    using U = decltype(u);
    const ops::cast_to<U> conv;
    for (std::int64_t i = 0; i < n; ++i) detail::store_swapped<U>(conv(src[i]), out + i * dt.size, swap);
  });
}

}  // namespace tessera
