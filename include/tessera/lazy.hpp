// ts::lazy<T>: a lazy array of element type T whose expression type is erased, for expressions
// built at run time (loops, pipelines chosen from input). nodes/lazy.hpp has the design.
//
//   ts::lazy<double> acc = x;
//   for (int i = 0; i < n; ++i) acc = acc * 0.5 + y;     // stays lazy; one type
//   auto m = ts::mean(acc).item();                       // evaluated chunk by chunk
//
// In an nvcc translation unit this header brings in the CUDA backend, so the pieces built there
// run on ts::cuda (and ts::auto_backend's GPU); pieces built in a host-only translation unit run
// on the host policies.
#pragma once
#include "tessera.hpp"
#if defined(__CUDACC__)
#include "cuda.hpp"
#endif
#include "nodes/lazy.hpp"
