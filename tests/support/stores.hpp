// User chunk stores for the fault-path tests of the writers (Zarr, .npy): a chunk task that
// fails partway through a write.
#pragma once
#include <algorithm>
#include <stdexcept>
#include <string>

#include <tessera/tessera.hpp>

namespace testing {

/// A user store whose read_block fails for block `bad` ("injected failure in block B"); every
/// other block holds `value`.
struct failing_store {
  using value_type = double;
  tessera::chunk_grid g;
  tessera::index_t bad;
  double value;
  const tessera::chunk_grid& grid() const { return g; }
  tessera::memory_space block_space(tessera::index_t) const { return tessera::memory_space::elsewhere(7); }
  const double* block_pointer(tessera::index_t) const { return nullptr; }
  void read_block(tessera::index_t b, double* out) const {
    if (b == bad) throw std::runtime_error("injected failure in block " + std::to_string(b));
    std::fill(out, out + g.block_box(b).count(), value);
  }
};

}  // namespace testing
