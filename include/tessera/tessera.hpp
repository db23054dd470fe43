// Tessera: lazy chunked N-d arrays. Umbrella header for the host backend: core arrays and
// expressions, random arrays, views and reductions.
//   Linear algebra (links LAPACKE/OpenBLAS, CMake tessera::linalg): <tessera/linalg.hpp>
//   CUDA backend (from .cu files, CMake tessera::cuda):               <tessera/cuda.hpp>
//   Pictures and formatters (to_svg, to_dot, fmt/std::format):       <tessera/diagnostics.hpp>
#pragma once
#include "config.hpp"
#include "core/errors.hpp"
#include "core/grid.hpp"
#include "core/expression.hpp"
#include "nodes/stored.hpp"
#include "nodes/generated.hpp"
#include "nodes/elementwise.hpp"
#include "nodes/remap.hpp"
#include "nodes/rechunk.hpp"
#include "ops/arith.hpp"
#include "ops/map.hpp"
#include "backend/host.hpp"
#include "compute.hpp"
#include "random.hpp"
#include "view.hpp"
#include "reduce.hpp"
#include "ops/ufuncs.hpp"
#include "manipulation.hpp"
#include "reshape.hpp"
#include "join.hpp"
#include "pad.hpp"
#include "diagonal.hpp"
#include "diff.hpp"
#include "meshgrid.hpp"
#include "products.hpp"
#include "indexing.hpp"
#include "members.hpp"
#include "diagnostics/describe.hpp"
