// Linked into the benchmark executables of a build that compiled them only as a compile check
// (TESSERA_BENCHMARKS_AS_CHECK: host code at -O1; TESSERA_CUDA_COMPILE_CHECK: device code
// unoptimized, PTX only): says so on stderr before anything runs, so that nobody takes their
// timings for measurements. scripts/main.sh configures its builds without either.
#include <cstdio>

namespace {
struct check_build_notice {
  check_build_notice() {
    std::fputs(
        "warning: this benchmark was built as a compile check (TESSERA_BENCHMARKS_AS_CHECK or "
        "TESSERA_CUDA_COMPILE_CHECK, as scripts/test.sh builds): its timings are not "
        "representative; reconfigure with both OFF (scripts/main.sh does) to time it\n",
        stderr);
  }
};
const check_build_notice printed;
}  // namespace
