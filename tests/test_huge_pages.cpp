// Large ts::array blocks get the transparent-huge-page hint (core/huge_pages.hpp): where the
// kernel honours madvise (transparent_hugepage/enabled says [madvise] or [always]), writing a
// fresh 64 MiB block must leave this process with anonymous huge pages; small blocks get no hint.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <tessera/store/memory.hpp>

namespace ts = tessera;

namespace {

/// AnonHugePages of this process in kB (/proc/self/smaps_rollup), -1 when unreadable.
long anon_huge_kb() {
  std::ifstream f("/proc/self/smaps_rollup");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("AnonHugePages:", 0) == 0) return std::stol(line.substr(14));
  return -1;
}

std::string thp_mode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("large memory_store blocks are backed by huge pages where the kernel allows it",
          "[store][memory]") {
#if !defined(__linux__) || defined(TESSERA_NO_HUGE_PAGES)
  SUCCEED("not Linux, or built without the hint");
#else
  const std::string mode = thp_mode();
  const long before = anon_huge_kb();
  if (before < 0 || (mode.find("[madvise]") == std::string::npos && mode.find("[always]") == std::string::npos)) {
    WARN("transparent huge pages not available to madvise here (" << mode << "): nothing to check");
    return;
  }
  if (mode.find("[always]") != std::string::npos)
    WARN("transparent huge pages are [always] here: the check below cannot tell the hint apart");
  const ts::index_t n = ts::index_t(64) << 17;  // 64 MiB of doubles in one block
  ts::memory_store<double> store(ts::chunk_grid({n}, ts::chunks_t{{n}}));
  double* p = store.block_data(0);
  for (ts::index_t i = 0; i < n; ++i) p[i] = double(i);
  const long after = anon_huge_kb();
  INFO("AnonHugePages before " << before << " kB, after writing the block " << after << " kB (" << mode << ")");
  CHECK(after - before >= 2048);  // at least one 2 MiB page (fragmented memory may hold some back)
  CHECK(p[n - 1] == double(n - 1));
#endif
}
