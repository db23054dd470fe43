#!/usr/bin/env bash
# A sanitizer build of its own: AddressSanitizer (with LeakSanitizer) + UndefinedBehaviorSanitizer
# over a subset of the host tests, every report fatal (-fno-sanitize-recover=all), in build-asan/.
# CI does not call it: scripts/test.sh instruments its six executables inside the main build
# (TESSERA_SANITIZED_TESTS, tests/CMakeLists.txt). This script is for other subsets.
#
#   scripts/sanitize.sh                 build build-asan/ and run the subset below
#   SANITIZE_TARGETS="test_view" scripts/sanitize.sh     another subset
#
# * Flags: -O1 -g1 (TESSERA_SANITIZE=address,undefined through tessera_dev_flags: the project's
#   test executables only; Catch2's main and the system libraries are not instrumented).
#   -O1 keeps ASan's reports precise and compiles far faster than -O2/-O3 of the instrumented
#   code; -g1 (line tables only) gives file:line in the reports for a fraction of -g's cost.
#   A Debug -O1 -g build of every host test took ~28 minutes on 2 loaded cores.
# * Executables: test_core, test_view, test_reduce, test_npy, test_zarr (with its helper
#   zarr_region_writer) and test_faults: the core paths (nodes, grid, scheduling, views,
#   reductions and the combine tree, the two on-disk formats with their codecs and failure
#   paths, and the fault-injection tests whose leaks LeakSanitizer checks). Left out for time:
#   test_random / test_extend_random (Philox and the distributions: arithmetic on fixed-size
#   buffers, covered by the core tests' random leaves), test_linalg (LAPACK), test_describe,
#   test_svg, test_progress, test_extend and the recipe-backend tests; run them with
#   SANITIZE_TARGETS when changing those parts.
# * Full iteration counts (TESSERA_TEST_SCALE unset = 1): instrumented, the six executables run
#   in about 40 s of CPU, so nothing is gained by shrinking the randomized loops
#   (tests/support/cases.hpp test_iterations); set TESSERA_TEST_SCALE=0.25 to shorten them.
# * Measured (2026-11, Debian 12, g++ 12, the machine shared with other builds, load 3-5 on
#   2 cores): the build took 15.4 CPU-minutes (user+sys; 26 min wall under that load, so about
#   8 min on 2 idle cores), the tests 1-2 min wall. The build is the cost: each test
#   executable is one large translation unit (2-4 CPU-minutes instrumented).
# Environment: JOBS (default nproc), SANITIZE_TARGETS, TESSERA_TEST_SCALE.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-$(nproc)}
build=build-asan
targets=${SANITIZE_TARGETS:-test_core test_view test_reduce test_npy test_zarr test_faults}
export ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
t0=$(date +%s)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -g1" \
      -DTESSERA_SANITIZE=address,undefined -DTESSERA_SANITIZE_TARGETS="${targets// /;}" -DTESSERA_CUDA=OFF \
      -DTESSERA_BUILD_BENCHMARKS=OFF -DTESSERA_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target tessera_sanitize_targets
t1=$(date +%s)
regex="^($(echo $targets | tr ' ' '|'))\$"
ctest --test-dir "$build" --output-on-failure -j "$jobs" -R "$regex"
t2=$(date +%s)
echo "sanitize: ASan+UBSan build $((t1 - t0)) s, run $((t2 - t1)) s ($targets)" >&2
