// Included last by the tests/mpi/test_mpi_<x>.cpp executables (after the shared bodies, so Catch
// runs it last, in declaration order): the bitwise one-process checks of support/one_process.hpp
// did happen.
#pragma once
#include "one_process.hpp"

TEST_CASE("ts::mpi results were compared with one-process results", "[mpi][one_process]") {
  const auto& t = testing::one_process_counts();
  std::printf("rank %d: %ld results compared bitwise with one process, %ld read chunks held by other ranks\n",
              tessera::mpi<tessera::host>{}.rank(), t.compared, t.not_here);
  CHECK(t.compared > 0);
}
