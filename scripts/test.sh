#!/usr/bin/env bash
# Fresh machine -> installs what is missing, builds everything (CUDA translation units too when
# nvcc is present) and runs the whole test suite with ctest, including the sanitizer pass: six
# host test executables (below) are built in the same build with ASan + UBSan (+ LeakSanitizer,
# every report fatal; tests/CMakeLists.txt, TESSERA_SANITIZED_TESTS) and ctest runs them so.
# TESSERA_SKIP_SANITIZE=1 builds them plainly. scripts/sanitize.sh builds other subsets apart.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
scripts/install-deps.sh
jobs=$(nproc)
# No GPU here (CI): the CUDA executables are a compile check (PTX only, test host code -O0; they
# skip when run). With a GPU, the full sm_90 build.
cuda_check=ON
if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then cuda_check=OFF; fi
# The benchmarks are only compiled here (never timed): -O1 (TESSERA_BENCHMARKS_AS_CHECK; they warn
# when run). scripts/main.sh reconfigures the same build with it OFF before timing.
# The sanitized executables: the nodes, scheduling, views, reductions and combine tree, both file
# formats with their codecs and failure paths (test_zarr's helper process too), and the
# fault-injection tests, whose leaks LeakSanitizer checks (docs/reliability.md).
sanitized="test_core;test_view;test_reduce;test_npy;test_zarr;zarr_region_writer;test_faults"
if [[ "${TESSERA_SKIP_SANITIZE:-0}" == 1 ]]; then
  sanitized=""
  echo "test.sh: sanitizer pass skipped (TESSERA_SKIP_SANITIZE=1)"
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTESSERA_CUDA_COMPILE_CHECK=$cuda_check \
      -DTESSERA_BENCHMARKS_AS_CHECK=ON "-DTESSERA_SANITIZED_TESTS=$sanitized"
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"
if [[ -n "$sanitized" ]]; then
  echo "test.sh: ${sanitized//;/, } ran with ASan + UBSan (test_reduce as its -O0 twin test_reduce_sanitized; ctest label 'sanitized')"
fi
echo "test.sh: $(( ($(date +%s) - start) / 60 )) min in all"
