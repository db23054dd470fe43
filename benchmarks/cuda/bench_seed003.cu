// The seed-003 benchmark (benchmarks/bench_seed003.cpp) built by nvcc with the CUDA backend:
// adds the `cuda` backend rows (--backend cuda / auto; --threads = number of devices). On a
// machine without a usable device, `--backend auto` runs the host rows with a notice.
#include "../bench_seed003.cpp"
