// Files for the on-disk stores (Zarr, .npy): whole and ranged reads, positioned writes, and
// atomic replacement (write a temporary name in the same directory, then rename), so a reader
// never sees a half-written chunk. Every failure is a tessera::io_error naming the path.
#pragma once
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <string>
#include <vector>

#include "../core/errors.hpp"

namespace tessera::detail {

/// An allocator whose value-initialization leaves bytes uninitialized: buffers about to be
/// overwritten by a read or a codec are not zeroed first (a chunk is megabytes).
template <class T>
struct default_init_allocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = default_init_allocator<U>;
  };
  default_init_allocator() = default;
  template <class U>
  default_init_allocator(const default_init_allocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};

/// A byte buffer (uninitialized on resize).
using bytes = std::vector<std::byte, default_init_allocator<std::byte>>;
namespace fs = std::filesystem;

inline std::string errno_text(int e) { return std::strerror(e); }

/// An open file descriptor, closed on destruction.
class file_handle {
 public:
  file_handle() = default;
  file_handle(const fs::path& p, int flags, mode_t mode = 0644) : path_(p) {
    fd_ = ::open(p.c_str(), flags | O_CLOEXEC, mode);
    if (fd_ < 0) {
      const int e = errno;
      throw_io("cannot open ", p.string(), ": ", errno_text(e));
    }
  }
  file_handle(const file_handle&) = delete;
  file_handle& operator=(const file_handle&) = delete;
  file_handle(file_handle&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
  ~file_handle() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }
  const fs::path& path() const { return path_; }

  std::int64_t size() const {
    struct stat st;
    if (::fstat(fd_, &st) != 0) {
      const int e = errno;
      throw_io("cannot stat ", path_.string(), ": ", errno_text(e));
    }
    return std::int64_t(st.st_size);
  }
  /// Reads exactly n bytes at offset; a short file is an io_error naming what was expected.
  void read_at(std::int64_t offset, std::size_t n, void* out) const {
    auto* p = static_cast<char*>(out);
    std::size_t done = 0;
    while (done < n) {
      const ssize_t r = ::pread(fd_, p + done, n - done, off_t(offset + std::int64_t(done)));
      if (r < 0) {
        if (errno == EINTR) continue;
        const int e = errno;
        throw_io("cannot read ", path_.string(), ": ", errno_text(e));
      }
      if (r == 0)
        throw_io("file ", path_.string(), " is truncated: needed ", n, " bytes at offset ",
                 offset, ", found ", done);
      done += std::size_t(r);
    }
  }
  /// Writes n bytes at offset.
  void write_at(std::int64_t offset, std::size_t n, const void* in) const {
    const auto* p = static_cast<const char*>(in);
    std::size_t done = 0;
    while (done < n) {
      const ssize_t r = ::pwrite(fd_, p + done, n - done, off_t(offset + std::int64_t(done)));
      if (r < 0) {
        if (errno == EINTR) continue;
        const int e = errno;
        throw_io("cannot write ", path_.string(), ": ", errno_text(e));
      }
      done += std::size_t(r);
    }
  }
  void resize(std::int64_t n) const {
    if (::ftruncate(fd_, off_t(n)) != 0) {
      const int e = errno;
      throw_io("cannot resize ", path_.string(), " to ", n, " bytes: ", errno_text(e));
    }
  }

 private:
  int fd_ = -1;
  fs::path path_;
};

/// The whole file, or nothing when it does not exist.
inline std::optional<bytes> read_file_if_exists(const fs::path& p) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    if (e == ENOENT) return std::nullopt;
    throw_io("cannot open ", p.string(), ": ", errno_text(e));
  }
  ::close(fd);
  file_handle f(p, O_RDONLY);
  bytes out(std::size_t(f.size()));
  f.read_at(0, out.size(), out.data());
  return out;
}

inline bytes read_file(const fs::path& p) {
  auto b = read_file_if_exists(p);
  if (!b) throw_io("file ", p.string(), " does not exist");
  return std::move(*b);
}

/// A name beside p for a temporary file, unique across threads and processes.
inline fs::path temporary_name(const fs::path& p) {
  static std::atomic<std::uint64_t> counter{0};
  return fs::path(p.string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                  std::to_string(counter.fetch_add(1)));
}

inline void make_directories(const fs::path& d) {
  std::error_code ec;
  fs::create_directories(d, ec);
  if (ec && !fs::is_directory(d))
    throw_io("cannot create directory ", d.string(), ": ", ec.message());
}

/// Replaces (or creates) file p with `n` bytes at `data` atomically: readers see the old file
/// or the new one, never a part. Parent directories are created.
inline void write_file_atomic(const fs::path& p, const void* data, std::size_t n) {
  if (p.has_parent_path()) make_directories(p.parent_path());
  const fs::path tmp = temporary_name(p);
  try {
    {
      file_handle f(tmp, O_WRONLY | O_CREAT | O_TRUNC);
      f.write_at(0, n, data);
    }
    if (::rename(tmp.c_str(), p.c_str()) != 0) {
      const int e = errno;
      throw_io("cannot rename ", tmp.string(), " to ", p.string(), ": ", errno_text(e));
    }
  } catch (...) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw;
  }
}
inline void write_file_atomic(const fs::path& p, const std::string& text) {
  write_file_atomic(p, text.data(), text.size());
}
inline void write_file_atomic(const fs::path& p, const bytes& b) {
  write_file_atomic(p, b.data(), b.size());
}

/// Renames a file or directory (replacing an empty directory or a file at `to`).
inline void rename_path(const fs::path& from, const fs::path& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    const int e = errno;
    throw_io("cannot rename ", from.string(), " to ", to.string(), ": ", errno_text(e));
  }
}

inline void remove_all(const fs::path& p) {
  std::error_code ec;
  fs::remove_all(p, ec);
  if (ec) throw_io("cannot remove ", p.string(), ": ", ec.message());
}

}  // namespace tessera::detail
