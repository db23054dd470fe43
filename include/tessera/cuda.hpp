// The CUDA backend: include from .cu translation units (compiled by nvcc), after or instead of
// <tessera/tessera.hpp>. Link the tessera::cuda CMake target.
//
//   ts::compute(expr, ts::cuda{})            one fused kernel per output chunk, result on the host
//   ts::persist(expr, ts::cuda{})            ts::device_array<T>: chunks resident on the devices
//   ts::item(expr, ts::cuda{})
//   ts::compute(expr, ts::auto_backend{})    CUDA when a device is usable, else the host
//   ts::cuda::release_memory(), ts::cuda::memory_in_use()
#pragma once
#if !defined(__CUDACC__)
#error "<tessera/cuda.hpp> must be compiled by nvcc (a .cu translation unit)"
#endif

#include "tessera.hpp"
#include "backend/cuda/check.cuh"
#include "backend/cuda/plan.cuh"
#include "backend/cuda/devices.cuh"
#include "backend/cuda/staging.cuh"
#include "backend/cuda/streams.cuh"
#include "backend/cuda/policy.cuh"
#include "backend/cuda/kernels.cuh"
#include "backend/cuda/context.cuh"
#include "backend/cuda/device_array.cuh"
#include "backend/cuda/scheduler.cuh"
#include "backend/cuda/fold.cuh"
#include "backend/cuda/backend.cuh"
#include "backend/cuda/auto_backend.cuh"

// Targets linking tessera::mpi (TESSERA_WITH_MPI): ts::auto_backend runs on MPI ranks when the
// program is started by mpirun, in every translation unit alike.
#if defined(TESSERA_WITH_MPI)
#include "mpi.hpp"
#endif
