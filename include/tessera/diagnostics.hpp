// Seeing the work (docs/diagnostics.md). Summaries (ts::describe, ts::repr, operator<<) come
// with <tessera/tessera.hpp>; this header adds
//   ts::to_dot / write_dot      the expression graph as Graphviz dot, a cluster per stage
//   ts::visualize(x, "g.svg")   the same rendered by Graphviz (svg, png, pdf)
//   ts::to_svg / write_svg      the chunk-grid picture Dask draws
//   fmt / std::format formatters for arrays and expressions ("{}" summary, "{:s}" one line)
// Progress bars, the per-chunk callback and Chrome traces are members of the execution
// policies (ts::host{.progress = true, .trace = "trace.json", .on_chunk_done = f}).
#pragma once
#include "diagnostics/describe.hpp"
#include "diagnostics/dot.hpp"
#include "diagnostics/format.hpp"
#include "diagnostics/svg.hpp"
#include "diagnostics/visualize.hpp"
