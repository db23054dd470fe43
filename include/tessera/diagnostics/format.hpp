// fmt and std::format formatters for every Tessera array and expression: "{}" formats
// ts::describe(x), "{:s}" ts::repr(x) (diagnostics/describe.hpp). The fmt one is defined where
// <fmt/format.h> is found (Debian: libfmt-dev; the caller links fmt as usual), the std one where
// the standard library has <format> (GCC 13 and later).
#pragma once
#include <algorithm>
#include <string>

#include "describe.hpp"

namespace tessera::detail {
/// What both formatters do: parse "{}" or "{:s}" (else `Error`, the library's format_error) and
/// write describe(x) or repr(x).
template <class Error>
struct summary_formatter {
  bool short_form = false;
  template <class ParseContext>
  constexpr auto parse(ParseContext& ctx) {
    auto it = ctx.begin();
    if (it != ctx.end() && *it == 's') short_form = true, ++it;
    if (it != ctx.end() && *it != '}') throw Error("tessera arrays take {} or {:s}");
    return it;
  }
  template <class X, class Ctx>
  auto format(const X& x, Ctx& ctx) const {
    const std::string s = short_form ? tessera::repr(x) : tessera::describe(x);
    return std::copy(s.begin(), s.end(), ctx.out());
  }
};
}  // namespace tessera::detail

#if __has_include(<fmt/format.h>) && !defined(TESSERA_NO_FMT)
#include <fmt/format.h>
template <class X>
  requires tessera::expression_type<X>
struct fmt::formatter<X> : tessera::detail::summary_formatter<fmt::format_error> {};
#endif
#if __has_include(<format>)
#include <format>
#if defined(__cpp_lib_format)
template <class X>
  requires tessera::expression_type<X>
struct std::formatter<X, char> : tessera::detail::summary_formatter<std::format_error> {};
#endif
#endif
