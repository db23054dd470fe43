// Arrays on disk (link tessera::io): Zarr format 2 and 3 (zarr.hpp) and .npy (npy.hpp).
#pragma once
#include "npy.hpp"
#include "zarr.hpp"
