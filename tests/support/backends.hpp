// The backend policies every test is instantiated for. Host always; the CUDA policy is added
// in translation units compiled by nvcc (tests/cuda/*.cu include the same test bodies).
#pragma once
#include <tuple>

#include <tessera/tessera.hpp>

#if defined(__CUDACC__) && __has_include(<tessera/cuda.hpp>)
#include <tessera/cuda.hpp>
#endif

// A test executable may choose its own list (the recipe backend's: tests/test_recipe_*.cpp).
#ifndef TESSERA_TEST_BACKENDS
#if defined(__CUDACC__) && __has_include(<tessera/cuda.hpp>)
#define TESSERA_TEST_BACKENDS tessera::host, tessera::cuda
#else
#define TESSERA_TEST_BACKENDS tessera::host
#endif
#endif

namespace testing {
/// A policy of type P with `n` workers where P has such a knob (host threads, CUDA streams per
/// device; ts::mpi: its local policy's); P{} otherwise.
template <class P>
P make_policy(int n) {
  P p{};
  if constexpr (requires { p.local; }) p.local = make_policy<decltype(p.local)>(n);  // ts::mpi
  else if constexpr (requires { p.threads = n; }) p.threads = n;
  else if constexpr (requires { p.streams_per_device = n; }) p.streams_per_device = n;
  return p;
}

/// Whether P spreads its tasks over processes (ts::mpi).
template <class P>
concept ranked = requires(const P& p) {
  p.local;
  p.size();
};

/// How many times one compute() with a P policy evaluates its expression in this process: 2
/// where tests/support/one_process.hpp adds the one-process evaluation (ts::mpi<ts::host>).
template <class P>
inline constexpr int evaluations_per_compute = 1;

/// How many processes share a policy's tasks (ts::mpi: its ranks; 1 otherwise). A check of what
/// one process bound or evaluated holds for the whole computation only when this is 1.
template <class P>
int processes(const P& p) {
  if constexpr (requires { p.size(); }) return p.size();
  else return 1;
}
}  // namespace testing
