// Leaves whose value is a pure function of the element's flat (row-major) global index:
// constants, arange, and (random/) counter-based random numbers. Any element can be produced
// without producing any other, so views of these leaves only generate what they select.
#pragma once
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "../core/expression.hpp"
#include "../ops/functors.hpp"

namespace tessera {

namespace detail {
template <class F>
concept batched_fn = requires { F::batched; } && F::batched;
/// A flat-index function with f.pair(flat, a, b) = f(flat), f(flat + F::pair_gap) for flat
/// the first element of a pair: pair_gap 1 (or no member): flat even; pair_gap 2: bit 1 of flat
/// clear (pairs (4g, 4g + 2) and (4g + 1, 4g + 3): random normals, random/philox_array.hpp).
template <class F>
concept paired_fn = requires(const F& f, index_t i, typename F::value_type& v) { f.pair(i, v, v); };
template <class F>
constexpr int pair_gap_of() {
  if constexpr (requires { F::pair_gap; }) return int(F::pair_gap);
  else return 1;
}
}  // namespace detail

/// Line over a flat-index function: element j is f(flat0 + j * dflat).
template <class F>
struct generated_line : line_base<generated_line<F>> {
  using value_type = typename F::value_type;
  static constexpr bool batched = detail::batched_fn<F>;
  F f;
  index_t flat0, dflat;
  TESSERA_HD value_type operator()(index_t j) const { return f(flat0 + j * dflat); }
  /// The function's pairs as line pairs (core/expression.hpp, paired_line): with flat pairs
  /// (i, i + g), a line of step g pairs neighbours (line gap 1) and, for g = 2, a contiguous line
  /// pairs elements two apart (line gap 2); other steps do not pair.
  TESSERA_HD int pair_phase() const
    requires detail::paired_fn<F>
  {
    constexpr int g = detail::pair_gap_of<F>();
    if (dflat == g) return (flat0 & g) ? 1 : 0;  // line gap 1: first j whose flat & g is 0
    if (g == 2 && dflat == 1) return int((4 - (flat0 & 3)) & 3);  // line gap 2: first j at 4g
    return -1;
  }
  TESSERA_HD int pair_gap() const
    requires detail::paired_fn<F>
  {
    return detail::pair_gap_of<F>() == 2 && dflat == 1 ? 2 : 1;
  }
  TESSERA_HD void pair(index_t j, value_type& a, value_type& b) const
    requires detail::paired_fn<F>
  {
    f.pair(flat0 + j * dflat, a, b);
  }
  void fill(index_t j0, index_t n, value_type* out) const {
    if constexpr (batched) f.fill(flat0 + j0 * dflat, dflat, n, out);
    else
      for (index_t k = 0; k < n; ++k) out[k] = f(flat0 + (j0 + k) * dflat);
  }
};

template <class F>
struct generated_accessor {
  using value_type = typename F::value_type;
  F f;
  ivec fstride;  // row-major strides of the whole array
  TESSERA_HD generated_line<F> line(const ivec& start, int axis, index_t step) const {
    generated_line<F> l;
    l.f = f;
    index_t flat = 0;
    for (int d = 0; d < start.n; ++d) flat += start[d] * fstride[d];
    l.flat0 = flat;
    l.dflat = axis >= 0 ? step * fstride[axis] : 0;
    return l;
  }
};

/// A lazy array whose element at flat index i is f(i).
template <class F>
class generated : public expression<generated<F>> {
 public:
  using value_type = typename F::value_type;
  generated(F f, chunk_grid g) : f_(f), grid_(std::move(g)) {
    fstride_.n = grid_.rank();
    index_t acc = 1;
    for (int d = grid_.rank() - 1; d >= 0; --d) {
      fstride_[d] = acc;
      acc *= grid_.shape()[std::size_t(d)];
    }
  }
  const chunk_grid& grid() const { return grid_; }
  const F& function() const { return f_; }
  template <class Ctx>
  generated_accessor<F> bind(const box&, Ctx&) const {
    return {f_, fstride_};
  }

 private:
  F f_;
  chunk_grid grid_;
  ivec fstride_;
};

namespace generators {
template <class T>
struct constant {
  using value_type = T;
  T value;
  TESSERA_HD T operator()(index_t) const { return value; }
};
template <class T>
struct arange {
  using value_type = T;
  T start, step;
  TESSERA_HD T operator()(index_t i) const {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)  // modulo 2^64: no UB
      return T(std::uint64_t(start) + std::uint64_t(i) * std::uint64_t(step));
    else return T(start + T(i) * step);
  }
};
/// NumPy's linspace, element by element: i * step + start in double (i / div * delta + start
/// when step underflows to 0), the last element exactly `stop` when endpoint; integers floored
/// (as NumPy since 1.20) and converted as ts::cast does.
template <class T>
struct linspace {
  using value_type = T;
  double start, stop, step, delta, div;
  index_t last;  // index of `stop` (endpoint), or -1
  bool step_zero;
  TESSERA_HD T operator()(index_t i) const {
    double y = step_zero ? double(i) / div * delta + start : double(i) * step + start;
    if (i == last) y = stop;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
      return ops::cast_to<T>{}(portable_math::floor(y));
    else return T(y);
  }
};
/// 1 where column - row == k (eye) or <= k (tri), on a rows x cols grid (flat index i).
template <class T, bool Lower>
struct diagonal_band {
  using value_type = T;
  index_t cols, k;
  TESSERA_HD T operator()(index_t i) const {
    const index_t d = i % cols - i / cols;
    return T(Lower ? d <= k : d == k);
  }
};
}  // namespace generators

namespace detail {
/// A creation argument (full's value, arange's start and step) as T: a floating value into an
/// integer T converts as ts::cast does (NaN -> 0, saturating), never undefined.
template <class T, class V>
T creation_value(V v) {
  if constexpr (std::is_floating_point_v<V> && std::is_integral_v<T>) return ops::cast_to<T>{}(v);
  else return T(v);
}
}  // namespace detail

/// A 0-d constant (scalar operands of elementwise operations).
template <class T>
generated<generators::constant<T>> scalar(T v) {
  return {generators::constant<T>{v}, chunk_grid{}};
}

/// An array of the given shape filled with `value` (a floating value into an integer T converts
/// as ts::cast does).
template <class T, class V>
generated<generators::constant<T>> full(const shape_t& shape, V value, const chunks_arg& chunks = {}) {
  return {generators::constant<T>{detail::creation_value<T>(value)}, chunk_grid::make(shape, chunks, sizeof(T))};
}
template <class T = double>
generated<generators::constant<T>> zeros(const shape_t& shape, const chunks_arg& chunks = {}) {
  return full<T>(shape, T(0), chunks);
}
template <class T = double>
generated<generators::constant<T>> ones(const shape_t& shape, const chunks_arg& chunks = {}) {
  return full<T>(shape, T(1), chunks);
}

/// NumPy's empty: Tessera has no uninitialized arrays, so zeros (nothing is stored).
template <class T = double>
generated<generators::constant<T>> empty(const shape_t& shape, const chunks_arg& chunks = {}) {
  return full<T>(shape, T(0), chunks);
}

/// full/zeros/ones/empty with x's shape and chunks; element type U, or x's when U is void.
template <class U = void, expression_type X, class V>
auto full_like(const X& x, V value) {
  using T = std::conditional_t<std::is_void_v<U>, typename X::value_type, U>;
  return generated<generators::constant<T>>{generators::constant<T>{detail::creation_value<T>(value)},
                                            chunk_grid(x.shape(), x.chunks())};
}
template <class U = void, expression_type X>
auto zeros_like(const X& x) {
  return full_like<U>(x, 0);
}
template <class U = void, expression_type X>
auto ones_like(const X& x) {
  return full_like<U>(x, 1);
}
template <class U = void, expression_type X>
auto empty_like(const X& x) {
  return full_like<U>(x, 0);
}

/// `num` evenly spaced values from start to stop (NumPy's linspace: stop included when
/// endpoint, computed in double as NumPy does, then converted to T; integer T rounds toward
/// -inf as NumPy has since 1.20). Throws for a negative num.
template <class T = double>
generated<generators::linspace<T>> linspace(double start, double stop, index_t num,
                                            const chunks_arg& chunks = {}, bool endpoint = true) {
  if (num < 0) throw_invalid("linspace: number of samples, ", num, ", must be non-negative");
  const double div = endpoint ? double(num - 1) : double(num);
  const double delta = stop - start;
  generators::linspace<T> f{start, stop, 0.0, delta, div, endpoint && num > 1 ? num - 1 : -1, false};
  if (div > 0) {
    f.step = delta / div;
    f.step_zero = f.step == 0;
  } else {
    f.step = std::numeric_limits<double>::quiet_NaN();  // num <= 1: i * NaN is never used...
    f.step_zero = true;                                  // ...element 0 is 0 / div * delta + start
    f.div = 1;
  }
  return {f, chunk_grid::make({num}, chunks, sizeof(T))};
}

namespace detail {
/// 2-D chunks where one length stands for both axes (Dask's eye(N, chunks=c)).
inline chunks_arg both_axes(const chunks_arg& c) {
  if (auto* v = std::get_if<std::vector<index_t>>(&c.value()); v && v->size() == 1)
    return std::vector<index_t>{(*v)[0], (*v)[0]};
  return c;
}
}  // namespace detail

/// n x m array (m = n when negative) with ones on diagonal k (0: main, > 0 above, < 0 below),
/// zeros elsewhere (NumPy's eye). One chunk length applies to both axes, as Dask's.
template <class T = double>
generated<generators::diagonal_band<T, false>> eye(index_t n, const chunks_arg& chunks = {},
                                                   index_t m = -1, index_t k = 0) {
  if (n < 0) throw_invalid("eye: negative dimension n = ", n);
  if (m < 0) m = n;
  return {{m > 0 ? m : 1, k}, chunk_grid::make({n, m}, detail::both_axes(chunks), sizeof(T))};
}
/// The n x n identity (NumPy's identity).
template <class T = double>
generated<generators::diagonal_band<T, false>> identity(index_t n, const chunks_arg& chunks = {}) {
  return eye<T>(n, chunks);
}
/// n x m array with ones at and below diagonal k (NumPy's tri; m = n when negative).
template <class T = double>
generated<generators::diagonal_band<T, true>> tri(index_t n, index_t m = -1, index_t k = 0,
                                                  const chunks_arg& chunks = {}) {
  if (n < 0) throw_invalid("tri: negative dimension n = ", n);
  if (m < 0) m = n;
  return {{m > 0 ? m : 1, k}, chunk_grid::make({n, m}, detail::both_axes(chunks), sizeof(T))};
}

/// Evenly spaced values in [start, stop) (NumPy's arange): length ceil((stop - start) / step).
template <class T, class A, class B, class C>
  requires std::is_arithmetic_v<A> && std::is_arithmetic_v<B> && std::is_arithmetic_v<C>
generated<generators::arange<T>> arange(A start, B stop, C step, const chunks_arg& chunks = {}) {
  constexpr index_t max_length = std::numeric_limits<index_t>::max();
  index_t n = 0;
  if constexpr (std::is_integral_v<A> && std::is_integral_v<B> && std::is_integral_v<C>) {
    if (step == 0) throw_invalid("arange step must not be zero");
    // In 128 bits: int64 MIN..MAX (or uint64 bounds) do not overflow on the way.
    using wide = __int128;
    const wide a = wide(start), b = wide(stop), s = wide(step);
    wide len = 0;
    if (s > 0 && b > a) len = (b - a + s - 1) / s;
    if (s < 0 && b < a) len = (a - b + (-s) - 1) / (-s);
    if (len > wide(max_length))
      throw_invalid("arange(", +start, ", ", +stop, ", ", +step,
                    "): length exceeds the largest array size (2^63 - 1 elements)");
    n = index_t(len);
  } else {
    double a = double(start), b = double(stop), s = double(step);
    if (!(s == s) || !(a == a) || !(b == b)) throw_invalid("arange arguments must not be NaN");
    if (s == 0) throw_invalid("arange step must not be zero");
    const double len = __builtin_ceil((b - a) / s);
    if (!(len < 0x1p63))  // inf (an infinite bound or span) or past the index type
      throw_invalid("arange(", start, ", ", stop, ", ", step, "): length ", len,
                    " exceeds the largest array size (2^63 - 1 elements)");
    n = len > 0 ? index_t(len) : 0;
  }
  return {generators::arange<T>{detail::creation_value<T>(start), detail::creation_value<T>(step)},
          chunk_grid::make({n}, chunks, sizeof(T))};
}
template <class T, class A, class B>
  requires std::is_arithmetic_v<A> && std::is_arithmetic_v<B>
generated<generators::arange<T>> arange(A start, B stop, const chunks_arg& chunks = {}) {
  return arange<T>(start, stop, 1, chunks);
}
template <class T, class B>
  requires std::is_arithmetic_v<B>
generated<generators::arange<T>> arange(B stop, const chunks_arg& chunks = {}) {
  return arange<T>(0, stop, 1, chunks);
}

namespace generators {
/// f(i0, ..., i{N-1}) of the element's index as T (from_function): the flat index unflattened.
template <class F, int N, class T>
struct index_function {
  using value_type = T;
  F f;
  index_t shape[N > 0 ? N : 1];
  TESSERA_HD value_type operator()(index_t flat) const {
    index_t idx[N > 0 ? N : 1] = {};
    for (int d = N - 1; d >= 0; --d) {
      idx[d] = flat % shape[d];
      flat /= shape[d];
    }
    return call(idx, std::make_index_sequence<std::size_t(N)>{});
  }

 private:
  template <std::size_t... I>
  TESSERA_HD value_type call(const index_t* idx, std::index_sequence<I...>) const {
    return value_type(f(idx[I]...));
  }
};
}  // namespace generators

namespace detail {
template <class F, std::size_t... I>
auto index_call_result(std::index_sequence<I...>) -> decltype(std::declval<const F&>()(index_t(I)...));
template <class F, std::size_t... I>
constexpr bool invocable_with_indices(std::index_sequence<I...>) {
  return std::is_invocable_v<const F&, decltype(index_t(I))...>;
}
/// T, or what f returns for n indices when T is void.
template <class T, class F, int n>
struct function_value {
  using type = T;
};
template <class F, int n>
struct function_value<void, F, n> {
  using type = std::remove_cvref_t<decltype(index_call_result<F>(std::make_index_sequence<std::size_t(n)>{}))>;
};
/// The number of index arguments f takes (the smallest from 0 to max_rank), or -1.
template <class F>
constexpr int index_arity() {
  int n = -1;
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    ((n < 0 && invocable_with_indices<F>(std::make_index_sequence<K>{}) ? (void)(n = int(K)) : (void)0), ...);
  }(std::make_index_sequence<std::size_t(max_rank) + 1>{});
  return n;
}
}  // namespace detail

/// The array whose element at (i, j, ...) is f(i, j, ...) (NumPy's fromfunction, lazy: computed
/// where it is read). f takes one index_t per axis (its arity must match the shape's length).
/// T (the element type) and N (the arity) are deduced from f, or given where they cannot be:
/// nvcc's extended __host__ __device__ lambdas hide both from host code, so for ts::cuda write
/// `ts::from_function<double, 2>([] __host__ __device__ (ts::index_t i, ts::index_t j) {...}, shape)`
/// (or pass a functor struct, whose call operator is TESSERA_HD).
template <class T = void, int N = -1, class F>
auto from_function(F f, const shape_t& shape, const chunks_arg& chunks = {}) {
  constexpr int n = N >= 0 ? N : detail::index_arity<F>();
  static_assert(n >= 0, "from_function: f must take one ts::index_t per axis (at most ts::max_rank)");
  using R = typename detail::function_value<T, F, n>::type;
  if (int(shape.size()) != n)
    throw_invalid("from_function: f takes ", n, " indices but the shape ", shape, " has ", shape.size(), " axes");
  using G = generators::index_function<F, n, R>;
  G g{f, {}};
  for (int d = 0; d < n; ++d) g.shape[d] = shape[std::size_t(d)];
  return generated<G>(g, chunk_grid::make(shape, chunks, sizeof(R)));
}
/// NumPy's spelling.
template <class T = void, int N = -1, class F>
auto fromfunction(F f, const shape_t& shape, const chunks_arg& chunks = {}) {
  return from_function<T, N>(std::move(f), shape, chunks);
}

}  // namespace tessera
