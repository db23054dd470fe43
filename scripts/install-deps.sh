#!/usr/bin/env bash
# Installs the Debian packages Tessera needs that are missing. Usage:
#   scripts/install-deps.sh          build + test dependencies
#   scripts/install-deps.sh --peers  also NumPy, Dask and matplotlib for the peer benchmarks
# The CUDA toolkit (nvcc) is optional: CUDA translation units are built when it is present.
set -euo pipefail
pkgs=(cmake g++ make xtensor-dev xtl-dev libxsimd-dev catch2 libtbb-dev libopenblas-dev
      liblapacke-dev libcli11-dev libfmt-dev libbenchmark-dev nlohmann-json3-dev libblosc-dev
      libzstd-dev zlib1g-dev libisal-dev)
if [[ "${1:-}" == "--peers" ]]; then
  pkgs+=(python3 python3-numpy python3-dask python3-matplotlib)
fi
missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#pkgs[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
