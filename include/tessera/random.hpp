// Counter-based random arrays (docs/random.md): ts::random::default_rng(seed) and its lazy
// factories random, uniform, standard_normal, normal, lognormal, exponential, gamma, bernoulli,
// integers, and draw(dist, shape) for any `distribution` (a user's own: docs/random.md, "Your own
// distribution"). Every element is a pure function of (seed, stream, flat index) through
// Philox4x32-10, so arrays are identical for any chunking, thread count and backend.
#pragma once
#include "random/conversions.hpp"
#include "random/distributions.hpp"
#include "random/generator.hpp"
#include "random/math.hpp"
#include "random/philox.hpp"
#include "random/philox_array.hpp"
