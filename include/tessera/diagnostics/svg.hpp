// Chunk-grid pictures (issue 17): ts::to_svg(x) draws the chunk grid of an array or expression
// as a standalone SVG image, the picture Dask shows for an array in a notebook; ts::write_svg
// writes it to a file. Nothing is evaluated: only x.grid() (shape and chunks) is read.
//
//   1-d   a bar `size` px long and size/5 px thick, a line at every chunk boundary;
//   2-d   a rectangle, axis 0 down and axis 1 across, a line at every chunk boundary;
//   3-d   an oblique box: axis 2 across, axis 1 down, axis 0 the depth, drawn at 45 degrees and
//         foreshortened to 0.6 of its length; the front, top and left faces show the grid;
//   > 3   the trailing three axes as a 3-d box, and a caption naming the leading axes.
// Each axis is labelled with its length. Boundaries are at their real positions (irregular
// chunks included).
//
// Scale: the longest axis is drawn `size` px long. The drawn ratio of the longest axis to a
// shorter one is the true ratio q up to 2:1; from 2:1 to 100:1 it grows logarithmically from 2
// to 5 (2 + 3 ln(q/2) / ln 50); beyond 100:1 it stays 5:1. So no axis is drawn shorter than
// size/5 px (24 px at the default 120): a 1e6 x 10 array is a 24 x 120 px strip.
//
// Dense chunks: along each axis the boundaries are walked in order and one is drawn only when
// it lies at least `min_line_gap` px from the previously drawn line and from the far edge (the
// two outer edges are always drawn). A regular axis whose chunks are narrower than the gap thus
// shows every k-th boundary, and no axis gets more than length / min_line_gap + 1 lines (41 at
// the defaults). A face on which a boundary was skipped is filled dark brown instead of light
// tan, so "more chunks than lines" is visible at a glance.
//
// A 0-d array or a zero-length axis has no picture: tessera::invalid_argument naming the shape.
#pragma once
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "../core/errors.hpp"
#include "../core/expression.hpp"
#include "../core/grid.hpp"
#include "../store/file.hpp"

namespace tessera {

/// Options of ts::to_svg / ts::write_svg.
struct svg_options {
  /// Length in px of the longest axis (at least 10).
  int size = 120;
  /// Smallest distance in px between two drawn boundaries of one axis (>= 0; 0 draws all).
  double min_line_gap = 3;
};

namespace detail::svg {

inline constexpr double max_shown_ratio = 5;  // longest : shortest drawn axis, at most
inline constexpr double depth_factor = 0.6;   // foreshortening of the 3-d depth axis
inline constexpr double font_px = 14;
inline constexpr double pad = 5;  // margin around everything drawn
inline constexpr const char* light_fill = "#ECB172";
inline constexpr const char* dark_fill = "#8B4903";

struct pt {
  double x = 0, y = 0;
};
inline pt operator+(pt a, pt b) { return {a.x + b.x, a.y + b.y}; }
inline pt operator*(double k, pt a) { return {k * a.x, k * a.y}; }

/// Coordinates with at most two decimals, no trailing zeros, locale-independent.
inline std::string num(double v) {
  double r = std::round(v * 100) / 100;
  if (r == 0) r = 0;  // no "-0"
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, r, std::chars_format::fixed, 2);
  std::string s(buf, res.ptr);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

/// Drawn ratio for a true ratio q >= 1 of the longest axis to this one.
inline double shown_ratio(double q) {
  if (q <= 2) return q;
  if (q >= 100) return max_shown_ratio;
  return 2 + (max_shown_ratio - 2) * std::log(q / 2) / std::log(50.0);
}

/// Drawn length in px of each axis of `shape` (all lengths positive).
inline std::vector<double> axis_lengths(const shape_t& shape, double size) {
  const double longest = double(*std::max_element(shape.begin(), shape.end()));
  std::vector<double> out;
  for (auto n : shape) out.push_back(size / shown_ratio(longest / double(n)));
  return out;
}

/// The drawn boundaries of one axis, as fractions of its length (0 and 1 included).
struct axis_lines {
  int axis = -1;  // the array axis, -1 for the sides of a 1-d bar
  std::vector<double> at;
  bool thinned = false;  // some boundary was not drawn
};

inline axis_lines select_lines(int axis, const std::vector<index_t>& offsets, double length,
                               double gap) {
  axis_lines out;
  out.axis = axis;
  const double n = double(offsets.back());
  const double eps = 1e-9;
  out.at.push_back(0);
  double last = 0;
  for (std::size_t i = 1; i + 1 < offsets.size(); ++i) {
    const double f = double(offsets[i]) / n, p = f * length;
    if (p - last >= gap - eps && length - p >= gap - eps) {
      out.at.push_back(f);
      last = p;
    } else {
      out.thinned = true;
    }
  }
  out.at.push_back(1);
  return out;
}

struct line {
  pt a, b;
  double width;
};
struct face {
  const char* name;
  std::array<pt, 4> corners;
  bool dense;
  std::vector<std::pair<int, std::vector<line>>> groups;  // (axis, its lines)
};
struct text {
  pt at;
  double angle;  // degrees, clockwise on screen
  bool start;    // text-anchor start (else middle)
  std::string cls, s;
  std::size_t chars;  // for the width estimate (an entity counts once)
};

/// The parallelogram origin, origin + u, origin + u + v, origin + v; lines across u at the
/// boundaries of `along_u` and across v at those of `along_v`.
inline face make_face(const char* name, pt origin, pt u, pt v, const axis_lines& along_u,
                      const axis_lines& along_v) {
  face f{name,
         {origin, origin + u, origin + u + v, origin + v},
         along_u.thinned || along_v.thinned,
         {}};
  auto group = [&](const axis_lines& al, pt step, pt span) {
    std::vector<line> ls;
    for (double t : al.at) {
      const pt a = origin + t * step;
      ls.push_back({a, a + span, (t == 0 || t == 1) ? 2.0 : 1.0});
    }
    f.groups.emplace_back(al.axis, std::move(ls));
  };
  group(along_u, u, v);
  group(along_v, v, u);
  return f;
}

struct bbox {
  double x0 = std::numeric_limits<double>::infinity(), y0 = x0, x1 = -x0, y1 = -x0;
  void add(pt p, double r = 0) {
    x0 = std::min(x0, p.x - r), y0 = std::min(y0, p.y - r);
    x1 = std::max(x1, p.x + r), y1 = std::max(y1, p.y + r);
  }
  void add(const text& t) {
    const double w = 0.6 * font_px * double(t.chars), asc = 0.75 * font_px, desc = 0.25 * font_px;
    const double l = t.start ? 0 : -w / 2, r = t.start ? w : w / 2;
    const double c = std::cos(t.angle * std::numbers::pi / 180),
                 s = std::sin(t.angle * std::numbers::pi / 180);
    for (pt q : {pt{l, -asc}, pt{r, -asc}, pt{l, desc}, pt{r, desc}})
      add(pt{t.at.x + q.x * c - q.y * s, t.at.y + q.x * s + q.y * c});
  }
};

inline text label(pt at, double angle, bool start, int axis, index_t n) {
  const std::string s = std::to_string(n);
  return {at, angle, start, "axis" + std::to_string(axis), s, s.size()};
}

/// A label right of the vertical edge at x from y0 to y1: rotated when 3 digits or more.
inline text right_label(double x, double y0, double y1, int axis, index_t n) {
  if (std::to_string(n).size() >= 3)
    return label({x + 8 + 0.75 * font_px, (y0 + y1) / 2}, -90, false, axis, n);
  return label({x + 8, (y0 + y1) / 2 + 0.35 * font_px}, 0, true, axis, n);
}

inline std::string render(const std::vector<face>& faces, std::vector<text> texts,
                          const std::string& comment) {
  bbox bb;
  for (auto& f : faces) {
    for (pt c : f.corners) bb.add(c);
    for (auto& g : f.groups)
      for (auto& l : g.second) bb.add(l.a, l.width / 2), bb.add(l.b, l.width / 2);
  }
  for (auto& t : texts) bb.add(t);
  const pt shift{pad - bb.x0, pad - bb.y0};
  const double w = std::ceil(bb.x1 - bb.x0 + 2 * pad), h = std::ceil(bb.y1 - bb.y0 + 2 * pad);
  auto X = [&](pt p) { return num(p.x + shift.x); };
  auto Y = [&](pt p) { return num(p.y + shift.y); };

  std::string o;
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(w) + "\" height=\"" + num(h) +
       "\" viewBox=\"0 0 " + num(w) + " " + num(h) + "\">\n";
  o += "<!-- " + comment + " -->\n";
  for (auto& f : faces) {
    o += "<g class=\"" + std::string(f.name) +
         "\" stroke=\"#000\" stroke-width=\"1\" stroke-linecap=\"square\">\n";
    o += "<polygon points=\"";
    for (std::size_t k = 0; k < 4; ++k)
      o += (k ? " " : "") + X(f.corners[k]) + "," + Y(f.corners[k]);
    o += "\" fill=\"" + std::string(f.dense ? dark_fill : light_fill) +
         "\" fill-opacity=\"0.63\" stroke=\"none\"/>\n";
    for (auto& [axis, ls] : f.groups) {
      o += axis < 0 ? "<g class=\"sides\">\n" : "<g class=\"axis" + std::to_string(axis) + "\">\n";
      for (auto& l : ls) {
        o += "<line x1=\"" + X(l.a) + "\" y1=\"" + Y(l.a) + "\" x2=\"" + X(l.b) + "\" y2=\"" +
             Y(l.b) + "\"";
        if (l.width != 1) o += " stroke-width=\"" + num(l.width) + "\"";
        o += "/>\n";
      }
      o += "</g>\n";
    }
    o += "</g>\n";
  }
  o += "<g class=\"labels\" font-family=\"sans-serif\" font-size=\"" + num(font_px) +
       "\" text-anchor=\"middle\" fill=\"#000\">\n";
  for (auto& t : texts) {
    const std::string x = X(t.at), y = Y(t.at);
    o += "<text class=\"" + t.cls + "\" x=\"" + x + "\" y=\"" + y + "\"";
    if (t.start) o += " text-anchor=\"start\"";
    if (t.angle != 0) o += " transform=\"rotate(" + num(t.angle) + " " + x + " " + y + ")\"";
    o += ">" + t.s + "</text>\n";
  }
  o += "</g>\n</svg>\n";
  return o;
}

inline std::string join(const std::vector<index_t>& v, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

}  // namespace detail::svg

/// The chunk grid as a standalone SVG image (see the top of this header for the drawing rules).
/// Throws tessera::invalid_argument for a 0-d grid, a zero-length axis or bad options.
inline std::string to_svg(const chunk_grid& g, const svg_options& opt = {}) {
  namespace S = detail::svg;
  if (opt.size < 10)
    throw_invalid("svg_options::size ", opt.size, " is too small: use at least 10 (px)");
  if (!std::isfinite(opt.min_line_gap) || opt.min_line_gap < 0)
    throw_invalid("svg_options::min_line_gap ", opt.min_line_gap, " must be a finite number >= 0");
  const int rank = g.rank();
  if (rank == 0)
    throw_invalid("to_svg: an array of rank 0 (shape ", g.shape(),
                  ") has no chunk-grid picture; it needs at least one axis");
  for (int d = 0; d < rank; ++d)
    if (g.shape()[std::size_t(d)] == 0)
      throw_invalid("to_svg: cannot draw shape ", g.shape(), ": axis ", d, " has length 0");

  const int first = std::max(0, rank - 3);  // the drawn axes are first .. rank - 1
  const shape_t drawn(g.shape().begin() + first, g.shape().end());
  const double size = double(opt.size);
  const std::vector<double> len = S::axis_lengths(drawn, size);
  std::vector<S::axis_lines> al;
  for (int d = first; d < rank; ++d) {
    // The depth axis of a box is drawn foreshortened: its lines are closer on screen.
    const double k = drawn.size() == 3 && d == first ? S::depth_factor : 1;
    al.push_back(
        S::select_lines(d, g.offsets(d), k * len[std::size_t(d - first)], opt.min_line_gap));
  }

  const std::string comment = "tessera chunk grid: shape " + detail::cat(g.shape()) + ", " +
                              S::join(g.numblocks(), " x ") + " chunks";
  std::vector<S::face> faces;
  std::vector<S::text> texts;
  const index_t* n = g.shape().data() + first;
  if (drawn.size() == 1) {
    const double L = size, T = size / S::max_shown_ratio;
    S::axis_lines sides;
    sides.at = {0, 1};
    faces.push_back(S::make_face("front", {0, 0}, {L, 0}, {0, T}, al[0], sides));
    texts.push_back(S::label({L / 2, T + 20}, 0, false, 0, n[0]));
  } else if (drawn.size() == 2) {
    const double W = len[1], H = len[0];
    faces.push_back(S::make_face("front", {0, 0}, {W, 0}, {0, H}, al[1], al[0]));
    texts.push_back(S::label({W / 2, H + 20}, 0, false, first + 1, n[1]));
    texts.push_back(S::right_label(W, 0, H, first, n[0]));
  } else {
    const double D = S::depth_factor * len[0], H = len[1], W = len[2];
    const S::pt a0{D, D}, a1{0, H}, a2{W, 0};
    faces.push_back(S::make_face("top", {0, 0}, a2, a0, al[2], al[0]));
    faces.push_back(S::make_face("left", {0, 0}, a0, a1, al[0], al[1]));
    faces.push_back(S::make_face("front", a0, a2, a1, al[2], al[1]));
    texts.push_back(S::label({D + W / 2, D + H + 20}, 0, false, first + 2, n[2]));
    texts.push_back(S::right_label(D + W, D, D + H, first + 1, n[1]));
    // Along the lower edge of the left face, (0, H) to (D, D + H), 17 px below it.
    const double off = 17 / std::sqrt(2.0);
    texts.push_back(S::label({D / 2 - off, H + D / 2 + off}, 45, false, first, n[0]));
  }
  if (first > 0) {
    S::bbox bb;
    for (auto& f : faces)
      for (auto c : f.corners) bb.add(c);
    for (auto& t : texts) bb.add(t);
    const shape_t lead(g.shape().begin(), g.shape().begin() + first);
    shape_t lead_blocks;
    for (int d = 0; d < first; ++d)
      lead_blocks.push_back(index_t(g.chunks()[std::size_t(d)].size()));
    auto caption = [&](const char* times) {
      return "leading axes " + S::join(lead, times) + " (" + S::join(lead_blocks, times) +
             " chunks)";
    };
    texts.push_back(
        {{bb.x0, bb.y1 + 20}, 0, true, "leading", caption(" &#215; "), caption(" x ").size()});
  }
  return S::render(faces, std::move(texts), comment);
}

/// The chunk grid of x as a standalone SVG image; x is not evaluated.
template <expression_type X>
std::string to_svg(const X& x, const svg_options& opt = {}) {
  return to_svg(x.grid(), opt);
}

/// Writes to_svg(g, opt) to `path` atomically (a temporary name beside it, then a rename;
/// parent directories are created). Throws tessera::io_error naming the path on failure.
inline void write_svg(const chunk_grid& g, const std::string& path, const svg_options& opt = {}) {
  const std::string text = to_svg(g, opt);
  try {
    detail::write_file_atomic(path, text);
  } catch (const io_error& e) {
    std::string why = e.what();
    if (why.rfind("tessera: ", 0) == 0) why.erase(0, 9);
    throw_io("cannot write the chunk-grid SVG ", path, ": ", why);
  }
}

/// Writes the chunk grid of x as an SVG image to `path` (see write_svg(chunk_grid, ...)).
template <expression_type X>
void write_svg(const X& x, const std::string& path, const svg_options& opt = {}) {
  write_svg(x.grid(), path, opt);
}

}  // namespace tessera
