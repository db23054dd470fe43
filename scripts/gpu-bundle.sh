#!/usr/bin/env bash
# For a session lent a GPU through the device tool (see DEVELOPERS' guide): build every CUDA
# executable here (nvcc, sm_90) and pack it with the shared libraries the bare GPU machine
# lacks into .gpu/ (ignored by git), next to scripts/gpu-run.sh which runs them there.
#
#   scripts/gpu-bundle.sh [BUILD_DIR=build-gpu]
#   then, with the device tool:  run(command="bash scripts/gpu-run.sh", carry=[".gpu"])
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
bundle=${BUNDLE:-../shared/device/bundle.sh}
# Ninja builds the targets below in parallel (make's top level builds one target at a time).
gen=(); if [[ ! -f "$build/CMakeCache.txt" ]] && command -v ninja >/dev/null; then gen=(-G Ninja); fi
cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DTESSERA_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
# Every CUDA test suite (tests/cuda/test_*.cu -> cuda_test_*), the CUDA examples and benchmarks.
targets=()
for f in tests/cuda/test_*.cu; do targets+=("cuda_$(basename "$f" .cu)"); done
targets+=(cuda_auto_backend cuda_svd cuda_bench_seed003 cuda_bench_svd cuda_bench_normal_parts)
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
if ! git check-ignore -q .gpu; then
  ex=$(git rev-parse --git-path info/exclude); mkdir -p "$(dirname "$ex")"; echo '/.gpu/' >> "$ex"
fi
exes=()
for t in "${targets[@]}"; do
  exes+=("$(find "$build" -type f -name "$t" -perm -u+x | head -1)")
done
# The executables and their libraries are ~100 MB (OpenBLAS alone 36 MB), over the 64 MiB a
# device call carries: strip them and carry one xz archive (~17 MB) that gpu-run.sh unpacks.
stage=$(mktemp -d)
bash "$bundle" "$stage" "${exes[@]}" >/dev/null
strip --strip-unneeded "$stage"/bin/* 2>/dev/null || true
rm -rf .gpu && mkdir -p .gpu
tar cJf .gpu/bundle.tar.xz -C "$stage" .
rm -rf "$stage"
du -sh .gpu/bundle.tar.xz
