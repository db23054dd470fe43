// The SVD benchmark (benchmarks/bench_svd.cpp) built by nvcc with the CUDA backend: adds the
// `cuda` rows (--backend cuda / auto; --threads = number of devices). On a machine without a
// usable device, `--backend auto` runs the host rows with a notice.
#include "../bench_svd.cpp"
