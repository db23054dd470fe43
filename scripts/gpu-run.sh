#!/usr/bin/env bash
# Runs on the device machine (GPU): every CUDA test, the examples, then the seed-003 and SVD
# benchmarks on the GPU and the host side by side. Logs and JSON go to $OUT (or ./gpu-out).
# Prepared here by scripts/gpu-bundle.sh (.gpu/ carried to the device machine).
#
#   bash scripts/gpu-run.sh [tests|bench|all=all]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
what=${1:-all}
if [[ ! -x .gpu/run ]]; then
  tar xJf .gpu/bundle.tar.xz -C .gpu || { echo "no .gpu bundle: run scripts/gpu-bundle.sh here and carry .gpu"; exit 2; }
fi
# The CUDA libraries come from the device machine; find them if the loader does not.
if ! ldconfig -p | grep -q libcusolver; then
  d=$(dirname "$(find / -name 'libcusolver.so*' -print -quit 2>/dev/null)")
  [[ -n $d ]] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
run() { .gpu/run "$@"; }
{
  echo "== $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true
  nproc; grep -m1 'model name' /proc/cpuinfo
} 2>&1 | tee "$out/machine.txt"
status=0
if [[ $what == tests || $what == all ]]; then
  for t in $(ls .gpu/bin | grep '^cuda_test_'); do  # every test gpu-bundle.sh packed
    echo "== $t"
    timeout 300 .gpu/run "$t" --reporter compact 2>&1 | tail -40
    rc=${PIPESTATUS[0]}
    echo "== $t exit $rc"
    [[ $rc == 0 ]] || status=1
  done 2>&1 | tee "$out/tests.txt"
  grep -q "exit [^0]" "$out/tests.txt" && status=1
  for e in cuda_auto_backend "cuda_svd 10000 1000 1000"; do
    echo "== $e"; timeout 120 .gpu/run $e; echo "== exit $?"
  done 2>&1 | tee "$out/examples.txt"
fi
if [[ $what == bench || $what == all ]]; then
  {
    run cuda_bench_seed003 --backend cuda,host --n 20000 --chunk 2000 --variant a,b,d --repeat 5 \
        --json "$out/seed003_20000.json"
    run cuda_bench_seed003 --backend cuda --n 100000 --chunk 10000 --variant a,b,d --repeat 5 \
        --json "$out/seed003_100000.json"
    run cuda_bench_svd --backend cuda --case seed000 --all --reps 3
    run cuda_bench_svd --backend cuda --case tall --all --reps 3
    run cuda_bench_svd --backend host --case seed000 --reps 3
  } 2>&1 | tee "$out/bench.txt"
fi
exit $status
