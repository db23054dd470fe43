// Shared pieces of ts::linalg: result types, options, row-block evaluation of an input
// expression into dense buffers, layout conversions and the SVD sign convention.
#pragma once
#include <algorithm>
#include <concepts>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "../backend/host.hpp"
#include "../compute.hpp"
#include "../nodes/rechunk.hpp"
#include "../nodes/remap.hpp"
#include "../nodes/stored.hpp"
#include "dense_host.hpp"

namespace tessera {
struct cuda;  // backend/cuda/policy.cuh (nvcc translation units)
}

namespace tessera::linalg {

/// The execution policies ts::linalg runs on: ts::host, and ts::cuda in .cu translation units
/// that include <tessera/cuda.hpp> (dense<cuda> in linalg/dense_cuda.cuh). ts::auto_backend
/// has its own overloads (linalg/auto_backend.cuh).
template <class P>
concept linalg_policy = std::same_as<P, host> || std::same_as<P, cuda>;

/// Q and R of a QR factorization (structured bindings: `auto [q, r] = qr(a)`). Q is a host
/// ts::array on ts::host and a ts::device_array (chunks in device memory, as ts::persist gives)
/// on ts::cuda and ts::auto_backend.
template <class T, class Q = array<T>>
struct qr_result {
  Q q;         // m x k, a's row chunks, one column chunk
  array<T> r;  // k x n, one row chunk, a's column chunks
};

/// Thin SVD (structured bindings: `auto [u, s, vt] = svd(a)`); u is stored like qr_result's q
/// (on ts::mpi, u and vt are both ts::distributed_array: the large one distributed, the small
/// one on every rank).
template <class T, class U = array<T>, class V = array<T>>
struct svd_result {
  U u;         // m x k
  array<T> s;  // k, descending
  V vt;        // k x n
};

namespace detail {
/// The SVD of A from the SVD of A' (wide matrices are factored through their transpose):
/// A = (U S Vt)' = Vt' S U'.
template <class T, class P>
svd_result<T> transposed(const svd_result<T>& t, const P& pol) {
  const host& h = dense<P>::host_side(pol);  // the factors are host arrays
  return {persist(transpose(t.vt), h), t.s, persist(transpose(t.u), h)};
}
}  // namespace detail

/// How ts::linalg's TSQR factors the row blocks.
///   automatic:   ts::cuda tries CholeskyQR2 (two Gram-matrix passes through cuBLAS: R' R = A' A,
///                Q1 = A R^-1, repeated once on Q1) and falls back to Householder TSQR when A is
///                too ill-conditioned for it (linalg.md, "CholeskyQR2 on the device"); ts::host
///                and ts::mpi do the same with OpenBLAS (linalg/cholesky_qr2.hpp), also for
///                svd_compressed's QR of its sketch; their svd of a tall A with cond(A) <= 8
///                stops after the first Gram pass and takes S and V from A'A's
///                eigen-decomposition (linalg/gram_svd.hpp).
///   householder: Householder TSQR (geqrf per row block, the R factors stacked) everywhere.
enum class tsqr_method { automatic, householder };

/// Tuning knobs of the TSQR-based factorizations. fanin, tree and leaf_rows shape the
/// Householder TSQR only (CholeskyQR2, tried first for tall input, has no tree).
struct tsqr_options {
  /// Largest number of R factors stacked and factored together; more row blocks reduce
  /// recursively (a tree of stacked QRs). 0: automatic (stack at most ~16 Mi elements).
  index_t fanin = 0;
  /// Largest dense matrix (bytes) a row block or the k x n / k x k factors may occupy;
  /// larger row blocks are split, a larger k x n refuses (use svd_compressed).
  double max_dense_bytes = double(std::size_t(4) << 30);
  /// When every row block has at least n rows (and fanin is automatic): keep each block's
  /// Householder form and merge the n x n R factors pairwise with tpqrt (a binary tree that
  /// exploits their triangular structure). false: always stack and factor with geqrf.
  bool tree = true;
  /// Rows per leaf of the tree path (row blocks of narrow matrices are split into leaves
  /// factored in cache). 0: automatic (about 256 Ki elements, at least n rows).
  index_t leaf_rows = 0;
  /// The algorithm (see tsqr_method).
  tsqr_method method = tsqr_method::automatic;
};

namespace detail {

template <class X>
using real_of = typename std::remove_cvref_t<X>::value_type;

template <class T>
constexpr void check_real_type() {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>,
                "ts::linalg works on float or double arrays; cast the input first (ts::cast)");
}

template <class X>
void check_matrix(const X& a, const char* what) {
  if (a.dimension() != 2)
    throw_invalid(what, " needs a 2-D array, got shape ", a.shape());
  if (a.shape()[0] == 0 || a.shape()[1] == 0)
    throw_invalid(what, " needs a non-empty matrix, got shape ", a.shape());
}

/// Throws, before the dense SVD of a small factor (which LAPACK would refuse with a bare
/// "info -5" or fail to converge on), when the factor has a NaN or an infinity: NaN and Inf
/// in the input propagate into it (NumPy: "SVD did not converge").
template <class T>
void check_finite_factor(const T* p, std::size_t n, const char* what) {
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(p[i]))
      throw_invalid(what, ": the matrix has NaN or infinite values (a ", p[i],
                    " reached its reduced factor): SVD did not converge");
}

/// Row chunks for a row-block pass: a's row chunks, split further where a row block of n
/// columns would exceed `max_bytes`.
inline std::vector<index_t> pass_row_chunks(const std::vector<index_t>& rows, index_t n,
                                            std::size_t itemsize, double max_bytes) {
  const index_t cap = std::max<index_t>(1, index_t(max_bytes / (double(n) * double(itemsize))));
  std::vector<index_t> out;
  for (index_t r : rows) {
    if (r <= cap) {
      out.push_back(r);
      continue;
    }
    const index_t pieces = (r + cap - 1) / cap;
    for (index_t p = 0; p < pieces; ++p) out.push_back(r / pieces + (p < r % pieces ? 1 : 0));
  }
  return out;
}

/// A lowered input whose row blocks are evaluated one at a time into dense buffers, by the
/// policy's backend (dense<P>::load).
template <class L, class P>
struct row_source {
  L low;                      // lowered expression with chunks (rows, {n})
  P pol;
  std::vector<index_t> off;   // row block offsets (size nblocks + 1)
  index_t n;

  index_t blocks() const { return index_t(off.size()) - 1; }
  index_t rows(index_t b) const { return off[static_cast<std::size_t>(b) + 1] - off[static_cast<std::size_t>(b)]; }

  /// The box of row block b: its rows, all n columns.
  box block_box(index_t b) const {
    box bx;
    bx.lo.n = bx.hi.n = 2;
    bx.lo[0] = off[static_cast<std::size_t>(b)];
    bx.hi[0] = off[static_cast<std::size_t>(b) + 1];
    bx.lo[1] = 0;
    bx.hi[1] = n;
    return bx;
  }

  /// Row block b, row-major (rows(b) x n, leading dimension n).
  template <class T>
  void load_row_major(index_t b, T* out) const {
    dense<P>::load(pol, low, block_box(b), out);
  }
  /// f(p), p row block b row-major (rows(b) x n, ld n): in place when a stored input holds it
  /// so, else loaded into scratch (rows(b) * n elements).
  template <class T, class F>
  void with_row_major(index_t b, T* scratch, F&& f) const {
    dense<P>::with_rows(pol, low, block_box(b), scratch, std::forward<F>(f));
  }
};

/// Row blocks already dense in host memory (blocks[b]: row-major rows x n) as a row source.
template <class T>
struct dense_row_source {
  const std::vector<std::vector<T>>& data;
  std::vector<index_t> off;  // row block offsets (size nblocks + 1)
  index_t n;

  dense_row_source(const std::vector<std::vector<T>>& blocks, const std::vector<index_t>& rows, index_t cols)
      : data(blocks), off{0}, n(cols) {
    for (index_t r : rows) off.push_back(off.back() + r);
  }
  index_t blocks() const { return index_t(off.size()) - 1; }
  index_t rows(index_t b) const { return off[static_cast<std::size_t>(b) + 1] - off[static_cast<std::size_t>(b)]; }
  template <class U>
  void load_row_major(index_t b, U* out) const {
    const auto& v = data[static_cast<std::size_t>(b)];
    std::copy(v.begin(), v.begin() + rows(b) * n, out);
  }
};

/// Builds a row source over a (2-D value expression): columns in one chunk, rows in `rows`.
template <class X, class P>
auto make_row_source(const X& a, const std::vector<index_t>& rows, const P& pol) {
  const index_t n = a.shape()[1];
  auto low = rechunk(a, chunks_t{rows, {n}}).lower(pol);
  row_source<std::remove_cvref_t<decltype(low)>, P> src{std::move(low), pol, {0}, n};
  for (index_t r : rows) src.off.push_back(src.off.back() + r);
  return src;
}

/// dst (cols x rows, column-major, ld = rows) = transpose of src (rows x cols, row-major).
template <class T>
void row_to_col_major(const T* src, index_t rows, index_t cols, T* dst) {
  constexpr index_t tb = 32;
  for (index_t i0 = 0; i0 < rows; i0 += tb)
    for (index_t j0 = 0; j0 < cols; j0 += tb) {
      const index_t i1 = std::min(rows, i0 + tb), j1 = std::min(cols, j0 + tb);
      for (index_t j = j0; j < j1; ++j)
        for (index_t i = i0; i < i1; ++i) dst[j * rows + i] = src[i * cols + j];
    }
}

/// Copies a column-major m x n matrix (leading dimension ld) into a row-major chunked array
/// block whose box inside the (m x n) matrix is [r0, r1) x [c0, c1).
template <class T>
void col_major_to_block(const T* src, index_t ld, index_t r0, index_t r1, index_t c0, index_t c1,
                        T* dst) {
  const index_t w = c1 - c0;
  for (index_t i = r0; i < r1; ++i)
    for (index_t j = c0; j < c1; ++j) dst[(i - r0) * w + (j - c0)] = src[j * ld + i];
}

/// A new chunked array holding the column-major m x n matrix src with chunks (rows, cols).
template <class T>
array<T> array_from_col_major(const T* src, index_t m, index_t n, std::vector<index_t> rows,
                              std::vector<index_t> cols) {
  array<T> out(chunk_grid({m, n}, chunks_t{std::move(rows), std::move(cols)}));
  const chunk_grid& g = out.grid();
  for (index_t b = 0; b < g.block_count(); ++b) {
    box bx = g.block_box(b);
    if (bx.count() == 0) continue;
    col_major_to_block(src, m, bx.lo[0], bx.hi[0], bx.lo[1], bx.hi[1], out.block_data(b));
  }
  return out;
}

/// A 1-D chunked array (one chunk) from a vector.
template <class T>
array<T> array_from_vector(const T* v, index_t k) {
  array<T> out(chunk_grid({k}, chunks_t{{k}}));
  std::copy(v, v + k, out.block_data(0));
  return out;
}

/// Sign convention (Dask's svd_flip with the decision taken on vt): every row of vt (k x n,
/// column-major, ld k) is flipped so that its largest-magnitude entry (the first one on ties)
/// is positive; the same column of u (column-major, rows x k, ld) is flipped with it.
template <class T>
void svd_flip_v(T* vt, index_t k, index_t n, T* u, index_t urows, index_t uld) {
  for (index_t i = 0; i < k; ++i) {
    index_t best = 0;
    T bv = T(-1);
    for (index_t j = 0; j < n; ++j) {
      T v = std::abs(vt[j * k + i]);
      if (v > bv) bv = v, best = j;
    }
    if (vt[best * k + i] < T(0)) {
      for (index_t j = 0; j < n; ++j) vt[j * k + i] = -vt[j * k + i];
      for (index_t r = 0; r < urows; ++r) u[i * uld + r] = -u[i * uld + r];
    }
  }
}

/// A value expression evaluated chunk by chunk by the policy's backend into a host array with
/// the same chunks (what persist(x, host) gives; under ts::cuda the chunks are computed on
/// the devices and copied back).
template <class X, class P>
array<typename X::value_type> materialize(const X& x, const P& pol) {
  using T = typename X::value_type;
  auto low = x.lower(pol);
  array<T> out(low.grid());
  const chunk_grid& g = out.grid();
  for (index_t b = 0; b < g.block_count(); ++b) out.block_data(b);  // allocate serially
  dense<P>::parallel(pol, g.block_count(), [&](index_t b) {
    dense<P>::load(pol, low, g.block_box(b), out.block_data(b));
  });
  return out;
}

/// Per-thread scratch that keeps its memory between tasks (no page faults per block).
template <class T, int Slot>
T* scratch(std::size_t n) {
  thread_local std::vector<T> buf;
  if (buf.size() < n) buf.resize(n);
  return buf.data();
}

/// Threads for the BLAS inside tasks that already run `tasks` at once on `pol`.
template <class P>
int blas_threads_for(const P& pol, index_t tasks) {
  const int c = dense<P>::concurrency(pol);
  if (tasks <= 1) return c;
  return std::max(1, c / int(std::min<index_t>(tasks, c)));
}

}  // namespace detail
}  // namespace tessera::linalg
