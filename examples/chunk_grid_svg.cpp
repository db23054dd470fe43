// Chunk-grid pictures: ts::write_svg draws an array's chunk grid as an SVG image (open it in a
// browser), the picture Dask shows for an array in a notebook. Nothing is evaluated.
//
//   chunk_grid_svg [DIR]   writes DIR/chunk_grid_2d.svg (seed 003's 20000 x 20000 array in
//                          2000 x 2000 chunks) and DIR/chunk_grid_3d.svg (a year of daily
//                          720 x 1440 fields in quarter-year (92-day), 180 x 360 chunks); DIR
//                          defaults to "."
// (docs/img/ holds the two pictures this writes.)
#include <filesystem>
#include <iostream>
#include <string>
#include <tessera/diagnostics/svg.hpp>
#include <tessera/random.hpp>
#include <tessera/tessera.hpp>

namespace ts = tessera;

int main(int argc, char** argv) {
  const std::filesystem::path dir = argc > 1 ? argv[1] : ".";
  auto g = ts::random::default_rng(3);

  auto x = g.normal<double>(10, 1, {20000, 20000}, {2000, 2000});
  auto daily = g.normal<float>(0, 1, {365, 720, 1440}, {92, 180, 360});

  const std::string a = (dir / "chunk_grid_2d.svg").string(),
                    b = (dir / "chunk_grid_3d.svg").string();
  ts::write_svg(x, a);
  ts::write_svg(daily, b);

  // The same text is available as a string, e.g. to embed in an HTML report.
  const std::string svg = ts::to_svg(x);
  std::cout << "wrote " << a << " (" << std::filesystem::file_size(a) << " bytes) and " << b << " ("
            << std::filesystem::file_size(b) << " bytes)\n"
            << svg.substr(0, svg.find('\n')) << "\n";
  return svg.rfind("<svg ", 0) == 0 && std::filesystem::file_size(a) == svg.size() ? 0 : 1;
}
