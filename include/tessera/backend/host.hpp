// The host backend (ts::host): oneTBB tasks over host memory. Its pieces live in backend/host/.
#pragma once
#include "host/policy.hpp"
#include "host/context.hpp"
#include "host/kernel.hpp"
#include "host/fold.hpp"
#include "host/backend.hpp"
