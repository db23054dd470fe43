#!/usr/bin/env bash
# Fresh machine -> installs what is missing, builds everything (CUDA translation units too when
# nvcc is present) and runs the whole test suite with ctest, then the sanitizer pass
# (scripts/sanitize.sh: ASan + UBSan over a subset of the host tests in build-asan/, about 10
# minutes on 2 cores; TESSERA_SKIP_SANITIZE=1 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)
# No GPU here (CI): the CUDA executables are a compile check (PTX only, test host code -O0; they
# skip when run). With a GPU, the full sm_90 build.
cuda_check=ON
if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then cuda_check=OFF; fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTESSERA_CUDA_COMPILE_CHECK=$cuda_check
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"
if [[ "${TESSERA_SKIP_SANITIZE:-0}" != 1 ]]; then
  scripts/sanitize.sh
fi
