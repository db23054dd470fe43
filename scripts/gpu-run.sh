#!/usr/bin/env bash
# Runs on the device machine (GPU): the CUDA tests, the examples, compute-sanitizer over the GPU
# tests, the seed-003 and linear-algebra benchmarks on the GPU (and the host) and their GPU
# peers (Dask + CuPy, CuPy) in the same run. One text log per phase goes to $OUT (or ./gpu-out),
# written as the run goes (a device call returns at most 8 files, and what a killed run left).
# Prepared here by scripts/gpu-bundle.sh (.gpu/ carried to the device machine); the peers need
# Dask, carried as wheels in .whl/ (see docs/cuda.md, "Running everything on a lent GPU").
#
#   BUDGET=470 timeout 540 bash scripts/gpu-run.sh [PHASES]
#   PHASES: a comma list of tests, sanitize, bench, streams, peers, linalg, profile (Nsight
#   Compute of two chunk kernels), tsqr-profile (the 1e7 x 64 TSQR timed, then every kernel of
#   one run timed by Nsight Compute); default all = every phase but the two profiles. Phases
#   run in the order tests (with sanitize beside it), bench, linalg, peers, streams, profile,
#   tsqr-profile.
#
# Every step has a time limit and no step starts after $BUDGET seconds (default 560); the outer
# timeout keeps a call inside the device tool's 10 minutes, so it always returns its logs.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
phases=${1:-all}
[[ $phases == all ]] && phases=tests,sanitize,bench,streams,peers,linalg
has() { [[ ",$phases," == *",$1,"* ]]; }
budget=${BUDGET:-560}
left() { echo $((budget - SECONDS)); }
# limit SECS: the smaller of SECS and the time left (0 when the budget is spent)
limit() { local l; l=$(left); ((l < $1)) && echo $((l > 0 ? l : 0)) || echo "$1"; }

if [[ ! -x .gpu/run ]]; then
  tar xJf .gpu/bundle.tar.xz -C .gpu || { echo "no .gpu bundle: run scripts/gpu-bundle.sh here and carry .gpu"; exit 2; }
fi
# The CUDA libraries come from the device machine; find them if the loader does not.
if ! ldconfig -p | grep -q libcusolver; then
  d=$(dirname "$(find / -name 'libcusolver.so*' -print -quit 2>/dev/null)")
  [[ -n $d ]] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
if [[ -d .whl ]] && ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
fi
export PYTHONUNBUFFERED=1
{
  echo "== $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv 2>&1 || true
  nproc; grep -m1 'model name' /proc/cpuinfo
  python3 -c 'import cupy, dask; print("cupy", cupy.__version__, "dask", dask.__version__)' 2>&1 | tail -1
} 2>&1 | tee "$out/machine.txt"
status=0
tests=$(ls .gpu/bin | grep '^cuda_test_')

sanitizer_pid=
if has sanitize; then
  # compute-sanitizer (memcheck, racecheck, synccheck) over every GPU test, eight at a time, in
  # the background while the plain test run goes on (neither is a timing).
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
  if [[ -z $cs ]]; then
    echo "compute-sanitizer not found" | tee "$out/sanitizer.txt"; status=1
  else
    slimit=$(limit ${SANITIZER_SECONDS:-200})
    export cs
    # Leak checking is off by default: the per-thread cuBLAS/cuSOLVER handles and the pinned
    # staging arenas are kept on purpose until process exit (SANITIZER_LEAKS=1 lists them).
    export leaks=${SANITIZER_LEAKS:-0}
    # The randomized loops run a fraction of their iterations under the sanitizer (every test
    # case still runs; the full counts run in the tests phase): 12 of the 30 runs took over
    # 470 s at full size.
    export TESSERA_TEST_SCALE=${SANITIZER_TEST_SCALE:-0.05}
    sanitize_one() {  # TOOL TEST [FILTER...]: one compute-sanitizer run, a summary, the log on failure
      local log rc
      log=$(LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$cs" --tool "$1" \
            --error-exitcode 99 $([[ $1 == memcheck && $leaks == 1 ]] && echo --leak-check=full) \
            ".gpu/bin/$2" "${@:3}" --reporter compact 2>&1)
      rc=$?
      echo "== $1 $2 ${3:+(${*:3}) }exit $rc: $(echo "$log" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases|All tests" | tr "\n" " ")"
      [[ $rc == 0 ]] || echo "$log" | grep -v "^\s*$" | head -60
    }
    export -f sanitize_one
    # The device-specific suites first; the backend suites (every test for ts::host and
    # ts::cuda) only with their ts::cuda instantiations (the host ones never touch the GPU).
    # cuda_test_reduce_logic is host code only (nothing to instrument); memcheck leaves out
    # cuda_test_device's "[errors]" case, whose failing cudaMemcpy is the point of the test.
    # SANITIZER_RUNS="tool test [filter...];..." runs only the runs listed (Catch2 test specs,
    # one word each, ANDed: "*tessera::cuda ~*deep*" is the cuda cases but the deep one).
    runs() {
      if [[ -n ${SANITIZER_RUNS:-} ]]; then tr ';' '\n' <<<"$SANITIZER_RUNS"; return; fi
      for t in $(echo "$tests" | grep -v -e backend -e reduce_logic) $(echo "$tests" | grep backend); do
        for tool in memcheck racecheck synccheck; do
          if [[ $t == *backend* ]]; then echo "$tool $t *tessera::cuda"
          elif [[ $t == cuda_test_device && $tool == memcheck ]]; then echo "$tool $t ~[errors]"
          else echo "$tool $t"; fi
        done
      done
    }
    runs | timeout "$slimit" xargs -P ${SANITIZER_JOBS:-8} -L 1 bash -c 'sanitize_one "$@"' _ \
      > "$out/sanitizer.txt" 2>&1 &
    sanitizer_pid=$!
  fi
fi

if has tests; then
  for t in ${TESTS:-$tests}; do  # every test gpu-bundle.sh packed (or $TESTS); a skip (exit 4) is a failure here
    echo "== $t"
    t0=$SECONDS
    timeout "$(limit 240)" .gpu/run "$t" --reporter compact 2>&1 | tail -40
    rc=${PIPESTATUS[0]}
    echo "== $t exit $rc ($((SECONDS - t0)) s)"
  done 2>&1 | tee "$out/tests.txt"
  grep -q "exit [^0]" "$out/tests.txt" && status=1
  for e in cuda_auto_backend "cuda_svd 10000 1000 1000"; do
    echo "== $e"; timeout "$(limit 120)" .gpu/run $e; echo "== exit $?"
  done 2>&1 | tee -a "$out/tests.txt"

fi

if [[ -n $sanitizer_pid ]]; then
  wait "$sanitizer_pid"
  echo "== sanitizer: $(grep -c '^== ' "$out/sanitizer.txt") of $(runs | wc -l) runs finished"
  grep "^== " "$out/sanitizer.txt"; grep -q "exit [^0]" "$out/sanitizer.txt" && status=1
fi

if has bench; then
  {
    timeout "$(limit 60)" .gpu/run cuda_bench_seed003 --backend cuda,host --n 20000 --chunk 2000 \
        --variant a,b,c --repeat 5
    timeout "$(limit 60)" .gpu/run cuda_bench_seed003 --backend cuda --n 100000 --chunk 10000 \
        --variant a,b --repeat 5
    # (c) persists x (80 GB) on the device: its own process, under a 0.95 memory limit
    timeout "$(limit 60)" .gpu/run cuda_bench_seed003 --backend cuda --n 100000 --chunk 10000 \
        --variant c --repeat 3 \
        --memory-limit 0.95
  } 2>&1 | tee "$out/bench.txt"
fi

if has linalg; then
  {
    timeout "$(limit 120)" .gpu/run cuda_bench_svd --backend cuda --case seed000 --all --reps 5
    # svd_compressed (host-staged on ts::cuda, ~10 s a call) only with the default streams
    timeout "$(limit 120)" .gpu/run cuda_bench_svd --backend cuda --case tall10m --all --reps 3 --streams 2
    timeout "$(limit 120)" .gpu/run cuda_bench_svd --backend cuda --case tall10m --all --no-compressed --reps 3 --streams 8
    timeout "$(limit 120)" python3 benchmarks/peers/linalg_cupy.py --reps 5 --case seed000 --case tall10m
  } 2>&1 | tee "$out/linalg.txt"
fi
if has peers; then
  {
    timeout "$(limit 150)" python3 benchmarks/peers/seed003_dask.py --peers dask-cupy,cupy \
        --n 20000 --chunk 2000 --variant a,b,c --repeat 5
    timeout "$(limit 200)" python3 benchmarks/peers/seed003_dask.py --peers dask-cupy,cupy \
        --n 100000 --chunk 10000 --variant a,b,c --repeat 3 --timeout 150
  } 2>&1 | tee "$out/peers.txt"
fi

if has streams; then
  # streams_per_device 1..8 on the one GPU: the same results, time per variant.
  timeout "$(limit 150)" .gpu/run cuda_bench_seed003 --backend cuda --n 100000 --chunk 10000 \
      --variant a,b,d --repeat 3 --streams 1,2,3,4,5,6,7,8 \
      2>&1 | tee -a "$out/bench.txt"
fi

# Nsight Compute (the two profile phases): on the PATH or in CUDA's or Nsight's install folders.
ncu=
if has profile || has tsqr-profile; then
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
fi

if has profile; then
  # Nsight Compute on a few chunk kernels of seed 003 (a) and (b): where a kernel's time goes.
  for v in a b; do
    LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} timeout "$(limit 150)" \
      "$ncu" --launch-skip 30 --launch-count 2 --section SpeedOfLight --section ComputeWorkloadAnalysis \
      --section Occupancy --section LaunchStats --section InstructionStats \
      .gpu/bin/cuda_bench_seed003 --backend cuda --n 40000 --chunk 10000 --variant $v --repeat 2 \
      > /tmp/ncu_$v.txt 2>&1
    grep -vE "^\s*$|^  (a|b) " /tmp/ncu_$v.txt | tail -120
  done 2>&1 | tee "$out/profile.txt"
fi
if has tsqr-profile; then
  # Where the device TSQR's time goes: wall times (CholeskyQR2 and Householder, 2 and 8
  # streams), then each kernel of one CholeskyQR2 TSQR timed alone (Nsight Compute serializes
  # kernels; the sum against the wall time separates kernel time from launch and host time).
  {
    for st in 2 8; do
      timeout "$(limit 90)" .gpu/run cuda_bench_svd --backend cuda --case tall10m --rows tsqr,tsqr-householder \
          --reps 3 --streams $st
    done
    LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} timeout "$(limit 150)" \
      "$ncu" --clock-control none --metrics gpu__time_duration.sum --print-summary per-kernel \
      .gpu/bin/cuda_bench_svd --backend cuda --case tall10m --rows tsqr --reps 1 --streams 8 \
      > "$out/ncu_tsqr.txt" 2>&1
    echo "== ncu exit $?"
    grep -vE "^==PROF==" "$out/ncu_tsqr.txt" | tail -150
  } 2>&1 | tee "$out/tsqr-profile.txt"
fi
echo "== gpu-run.sh done in ${SECONDS}s, status $status"
exit $status
