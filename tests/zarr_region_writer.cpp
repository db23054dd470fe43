// Helper process for tests/test_zarr.cpp: writes the test array (40 x 30, value 100 i + j,
// chunks 10 x 10) or one half of it into a Zarr store, so two processes can write disjoint
// regions of one array. Usage: zarr_region_writer PATH FORMAT create all|none
//                              zarr_region_writer PATH FORMAT region top|bottom
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <xtensor/xarray.hpp>
#include <xtensor/xview.hpp>

#include <tessera/zarr.hpp>

namespace ts = tessera;

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s PATH FORMAT create all|none | region top|bottom\n", argv[0]);
    return 2;
  }
  try {
    xt::xarray<double> a = xt::zeros<double>({40, 30});
    for (std::size_t i = 0; i < 40; ++i)
      for (std::size_t j = 0; j < 30; ++j) a(i, j) = double(100 * i + j);
    ts::zarr_options o;
    o.format = std::stoi(argv[2]);
    o.codec = "blosc";
    const std::string mode = argv[3], what = argv[4];
    if (mode == "create") {
      if (what == "none") a.fill(0);
      ts::to_zarr(ts::from_xtensor(a, {10, 10}), argv[1], o);
    } else {
      o.mode = ts::write_mode::region;
      const std::size_t r0 = what == "top" ? 0 : 20;
      o.region = {ts::index_t(r0), 0};
      xt::xarray<double> half = xt::view(a, xt::range(r0, r0 + 20), xt::all());
      ts::to_zarr(ts::from_xtensor(half, {5, 30}), argv[1], o);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
