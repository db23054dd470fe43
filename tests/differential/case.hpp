// The differential test's case language: one case per line, parsed here ("the view/reduction
// parser"), evaluated with Tessera as ONE lazy expression (views, elementwise, rechunk and
// reduction fused), and printed in an exact text form that tests/differential/diff_numpy.py
// compares with NumPy. The same parser and evaluator are fed arbitrary bytes by the libFuzzer
// target tests/fuzz/fuzz_view_reduce.cpp.
//
// A case (tokens separated by spaces; see diff_numpy.py for the generator):
//   <id> <dtype> s=<shape> c=<chunks> d=<kind><seed> th=<threads> [view-steps] [op] [view-steps] [rc=<chunks>] [r=<reduction>]
//   dtype      f8 f4 i8 i4 u1 b1
//   shape      s=3,4,5   (s= for 0-d)
//   chunks     per axis, '/'-separated: one number = regular chunk length (-1 whole axis), or
//              a comma list = explicit chunk lengths (c=2,1/4 : axis 0 {2,1}, axis 1 regular 4)
//   data       d=<kind><seed>, kind i (small ints), f (multiples of 1/16), g (general floats),
//              s (with NaN, +-inf, -0.0), w (full-range integers); element i is a pure function
//              of (kind, seed, i) (data_value below, mirrored by diff_numpy.py)
//   view step  v[<NumPy subscript>] (ints, start:stop:step, None, ..., :), t (reverse axes),
//              t(1,0,2), sw(a,b)
//   op         op=<unary> | op=<binary>,<scalar> | op=r<binary>,<scalar> (scalar on the left)
//              | op=<binary>@<view step> (x op view(x, ...)) | op=where,<s1>,<s2>
//              (where(x > s1, x, s2)) | op=astype,<dtype>; scalars i<int> or f<float>
//   rechunk    rc=<chunks>
//   reduction  r=<name>[,ax=<a.b.c>][,k][,dd=<ddof>][,se=<split_every>]; ax absent: all
//              axes (None), "ax=" alone: axis=()
// Views and transposes before the op form one remap of the stored input (a view of a view
// composes); those after it one remap of the elementwise node.
#pragma once
#include <tessera/tessera.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tdiff {
namespace ts = tessera;
using ts::index_t;

/// A malformed or unsupported case (the harness's error, not Tessera's).
struct parse_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] inline void fail(const std::string& what) { throw parse_error(what); }

enum class dt { f8, f4, i8, i4, u1, b1, u8 };  // u8 (uint64): results only (sums of unsigned)
inline const char* dt_name(dt t) {
  static const char* n[] = {"f8", "f4", "i8", "i4", "u1", "b1", "u8"};
  return n[int(t)];
}
template <class T> constexpr dt dt_of();
template <> constexpr dt dt_of<double>() { return dt::f8; }
template <> constexpr dt dt_of<float>() { return dt::f4; }
template <> constexpr dt dt_of<std::int64_t>() { return dt::i8; }
template <> constexpr dt dt_of<std::int32_t>() { return dt::i4; }
template <> constexpr dt dt_of<std::uint8_t>() { return dt::u1; }
template <> constexpr dt dt_of<bool>() { return dt::b1; }
template <> constexpr dt dt_of<std::uint64_t>() { return dt::u8; }
template <class T>
concept known_type = requires { dt_of<T>(); };

struct chunks_spec {
  std::vector<std::vector<index_t>> axes;  // one entry: regular length; more: explicit list
};
struct slice_item {
  enum kind_t { index, range, all, newaxis, ellipsis } kind = all;
  index_t i = 0, start = 0, stop = 0, step = 1;
  bool has_start = false, has_stop = false, has_step = false;
};
struct view_step {
  enum kind_t { slices, transpose, swap } kind = slices;
  std::vector<slice_item> items;
  bool has_axes = false;
  std::vector<index_t> axes;
};
struct scalar_v {
  bool is_float = false;
  std::int64_t i = 0;
  double f = 0;
};
enum class opk { none, unary, right, left, self, where, astype };
enum class opn { neg, abs, sqrt, exp, log, sin, cos, add, sub, mul, div, max, min, pow, lt, le, gt, ge, eq, ne, where, astype };
struct op_step {
  opk kind = opk::none;
  opn name = opn::add;
  scalar_v s1, s2;
  view_step other;  // opk::self
  dt to = dt::f8;   // opk::astype
};
enum class redn { sum, prod, mean, var, std, amin, amax, argmin, argmax, any, all, cnz };
struct reduce_step {
  bool present = false;
  redn name = redn::sum;
  bool has_axes = false;
  std::vector<index_t> axes;
  bool keep = false;
  index_t ddof = 0;
  int split = 4;
};
struct case_t {
  std::string id;
  dt type = dt::f8;
  std::vector<index_t> shape;
  chunks_spec chunks;
  char kind = 'i';
  std::uint64_t seed = 0;
  int threads = 1;
  std::vector<view_step> v1, v2;
  op_step op;
  bool has_rc = false;
  chunks_spec rc;
  reduce_step red;
};

// ---------------------------------------------------------------------------------------------
// Parsing

inline std::int64_t parse_int(std::string_view s) {
  if (s.empty() || s.size() > 20) fail("bad integer '" + std::string(s) + "'");
  std::size_t p = 0;
  bool neg = false;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    p = 1;
  }
  if (p == s.size()) fail("bad integer '" + std::string(s) + "'");
  std::uint64_t v = 0;
  for (; p < s.size(); ++p) {
    if (s[p] < '0' || s[p] > '9') fail("bad integer '" + std::string(s) + "'");
    const std::uint64_t d = std::uint64_t(s[p] - '0');
    if (v > (UINT64_MAX - d) / 10) fail("integer overflow '" + std::string(s) + "'");
    v = v * 10 + d;
  }
  if (!neg && v > std::uint64_t(INT64_MAX)) fail("integer overflow '" + std::string(s) + "'");
  if (neg && v > std::uint64_t(INT64_MAX) + 1) fail("integer overflow '" + std::string(s) + "'");
  return neg ? std::int64_t(0 - v) : std::int64_t(v);
}

inline std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t b = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(b, i - b));
      b = i + 1;
    }
  return out;
}
inline std::vector<index_t> parse_int_list(std::string_view s, char sep = ',') {
  std::vector<index_t> out;
  if (s.empty()) return out;
  for (auto p : split(s, sep)) out.push_back(parse_int(p));
  return out;
}

inline dt parse_dt(std::string_view s) {
  static const char* n[] = {"f8", "f4", "i8", "i4", "u1", "b1"};
  for (int k = 0; k < 6; ++k)
    if (s == n[k]) return dt(k);
  fail("unknown dtype '" + std::string(s) + "'");
}

inline chunks_spec parse_chunks(std::string_view s) {
  chunks_spec c;
  if (s.empty()) return c;
  for (auto ax : split(s, '/')) {
    auto v = parse_int_list(ax);
    if (v.empty()) fail("empty chunk list");
    if (v.size() > 4096) fail("too many chunks");
    c.axes.push_back(std::move(v));
  }
  return c;
}

inline scalar_v parse_scalar(std::string_view s) {
  scalar_v v;
  if (s.size() < 2) fail("bad scalar '" + std::string(s) + "'");
  if (s[0] == 'i') {
    v.i = parse_int(s.substr(1));
  } else if (s[0] == 'f') {
    std::string t(s.substr(1));
    if (t.size() > 64) fail("bad float");
    for (char ch : t)
      if (!std::strchr("0123456789+-.eEinfatyINFATYxXpPabcdABCD", ch)) fail("bad float '" + t + "'");
    char* end = nullptr;
    v.f = std::strtod(t.c_str(), &end);
    if (end != t.c_str() + t.size() || t.empty()) fail("bad float '" + t + "'");
    v.is_float = true;
  } else {
    fail("bad scalar '" + std::string(s) + "'");
  }
  return v;
}

/// A NumPy subscript: items separated by commas: an int, [start]:[stop][:[step]], None, ..., :
inline std::vector<slice_item> parse_subscript(std::string_view s) {
  std::vector<slice_item> items;
  if (s.empty()) return items;  // x[()]
  auto parts = split(s, ',');
  if (parts.size() > 64) fail("too many subscript items");
  for (auto p : parts) {
    slice_item it;
    if (p == "None") {
      it.kind = slice_item::newaxis;
    } else if (p == "...") {
      it.kind = slice_item::ellipsis;
    } else if (p.find(':') != std::string_view::npos) {
      auto f = split(p, ':');
      if (f.size() > 3) fail("bad slice '" + std::string(p) + "'");
      it.kind = slice_item::range;
      if (!f[0].empty()) it.has_start = true, it.start = parse_int(f[0]);
      if (!f[1].empty()) it.has_stop = true, it.stop = parse_int(f[1]);
      if (f.size() == 3 && !f[2].empty()) it.has_step = true, it.step = parse_int(f[2]);
    } else {
      it.kind = slice_item::index;
      it.i = parse_int(p);
    }
    items.push_back(it);
  }
  return items;
}

inline bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

inline view_step parse_view(std::string_view s) {
  view_step v;
  if (starts_with(s, "v[") && s.back() == ']') {
    v.kind = view_step::slices;
    v.items = parse_subscript(s.substr(2, s.size() - 3));
  } else if (s == "t") {
    v.kind = view_step::transpose;
  } else if (starts_with(s, "t(") && s.back() == ')') {
    v.kind = view_step::transpose;
    v.has_axes = true;
    v.axes = parse_int_list(s.substr(2, s.size() - 3));
    if (v.axes.size() > 64) fail("too many axes");
  } else if (starts_with(s, "sw(") && s.back() == ')') {
    v.kind = view_step::swap;
    v.axes = parse_int_list(s.substr(3, s.size() - 4));
    if (v.axes.size() != 2) fail("swapaxes takes two axes");
  } else {
    fail("bad view step '" + std::string(s) + "'");
  }
  return v;
}
inline bool is_view_token(std::string_view s) {
  return starts_with(s, "v[") || s == "t" || starts_with(s, "t(") || starts_with(s, "sw(");
}

inline op_step parse_op(std::string_view s) {
  struct named { const char* n; opn o; };
  static const named unary[] = {{"neg", opn::neg}, {"abs", opn::abs}, {"sqrt", opn::sqrt}, {"exp", opn::exp},
                                {"log", opn::log}, {"sin", opn::sin}, {"cos", opn::cos}};
  static const named binary[] = {{"add", opn::add}, {"sub", opn::sub}, {"mul", opn::mul}, {"div", opn::div},
                                 {"max", opn::max}, {"min", opn::min}, {"pow", opn::pow}, {"lt", opn::lt},
                                 {"le", opn::le},   {"gt", opn::gt},   {"ge", opn::ge},   {"eq", opn::eq},
                                 {"ne", opn::ne}};
  op_step o;
  const auto at = s.find('@');
  std::string_view head = s.substr(0, std::min(at, s.find(',')));
  if (at != std::string_view::npos) {
    for (auto& b : binary)
      if (head == b.n) {
        o.kind = opk::self;
        o.name = b.o;
        o.other = parse_view(s.substr(at + 1));
        return o;
      }
    fail("bad op '" + std::string(s) + "'");
  }
  auto f = split(s, ',');
  if (f.size() == 1) {
    for (auto& u : unary)
      if (f[0] == u.n) {
        o.kind = opk::unary;
        o.name = u.o;
        return o;
      }
  } else if (f.size() == 2 && f[0] == "astype") {
    o.kind = opk::astype;
    o.name = opn::astype;
    o.to = parse_dt(f[1]);
    return o;
  } else if (f.size() == 3 && f[0] == "where") {
    o.kind = opk::where;
    o.name = opn::where;
    o.s1 = parse_scalar(f[1]);
    o.s2 = parse_scalar(f[2]);
    return o;
  } else if (f.size() == 2) {
    std::string_view n = f[0];
    bool left = false;
    if (!n.empty() && n[0] == 'r') left = true, n.remove_prefix(1);
    for (auto& b : binary)
      if (n == b.n) {
        o.kind = left ? opk::left : opk::right;
        o.name = b.o;
        o.s1 = parse_scalar(f[1]);
        return o;
      }
  }
  fail("bad op '" + std::string(s) + "'");
}

inline reduce_step parse_reduce(std::string_view s) {
  static const char* names[] = {"sum", "prod", "mean", "var", "std", "amin", "amax",
                                "argmin", "argmax", "any", "all", "cnz"};
  reduce_step r;
  r.present = true;
  auto f = split(s, ',');
  bool found = false;
  for (int k = 0; k < 12; ++k)
    if (f[0] == names[k]) r.name = redn(k), found = true;
  if (!found) fail("bad reduction '" + std::string(s) + "'");
  for (std::size_t i = 1; i < f.size(); ++i) {
    if (f[i] == "k") r.keep = true;
    else if (starts_with(f[i], "ax=")) {
      r.has_axes = true;
      r.axes = parse_int_list(f[i].substr(3), '.');
      if (r.axes.size() > 64) fail("too many axes");
    } else if (starts_with(f[i], "dd=")) r.ddof = parse_int(f[i].substr(3));
    else if (starts_with(f[i], "se=")) {
      const auto v = parse_int(f[i].substr(3));
      if (v < -1000000 || v > 1000000) fail("split_every out of the harness's range");
      r.split = int(v);
    } else fail("bad reduction option '" + std::string(f[i]) + "'");
  }
  return r;
}

inline case_t parse_case(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' '))
    line.remove_suffix(1);
  std::vector<std::string_view> tok;
  for (auto t : split(line, ' '))
    if (!t.empty()) tok.push_back(t);
  if (tok.size() < 6) fail("a case needs id, dtype, s=, c=, d=, th=");
  if (tok.size() > 64) fail("too many steps");
  case_t c;
  c.id = std::string(tok[0]);
  c.type = parse_dt(tok[1]);
  if (!starts_with(tok[2], "s=")) fail("expected s=");
  c.shape = parse_int_list(tok[2].substr(2));
  if (c.shape.size() > 8) fail("rank above 8");
  index_t n = 1;
  for (auto e : c.shape) {
    if (e < 0 || e > 4096) fail("axis length outside the harness's 0..4096");
    n *= e;
    if (n > 65536) fail("more than 65536 input elements");
  }
  if (!starts_with(tok[3], "c=")) fail("expected c=");
  c.chunks = parse_chunks(tok[3].substr(2));
  if (!starts_with(tok[4], "d=") || tok[4].size() < 4) fail("expected d=<kind><seed>");
  c.kind = tok[4][2];
  if (!std::strchr("ifgsw", c.kind)) fail("bad data kind");
  c.seed = std::uint64_t(parse_int(tok[4].substr(3)));
  if (!starts_with(tok[5], "th=")) fail("expected th=");
  const auto th = parse_int(tok[5].substr(3));
  if (th < 1 || th > 4) fail("threads outside 1..4");
  c.threads = int(th);
  int stage = 0;  // 0: views before the op, 1: views after it, 2: after rechunk, 3: after reduction
  for (std::size_t i = 6; i < tok.size(); ++i) {
    auto t = tok[i];
    if (is_view_token(t)) {
      if (stage >= 2) fail("a view after rechunk or reduction is not an expression shape of this harness");
      (stage == 0 ? c.v1 : c.v2).push_back(parse_view(t));
    } else if (starts_with(t, "op=")) {
      if (stage != 0) fail("one op, before rechunk and reduction");
      c.op = parse_op(t.substr(3));
      stage = 1;
    } else if (starts_with(t, "rc=")) {
      if (stage >= 2) fail("one rechunk, before the reduction");
      c.has_rc = true;
      c.rc = parse_chunks(t.substr(3));
      stage = 2;
    } else if (starts_with(t, "r=")) {
      if (stage >= 3) fail("one reduction");
      c.red = parse_reduce(t.substr(2));
      stage = 3;
    } else {
      fail("unknown step '" + std::string(t) + "'");
    }
  }
  return c;
}

// ---------------------------------------------------------------------------------------------
// Input data: a pure function of (kind, seed, flat index), mirrored by diff_numpy.py.

inline std::uint64_t mix(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + (i + 1) * 0xBF58476D1CE4E5B9ull;
  z ^= z >> 30;
  z *= 0xBF58476D1CE4E5B9ull;
  z ^= z >> 27;
  z *= 0x94D049BB133111EBull;
  z ^= z >> 31;
  return z;
}

template <class T>
T data_value(char kind, std::uint64_t seed, std::uint64_t i) {
  const std::uint64_t h = mix(seed, i);
  if constexpr (std::is_same_v<T, bool>) {
    return kind == 'i' ? (h % 4) != 0 : (h & 1) != 0;
  } else if constexpr (std::is_floating_point_v<T>) {
    const double dyadic = double(std::int64_t(h % 257) - 128) / 16.0;
    if (kind == 'i') return T(double(std::int64_t(h % 21) - 10));
    if (kind == 'f') return T(dyadic);
    if (kind == 's') {
      switch (h % 16) {
        case 0: return T(NAN);
        case 1: return T(INFINITY);
        case 2: return T(-INFINITY);
        case 3: return T(-0.0);
        default: return T(dyadic);
      }
    }
    // g, w: general floats in (-8, 8)
    const double u = double(h >> 11) * 0x1p-53;
    return T((2.0 * u - 1.0) * std::ldexp(1.0, int(h & 7) - 3));
  } else {
    if (kind == 'w' || kind == 'g') return T(h);  // modulo 2^bits
    return T(std::int64_t(h % 21) - 10);          // modulo 2^bits for unsigned
  }
}

// ---------------------------------------------------------------------------------------------
// Results: dtype, shape and exact values (bit patterns of floats), or an error.

struct result {
  enum status_t { ok, tessera_error, other_error, harness_error } status = ok;
  std::string error_class;  // "oor" (tessera::out_of_range), "inv" (tessera::invalid_argument), ...
  std::string message;
  dt type = dt::f8;
  std::vector<index_t> shape;
  std::vector<std::uint64_t> bits;  // floats: IEEE bits; integers: two's complement; bool 0/1
};

template <class T>
std::uint64_t to_bits(T v) {
  if constexpr (std::is_same_v<T, double>) {
    std::uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  } else if constexpr (std::is_same_v<T, float>) {
    std::uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  } else {
    return std::uint64_t(std::int64_t(v));
  }
}
template <class T>
T from_bits(std::uint64_t b) {
  if constexpr (std::is_same_v<T, double>) {
    double v;
    std::memcpy(&v, &b, 8);
    return v;
  } else if constexpr (std::is_same_v<T, float>) {
    const std::uint32_t u = std::uint32_t(b);
    float v;
    std::memcpy(&v, &u, 4);
    return v;
  } else {
    return T(std::int64_t(b));
  }
}

/// The line diff_numpy.py reads: "ok <dtype> s=<shape> v..." (floats as hex bits, integers
/// in decimal) or "err <class> <message>".
inline std::string format_result(const std::string& id, const result& r) {
  std::string out = id + " ";
  if (r.status != result::ok) {
    std::string msg = r.message;
    for (char& ch : msg)
      if (ch == '\n' || ch == '\r') ch = ' ';
    out += (r.status == result::tessera_error ? "err " : r.status == result::harness_error ? "harness " : "other ");
    out += r.error_class + " " + msg;
    return out;
  }
  out += std::string("ok ") + dt_name(r.type) + " s=";
  for (std::size_t d = 0; d < r.shape.size(); ++d) out += (d ? "," : "") + std::to_string(r.shape[d]);
  char buf[32];
  for (auto b : r.bits) {
    switch (r.type) {
      case dt::f8: std::snprintf(buf, sizeof buf, " %016llx", (unsigned long long)b); break;
      case dt::f4: std::snprintf(buf, sizeof buf, " %08llx", (unsigned long long)b); break;
      default: std::snprintf(buf, sizeof buf, " %lld", (long long)std::int64_t(b)); break;
    }
    out += buf;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Evaluation with Tessera.

inline ts::chunks_arg to_chunks_arg(const chunks_spec& c, const std::vector<index_t>& shape) {
  // A single 0 is the explicit list {0} (valid on an empty axis only), not a regular length.
  bool regular = true;
  for (auto& a : c.axes) regular = regular && a.size() == 1 && a[0] != 0;
  if (regular && !c.axes.empty() && c.axes.size() == shape.size()) {
    std::vector<index_t> per;
    for (auto& a : c.axes) per.push_back(a[0]);
    return ts::chunks_arg(per);
  }
  // Mixed: a single number on an axis is a regular length, expanded here (a bad one is passed
  // on as a one-element list, which Tessera must reject).
  ts::chunks_t out;
  for (std::size_t d = 0; d < c.axes.size(); ++d) {
    const auto& a = c.axes[d];
    if (a.size() == 1 && d < shape.size() && (a[0] > 0 || a[0] == -1)) {
      const index_t n = shape[d];
      const index_t len = a[0] == -1 ? std::max<index_t>(n, 1) : a[0];
      std::vector<index_t> l;
      if (n == 0) l.push_back(0);
      for (index_t o = 0; o < n; o += len) l.push_back(std::min(len, n - o));
      out.push_back(l);
    } else {
      out.push_back(a);
    }
  }
  return ts::chunks_arg(out);
}

inline ts::slice_vector to_slices(const std::vector<slice_item>& items) {
  ts::slice_vector sv;
  using namespace ts::placeholders;
  for (const auto& it : items) {
    switch (it.kind) {
      case slice_item::index: sv.push_back(ts::slice(it.i)); break;
      case slice_item::all: sv.push_back(ts::all()); break;
      case slice_item::newaxis: sv.push_back(ts::newaxis()); break;
      case slice_item::ellipsis: sv.push_back(ts::ellipsis()); break;
      case slice_item::range: {
        ts::range_t r;
        r.has_start = it.has_start;
        r.has_stop = it.has_stop;
        r.start = it.start;
        r.stop = it.stop;
        r.step = it.has_step ? it.step : 1;
        sv.push_back(ts::slice(r));
        break;
      }
    }
  }
  return sv;
}

template <class R>
R apply_view(const R& x, const view_step& s) {
  switch (s.kind) {
    case view_step::slices: return ts::dynamic_view(x, to_slices(s.items));
    case view_step::transpose: return s.has_axes ? ts::transpose(x, s.axes) : ts::transpose(x);
    case view_step::swap: return ts::swapaxes(x, s.axes[0], s.axes[1]);
  }
  return x;
}
/// One remap of x for a whole chain of view steps (views of a remap compose).
template <class X>
auto apply_views(const X& x, const std::vector<view_step>& steps) {
  auto r = ts::dynamic_view(x, ts::slice_vector{});
  for (const auto& s : steps) r = apply_view(r, s);
  return r;
}

/// Calls f with the Tessera expression for the op applied to v (a remap), built with the
/// public operators and functions, for each runtime op; throws parse_error for combinations
/// the library rejects at compile time (unary minus of bool) or NumPy lacks.
template <class V, class F>
decltype(auto) with_api_op(const op_step& o, const V& v, F&& f) {
  using T = typename V::value_type;
  auto with_scalar = [&](const scalar_v& s, auto&& g) -> decltype(auto) {
    if (s.is_float) return g(s.f);
    return g(std::int64_t(s.i));
  };
  auto bin = [&](auto&& a, auto&& b) -> decltype(auto) {
    switch (o.name) {
      case opn::add: return f(a + b);
      case opn::sub: return f(a - b);
      case opn::mul: return f(a * b);
      case opn::div: return f(a / b);
      case opn::max: return f(ts::maximum(a, b));
      case opn::min: return f(ts::minimum(a, b));
      case opn::pow: return f(ts::pow(a, b));
      case opn::lt: return f(a < b);
      case opn::le: return f(a <= b);
      case opn::gt: return f(a > b);
      case opn::ge: return f(a >= b);
      case opn::eq: return f(a == b);
      case opn::ne: return f(a != b);
      default: fail("not a binary op");
    }
  };
  switch (o.kind) {
    case opk::none: return f(v);
    case opk::unary:
      switch (o.name) {
        case opn::neg:
          if constexpr (std::is_same_v<T, bool>) fail("unary minus of bool (NumPy: TypeError; Tessera: compile error)");
          else return f(-v);
        case opn::abs: return f(ts::abs(v));
        case opn::sqrt: return f(ts::sqrt(v));
        case opn::exp: return f(ts::exp(v));
        case opn::log: return f(ts::log(v));
        case opn::sin: return f(ts::sin(v));
        case opn::cos: return f(ts::cos(v));
        default: fail("not a unary op");
      }
    case opk::right: return with_scalar(o.s1, [&](auto s) -> decltype(auto) { return bin(v, s); });
    case opk::left:
      if (o.name == opn::pow) fail("scalar ** array is not an expression shape of this harness");
      return with_scalar(o.s1, [&](auto s) -> decltype(auto) { return bin(s, v); });
    case opk::self: return bin(v, apply_view(v, o.other));
    case opk::where:
      return with_scalar(o.s1, [&](auto s1) -> decltype(auto) {
        return with_scalar(o.s2, [&](auto s2) -> decltype(auto) { return f(ts::where(v > s1, v, s2)); });
      });
    case opk::astype:
      switch (o.to) {
        case dt::f8: return f(ts::cast<double>(v));
        case dt::f4: return f(ts::cast<float>(v));
        case dt::i8: return f(ts::cast<std::int64_t>(v));
        case dt::i4: return f(ts::cast<std::int32_t>(v));
        case dt::u1: return f(ts::cast<std::uint8_t>(v));
        case dt::b1: return f(ts::cast<bool>(v));
        case dt::u8: fail("astype u8 is not generated");
      }
  }
  fail("bad op");
}

/// The same ops on one element (what the fused map of a reduction case applies): each
/// computed with Tessera's own functors (ops::plus, ...) on the operand types the operators
/// would pass (weak scalars as ts::detail::as_operand makes them). f gets the result.
template <class T, class F>
void with_element_op(const op_step& o, T a, T b, F&& f) {
  namespace op = ts::ops;
  auto with_scalar = [&](const scalar_v& s, auto&& g) {
    if (s.is_float) g(ts::weak_scalar_t<T, double>(s.f));
    else g(ts::weak_scalar_t<T, std::int64_t>(s.i));
  };
  auto bin = [&](auto x, auto y) {
    switch (o.name) {
      case opn::add: f(op::plus{}(x, y)); return;
      case opn::sub: f(op::minus{}(x, y)); return;
      case opn::mul: f(op::multiplies{}(x, y)); return;
      case opn::div: f(op::divides{}(x, y)); return;
      case opn::max: f(op::maximum{}(x, y)); return;
      case opn::min: f(op::minimum{}(x, y)); return;
      case opn::pow: f(op::power{}(x, y)); return;
      case opn::lt: f(op::less{}(x, y)); return;
      case opn::le: f(op::less_equal{}(x, y)); return;
      case opn::gt: f(op::greater{}(x, y)); return;
      case opn::ge: f(op::greater_equal{}(x, y)); return;
      case opn::eq: f(op::equal{}(x, y)); return;
      case opn::ne: f(op::not_equal{}(x, y)); return;
      default: return;
    }
  };
  switch (o.kind) {
    case opk::none: f(a); return;
    case opk::unary:
      switch (o.name) {
        case opn::neg:
          if constexpr (!std::is_same_v<T, bool>) f(op::negate{}(a));
          return;
        case opn::abs: f(op::absolute{}(a)); return;
        case opn::sqrt: f(op::sqrt{}(a)); return;
        case opn::exp: f(op::exp{}(a)); return;
        case opn::log: f(op::log{}(a)); return;
        case opn::sin: f(op::sin{}(a)); return;
        case opn::cos: f(op::cos{}(a)); return;
        default: return;
      }
    case opk::right: with_scalar(o.s1, [&](auto s) { bin(a, s); }); return;
    case opk::left: with_scalar(o.s1, [&](auto s) { bin(s, a); }); return;
    case opk::self: bin(a, b); return;
    case opk::where:
      with_scalar(o.s1, [&](auto s1) {
        with_scalar(o.s2, [&](auto s2) { f(op::select{}(op::greater{}(a, s1), a, s2)); });
      });
      return;
    case opk::astype:
      switch (o.to) {
        case dt::f8: f(op::cast_to<double>{}(a)); return;
        case dt::f4: f(op::cast_to<float>{}(a)); return;
        case dt::i8: f(op::cast_to<std::int64_t>{}(a)); return;
        case dt::i4: f(op::cast_to<std::int32_t>{}(a)); return;
        case dt::u1: f(op::cast_to<std::uint8_t>{}(a)); return;
        case dt::b1: f(op::cast_to<bool>{}(a)); return;
        case dt::u8: return;
      }
  }
}

template <class T>
dt element_op_type(const op_step& o) {
  dt out = dt::f8;
  bool set = false;
  with_element_op<T>(o, T{}, T{}, [&](auto r) {
    using R = decltype(r);
    if constexpr (known_type<R>) out = dt_of<R>(), set = true;
  });
  if (!set) fail("op has no element type here");
  return out;
}

template <class T>
result collect(const xt::xarray<T>& a) {
  result r;
  r.type = dt_of<T>();
  r.shape.assign(a.shape().begin(), a.shape().end());
  r.bits.reserve(a.size());
  for (auto v : a) r.bits.push_back(to_bits(v));
  return r;
}

template <class E>
result run(const case_t& c, const E& e) {
  return collect(ts::compute(e, ts::host{.threads = c.threads}));
}

template <class E>
auto rechunked(const case_t& c, const E& e) {
  return ts::rechunk(e, c.has_rc ? to_chunks_arg(c.rc, e.shape()) : ts::chunks_arg(e.chunks()));
}

/// rechunk (the current chunks when the case has none: the same grid, so the same bind path)
/// and the reduction, fused over e.
template <class E>
result reduce_and_run(const case_t& c, const E& e0) {
  auto e = rechunked(c, e0);
  const reduce_step& r = c.red;
  if (!r.present) return run(c, e);
  ts::reduce_options o{.keep_dims = r.keep, .ddof = r.ddof, .split_every = r.split};
#define TDIFF_REDUCE(fn) \
  return r.has_axes ? run(c, ts::fn(e, r.axes, o)) : run(c, ts::fn(e, o))
  switch (r.name) {
    case redn::sum: TDIFF_REDUCE(sum);
    case redn::prod: TDIFF_REDUCE(prod);
    case redn::mean: TDIFF_REDUCE(mean);
    case redn::var: TDIFF_REDUCE(variance);
    case redn::std: TDIFF_REDUCE(stddev);
    case redn::amin: TDIFF_REDUCE(amin);
    case redn::amax: TDIFF_REDUCE(amax);
    case redn::argmin: TDIFF_REDUCE(argmin);
    case redn::argmax: TDIFF_REDUCE(argmax);
    case redn::any: TDIFF_REDUCE(any);
    case redn::all: TDIFF_REDUCE(all);
    case redn::cnz: TDIFF_REDUCE(count_nonzero);
  }
#undef TDIFF_REDUCE
  fail("bad reduction");
}

/// A trivially copyable copy of the op for the map functor (op_step holds a vector).
struct flat_op {
  opk kind;
  opn name;
  scalar_v s1, s2;
  dt to;
};
template <class T, class R>
struct map_op {
  flat_op f;
  R operator()(T a, T b) const {
    op_step o;
    o.kind = f.kind;
    o.name = f.name;
    o.s1 = f.s1;
    o.s2 = f.s2;
    o.to = f.to;
    R out{};
    with_element_op<T>(o, a, b, [&](auto r) {
      if constexpr (std::is_same_v<decltype(r), R>) out = r;
    });
    return out;
  }
};

template <class T>
result eval_typed(const case_t& c);

/// Builds the stored input of the case.
template <class T>
ts::array<T> make_input(const case_t& c) {
  xt::xarray<T> d = xt::xarray<T>::from_shape(std::vector<std::size_t>(c.shape.begin(), c.shape.end()));
  std::uint64_t i = 0;
  for (auto& v : d) v = data_value<T>(c.kind, c.seed, i++);
  return ts::from_xtensor(d, to_chunks_arg(c.chunks, c.shape));
}

/// The fixed expression shapes, with runtime parameters (views, op, chunks, axes, options):
///  - no op:  reduce(rechunk(view2(view1(input))))  (the reduction over the stored input's
///    remap directly), or without a reduction rechunk(view2(view1(input)));
///  - an op:  reduce(rechunk(view2(map(op, view1(input), view(view1(input))))))  with the op
///    a ts::map functor dispatching at run time to Tessera's own element functors (ops::plus,
///    ops::exp, ops::cast_to, ...) with the operand types the public operators give them
///    (weak scalars as ts::detail::as_operand makes them). The same op is first built with
///    the public API (`v + 2`, ts::where, ts::cast, ...) on the same view, so errors
///    (negative integer powers, broadcasting) come from Tessera and its result dtype and
///    shape are the API's; building it costs nothing, and computing one expression type per
///    (input, result) dtype pair instead of one per op keeps the compile affordable.
///    Reductions follow ops whose result type is the input's, double or bool.
/// A rechunk is always present: without rc= it is to the current chunks (the same grid, and
/// rechunked::bind forwards to its child, so the same bind path as no rechunk).
template <bool Reduce, class E>
result finish(const case_t& c, const E& e) {
  if constexpr (Reduce) return reduce_and_run(c, e);
  else {
    if (c.red.present) fail("a reduction after this op's result type is not an expression shape of this harness");
    return run(c, rechunked(c, e));
  }
}

template <class T>
result eval_typed(const case_t& c) {
  const auto x = make_input<T>(c);
  const auto v = apply_views(x, c.v1);
  if (c.op.kind == opk::none) return reduce_and_run(c, apply_views(v, c.v2));
  struct api_info {
    dt type;
    std::vector<index_t> shape;
  };
  const api_info api = with_api_op(c.op, v, [&](const auto& e) -> api_info {
    return {dt_of<typename std::remove_cvref_t<decltype(e)>::value_type>(), e.shape()};
  });
  const auto other = c.op.kind == opk::self ? apply_view(v, c.op.other) : v;
  const flat_op fo{c.op.kind, c.op.name, c.op.s1, c.op.s2, c.op.to};
  if (element_op_type<T>(c.op) != api.type) fail("element op type differs from the API's");
  auto go = [&](auto r, auto reduce) -> result {
    using R = decltype(r);
    auto m = ts::map(map_op<T, R>{fo}, v, other);
    if (m.shape() != api.shape) fail("map shape differs from the API's");
    return finish<decltype(reduce)::value>(c, apply_views(m, c.v2));
  };
  using yes = std::true_type;
  using no = std::false_type;
  switch (api.type) {
    case dt::f8: return go(double{}, yes{});
    case dt::b1: return go(bool{}, yes{});
    default: break;
  }
  if (api.type == dt_of<T>()) return go(T{}, yes{});
  switch (api.type) {
    case dt::f4: if constexpr (!std::is_same_v<T, float>) return go(float{}, no{}); break;
    case dt::i8: if constexpr (!std::is_same_v<T, std::int64_t>) return go(std::int64_t{}, no{}); break;
    case dt::i4: if constexpr (!std::is_same_v<T, std::int32_t>) return go(std::int32_t{}, no{}); break;
    case dt::u1: if constexpr (!std::is_same_v<T, std::uint8_t>) return go(std::uint8_t{}, no{}); break;
    default: break;
  }
  fail("unreachable result type");
}

extern template result eval_typed<double>(const case_t&);
extern template result eval_typed<float>(const case_t&);
extern template result eval_typed<std::int64_t>(const case_t&);
extern template result eval_typed<std::int32_t>(const case_t&);
extern template result eval_typed<std::uint8_t>(const case_t&);
extern template result eval_typed<bool>(const case_t&);

/// Parses and evaluates one line; every exception becomes a classified result.
inline result evaluate_line(std::string_view line, case_t* parsed = nullptr) {
  result r;
  try {
    case_t c = parse_case(line);
    if (parsed) *parsed = c;
    switch (c.type) {
      case dt::f8: return eval_typed<double>(c);
      case dt::f4: return eval_typed<float>(c);
      case dt::i8: return eval_typed<std::int64_t>(c);
      case dt::i4: return eval_typed<std::int32_t>(c);
      case dt::u1: return eval_typed<std::uint8_t>(c);
      case dt::b1: return eval_typed<bool>(c);
      case dt::u8: fail("u8 input is not generated");
    }
  } catch (const parse_error& e) {
    r.status = result::harness_error, r.error_class = "parse", r.message = e.what();
  } catch (const ts::out_of_range& e) {
    r.status = result::tessera_error, r.error_class = "oor", r.message = e.what();
  } catch (const ts::invalid_argument& e) {
    r.status = result::tessera_error, r.error_class = "inv", r.message = e.what();
  } catch (const std::exception& e) {
    r.status = result::other_error, r.error_class = "std", r.message = e.what();
  }
  return r;
}

}  // namespace tdiff
