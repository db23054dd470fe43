// Transparent huge pages for large host buffers: a hint (madvise MADV_HUGEPAGE) that lets the
// kernel back a freshly allocated multi-megabyte buffer with 2 MiB pages, so that first touching
// it takes one page fault per 2 MiB instead of one per 4 KiB. NumPy gives its large arrays the
// same hint. Linux only; elsewhere, or when built with TESSERA_NO_HUGE_PAGES, it does nothing.
// Measured (docs/benchmarks.md): the 2e6 x 64 TSQR 0.90 -> 0.69 s, where page faults on its
// 1 GiB result had taken about 15% of the time.
#pragma once
#include <cstddef>
#include <cstdint>

#if defined(__linux__) && !defined(TESSERA_NO_HUGE_PAGES)
#include <sys/mman.h>
#endif

namespace tessera::detail {

/// Buffers at least this large get the hint (NumPy's threshold).
inline constexpr std::size_t huge_page_threshold = std::size_t(4) << 20;

/// Advises huge pages for the whole pages inside [p, p + bytes) when bytes reaches the
/// threshold. A hint only: the memory and its contents are unchanged, errors are ignored.
inline void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE) && !defined(TESSERA_NO_HUGE_PAGES)
  if (bytes < huge_page_threshold) return;
  constexpr std::uintptr_t page = 4096;
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t lo = (a + page - 1) & ~(page - 1), hi = (a + bytes) & ~(page - 1);
  if (hi > lo) (void)madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace tessera::detail
