#!/usr/bin/env bash
# Fresh machine -> installs what is missing (peers too: Debian's Dask and NumPy, and a venv .venv
# with current Dask and JAX on CPU from PyPI), builds the seed-003 benchmark twice (-march=native
# and a plain Release build, as a user builds it) and runs the main
# job: Tessera against Dask 2022.12 (Debian), current Dask, JAX and NumPy on the seed-003
# workload at a size that takes about a minute on a 2-core machine, printing the comparison
# table (`vs fastest peer` column, the issue's goals against the fastest peer).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --peers
# Two builds of the benchmark: the project's (-march=native) and a user's plain Release build
# (no CPU flags: the host kernels choose AVX2 / AVX-512 at run time).
# (-O3 benchmarks explicitly: scripts/test.sh configures `build` with them at -O1.)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTESSERA_BENCHMARKS_AS_CHECK=OFF
cmake --build build -j "$(nproc)" --target bench_seed003
cmake -S . -B build-user -DCMAKE_BUILD_TYPE=Release -DTESSERA_NATIVE=OFF \
      -DTESSERA_BUILD_TESTS=OFF -DTESSERA_BUILD_EXAMPLES=OFF -DTESSERA_BENCHMARKS_AS_CHECK=OFF
cmake --build build-user -j "$(nproc)" --target bench_seed003
python=/usr/bin/python3
[[ -x $python ]] || python=python3
exec "$python" benchmarks/peers/run_all.py --build-dir build --user-build-dir build-user \
     --preset main "$@"
