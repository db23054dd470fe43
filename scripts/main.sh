#!/usr/bin/env bash
# Fresh machine -> installs what is missing (peers too), builds the seed-003 benchmark and runs
# the main job: Tessera against Dask and NumPy on the seed-003 workload at a size that takes
# about a minute on a 2-core machine, printing the comparison table.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --peers
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)" --target bench_seed003
python=/usr/bin/python3
[[ -x $python ]] || python=python3
exec "$python" benchmarks/peers/run_all.py --build-dir build --preset main "$@"
