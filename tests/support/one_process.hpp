// Included by the tests/mpi/test_mpi_<x>.cpp executables before the shared test bodies: every
// compute(x, ts::mpi<ts::host>{...}) they make (directly, through item, the reductions' member
// compute and the linear algebra) also evaluates x in this one process with the policy's local
// policy and checks that the two results have the same bits. So each shared test case, besides
// comparing with its dense reference, checks that the ranks give exactly what one process gives.
//
// The one-process evaluation needs every chunk x reads: an expression over a distributed array
// (ts::persist under ts::mpi, the Q of a distributed QR) whose chunks are on other ranks cannot
// be evaluated here alone, and is compared on one rank (the -n 1 run) and by test_mpi.cpp's cases
// (which compare with a one-process run of the whole computation). one_process_counts() says how
// many results were compared and how many were left to those.
#pragma once
#include <cstring>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>
#include <tessera/mpi.hpp>

#include "backends.hpp"

namespace testing {

template <>
inline constexpr int evaluations_per_compute<tessera::mpi<tessera::host>> = 2;

struct one_process_tally {
  long compared = 0;
  long not_here = 0;  // read chunks held by other ranks
};
inline one_process_tally& one_process_counts() {
  static one_process_tally t;
  return t;
}

template <class T>
void check_same_as_one_process(const xt::xarray<T>& ranks, const xt::xarray<T>& one) {
  const bool same = ranks.shape() == one.shape() &&
                    (one.size() == 0 || std::memcmp(ranks.data(), one.data(), one.size() * sizeof(T)) == 0);
  if (same) return;
  std::size_t first = 0;
  if (ranks.shape() == one.shape())
    while (first < one.size() && std::memcmp(&ranks.data()[first], &one.data()[first], sizeof(T)) == 0) ++first;
  INFO("ts::mpi result differs from the one-process result: shapes " << ranks.dimension() << "-d/"
                                                                      << one.dimension() << "-d, first differing "
                                                                      << "element " << first << " of " << one.size());
  CHECK(same);
}

}  // namespace testing

namespace tessera {

/// More specialized than the library's compute(x, const mpi<L>&), which it calls: the result of
/// the ranks, checked against a one-process evaluation with policy.local.
template <expression_type X>
xt::xarray<typename X::value_type> compute(const X& x, const mpi<host>& policy) {
  auto ranks = compute<X, host>(x, policy);  // the library's (two template arguments: not this one)
  if (policy.root >= 0 && policy.rank() != policy.root) return ranks;  // holds no result
  xt::xarray<typename X::value_type> one;
  try {
    one = compute(x, policy.local);
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).find("was not fetched") == std::string::npos) throw;
    ++testing::one_process_counts().not_here;
    return ranks;
  }
  ++testing::one_process_counts().compared;
  testing::check_same_as_one_process(ranks, one);
  return ranks;
}

}  // namespace tessera
