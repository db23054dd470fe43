// Shared by the deep-expression tests (tests/test_deep_expression*.cpp): 256 chained operations
// written out by the preprocessor, and exact input data for them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <random>

#include <tessera/tessera.hpp>
#include <xtensor/xarray.hpp>

#include "cases.hpp"

// `op v op v ...`, left-nested: TESSERA_CHAIN256(+, x) is `+ x + x ...` with 256 `+`.
#define TESSERA_CHAIN4(op, v) op v op v op v op v
#define TESSERA_CHAIN16(op, v) \
  TESSERA_CHAIN4(op, v) TESSERA_CHAIN4(op, v) TESSERA_CHAIN4(op, v) TESSERA_CHAIN4(op, v)
#define TESSERA_CHAIN64(op, v) \
  TESSERA_CHAIN16(op, v) TESSERA_CHAIN16(op, v) TESSERA_CHAIN16(op, v) TESSERA_CHAIN16(op, v)
#define TESSERA_CHAIN256(op, v) \
  TESSERA_CHAIN64(op, v) TESSERA_CHAIN64(op, v) TESSERA_CHAIN64(op, v) TESSERA_CHAIN64(op, v)

namespace testing {
/// A 23 x 17 matrix of integers in [-100, 100) as doubles: every partial sum of a chain (and of
/// its reductions) is exact, so expected values are exact.
inline xt::xarray<double> small_integer_matrix(std::mt19937_64& rng) {
  xt::xarray<double> dense = xt::zeros<double>({std::size_t(23), std::size_t(17)});
  for (auto& v : dense) v = double(std::int64_t(rng() % 200) - 100);
  return dense;
}

/// The chain's operand: `dense` as a Tessera array with random chunks along both axes.
inline auto randomly_chunked(std::mt19937_64& rng, const xt::xarray<double>& dense) {
  return tessera::from_xtensor(dense, {random_axis_chunks(rng, index_t(dense.shape()[0])),
                                       random_axis_chunks(rng, index_t(dense.shape()[1]))});
}
}  // namespace testing
