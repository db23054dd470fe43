// Chunk-grid pictures (tessera/diagnostics/svg.hpp, issue 17): the SVG text for fixed shapes
// (whole documents worked out by hand; line counts and positions at the chunk boundaries for
// 1-d, 2-d regular and irregular, 3-d, extreme aspect ratios, dense grids, rank > 3); the
// errors; write_svg; and the pictures rendered by a real SVG renderer (rsvg-convert, Debian's
// librsvg2-bin) to PNG, decoded here, with the dark line runs along rows and columns through
// the picture counted and placed at the expected chunk boundaries.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <tessera/diagnostics/svg.hpp>
#include <tessera/random.hpp>
#include <vector>

#include "support/cases.hpp"
#include "support/files.hpp"
#include "support/png.hpp"

namespace ts = tessera;
namespace fs = std::filesystem;
using namespace testing;

namespace {

struct seg {
  double x1, y1, x2, y2, width;
};
struct pt2 {
  double x, y;
};
struct label_el {
  std::string cls;
  double x, y, angle;
  bool start;
  std::string text;
};

/// The element `<g class="cls" ...> ... </g>` (nested groups included) at or after `from`.
std::string group(const std::string& s, const std::string& cls, std::size_t from = 0) {
  const std::size_t b = s.find("<g class=\"" + cls + "\"", from);
  INFO("group " << cls);
  REQUIRE(b != std::string::npos);
  int depth = 0;
  for (std::size_t i = b;;) {
    const std::size_t o = s.find("<g", i), c = s.find("</g>", i);
    REQUIRE(c != std::string::npos);
    if (o < c) {
      ++depth, i = o + 2;
    } else {
      if (--depth == 0) return s.substr(b, c + 4 - b);
      i = c + 4;
    }
  }
}
/// Group `axis` ("axis1", "sides") inside face `face`.
std::string face_group(const std::string& s, const std::string& face, const std::string& axis) {
  return group(group(s, face), axis);
}

std::vector<seg> lines(const std::string& s) {
  static const std::regex re(
      R"re(<line x1="([-0-9.]+)" y1="([-0-9.]+)" x2="([-0-9.]+)" y2="([-0-9.]+)"(?: stroke-width="([0-9.]+)")?/>)re");
  std::vector<seg> out;
  for (std::sregex_iterator it(s.begin(), s.end(), re), end; it != end; ++it) {
    const auto& m = *it;
    out.push_back({std::stod(m[1]), std::stod(m[2]), std::stod(m[3]), std::stod(m[4]),
                   m[5].matched ? std::stod(m[5]) : 1.0});
  }
  return out;
}
std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t i = s.find(what); i != std::string::npos; i = s.find(what, i + 1)) ++n;
  return n;
}

/// The four corners of the polygon of face `face`.
std::vector<pt2> corners(const std::string& s, const std::string& face) {
  const std::string g = group(s, face);
  static const std::regex re(R"re(points="([^"]+)")re");
  std::smatch m;
  REQUIRE(std::regex_search(g, m, re));
  std::vector<pt2> out;
  static const std::regex p(R"re(([-0-9.]+),([-0-9.]+))re");
  const std::string pts = m[1];
  for (std::sregex_iterator it(pts.begin(), pts.end(), p), end; it != end; ++it)
    out.push_back({std::stod((*it)[1]), std::stod((*it)[2])});
  REQUIRE(out.size() == 4);
  return out;
}
std::string fill_of(const std::string& s, const std::string& face) {
  const std::string g = group(s, face);
  const std::size_t i = g.find("fill=\"");
  REQUIRE(i != std::string::npos);
  return g.substr(i + 6, 7);
}

std::vector<label_el> labels(const std::string& s) {
  static const std::regex re(
      R"re(<text class="([^"]+)" x="([-0-9.]+)" y="([-0-9.]+)"( text-anchor="start")?(?: transform="rotate\(([-0-9.]+) [^)]*\)")?>([^<]*)</text>)re");
  std::vector<label_el> out;
  for (std::sregex_iterator it(s.begin(), s.end(), re), end; it != end; ++it) {
    const auto& m = *it;
    out.push_back({m[1], std::stod(m[2]), std::stod(m[3]), m[5].matched ? std::stod(m[5]) : 0.0,
                   m[4].matched, m[6]});
  }
  return out;
}

double attr(const std::string& s, const std::string& name) {
  const std::size_t i = s.find(" " + name + "=\"");
  REQUIRE(i != std::string::npos);
  return std::stod(s.substr(i + name.size() + 3));
}

/// a + (b - a) * offset / n for every chunk boundary of `chunks` (0 and n included).
std::vector<double> boundaries(const std::vector<index_t>& chunks, double a, double b) {
  index_t n = 0;
  for (auto c : chunks) n += c;
  std::vector<double> out{a};
  index_t o = 0;
  for (auto c : chunks) out.push_back(a + (b - a) * double(o += c) / double(n));
  return out;
}

/// Vertical lines spanning y0..y1 at xs, or horizontal ones spanning x0..x1 at ys; the two
/// outer ones 2 px wide, the others 1 px.
void check_lines(const std::vector<seg>& ls, const std::vector<double>& at, bool vertical,
                 double from, double to) {
  REQUIRE(ls.size() == at.size());
  for (std::size_t i = 0; i < ls.size(); ++i) {
    INFO("line " << i << " of " << ls.size());
    const auto& l = ls[i];
    const double p = vertical ? l.x1 : l.y1;
    CHECK(p == Approx(at[i]).margin(0.011));
    CHECK((vertical ? l.x2 : l.y2) == Approx(at[i]).margin(0.011));
    CHECK((vertical ? l.y1 : l.x1) == Approx(from).margin(0.011));
    CHECK((vertical ? l.y2 : l.x2) == Approx(to).margin(0.011));
    CHECK(l.width == (i == 0 || i + 1 == ls.size() ? 2 : 1));
  }
}

std::vector<double> xs_of(const std::vector<seg>& ls) {
  std::vector<double> v;
  for (auto& l : ls) v.push_back(l.x1);
  return v;
}
std::vector<double> ys_of(const std::vector<seg>& ls) {
  std::vector<double> v;
  for (auto& l : ls) v.push_back(l.y1);
  return v;
}

// ---- rendering -----------------------------------------------------------------------------

bool have_rsvg() {
  static const bool ok = std::system("command -v rsvg-convert >/dev/null 2>&1") == 0;
  return ok;
}
bool have_fonts() {
  static const bool ok = std::system("fc-list 2>/dev/null | grep -q .") == 0;
  return ok;
}

constexpr int zoom = 4;

/// The SVG rendered by rsvg-convert at `zoom` on white, decoded.
png_image render(const std::string& svg) {
  temp_dir dir("tessera_svg_render");
  spit(dir / "in.svg", svg);
  const std::string cmd = "rsvg-convert -z " + std::to_string(zoom) + " -b white -o '" +
                          (dir / "out.png") + "' '" + (dir / "in.svg") + "'";
  INFO(cmd);
  REQUIRE(std::system(cmd.c_str()) == 0);
  REQUIRE(fs::file_size(dir / "out.png") > 0);
  png_image img = read_png(dir / "out.png");
  // The picture has the SVG's size times the zoom.
  CHECK(std::abs(img.width - attr(svg, "width") * zoom) <= 1);
  CHECK(std::abs(img.height - attr(svg, "height") * zoom) <= 1);
  return img;
}

/// Centres (in SVG px) of the runs of dark pixels along the row through SVG y = `at`
/// (horizontal) or the column through x = `at`, from SVG coordinate a to b.
std::vector<double> dark_runs(const png_image& img, bool horizontal, double at, double a,
                              double b) {
  const int fixed = int(at * zoom);
  const int limit = horizontal ? img.width : img.height;
  const int i0 = std::max(0, int(std::floor(a * zoom))),
            i1 = std::min(limit - 1, int(std::ceil(b * zoom)));
  std::vector<double> out;
  int start = -1;
  for (int i = i0; i <= i1 + 1; ++i) {
    const bool dark =
        i <= i1 && (horizontal ? img.luminance(i, fixed) : img.luminance(fixed, i)) < 100;
    if (dark && start < 0) start = i;
    if (!dark && start >= 0) {
      out.push_back((start + i) / 2.0 / zoom);
      start = -1;
    }
  }
  return out;
}

void check_runs(const std::vector<double>& runs, const std::vector<double>& expected) {
  INFO("dark runs found at " << Catch::Detail::stringify(runs) << ", lines expected at "
                             << Catch::Detail::stringify(expected));
  REQUIRE(runs.size() == expected.size());
  for (std::size_t i = 0; i < runs.size(); ++i) CHECK(runs[i] == Approx(expected[i]).margin(0.75));
}

/// An axis-aligned face from x0..x1, y0..y1 with vertical lines at xs and horizontal ones at
/// ys: one row between the first two horizontal lines crosses exactly the vertical lines, one
/// column between the first two vertical lines exactly the horizontal ones.
void check_rect_face(const png_image& img, double x0, double y0, double x1, double y1,
                     const std::vector<double>& xs, const std::vector<double>& ys) {
  const double row = ys.size() > 1 ? (ys[0] + ys[1]) / 2 : (y0 + y1) / 2;
  const double col = xs.size() > 1 ? (xs[0] + xs[1]) / 2 : (x0 + x1) / 2;
  {
    INFO("row at y = " << row);
    check_runs(dark_runs(img, true, row, x0 - 1.5, x1 + 1.5), xs);
  }
  {
    INFO("column at x = " << col);
    check_runs(dark_runs(img, false, col, y0 - 1.5, y1 + 1.5), ys);
  }
}

/// Dark pixels in the SVG rectangle x0..x1, y0..y1.
int ink(const png_image& img, double x0, double y0, double x1, double y1) {
  int n = 0;
  for (int y = std::max(0, int(y0 * zoom)); y < std::min(img.height, int(y1 * zoom)); ++y)
    for (int x = std::max(0, int(x0 * zoom)); x < std::min(img.width, int(x1 * zoom)); ++x)
      n += img.luminance(x, y) < 100;
  return n;
}

}  // namespace

TEST_CASE("to_svg: whole documents for small fixed grids", "[svg]") {
  SECTION("1-d: shape (30,), chunks of 10") {
    // 120 x 24 px bar, lines at 0, 40, 80, 120; the label "30" (about 17 x 14 px) 20 px below;
    // everything moved 5 px inside the margin (the 2 px outer lines reach 1 px further).
    const std::string expected =
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"132\" height=\"59\" viewBox=\"0 0 132 59\">\n"
        "<!-- tessera chunk grid: shape (30,), 3 chunks -->\n"
        "<g class=\"front\" stroke=\"#000\" stroke-width=\"1\" stroke-linecap=\"square\">\n"
        "<polygon points=\"6,6 126,6 126,30 6,30\" fill=\"#ECB172\" fill-opacity=\"0.63\" stroke=\"none\"/>\n"
        "<g class=\"axis0\">\n"
        "<line x1=\"6\" y1=\"6\" x2=\"6\" y2=\"30\" stroke-width=\"2\"/>\n"
        "<line x1=\"46\" y1=\"6\" x2=\"46\" y2=\"30\"/>\n"
        "<line x1=\"86\" y1=\"6\" x2=\"86\" y2=\"30\"/>\n"
        "<line x1=\"126\" y1=\"6\" x2=\"126\" y2=\"30\" stroke-width=\"2\"/>\n"
        "</g>\n"
        "<g class=\"sides\">\n"
        "<line x1=\"6\" y1=\"6\" x2=\"126\" y2=\"6\" stroke-width=\"2\"/>\n"
        "<line x1=\"6\" y1=\"30\" x2=\"126\" y2=\"30\" stroke-width=\"2\"/>\n"
        "</g>\n"
        "</g>\n"
        "<g class=\"labels\" font-family=\"sans-serif\" font-size=\"14\" text-anchor=\"middle\" fill=\"#000\">\n"
        "<text class=\"axis0\" x=\"66\" y=\"50\">30</text>\n"
        "</g>\n"
        "</svg>\n";
    CHECK(ts::to_svg(ts::chunk_grid::make({30}, {10}, 8)) == expected);
  }
  SECTION("2-d irregular: shape (30, 40), chunks ((10, 20), (25, 15))") {
    // 120 px across (axis 1, the longest), 90 px down (30:40 drawn true); vertical lines at
    // 0, 75, 120 and horizontal ones at 0, 30, 90; "40" below, "30" to the right (2 digits:
    // not rotated, anchored at its start 8 px right of the edge).
    const std::string expected =
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"156\" height=\"125\" viewBox=\"0 0 156 125\">\n"
        "<!-- tessera chunk grid: shape (30, 40), 2 x 2 chunks -->\n"
        "<g class=\"front\" stroke=\"#000\" stroke-width=\"1\" stroke-linecap=\"square\">\n"
        "<polygon points=\"6,6 126,6 126,96 6,96\" fill=\"#ECB172\" fill-opacity=\"0.63\" stroke=\"none\"/>\n"
        "<g class=\"axis1\">\n"
        "<line x1=\"6\" y1=\"6\" x2=\"6\" y2=\"96\" stroke-width=\"2\"/>\n"
        "<line x1=\"81\" y1=\"6\" x2=\"81\" y2=\"96\"/>\n"
        "<line x1=\"126\" y1=\"6\" x2=\"126\" y2=\"96\" stroke-width=\"2\"/>\n"
        "</g>\n"
        "<g class=\"axis0\">\n"
        "<line x1=\"6\" y1=\"6\" x2=\"126\" y2=\"6\" stroke-width=\"2\"/>\n"
        "<line x1=\"6\" y1=\"36\" x2=\"126\" y2=\"36\"/>\n"
        "<line x1=\"6\" y1=\"96\" x2=\"126\" y2=\"96\" stroke-width=\"2\"/>\n"
        "</g>\n"
        "</g>\n"
        "<g class=\"labels\" font-family=\"sans-serif\" font-size=\"14\" text-anchor=\"middle\" fill=\"#000\">\n"
        "<text class=\"axis1\" x=\"66\" y=\"116\">40</text>\n"
        "<text class=\"axis0\" x=\"134\" y=\"55.9\" text-anchor=\"start\">30</text>\n"
        "</g>\n"
        "</svg>\n";
    CHECK(ts::to_svg(ts::chunk_grid({30, 40}, {{10, 20}, {25, 15}})) == expected);
  }
}

TEST_CASE("to_svg: 1-d bar", "[svg]") {
  const auto g = ts::chunk_grid::make({1000}, {300}, 8);
  const std::string s = ts::to_svg(g);
  const auto c = corners(s, "front");
  CHECK(c[1].x - c[0].x == Approx(120));  // the longest (only) axis: size px
  CHECK(c[3].y - c[0].y == Approx(24));   // a thin bar: size / 5
  check_lines(lines(face_group(s, "front", "axis0")),
              boundaries({300, 300, 300, 100}, c[0].x, c[1].x), true, c[0].y, c[3].y);
  check_lines(lines(face_group(s, "front", "sides")), {c[0].y, c[3].y}, false, c[0].x, c[1].x);
  const auto ls = labels(s);
  REQUIRE(ls.size() == 1);
  CHECK(ls[0].text == "1000");
  CHECK(ls[0].x == Approx((c[0].x + c[1].x) / 2));
  CHECK(ls[0].y > c[3].y);
  CHECK(fill_of(s, "front") == "#ECB172");
  CHECK(count(s, "<line") == 7);
}

TEST_CASE("to_svg: 2-d, the seed-003 array and irregular chunks", "[svg]") {
  SECTION("seed 003: (20000, 20000) in 2000 x 2000 chunks") {
    auto x = ts::random::default_rng(3).normal<double>(10, 1, {20000, 20000}, {2000, 2000});
    const std::string s = ts::to_svg(x);
    CHECK(s == ts::to_svg(x.grid()));
    const auto c = corners(s, "front");
    CHECK(c[1].x - c[0].x == Approx(120));
    CHECK(c[3].y - c[0].y == Approx(120));
    const std::vector<index_t> ten(10, 2000);
    check_lines(lines(face_group(s, "front", "axis1")), boundaries(ten, c[0].x, c[1].x), true,
                c[0].y, c[3].y);
    check_lines(lines(face_group(s, "front", "axis0")), boundaries(ten, c[0].y, c[3].y), false,
                c[0].x, c[1].x);
    CHECK(count(s, "<line") == 22);
    const auto ls = labels(s);
    REQUIRE(ls.size() == 2);
    CHECK(ls[0].cls == "axis1");
    CHECK(ls[0].text == "20000");
    CHECK(ls[1].cls == "axis0");
    CHECK(ls[1].text == "20000");
    CHECK(ls[1].angle == -90);  // long labels right of the picture are turned
    CHECK(s.find("10 x 10 chunks") != std::string::npos);
  }
  SECTION("irregular chunks at their real positions") {
    const chunks_t ch{{5, 15, 10, 1, 69}, {1, 39, 20, 40}};
    const auto g = ts::chunk_grid({100, 100}, ch);
    const std::string s = ts::to_svg(g);
    const auto c = corners(s, "front");
    // A boundary 1 px from its neighbour (1 of 100 at 120 px: 1.2 px) is skipped; the face is
    // then filled dark. Axis 1: 1 / 100 -> 1.2 px from the edge: skipped too.
    check_lines(lines(face_group(s, "front", "axis0")),
                {c[0].y, c[0].y + 6, c[0].y + 24, c[0].y + 36, c[0].y + 120}, false, c[0].x,
                c[1].x);
    check_lines(lines(face_group(s, "front", "axis1")),
                {c[0].x, c[0].x + 48, c[0].x + 72, c[0].x + 120}, true, c[0].y, c[3].y);
    CHECK(fill_of(s, "front") == "#8B4903");
    // With no minimum gap every boundary is drawn, and the fill is light.
    const std::string all = ts::to_svg(g, {.size = 120, .min_line_gap = 0});
    const auto c2 = corners(all, "front");
    check_lines(lines(face_group(all, "front", "axis0")), boundaries(ch[0], c2[0].y, c2[3].y),
                false, c2[0].x, c2[1].x);
    check_lines(lines(face_group(all, "front", "axis1")), boundaries(ch[1], c2[0].x, c2[1].x), true,
                c2[0].y, c2[3].y);
    CHECK(fill_of(all, "front") == "#ECB172");
  }
}

TEST_CASE("to_svg: 3-d oblique box", "[svg]") {
  // Axis 2 across (300: 120 px), axis 1 down (200: 1.5:1, 80 px), axis 0 the depth (100: 3:1
  // drawn 2 + 3 ln(1.5) / ln 50 = 2.3109:1, 51.93 px, foreshortened by 0.6 to 31.16 px at 45
  // degrees).
  const chunks_t ch{{30, 30, 30, 10}, {50, 50, 50, 50}, {100, 100, 100}};
  const std::string s = ts::to_svg(ts::chunk_grid({100, 200, 300}, ch));
  const double D = 0.6 * 120 / (2 + 3 * std::log(1.5) / std::log(50.0));
  CHECK(D == Approx(31.156).margin(0.001));
  const auto top = corners(s, "top"), left = corners(s, "left"), front = corners(s, "front");
  const double ox = top[0].x, oy = top[0].y;
  // top: (0,0) (W,0) (W+D,D) (D,D); left: (0,0) (D,D) (D,D+H) (0,H); front: (D,D) .. (D+W,D+H)
  const std::vector<pt2> et{{0, 0}, {120, 0}, {120 + D, D}, {D, D}},
      el{{0, 0}, {D, D}, {D, D + 80}, {0, 80}},
      ef{{D, D}, {D + 120, D}, {D + 120, D + 80}, {D, D + 80}};
  for (int k = 0; k < 4; ++k) {
    CHECK(top[k].x - ox == Approx(et[k].x).margin(0.011));
    CHECK(top[k].y - oy == Approx(et[k].y).margin(0.011));
    CHECK(left[k].x - ox == Approx(el[k].x).margin(0.011));
    CHECK(left[k].y - oy == Approx(el[k].y).margin(0.011));
    CHECK(front[k].x - ox == Approx(ef[k].x).margin(0.011));
    CHECK(front[k].y - oy == Approx(ef[k].y).margin(0.011));
  }
  // Front face: a plain grid of axes 2 and 1.
  check_lines(lines(face_group(s, "front", "axis2")), boundaries(ch[2], ox + D, ox + D + 120), true,
              oy + D, oy + D + 80);
  check_lines(lines(face_group(s, "front", "axis1")), boundaries(ch[1], oy + D, oy + D + 80), false,
              ox + D, ox + D + 120);
  // Top face: horizontal lines at the depth boundaries, each starting D * t right.
  const auto td = lines(face_group(s, "top", "axis0"));
  const auto dy = boundaries(ch[0], oy, oy + D);
  REQUIRE(td.size() == 5);
  for (std::size_t i = 0; i < td.size(); ++i) {
    CHECK(td[i].y1 == Approx(dy[i]).margin(0.011));
    CHECK(td[i].y2 == Approx(dy[i]).margin(0.011));
    CHECK(td[i].x1 - ox == Approx(dy[i] - oy).margin(0.011));
    CHECK(td[i].x2 - td[i].x1 == Approx(120).margin(0.011));
  }
  // Top face, lines along the depth at the axis-2 boundaries; left face, at both.
  CHECK(lines(face_group(s, "top", "axis2")).size() == 4);
  CHECK(lines(face_group(s, "left", "axis0")).size() == 5);
  CHECK(lines(face_group(s, "left", "axis1")).size() == 5);
  for (auto& l : lines(face_group(s, "top", "axis2")))
    CHECK(l.x2 - l.x1 == Approx(l.y2 - l.y1).margin(0.011));
  CHECK(count(s, "<line") == 4 + 5 + 5 + 5 + 4 + 5);
  const auto ls = labels(s);
  REQUIRE(ls.size() == 3);
  CHECK(ls[0].cls == "axis2");
  CHECK(ls[0].text == "300");
  CHECK(ls[1].cls == "axis1");
  CHECK(ls[1].text == "200");
  CHECK(ls[1].angle == -90);
  CHECK(ls[2].cls == "axis0");
  CHECK(ls[2].text == "100");
  CHECK(ls[2].angle == 45);
  for (auto f : {"top", "left", "front"}) CHECK(fill_of(s, f) == "#ECB172");
}

TEST_CASE("to_svg: aspect ratios", "[svg]") {
  auto extent = [](const ts::chunk_grid& g, double across, double down,
                   const ts::svg_options& o = {}) {
    const auto c = corners(ts::to_svg(g, o), "front");
    INFO("shape " << Catch::Detail::stringify(g.shape()));
    CHECK(c[1].x - c[0].x == Approx(across).margin(0.011));  // axis 1
    CHECK(c[3].y - c[0].y == Approx(down).margin(0.011));    // axis 0
  };
  // Ratios up to 2:1 are drawn true.
  extent(ts::chunk_grid::make({100, 100}, {10, 10}, 8), 120, 120);
  extent(ts::chunk_grid::make({200, 100}, {10, 10}, 8), 60, 120);
  extent(ts::chunk_grid::make({100, 150}, {10, 10}, 8), 120, 80);
  // 10:1 is drawn 3.2342:1; 100:1 and beyond 5:1.
  extent(ts::chunk_grid::make({1000, 100}, {100, 10}, 8), 37.103, 120);
  extent(ts::chunk_grid::make({10000, 100}, {1000, 10}, 8), 24, 120);
  // A 1e6 x 10 array is still a visible strip: 24 x 120 px; 60 x 300 px at size 300.
  const auto tall = ts::chunk_grid::make({1000000, 10}, {1000, 5}, 8);
  extent(tall, 24, 120);
  extent(tall, 60, 300, {.size = 300});
  const std::string s = ts::to_svg(tall);
  const auto c = corners(s, "front");
  check_lines(lines(face_group(s, "front", "axis1")), {c[0].x, c[0].x + 12, c[0].x + 24}, true,
              c[0].y, c[3].y);
  const auto ls = labels(s);
  REQUIRE(ls.size() == 2);
  CHECK(ls[1].text == "1000000");
  CHECK(ls[1].angle == -90);
  CHECK(ls[1].x > c[1].x);
  // Everything lies inside the picture.
  CHECK(c[0].x >= 0);
  CHECK(attr(s, "width") > c[1].x);
}

TEST_CASE("to_svg: many chunks draw at most size / min_line_gap + 1 lines", "[svg]") {
  SECTION("1-d, a million one-element chunks: every 25000th boundary, 3 px apart") {
    const std::string s = ts::to_svg(ts::chunk_grid::make({1000000}, {1}, 8));
    const auto ls = lines(face_group(s, "front", "axis0"));
    const auto c = corners(s, "front");
    std::vector<double> at;
    for (int k = 0; k <= 40; ++k) at.push_back(c[0].x + 3 * k);
    check_lines(ls, at, true, c[0].y, c[3].y);
    CHECK(fill_of(s, "front") == "#8B4903");
    CHECK(s.size() < 4000);
  }
  SECTION("2-d, 100 x 100 chunks of 1.2 px: every third boundary, then the far edge") {
    const auto g = ts::chunk_grid::make({1000, 1000}, {10, 10}, 8);
    const std::string s = ts::to_svg(g);
    const auto c = corners(s, "front");
    std::vector<double> at;
    for (int k = 0; k <= 96; k += 3) at.push_back(c[0].x + 1.2 * k);
    at.push_back(c[0].x + 120);
    REQUIRE(at.size() == 34);
    check_lines(lines(face_group(s, "front", "axis1")), at, true, c[0].y, c[3].y);
    for (auto& v : at) v += c[0].y - c[0].x;
    check_lines(lines(face_group(s, "front", "axis0")), at, false, c[0].x, c[1].x);
    CHECK(fill_of(s, "front") == "#8B4903");
    // Drawn larger, the boundaries are 6 px apart: all of them, light fill.
    const std::string big = ts::to_svg(g, {.size = 600});
    CHECK(lines(face_group(big, "front", "axis1")).size() == 101);
    CHECK(lines(face_group(big, "front", "axis0")).size() == 101);
    CHECK(fill_of(big, "front") == "#ECB172");
  }
  SECTION("3-d: only the faces that show a dense axis are dark") {
    // Axis 0 (depth, 72 px drawn) in 100 chunks; axes 1 and 2 in 2 and 3.
    const std::string s = ts::to_svg(ts::chunk_grid::make({1000, 100, 300}, {10, 50, 100}, 8));
    CHECK(fill_of(s, "top") == "#8B4903");
    CHECK(fill_of(s, "left") == "#8B4903");
    CHECK(fill_of(s, "front") == "#ECB172");
    const auto d = lines(face_group(s, "left", "axis0"));
    CHECK(d.size() <= 25);  // 72 px / 3 + 1
    for (std::size_t i = 1; i < d.size(); ++i) CHECK(d[i].x1 - d[i - 1].x1 >= 2.99);
  }
}

TEST_CASE("to_svg: rank above 3 draws the trailing three axes", "[svg]") {
  const auto g = ts::chunk_grid::make({4, 5, 1000, 100, 300}, {1, 5, 10, 50, 100}, 8);
  const std::string s = ts::to_svg(g);
  const std::string box = ts::to_svg(ts::chunk_grid::make({1000, 100, 300}, {10, 50, 100}, 8));
  for (auto f : {"top", "left", "front"}) CHECK(corners(s, f).size() == 4);
  CHECK(lines(face_group(s, "front", "axis4")).size() == 4);
  CHECK(lines(face_group(s, "front", "axis3")).size() == 3);
  CHECK(lines(face_group(s, "top", "axis2")).size() ==
        lines(face_group(box, "top", "axis0")).size());
  const auto ls = labels(s);
  REQUIRE(ls.size() == 4);
  CHECK(ls[0].cls == "axis4");
  CHECK(ls[1].cls == "axis3");
  CHECK(ls[2].cls == "axis2");
  CHECK(ls[3].cls == "leading");
  CHECK(ls[3].text == "leading axes 4 &#215; 5 (4 &#215; 1 chunks)");
  CHECK(ls[3].start);
  CHECK(s.find("shape (4, 5, 1000, 100, 300), 4 x 1 x 100 x 2 x 3 chunks") != std::string::npos);
}

TEST_CASE("to_svg: errors name the bad value", "[svg]") {
  CHECK_THROWS_MATCHING(ts::to_svg(ts::chunk_grid{}), ts::invalid_argument,
                        Catch::Contains("rank 0") && Catch::Contains("shape ()"));
  CHECK_THROWS_MATCHING(ts::to_svg(ts::chunk_grid::make({7, 0}, {3, 1}, 8)), ts::invalid_argument,
                        Catch::Contains("shape (7, 0)") && Catch::Contains("axis 1 has length 0"));
  const auto g = ts::chunk_grid::make({10}, {5}, 8);
  CHECK_THROWS_MATCHING(ts::to_svg(g, {.size = 3}), ts::invalid_argument,
                        Catch::Contains("svg_options::size 3"));
  CHECK_THROWS_MATCHING(ts::to_svg(g, {.size = 120, .min_line_gap = -1}), ts::invalid_argument,
                        Catch::Contains("min_line_gap -1"));
  CHECK_THROWS_AS(ts::to_svg(g, {.size = 120, .min_line_gap = std::nan("")}), ts::invalid_argument);
}

TEST_CASE("write_svg: atomic file, errors name the path", "[svg]") {
  temp_dir dir("tessera_svg");
  auto x = ts::random::default_rng(3).normal<double>(10, 1, {20000, 20000}, {2000, 2000});
  const std::string path = dir / "sub/dir/grid.svg";
  ts::write_svg(x, path, {.size = 200});
  CHECK(slurp(path) == ts::to_svg(x, {.size = 200}));
  ts::write_svg(x.grid(), path);  // replaces
  CHECK(slurp(path) == ts::to_svg(x));
  for (auto& e : fs::recursive_directory_iterator(dir.path))
    CHECK(e.path().filename().string().find(".tmp-") == std::string::npos);
  spit(dir / "file", "not a directory");
  const std::string bad = dir / "file/grid.svg";
  CHECK_THROWS_MATCHING(ts::write_svg(x, bad), ts::io_error, Catch::Contains(bad));
  CHECK_THROWS_AS(ts::write_svg(ts::chunk_grid{}, dir / "zero.svg"), ts::invalid_argument);
  CHECK_FALSE(fs::exists(dir / "zero.svg"));
}

TEST_CASE("to_svg rendered by rsvg-convert: grid lines in the PNG", "[svg][render]") {
  INFO("rsvg-convert must be on PATH: scripts/install-deps.sh installs librsvg2-bin");
  REQUIRE(have_rsvg());
  SECTION("1-d") {
    const std::string s = ts::to_svg(ts::chunk_grid::make({1000}, {300}, 8));
    const auto img = render(s);
    const auto c = corners(s, "front");
    check_rect_face(img, c[0].x, c[0].y, c[1].x, c[3].y,
                    boundaries({300, 300, 300, 100}, c[0].x, c[1].x), {c[0].y, c[3].y});
    if (have_fonts()) CHECK(ink(img, c[0].x, c[3].y + 4, c[1].x, c[3].y + 26) > 20);  // "1000"
  }
  SECTION("2-d irregular") {
    const chunks_t ch{{10, 20}, {25, 15}};
    const std::string s = ts::to_svg(ts::chunk_grid({30, 40}, ch));
    const auto img = render(s);
    const auto c = corners(s, "front");
    check_rect_face(img, c[0].x, c[0].y, c[1].x, c[3].y, boundaries(ch[1], c[0].x, c[1].x),
                    boundaries(ch[0], c[0].y, c[3].y));
    // Light fill inside a chunk, no ink there.
    CHECK(img.channel(int((c[0].x + 40) * zoom), int((c[0].y + 15) * zoom), 1) > 190);
    if (have_fonts()) {
      CHECK(ink(img, c[0].x, c[3].y + 4, c[1].x, c[3].y + 26) > 20);  // "40" below
      CHECK(ink(img, c[1].x + 4, c[0].y, c[1].x + 30, c[3].y) > 20);  // "30" to the right
    }
  }
  SECTION("2-d, the seed-003 array") {
    auto x = ts::random::default_rng(3).normal<double>(10, 1, {20000, 20000}, {2000, 2000});
    const std::string s = ts::to_svg(x);
    const auto img = render(s);
    const auto c = corners(s, "front");
    const std::vector<index_t> ten(10, 2000);
    check_rect_face(img, c[0].x, c[0].y, c[1].x, c[3].y, boundaries(ten, c[0].x, c[1].x),
                    boundaries(ten, c[0].y, c[3].y));
  }
  SECTION("3-d") {
    const chunks_t ch{{30, 30, 30, 10}, {50, 50, 50, 50}, {100, 100, 100}};
    const std::string s = ts::to_svg(ts::chunk_grid({100, 200, 300}, ch));
    const auto img = render(s);
    const auto f = corners(s, "front"), t = corners(s, "top");
    // Front face: axis 2 across, axis 1 down.
    check_rect_face(img, f[0].x, f[0].y, f[1].x, f[3].y, boundaries(ch[2], f[0].x, f[1].x),
                    boundaries(ch[1], f[0].y, f[3].y));
    // Top face: a column crosses the horizontal lines at the depth (axis 0) boundaries where it
    // is clear of the lines along the depth (axis-2 boundaries, running down-right at 45 deg).
    const double ox = t[0].x, oy = t[0].y, W = t[1].x - t[0].x, D = t[3].y - t[0].y;
    const auto across = boundaries(ch[2], 0, W);
    double u = -1;
    for (double v = D + 2; v <= W - 2 && u < 0; v += 0.25)
      if (std::none_of(across.begin(), across.end(),
                       [&](double b) { return b >= v - D - 2 && b <= v + 2; }))
        u = v;
    REQUIRE(u > 0);
    INFO("top-face column at x = " << ox + u);
    check_runs(dark_runs(img, false, ox + u, oy - 1.5, oy + D + 1.5),
               boundaries(ch[0], oy, oy + D));
  }
  SECTION("extreme aspect ratio and many chunks: (1000000, 10) in (1000, 5) chunks") {
    const std::string s = ts::to_svg(ts::chunk_grid::make({1000000, 10}, {1000, 5}, 8));
    const auto img = render(s);
    const auto c = corners(s, "front");
    // The drawn (thinned) boundaries of axis 0: 41 lines 3 px apart.
    const auto ys = ys_of(lines(face_group(s, "front", "axis0")));
    CHECK(ys.size() == 41);
    check_rect_face(img, c[0].x, c[0].y, c[1].x, c[3].y, {c[0].x, c[0].x + 12, c[0].x + 24}, ys);
    // Dark fill inside a cell.
    CHECK(img.channel(int((c[0].x + 6) * zoom), int((c[0].y + 1.5) * zoom), 1) < 160);
  }
  SECTION("2-d, 100 x 100 chunks") {
    const std::string s = ts::to_svg(ts::chunk_grid::make({1000, 1000}, {10, 10}, 8));
    const auto img = render(s);
    const auto c = corners(s, "front");
    const auto xs = xs_of(lines(face_group(s, "front", "axis1")));
    const auto ys = ys_of(lines(face_group(s, "front", "axis0")));
    CHECK(xs.size() == 34);
    CHECK(ys.size() == 34);
    check_rect_face(img, c[0].x, c[0].y, c[1].x, c[3].y, xs, ys);
  }
}
