#!/usr/bin/env bash
# ThreadSanitizer over the threaded determinism tests (issue 18, "Build into CI").
#
#   scripts/tsan.sh            build (cached) and run; exit 0 only with 0 TSan reports
#
# Debian's libtbb is not instrumented, so TSan cannot see the synchronisation inside it and
# reports races that are not there. This script therefore:
#   1. fetches oneTBB 2021.8 from Debian's source package (the version the project builds
#      against; `apt-get source` through a temporary sources list with a deb-src line, so the
#      system's apt configuration is not touched; needs network access to Debian only),
#   2. builds it with TBB_SANITIZE=thread (-fsanitize=thread) into build-tsan/tbb-prefix
#      (cached: skipped when the prefix exists; delete build-tsan/ to rebuild),
#   3. configures the project in build-tsan/ with TESSERA_SANITIZE=thread (-O1 -g1) against
#      that TBB and builds the threaded test executables (TSAN_TARGETS, default test_core
#      test_reduce test_faults: the two with the "bitwise identical for any thread count"
#      [determinism] cases, which run the same expressions on 1..n threads, and the
#      fault-injection tests' failing, cancelled and observed tasks),
#   4. runs them (TSAN_TAGS: a Catch2 test spec, default all their cases) with
#      TSAN_OPTIONS=halt_on_error=1 and fails on any "WARNING: ThreadSanitizer" line or a
#      failed test (checks first that they load this libtbb, not the system's).
# Environment: JOBS (default nproc), TSAN_TARGETS, TSAN_TAGS, TESSERA_TEST_SCALE (randomized
# loops' iterations, tests/support/cases.hpp; default 1).
# Measured 2026-11 (g++ 12, Debian 12, one compile job on a 2-core machine shared with other
# builds): fetch + oneTBB build 101 s (once; cached in build-tsan/tbb-prefix), the three test
# executables 221 s, their run 14 s at full iteration counts: 0 ThreadSanitizer reports.
# Not in CI: added to the ASan/UBSan pass it would take CI past its ~35-minute budget
# (22 min today + ~9 for scripts/sanitize.sh + ~5 for this on a cold cache).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
jobs=${JOBS:-$(nproc)}
build=$root/build-tsan
prefix=$build/tbb-prefix
targets=${TSAN_TARGETS:-test_core test_reduce test_faults}
tags=${TSAN_TAGS:-}
export TESSERA_TEST_SCALE=${TESSERA_TEST_SCALE:-1}
t0=$(date +%s)
mkdir -p "$build"

# --- 1-2. instrumented oneTBB ---------------------------------------------------------------
if [[ ! -f $prefix/lib/cmake/TBB/TBBConfig.cmake ]]; then
  src=$build/tbb-src
  if [[ ! -d $src ]]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/dl"
    # the binary suites' deb lines, as deb-src (Debian 12: /etc/apt/sources.list.d/debian.sources)
    cat > "$work/sources.list" <<'EOF'
deb-src http://deb.debian.org/debian bookworm main
deb-src http://deb.debian.org/debian bookworm-updates main
deb-src http://deb.debian.org/debian-security bookworm-security main
EOF
    aptopts=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=-"
             -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
             -o "APT::Get::List-Cleanup=0" -o "APT::Sandbox::User=$(id -un)")
    echo "tsan: fetching Debian's onetbb source package" >&2
    apt-get "${aptopts[@]}" -qq update
    ver=$(dpkg-query -W -f='${source:Version}' libtbb-dev 2>/dev/null || true)
    spec=onetbb${ver:+=$ver}
    (cd "$work/dl" && apt-get "${aptopts[@]}" -qq source --download-only "$spec")
    dsc=$(ls "$work"/dl/onetbb_*.dsc | head -n 1)
    dpkg-source --no-check -x "$dsc" "$work/src" >/dev/null
    mv "$work/src" "$src"
    rm -rf "$work"
    trap - EXIT
  fi
  echo "tsan: building oneTBB ($(basename "$(ls -d "$src")")) with TBB_SANITIZE=thread" >&2
  cmake -S "$src" -B "$build/tbb-build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DTBB_SANITIZE=thread -DTBB_TEST=OFF -DTBB_EXAMPLES=OFF -DTBBMALLOC_BUILD=OFF \
        -DTBB_STRICT=OFF -DTBB_DISABLE_HWLOC_AUTOMATIC_SEARCH=ON -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib >/dev/null
  # (TBB's sources warn about -Wtsan by the hundred: the build's output goes to a log)
  cmake --build "$build/tbb-build" -j "$jobs" >"$build/tbb-build.log" 2>&1 ||
    { tail -n 50 "$build/tbb-build.log"; exit 1; }
  cmake --install "$build/tbb-build" >/dev/null
fi
t1=$(date +%s)

# --- 3. the tests, instrumented, against it --------------------------------------------------
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESSERA_SANITIZE=thread \
      -DTESSERA_SANITIZE_TARGETS="${targets// /;}" \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DTBB_DIR="$prefix/lib/cmake/TBB" \
      -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_RPATH="$prefix/lib" \
      -DTESSERA_CUDA=OFF -DTESSERA_BUILD_BENCHMARKS=OFF -DTESSERA_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target tessera_sanitize_targets
t2=$(date +%s)

# --- 4. run --------------------------------------------------------------------------------
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
status=0
for t in $targets; do
  exe=$build/tests/$t
  if ldd "$exe" | grep -q "libtbb.*=> /usr/lib"; then
    echo "tsan: $t links the system libtbb, not $prefix" >&2
    exit 1
  fi
  log=$build/$t.log
  echo "tsan: running $t ${tags:+($tags)}" >&2
  rc=0
  # shellcheck disable=SC2086
  (cd "$build/tests" && "$exe" $tags) >"$log" 2>&1 || rc=$?
  tail -n 3 "$log"
  n=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
  if [[ $rc -ne 0 || $n -ne 0 ]]; then
    echo "tsan: $t FAILED (exit $rc, $n ThreadSanitizer reports; log: $log)" >&2
    grep -A 30 -m 3 "WARNING: ThreadSanitizer" "$log" >&2 || true
    status=1
  else
    echo "tsan: $t: 0 ThreadSanitizer reports" >&2
  fi
done
t3=$(date +%s)
echo "tsan: oneTBB $((t1 - t0)) s, tests build $((t2 - t1)) s, run $((t3 - t2)) s" >&2
exit $status
