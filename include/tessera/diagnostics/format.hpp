// fmt and std::format formatters for every Tessera array and expression: "{}" formats
// ts::describe(x), "{:s}" ts::repr(x) (diagnostics/describe.hpp). The fmt one is defined where
// <fmt/format.h> is found (Debian: libfmt-dev; the caller links fmt as usual), the std one where
// the standard library has <format> (GCC 13 and later).
#pragma once
#include <algorithm>
#include <string>

#include "describe.hpp"

#if __has_include(<fmt/format.h>) && !defined(TESSERA_NO_FMT)
#include <fmt/format.h>
template <class X>
  requires tessera::expression_type<X>
struct fmt::formatter<X> {
  bool short_form = false;
  constexpr auto parse(fmt::format_parse_context& ctx) {
    auto it = ctx.begin();
    if (it != ctx.end() && *it == 's') short_form = true, ++it;
    if (it != ctx.end() && *it != '}') throw fmt::format_error("tessera arrays take {} or {:s}");
    return it;
  }
  template <class Ctx>
  auto format(const X& x, Ctx& ctx) const {
    const std::string s = short_form ? tessera::repr(x) : tessera::describe(x);
    return std::copy(s.begin(), s.end(), ctx.out());
  }
};
#endif
#if __has_include(<format>)
#include <format>
#if defined(__cpp_lib_format)
template <class X>
  requires tessera::expression_type<X>
struct std::formatter<X, char> {
  bool short_form = false;
  constexpr auto parse(std::format_parse_context& ctx) {
    auto it = ctx.begin();
    if (it != ctx.end() && *it == 's') short_form = true, ++it;
    if (it != ctx.end() && *it != '}') throw std::format_error("tessera arrays take {} or {:s}");
    return it;
  }
  template <class Ctx>
  auto format(const X& x, Ctx& ctx) const {
    const std::string s = short_form ? tessera::repr(x) : tessera::describe(x);
    return std::copy(s.begin(), s.end(), ctx.out());
  }
};
#endif
#endif
