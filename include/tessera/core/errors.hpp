// Error helpers: every user error names the offending value.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../config.hpp"

namespace tessera {

/// Thrown for bad shapes, chunks, axes, broadcasts and arguments.
struct invalid_argument : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};
/// Thrown for out-of-range indices.
struct out_of_range : std::out_of_range {
  using std::out_of_range::out_of_range;
};
/// Thrown when a file or store cannot be read or written: a missing path, malformed metadata,
/// an unsupported dtype or codec, a truncated or corrupt chunk. The message names the path (and
/// the chunk key) and says what to fix.
struct io_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace detail {

inline void stream_one(std::ostringstream& os, const std::vector<index_t>& v) {
  os << '(';
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  if (v.size() == 1) os << ',';
  os << ')';
}
/// Chunks (one list per axis), as Dask prints them: ((2, 2), (3,)).
inline void stream_one(std::ostringstream& os, const std::vector<std::vector<index_t>>& v) {
  os << '(';
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) os << ", ";
    stream_one(os, v[i]);
  }
  if (v.size() == 1) os << ',';
  os << ')';
}
template <class T>
void stream_one(std::ostringstream& os, const T& x) {
  os << x;
}

template <class... A>
std::string cat(const A&... a) {
  std::ostringstream os;
  (stream_one(os, a), ...);
  return os.str();
}

}  // namespace detail

template <class... A>
[[noreturn]] void throw_invalid(const A&... a) {
  throw invalid_argument("tessera: " + detail::cat(a...));
}
template <class... A>
[[noreturn]] void throw_io(const A&... a) {
  throw io_error("tessera: " + detail::cat(a...));
}
template <class... A>
[[noreturn]] void throw_out_of_range(const A&... a) {
  throw out_of_range("tessera: " + detail::cat(a...));
}

}  // namespace tessera
