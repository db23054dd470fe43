// File helpers for the tests of on-disk formats (Zarr, .npy): a scratch directory removed with
// its object, whole-file reads and writes, and a snapshot of a directory's files.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

namespace testing {

/// A fresh directory under the system temp dir (named after `prefix`), removed with the object.
struct temp_dir {
  std::filesystem::path path;
  explicit temp_dir(const std::string& prefix = "tessera_test") {
    static int n = 0;
    path = std::filesystem::temp_directory_path() /
           (prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string operator/(const std::string& s) const { return (path / s).string(); }
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}
inline void spit(const std::filesystem::path& p, const std::string& s) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << s;
}

/// Every file under p (relative names) with its bytes.
inline std::map<std::string, std::string> tree(const std::filesystem::path& p) {
  std::map<std::string, std::string> out;
  for (auto& e : std::filesystem::recursive_directory_iterator(p))
    if (e.is_regular_file()) out[std::filesystem::relative(e.path(), p).string()] = slurp(e.path());
  return out;
}

}  // namespace testing
