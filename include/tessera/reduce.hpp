// Reductions: ts::sum, prod, mean, variance, stddev, amin, amax, argmin, argmax, any, all,
// count_nonzero, and ts::reduce with a user reducer. Lazy nodes folded inside the per-chunk
// kernel and tree-combined (docs/reductions.md).
#pragma once
#include "reduce/accumulators.hpp"
#include "exec/drivers.hpp"
#include "reduce/reduction.hpp"
#include "reduce/custom.hpp"
#include "reduce/nan_reductions.hpp"
#include "reduce/average.hpp"
#include "reduce/scan.hpp"
#include "reduce/ptp.hpp"
#include "reduce/quantile.hpp"
#include "reduce/histogram.hpp"
#include "reduce/topk.hpp"
#include "reduce/block_reduction.hpp"
