// Counter-based random arrays (docs/random.md): ts::random::default_rng(seed) and its lazy
// factories random, uniform, standard_normal, normal, lognormal, exponential, gamma, bernoulli,
// integers. Every element is a pure function of (seed, stream, flat index) through
// Philox4x32-10, so arrays are identical for any chunking, thread count and backend.
#pragma once
#include "random/distributions.hpp"
#include "random/generator.hpp"
#include "random/math.hpp"
#include "random/philox.hpp"
