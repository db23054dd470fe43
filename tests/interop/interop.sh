#!/usr/bin/env bash
# ctest driver of the Zarr interoperability fixtures (tests/CMakeLists.txt). Exit 4 = skipped.
#   interop.sh py WHAT PYTHON ZARR_MIN ZARR_MAX WORKDIR SCRIPT ARGS...
#       runs PYTHON SCRIPT ARGS... when PYTHON imports zarr with ZARR_MIN <= major <= ZARR_MAX,
#       dask.array and numpy; otherwise writes WORKDIR/SKIPPED (a write step's dependents skip
#       too) and exits 4 with a message that says how to get the interpreter.
#   interop.sh run WORKDIR COMMAND...
#       runs COMMAND unless WORKDIR/SKIPPED exists (the step that made WORKDIR was skipped).
set -uo pipefail
mode=$1
shift
case "$mode" in
  py)
    what=$1 python=$2 zmin=$3 zmax=$4 workdir=$5
    shift 5
    check="import zarr, dask.array, numpy; m = int(zarr.__version__.split('.')[0]); assert $zmin <= m <= $zmax, zarr.__version__"
    if [[ ! -x "$python" ]] || ! err=$("$python" -c "$check" 2>&1); then
      [[ -x "$python" ]] || err="$python does not exist"
      msg="$what skipped: no Python with $([[ $zmin == "$zmax" ]] && echo "zarr $zmin.x" || echo "zarr>=$zmin") and dask at $python (${err##*$'\n'}); run scripts/install-deps.sh"
      rm -rf "$workdir"
      mkdir -p "$workdir"
      echo "$msg" >"$workdir/SKIPPED"
      echo "$msg"
      exit 4
    fi
    exec "$python" "$@"
    ;;
  run)
    workdir=$1
    shift
    if [[ -f "$workdir/SKIPPED" ]]; then
      echo "skipped, its input was not written: $(cat "$workdir/SKIPPED")"
      exit 4
    fi
    exec "$@"
    ;;
  *)
    echo "interop.sh: unknown mode '$mode' (py or run)" >&2
    exit 2
    ;;
esac
