// Peak memory of the calling process, for examples, benchmarks and tests that report how much
// memory an evaluation took. Not included by <tessera/tessera.hpp>:
//
//   #include <tessera/core/process_memory.hpp>
//   std::size_t b = tessera::peak_resident_bytes();   // bytes; 0 where unknown
//   double mib = tessera::peak_resident_mib();        // the same in MiB (2^20 bytes)
//
// The figure is the process-lifetime peak of its resident set (getrusage's ru_maxrss: "VmHWM"
// in /proc/self/status on Linux), over all threads. It never decreases, so a program that
// compares configurations measures the one with the largest footprint last. Device memory
// (ts::cuda) is not included: see ts::cuda::memory_in_use().
//
// Platforms: Linux and the BSDs report ru_maxrss in KiB, macOS in bytes; elsewhere (or when
// getrusage fails) both functions return 0.
#pragma once
#include <cstddef>

#if defined(__linux__) || defined(__APPLE__) || defined(__FreeBSD__) || defined(__NetBSD__) || \
    defined(__OpenBSD__)
#include <sys/resource.h>
#endif

namespace tessera {

/// Peak resident set size of this process so far, in bytes; 0 where the platform does not
/// report it.
inline std::size_t peak_resident_bytes() noexcept {
#if defined(__linux__) || defined(__APPLE__) || defined(__FreeBSD__) || defined(__NetBSD__) || \
    defined(__OpenBSD__)
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0 || u.ru_maxrss < 0) return 0;
#if defined(__APPLE__)
  return std::size_t(u.ru_maxrss);  // bytes
#else
  return std::size_t(u.ru_maxrss) * 1024;  // KiB
#endif
#else
  return 0;
#endif
}

/// peak_resident_bytes() in MiB (2^20 bytes); 0 where unknown.
inline double peak_resident_mib() noexcept {
  return double(peak_resident_bytes()) / (1024.0 * 1024.0);
}

}  // namespace tessera
