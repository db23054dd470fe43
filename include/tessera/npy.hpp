// NumPy .npy files (link tessera::io):
//   ts::from_npy<T>(path [, chunks])        a lazy array over the file; each chunk task preads
//                                           the bytes of its chunk, and a view reads only the
//                                           chunks it touches
//   ts::npy_info(path)                      dtype, shape, order and data offset; reads no data
//   ts::to_npy(x, path [, policy])          evaluates x chunk by chunk, each chunk written as
//                                           its task finishes it; the file appears whole or not
//   ts::to_npy_stack(dir, x [, axis, policy]) / ts::from_npy_stack<T>(dir [, axis])
//                                           one .npy file per chunk along an axis (Dask's
//                                           to_npy_stack / from_npy_stack layout)
// Format versions 1.0, 2.0 and 3.0 are read, both byte orders and fortran_order files; files
// are written as np.save writes them (version 1.0, C order). Every failure to read or write is
// a tessera::io_error naming the path and what is wrong.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "exec/store.hpp"
#include "nodes/stored.hpp"
#include "store/npy.hpp"
#include "tessera.hpp"

namespace tessera {

/// What a .npy header says (npy_info reads the header only).
struct npy_file_info {
  dtype type;                  // the stored element type, e.g. dtype::from_numpy("<f8")
  shape_t shape;
  bool fortran_order = false;  // elements stored in Fortran (column-major) order
  std::int64_t data_offset = 0;  // bytes before the first element
};

inline npy_file_info npy_info(const std::string& path) {
  const detail::npy::header h = detail::npy::read_header(path);
  return npy_file_info{h.type, h.shape, h.fortran_order, h.data_offset};
}

/// A lazy array of T over the .npy file at `path` with chunks `chunks` (automatic when
/// omitted). The header is read now; the data when chunk tasks need it. A stored dtype other
/// than T is converted as ts::cast converts.
template <class T>
auto from_npy(const std::string& path, const chunks_arg& chunks = {}) {
  return from_store(std::make_shared<npy_store<T>>(path, chunks));
}

/// Evaluates x with `policy` and writes it to `path` as a .npy file (C order, dtype of
/// X::value_type in this machine's byte order, the bytes np.save writes), one chunk task per
/// chunk of x: memory holds the chunks in flight, not the array. The file is assembled under a
/// temporary name beside `path` and renamed into place when complete: on failure nothing
/// appears at `path` and a file already there is unchanged. Parent directories are created.
template <expression_type X, execution_policy P = host>
void to_npy(const X& x, const std::string& path, const P& policy = P{}) {
  using T = typename X::value_type;
  npy_writer<T> target(path, x.grid());
  store(x, target, policy);
  target.commit();
}

/// Writes x as a stack of .npy files in directory `dir` (created when missing): file k, named
/// "<k>.npy", holds x's k-th chunk along `axis` (negative counts from the end), whole along the
/// other axes; then "info.json" records {"axis", "chunks" (the lengths along axis), "dtype",
/// "shape"}. Evaluated chunk by chunk as to_npy; every file is assembled under a temporary name
/// and the files are renamed into place only once all of x is written, so a failure leaves the
/// directory as it was. Files of an earlier, longer stack in `dir` are not removed.
template <expression_type X, execution_policy P = host>
void to_npy_stack(const std::string& dir, const X& x, int axis = 0, const P& policy = P{}) {
  namespace fs = std::filesystem;
  using T = typename X::value_type;
  const int r = x.dimension();
  if (r == 0) throw_invalid("ts::to_npy_stack needs an array of at least one dimension, got shape ()");
  if (axis < -r || axis >= r)
    throw_invalid("ts::to_npy_stack: axis ", axis, " is out of range for an array of shape ", x.shape());
  if (axis < 0) axis += r;
  std::error_code ec;
  const fs::path d(dir);
  const bool existed = fs::exists(d, ec);
  if (existed && !fs::is_directory(d, ec))
    throw_io("cannot write a .npy stack to ", dir, ": it exists and is not a directory");
  detail::make_directories(d);
  try {
    npy_stack_writer<T> target(dir, x.grid(), axis);
    store(x, target, policy);
    target.commit();
  } catch (...) {
    if (!existed) fs::remove(d, ec);  // only when still empty
    throw;
  }
}

/// A lazy array of T over a stack of .npy files in `dir` (to_npy_stack's, or Dask's): the
/// files concatenated along the axis, one chunk per file. The layout is info.json's when the
/// directory has one; otherwise the files 0.npy, 1.npy, ... (up to the first missing number)
/// are concatenated along `axis` (negative counts from the end), which must then match the axis
/// they were written along (a Dask-written directory's pickled "info" is not read).
template <class T>
auto from_npy_stack(const std::string& dir, int axis = 0) {
  return from_store(std::make_shared<npy_stack_store<T>>(dir, axis));
}

}  // namespace tessera
