#!/usr/bin/env bash
# Installs the Debian packages Tessera needs that are missing. Usage:
#   scripts/install-deps.sh          build + test dependencies (graphviz and librsvg2-bin render the
#                                    diagnostics tests' dot and SVG output)
#   scripts/install-deps.sh --peers  also matplotlib for the peer benchmarks, and JAX (CPU) in
#                                    the venv below: the seed-003 benchmark's current-Dask and JAX
#                                    peers run with .venv/bin/python (benchmarks/peers/README.md)
# The Zarr interoperability tests (tests/interop) use Debian's python3-zarr and python3-dask
# (format 2) and a venv .venv in the repository root with zarr>=3 and Dask from PyPI (format 3),
# made here when missing. Nothing outside Debian's packages and that venv is changed.
# The CUDA toolkit (nvcc) is optional: CUDA translation units are built when it is present.
set -euo pipefail
pkgs=(cmake g++ make xtensor-dev xtl-dev libxsimd-dev catch2 libtbb-dev libopenblas-dev
      liblapacke-dev libcli11-dev libfmt-dev libbenchmark-dev nlohmann-json3-dev libblosc-dev
      libzstd-dev zlib1g-dev libisal-dev python3 python3-numpy python3-zarr python3-dask
      python3-venv graphviz librsvg2-bin libopenmpi-dev openmpi-bin)
peers=0
if [[ "${1:-}" == "--peers" ]]; then
  peers=1
  pkgs+=(python3-matplotlib)
fi
missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#pkgs[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# zarr-python 3 (Zarr format 3) is not in Debian 12: a venv with it from PyPI.
venv="$(cd "$(dirname "$0")/.." && pwd)/.venv"
check='import zarr, dask.array; assert int(zarr.__version__.split(".")[0]) >= 3'
if "$venv/bin/python" -c "$check" 2>/dev/null; then
  echo "install-deps: $venv has zarr>=3 and dask"
else
  echo "install-deps: making $venv with zarr>=3, dask[array] and numpy from PyPI"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "zarr>=3" "dask[array]" numpy
  "$venv/bin/python" -c "$check"
fi

# --peers: JAX on CPU (jax[cpu], float64 via jax_enable_x64) for the seed-003 JAX peer, in the
# same venv as the current Dask. Not on the default path: CI does not download JAX.
if ((peers)); then
  if "$venv/bin/python" -c 'import jax' 2>/dev/null; then
    echo "install-deps: $venv has jax"
  else
    echo "install-deps: installing jax[cpu] from PyPI into $venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "jax[cpu]"
    "$venv/bin/python" -c 'import jax'
  fi
  "$venv/bin/python" -c 'import dask, jax, numpy
print(f"install-deps: peers venv: dask {dask.__version__}, jax {jax.__version__}, numpy {numpy.__version__}")'
fi
