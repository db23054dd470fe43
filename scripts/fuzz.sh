#!/bin/bash
# Builds the libFuzzer target tests/fuzz/fuzz_view_reduce.cpp (the differential test's
# view/reduction parser and evaluator, tests/differential/case.hpp) with clang and
# -fsanitize=fuzzer,address,undefined, and runs it for the given time on a copy of the seed
# corpus tests/fuzz/corpus (new inputs go to the work directory, not into the tree).
#   scripts/fuzz.sh [seconds=600] [workdir=/tmp/tessera-fuzz] [extra libFuzzer options...]
# Environment: CXX (default clang++-14 or clang++), JOBS (compile jobs, default 1).
# A crash leaves crash-* in the work directory; replay it with
#   <workdir>/fuzz_view_reduce <workdir>/crash-...
set -euo pipefail
secs=${1:-600}
work=${2:-/tmp/tessera-fuzz}
shift $(( $# > 2 ? 2 : $# )) || true
root=$(cd "$(dirname "$0")/.." && pwd)
CXX=${CXX:-$(command -v clang++-14 || command -v clang++)}
JOBS=${JOBS:-1}
mkdir -p "$work/obj" "$work/corpus"
flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
       -fno-sanitize-recover=undefined -I"$root/include" -I"$root/tests")
srcs=("$root"/tests/differential/eval_*.cpp "$root/tests/fuzz/fuzz_view_reduce.cpp")
objs=()
pids=()
for s in "${srcs[@]}"; do
  o="$work/obj/$(basename "$s" .cpp).o"
  objs+=("$o")
  # rebuild when the source or any Tessera/harness header is newer than the object
  if [[ ! -f $o || -n $(find "$s" "$root/include" "$root/tests/differential" -newer "$o" -name '*.[ch]pp' -print -quit) ]]; then
    echo "fuzz.sh: compiling $(basename "$s")"
    "$CXX" "${flags[@]}" -c "$s" -o "$o" &
    pids+=($!)
    if (( ${#pids[@]} >= JOBS )); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  fi
done
for p in "${pids[@]}"; do wait "$p"; done
"$CXX" -fsanitize=fuzzer,address,undefined "${objs[@]}" -o "$work/fuzz_view_reduce" -ltbb
cp -n "$root"/tests/fuzz/corpus/* "$work/corpus/" 2>/dev/null || true
cd "$work"
echo "fuzz.sh: running for $secs s (corpus $work/corpus)"
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ./fuzz_view_reduce -max_total_time="$secs" -max_len=512 -timeout=20 -rss_limit_mb=4096 \
    -dict="$root/tests/fuzz/view_reduce.dict" "$@" corpus
