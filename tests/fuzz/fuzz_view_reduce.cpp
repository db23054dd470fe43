// libFuzzer target for the view/reduction parser of the differential test
// (tests/differential/case.hpp): arbitrary bytes are parsed as one case line and evaluated with
// Tessera (one fused lazy expression). Every rejection must be the harness's parse_error or a
// tessera::invalid_argument / tessera::out_of_range (anything else aborts), and a case without
// an elementwise op is checked against a dense reference computed here with naive loops
// (Python's slice.indices written out independently of Tessera's resolve, transposes, and
// every reduction), values exactly (floating sums, means, products and variances within a
// bound in sum|x|).
//
// clang:  scripts/fuzz.sh [seconds]   (clang++ -fsanitize=fuzzer,address,undefined)
// g++:    built without libFuzzer (TDIFF_FUZZ_REPLAY_MAIN): replays the files or directories
//         given on the command line (tests/fuzz/corpus), as the ctest fuzz_view_reduce_replay.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "../differential/case.hpp"

namespace {
using namespace tdiff;

struct dense {
  std::vector<index_t> shape;
  std::vector<double> v;  // exact for every input dtype of the harness but i8 'w' data (checked apart)
  std::vector<std::uint64_t> raw;  // the two's complement / bit values (integers: exact)
};

index_t count(const std::vector<index_t>& s) {
  index_t n = 1;
  for (auto e : s) n *= e;
  return n;
}

// Python's slice.indices(n) and len(range(...)).
void py_indices(const slice_item& it, index_t n, index_t& start, index_t& step, index_t& len) {
  step = it.has_step ? it.step : 1;
  const __int128 st = step;
  auto adj = [&](index_t v, bool is_start) -> __int128 {
    __int128 x = v;
    if (x < 0) {
      x += n;
      if (x < 0) x = st < 0 ? -1 : 0;
    } else if (x >= n) {
      x = st < 0 ? n - 1 : n;
    }
    (void)is_start;
    return x;
  };
  __int128 a = it.has_start ? adj(it.start, true) : (st < 0 ? n - 1 : 0);
  __int128 b = it.has_stop ? adj(it.stop, false) : (st < 0 ? -1 : n);
  __int128 l = 0;
  if (st > 0 && b > a) l = (b - a + st - 1) / st;
  if (st < 0 && a > b) l = (a - b + (-st) - 1) / (-st);
  start = index_t(a);
  len = index_t(l);
}

// A view as (shape, base offset, strides) over the dense row-major input; applied to indices.
struct strided {
  std::vector<index_t> shape, stride;
  index_t base = 0;
};

bool apply_ref(strided& s, const view_step& st) {
  const int r = int(s.shape.size());
  if (st.kind == view_step::transpose || st.kind == view_step::swap) {
    std::vector<index_t> axes;
    if (st.kind == view_step::swap) {
      auto a = st.axes[0], b = st.axes[1];
      if (a < -r || a >= r || b < -r || b >= r) return false;
      for (int d = 0; d < r; ++d) axes.push_back(d);
      std::swap(axes[std::size_t(a < 0 ? a + r : a)], axes[std::size_t(b < 0 ? b + r : b)]);
    } else if (!st.has_axes) {
      for (int d = r - 1; d >= 0; --d) axes.push_back(d);
    } else {
      if (int(st.axes.size()) != r) return false;
      std::vector<bool> seen(std::size_t(r), false);
      for (auto a : st.axes) {
        if (a < -r || a >= r) return false;
        const auto k = std::size_t(a < 0 ? a + r : a);
        if (seen[k]) return false;
        seen[k] = true;
        axes.push_back(index_t(k));
      }
    }
    strided o;
    o.base = s.base;
    for (auto a : axes) o.shape.push_back(s.shape[std::size_t(a)]), o.stride.push_back(s.stride[std::size_t(a)]);
    s = o;
    return true;
  }
  int consuming = 0, ell = 0, newax = 0;
  for (auto& it : st.items) {
    if (it.kind == slice_item::ellipsis) ++ell;
    else if (it.kind == slice_item::newaxis) ++newax;
    else ++consuming;
  }
  if (ell > 1 || consuming > r) return false;
  strided o;
  o.base = s.base;
  int k = 0;
  for (auto& it : st.items) {
    switch (it.kind) {
      case slice_item::index: {
        const index_t n = s.shape[std::size_t(k)];
        const index_t j = it.i < 0 ? it.i + n : it.i;
        if (it.i < -n || it.i >= n) return false;
        o.base += j * s.stride[std::size_t(k)];
        ++k;
        break;
      }
      case slice_item::range: {
        if (it.has_step && it.step == 0) return false;
        index_t a, st2, l;
        py_indices(it, s.shape[std::size_t(k)], a, st2, l);
        if (l > 0) o.base += a * s.stride[std::size_t(k)];
        o.shape.push_back(l);
        o.stride.push_back(l > 1 ? st2 * s.stride[std::size_t(k)] : 0);
        ++k;
        break;
      }
      case slice_item::all:
        o.shape.push_back(s.shape[std::size_t(k)]), o.stride.push_back(s.stride[std::size_t(k)]), ++k;
        break;
      case slice_item::newaxis: o.shape.push_back(1), o.stride.push_back(0); break;
      case slice_item::ellipsis:
        for (int e = 0; e < r - consuming; ++e, ++k)
          o.shape.push_back(s.shape[std::size_t(k)]), o.stride.push_back(s.stride[std::size_t(k)]);
        break;
    }
  }
  for (; k < r; ++k) o.shape.push_back(s.shape[std::size_t(k)]), o.stride.push_back(s.stride[std::size_t(k)]);
  if (o.shape.size() > 8) return false;
  s = o;
  return true;
}

[[noreturn]] void die(const std::string& line, const std::string& why, const result& r) {
  std::fprintf(stderr, "fuzz_view_reduce: %s\n  case: %s\n  tessera: %s\n", why.c_str(), line.c_str(),
               format_result("-", r).c_str());
  std::abort();
}

template <class T>
void check_typed(const std::string& line, const case_t& c, const result& got) {
  const index_t n0 = count(c.shape);
  std::vector<T> in(static_cast<std::size_t>(n0));
  for (index_t i = 0; i < n0; ++i) in[std::size_t(i)] = data_value<T>(c.kind, c.seed, std::uint64_t(i));
  strided s;
  s.shape = c.shape;
  s.stride.resize(c.shape.size());
  index_t acc = 1;
  for (int d = int(c.shape.size()) - 1; d >= 0; --d) s.stride[std::size_t(d)] = acc, acc *= c.shape[std::size_t(d)];
  for (auto& st : c.v1)
    if (!apply_ref(s, st)) die(line, "Tessera accepted a view the reference rejects", got);
  for (auto& st : c.v2)
    if (!apply_ref(s, st)) die(line, "Tessera accepted a view the reference rejects", got);
  // the selected elements, row-major
  std::vector<T> y;
  const index_t m = count(s.shape);
  std::vector<index_t> idx(s.shape.size(), 0);
  for (index_t i = 0; i < m; ++i) {
    index_t off = s.base;
    for (std::size_t d = 0; d < idx.size(); ++d) off += idx[d] * s.stride[d];
    y.push_back(in[std::size_t(off)]);
    for (int d = int(idx.size()) - 1; d >= 0; --d) {
      if (++idx[std::size_t(d)] < s.shape[std::size_t(d)]) break;
      idx[std::size_t(d)] = 0;
    }
  }
  if (!c.red.present) {
    if (got.shape != s.shape || got.type != dt_of<T>()) die(line, "view shape or dtype differs from the reference", got);
    for (std::size_t i = 0; i < y.size(); ++i)
      if (got.bits[i] != to_bits(y[i])) die(line, "view value differs from the reference", got);
    return;
  }
  // reductions: output index -> the reduced elements
  const reduce_step& rd = c.red;
  const int r = int(s.shape.size());
  unsigned mask = 0;
  if (!rd.has_axes) mask = (1u << r) - 1u;
  for (auto a : rd.axes) {
    if (a < -r || a >= r) die(line, "Tessera accepted an axis out of range", got);
    const int k = int(a < 0 ? a + r : a);
    if (mask >> k & 1u) die(line, "Tessera accepted a repeated axis", got);
    mask |= 1u << k;
  }
  std::vector<index_t> oshape, kshape;
  for (int d = 0; d < r; ++d) {
    if (!(mask >> d & 1u)) oshape.push_back(s.shape[std::size_t(d)]);
    else if (rd.keep) oshape.push_back(1);
  }
  if (got.shape != oshape) die(line, "reduction shape differs from the reference", got);
  const index_t outn = count(oshape);
  index_t cnt = 1;
  for (int d = 0; d < r; ++d)
    if (mask >> d & 1u) cnt *= s.shape[std::size_t(d)];
  const bool arg = rd.name == redn::argmin || rd.name == redn::argmax;
  const bool ext = arg || rd.name == redn::amin || rd.name == redn::amax;
  if (ext && cnt == 0) die(line, "Tessera reduced an empty axis without identity", got);
  if (arg && rd.has_axes && rd.axes.size() != 1) die(line, "Tessera accepted argmin/argmax over several axes", got);
  // per output element: the reduced elements in row-major order
  std::vector<std::vector<T>> groups(static_cast<std::size_t>(outn));
  std::vector<index_t> id(std::size_t(r), 0);
  for (index_t i = 0; i < m; ++i) {
    index_t o = 0;
    for (int d = 0; d < r; ++d)
      if (!(mask >> d & 1u)) o = o * s.shape[std::size_t(d)] + id[std::size_t(d)];
    groups[std::size_t(o)].push_back(y[std::size_t(i)]);
    for (int d = r - 1; d >= 0; --d) {
      if (++id[std::size_t(d)] < s.shape[std::size_t(d)]) break;
      id[std::size_t(d)] = 0;
    }
  }
  for (index_t o = 0; o < outn; ++o) {
    const auto& g = groups[std::size_t(o)];
    const std::uint64_t b = got.bits[std::size_t(o)];
    auto near = [&](double want, double tol) {
      double v;
      if (got.type == dt::f4) v = double(from_bits<float>(b));
      else if (got.type == dt::f8) v = from_bits<double>(b);
      else return;
      if (std::isnan(want) != std::isnan(v)) die(line, "NaN differs from the reference", got);
      if (std::isnan(want)) return;
      if (std::isinf(want) || std::isinf(v)) {
        if (want != v) die(line, "infinity differs from the reference", got);
        return;
      }
      if (!(std::fabs(v - want) <= tol)) die(line, "value beyond tolerance of the reference", got);
    };
    double sum = 0, sabs = 0, s2 = 0;
    bool nan = false;
    for (auto v : g) {
      const double d = double(v);
      nan = nan || std::isnan(d);
      sum += d, sabs += std::fabs(d), s2 += d * d;
    }
    const double eps = std::is_same_v<T, float> ? 0x1p-23 : 0x1p-52;
    const double k = double(g.size());
    if constexpr (std::is_floating_point_v<T>) {
      switch (rd.name) {
        case redn::sum: near(sum, 4 * (k + 2) * eps * sabs); break;
        case redn::mean: near(g.empty() ? NAN : sum / k, (4 * (k + 2) * eps * sabs) / std::max(k, 1.0) + 1e-300); break;
        case redn::var:
        case redn::std: {
          const double mu = sum / k;
          double ss = 0;
          for (auto v : g) ss += (double(v) - mu) * (double(v) - mu);
          const double dv = std::max(k - double(rd.ddof), 0.0);
          const double var = g.empty() ? NAN : ss / dv;
          const double tol = 8 * (k + 4) * eps * s2 / std::max(dv, 1.0) + 1e-300;
          if (rd.name == redn::var) near(var, tol);
          else near(std::sqrt(var), std::isfinite(var) && var > 0 ? tol / std::sqrt(var) + 4 * eps * std::sqrt(var) : std::sqrt(tol));
          break;
        }
        default: break;
      }
    }
    if (ext) {
      index_t best = 0;
      for (std::size_t i = 1; i < g.size(); ++i) {
        const T a = g[i], cur = g[std::size_t(best)];
        if constexpr (std::is_floating_point_v<T>)
          if (std::isnan(cur)) break;
        bool better = rd.name == redn::argmin || rd.name == redn::amin ? a < cur : a > cur;
        if constexpr (std::is_floating_point_v<T>) better = better || std::isnan(a);
        if (better) best = index_t(i);
      }
      if (arg) {
        if (!rd.has_axes && std::int64_t(b) != best) die(line, "flat argmin/argmax differs from the reference", got);
        if (rd.has_axes && std::int64_t(b) != best) die(line, "argmin/argmax differs from the reference", got);
      } else if constexpr (std::is_floating_point_v<T>) {
        const T w = g[std::size_t(best)];
        const T v = from_bits<T>(b);
        if (!(v == w || (std::isnan(v) && std::isnan(w)))) die(line, "amin/amax differs from the reference", got);
      } else {
        if (b != to_bits(g[std::size_t(best)])) die(line, "amin/amax differs from the reference", got);
      }
    }
    if (rd.name == redn::any || rd.name == redn::all || rd.name == redn::cnz) {
      std::int64_t nz = 0;
      for (auto v : g) nz += v != T(0);
      const std::int64_t want = rd.name == redn::cnz ? nz : rd.name == redn::any ? nz > 0 : nz == std::int64_t(g.size());
      if (std::int64_t(b) != want) die(line, "any/all/count_nonzero differs from the reference", got);
    }
    if constexpr (!std::is_floating_point_v<T>) {
      if (rd.name == redn::sum || rd.name == redn::prod) {
        std::uint64_t a = rd.name == redn::sum ? 0 : 1;
        for (auto v : g) {
          const std::uint64_t u = std::uint64_t(std::int64_t(v));
          a = rd.name == redn::sum ? a + u : a * u;
        }
        if (b != a) die(line, "integer sum/prod differs from the reference (modulo 2^64)", got);
      }
    }
  }
}

void check(const std::string& line) {
  case_t c;
  bool parsed = false;
  result r;
  try {
    c = parse_case(line);
    parsed = true;
  } catch (const parse_error&) {
  }
  r = evaluate_line(line);
  if (r.status == result::other_error) die(line, "an exception that is not a tessera error", r);
  if (!parsed || r.status != result::ok) return;
  if (r.bits.size() != std::size_t(count(r.shape))) die(line, "result size differs from its shape", r);
  if (c.op.kind != opk::none || c.has_rc) return;  // the reference covers views and reductions
  switch (c.type) {
    case dt::f8: check_typed<double>(line, c, r); break;
    case dt::f4: check_typed<float>(line, c, r); break;
    case dt::i8: check_typed<std::int64_t>(line, c, r); break;
    case dt::i4: check_typed<std::int32_t>(line, c, r); break;
    case dt::u1: check_typed<std::uint8_t>(line, c, r); break;
    case dt::b1: check_typed<bool>(line, c, r); break;
    default: break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 1024) return 0;
  std::string s(reinterpret_cast<const char*>(data), size);
  const auto nl = s.find('\n');
  if (nl != std::string::npos) s.resize(nl);
  check(s);
  return 0;
}

#ifdef TDIFF_FUZZ_REPLAY_MAIN
// Replays corpus files (each: one case line) given as files or directories.
int main(int argc, char** argv) {
  std::size_t n = 0;
  for (int i = 1; i < argc; ++i) {
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(argv[i])) {
      for (auto& e : std::filesystem::directory_iterator(argv[i])) files.push_back(e.path());
    } else {
      files.push_back(argv[i]);
    }
    std::sort(files.begin(), files.end());
    for (auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      const std::string d = ss.str();
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(d.data()), d.size());
      ++n;
    }
  }
  std::printf("fuzz_view_reduce: replayed %zu inputs, no failure\n", n);
  return n ? 0 : 1;
}
#endif
