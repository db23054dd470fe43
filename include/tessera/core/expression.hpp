// The expression protocol every node follows.
//
//   Node (host object, immutable value type)          e.g. elementwise<plus, array<double>, ...>
//     value_type                                       element type
//     grid() -> const chunk_grid&                      shape + chunks
//     lower(policy) -> Node'                           replaces nodes that need a separate stage
//                                                      (reductions) by stored arrays
//     bind(box, ctx) -> Accessor                       per-chunk, plain-data view of the node
//
//   Accessor (trivially copyable; host and device)
//     line(start, axis, step) -> Line                  the elements start + j*step*e_axis
//
//   Line (trivially copyable; host and device)
//     operator()(j) -> value_type                      element j, computed independently
//     batched (constexpr bool)                         true when fill() beats per-element calls
//     fill(j0, n, out) (host)                          out[k] = (*this)(j0 + k), n <= batch_size
//
// A chunk kernel (backend/host/kernel.hpp; backend/cuda/kernels.cuh) binds the root once per output chunk and walks the chunk's
// box as rows along the last axis; every node maps a row of its output to a row of each input
// (an affine index remap), so the whole expression is evaluated in one pass per chunk.
#pragma once
#include <concepts>
#include <type_traits>
#include <vector>

#include "affine_map.hpp"
#include "grid.hpp"

namespace tessera {

struct host;  // the default policy, backend/host.hpp

/// The base of every node. (Not named expression_tag: xtensor reads a nested type of that name
/// as an expression's tag, and a base's name is visible as a member of every derived class,
/// so xtensor's operators would take a Tessera node for an xtensor expression of unknown kind.)
struct expression_node_base {};
using expression_tag = expression_node_base;

template <class T>
concept expression_type = std::is_base_of_v<expression_node_base, std::remove_cvref_t<T>>;

/// CRTP base of every node: metadata accessors and evaluation entry points.
template <class D>
struct expression : expression_node_base {
  const D& derived() const { return static_cast<const D&>(*this); }

  const shape_t& shape() const { return derived().grid().shape(); }
  const chunks_t& chunks() const { return derived().grid().chunks(); }
  shape_t numblocks() const { return derived().grid().numblocks(); }
  int dimension() const { return derived().grid().rank(); }
  index_t size() const { return derived().grid().size(); }
  template <class DD = D>
  index_t nbytes() const {
    return size() * index_t(sizeof(typename DD::value_type));
  }

  /// Leaves lower to themselves.
  template <class P>
  const D& lower(const P&) const {
    return derived();
  }

  /// Evaluates into an xt::xarray (exec/drivers.hpp; ts::auto_backend: backend/cuda/auto_backend.cuh).
  template <class P = host>
  auto compute(const P& policy = P{}) const;
  /// The single element of a one-element array.
  template <class P = host>
  auto item(const P& policy = P{}) const;

  // NumPy's / Dask's array methods, each the free function of the same name with x first
  // (defined in members.hpp, which <tessera/tessera.hpp> includes): x.persist(), x.rechunk(c),
  // x.T(), x.transpose(), x.reshape(s), x.ravel(), x.flatten(), x.astype<U>(), and the
  // reductions x.sum(), x.prod(), x.mean(), x.var(), x.max(), x.min(), x.argmax(),
  // x.argmin(), x.any(), x.all(), x.cumsum(), x.cumprod() (no axes: all; one axis; a list).
  template <class P = host>
  auto persist(const P& policy = P{}) const;
  auto rechunk(const chunks_arg& chunks) const;
  auto T() const;
  auto transpose() const;
  auto reshape(const shape_t& shape) const;
  auto ravel() const;
  auto flatten() const;
  template <class U>
  auto astype() const;
#define TESSERA_MEMBER_REDUCTION(name)                  \
  auto name() const;                                    \
  auto name(index_t axis) const;                        \
  auto name(const std::vector<index_t>& axes) const;
  // x.sum<double>(): NumPy's dtype= (reduce/dtype.hpp)
#define TESSERA_MEMBER_DTYPE_REDUCTION(name)            \
  template <class R = void>                             \
  auto name() const;                                    \
  template <class R = void>                             \
  auto name(index_t axis) const;                        \
  template <class R = void>                             \
  auto name(const std::vector<index_t>& axes) const;
  TESSERA_MEMBER_DTYPE_REDUCTION(sum)
  TESSERA_MEMBER_DTYPE_REDUCTION(prod)
  TESSERA_MEMBER_DTYPE_REDUCTION(mean)
  TESSERA_MEMBER_DTYPE_REDUCTION(var)
#undef TESSERA_MEMBER_DTYPE_REDUCTION
  TESSERA_MEMBER_REDUCTION(max)
  TESSERA_MEMBER_REDUCTION(min)
  TESSERA_MEMBER_REDUCTION(any)
  TESSERA_MEMBER_REDUCTION(all)
#undef TESSERA_MEMBER_REDUCTION
  auto argmax() const;
  auto argmax(index_t axis) const;
  auto argmin() const;
  auto argmin(index_t axis) const;
  template <class R = void>
  auto cumsum() const;
  template <class R = void>
  auto cumsum(index_t axis) const;
  template <class R = void>
  auto cumprod() const;
  template <class R = void>
  auto cumprod(index_t axis) const;
};

namespace detail {
/// How far ahead of the batch being evaluated the host kernels prefetch a line's memory
/// (elements): two batches, 4 KiB of doubles.
inline constexpr index_t prefetch_distance = 2 * batch_size;
/// Asks the memory system for elements j0 .. j0 + n - 1 of line l ahead of their use (host).
/// Lines over stored memory have prefetch(j0, n), lines over other lines forward it to them;
/// for every other line this is nothing.
template <class L>
TESSERA_INLINE void prefetch_line(const L& l, index_t j0, index_t n) {
  if constexpr (requires { l.prefetch(j0, n); }) l.prefetch(j0, n);
}
}  // namespace detail

namespace detail {
/// A line over memory that can hand out its elements in place (contiguous(j0): a pointer, or
/// nullptr where they are not consecutive), such as a stored array's.
template <class L>
concept contiguous_line = requires(const L& l, index_t j) { l.contiguous(j); };
}  // namespace detail

/// Default batched fill for a line that only has per-element evaluation.
template <class L>
struct line_base {
  static constexpr bool batched = false;
  template <class T>
  void fill(index_t j0, index_t n, T* out) const {
    const L& l = static_cast<const L&>(*this);
    for (index_t k = 0; k < n; ++k) out[k] = l(j0 + k);
  }
};

/// Lines that can produce two elements more cheaply than one at a time (random normals: one
/// Box-Muller pair gives both). Such a line has
///   pair_phase()       -1: pairs unusable on this line; else the first j where they start
///   pair_gap()         g = 1 or 2, the distance between the two elements of a pair (only
///                      meaningful when pair_phase() >= 0): pairs are (j, j + g) for
///                      j = phase + 2 g t + k, t = 0, 1, ..., k < g (g = 1: (j, j + 1) for
///                      j = phase, phase + 2, ...; g = 2: (j, j + 2) and (j + 1, j + 3) for
///                      j = phase, phase + 4, ...)
///   pair(j, a, b)      a = line(j), b = line(j + g) for j the first element of a pair, bitwise
///                      the same values
/// The device fold walks a line in pairs when it has them (backend/cuda/fold.cuh).
template <class L>
concept paired_line = requires(const L& l, index_t j, typename L::value_type& v) {
  { l.pair_phase() } -> std::convertible_to<int>;
  { l.pair_gap() } -> std::convertible_to<int>;
  l.pair(j, v, v);
};

/// Evaluates one element of a bound accessor at a global index of its node.
template <class Acc>
TESSERA_HD auto element_at(const Acc& acc, const ivec& idx) {
  return acc.line(idx, -1, 0)(0);
}

/// How an operand of an elementwise node maps onto the broadcast output: leading axes it lacks
/// and axes where it has length 1 while the output does not. The special case of affine_map
/// with unit steps, zero base and no permutation (to_affine), kept as its own 8-byte encoding
/// because every operand of every elementwise kernel carries one (kernel-parameter size); the
/// CPU tests check map_line and map_box against to_affine's.
struct bcast {
  int offset = 0;           // output rank - operand rank
  unsigned stretched = 0;   // bit k: operand axis k has length 1, broadcast
  TESSERA_HD bool identity() const { return offset == 0 && stretched == 0; }

  TESSERA_HD void map_line(const ivec& start, int axis, index_t step, ivec& cstart, int& caxis,
                           index_t& cstep) const {
    cstart.n = start.n - offset;
    for (int k = 0; k < cstart.n; ++k)
      cstart[k] = (stretched >> k) & 1u ? 0 : start[k + offset];
    int a = axis - offset;
    if (axis < 0 || a < 0 || ((stretched >> a) & 1u)) {
      caxis = -1;
      cstep = 0;
    } else {
      caxis = a;
      cstep = step;
    }
  }
  /// The same map as an affine_map from output rank `out_rank`.
  affine_map to_affine(int out_rank) const {
    affine_map m;
    m.out_rank = out_rank;
    m.base.n = out_rank - offset;
    for (int d = 0; d < out_rank; ++d) {
      const int k = d - offset;
      const bool mapped = k >= 0 && !((stretched >> k) & 1u);
      m.src[d] = mapped ? k : -1;
      m.step[d] = mapped ? 1 : 0;
    }
    return m;
  }
  box map_box(const box& b) const {
    box c;
    c.lo.n = c.hi.n = b.rank() - offset;
    for (int k = 0; k < c.lo.n; ++k) {
      bool s = (stretched >> k) & 1u;
      c.lo[k] = s ? 0 : b.lo[k + offset];
      c.hi[k] = s ? 1 : b.hi[k + offset];
    }
    return c;
  }
};

}  // namespace tessera
