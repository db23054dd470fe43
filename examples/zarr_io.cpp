// Arrays on disk with Zarr: write a generated array chunk by chunk, read it back lazily, compute
// on a view (only the chunks it touches are read), append, write a region, and keep metadata in
// attributes. Usage: zarr_io [DIR] (default: a new directory under the system temp dir).
#include <tessera/random.hpp>
#include <tessera/reduce.hpp>
#include <tessera/tessera.hpp>
#include <tessera/view.hpp>
#include <tessera/zarr.hpp>

#include <filesystem>
#include <iostream>

namespace ts = tessera;
using ts::placeholders::_;

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const fs::path dir = argc > 1 ? fs::path(argv[1]) : fs::temp_directory_path() / "tessera_zarr_io_example";
  fs::remove_all(dir);
  const std::string path = (dir / "x.zarr").string();

  // 1. Generate 2000 x 2000 normals (chunks 500 x 500) and write them: each chunk is generated,
  //    compressed (zstd) and written in its own task, so memory holds a few chunks at a time.
  auto x = ts::random::default_rng(42).normal<double>(10.0, 1.0, ts::shape_t{2000, 2000}, {500, 500});
  ts::to_zarr(x, path, {.format = 3, .codec = "zstd", .level = 3,
                        .attributes = {{"units", "m/s"}, {"source", "zarr_io example"}}});

  // 2. What is stored, without reading any chunk.
  const ts::zarr_array_info info = ts::zarr_info(path);
  std::cout << "stored: " << info.data_type << ", shape (" << info.shape[0] << ", " << info.shape[1]
            << "), chunks (" << info.chunks[0] << ", " << info.chunks[1] << "), " << info.codecs.size()
            << " codecs, units " << info.attributes["units"] << "\n";

  // 3. Read lazily: a view reads only the chunks it touches (here 4 of 16).
  auto z = ts::from_zarr<double>(path);
  const double m = ts::item(ts::mean(ts::view(z + 1.0, ts::range(_, _, 2), ts::range(100, 400))));
  std::cout << "(z + 1)[::2, 100:400].mean() = " << m << " after reading " << z.store().chunks_read()
            << " of 16 chunks\n";
  if (z.store().chunks_read() != 4) return 1;

  // 4. The same values as the generated array, bit for bit.
  const double direct = ts::item(ts::mean(ts::view(x + 1.0, ts::range(_, _, 2), ts::range(100, 400))));
  if (m != direct) return 1;

  // 5. Append 500 rows along axis 0 and write a region in place.
  auto more = ts::full<double>({500, 2000}, -1.0, {500, 500});
  ts::to_zarr(more, path, {.mode = ts::write_mode::append, .append_axis = 0});
  ts::to_zarr(ts::zeros<double>({10, 10}), path, {.mode = ts::write_mode::region, .region = {0, 0}});
  auto grown = ts::from_zarr<double>(path);
  std::cout << "after append: shape (" << grown.shape()[0] << ", " << grown.shape()[1]
            << "), last row mean " << ts::item(ts::mean(ts::view(grown, -1))) << ", corner "
            << ts::compute(ts::view(grown, 0, 0))() << "\n";
  fs::remove_all(dir);
  return grown.shape()[0] == 2500 ? 0 : 1;
}
