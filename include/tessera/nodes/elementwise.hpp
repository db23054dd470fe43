// elementwise<Op, A...>: applies Op to corresponding elements of its operands, with NumPy
// broadcasting. The output grid is the common refinement of the operands' chunks, so every
// output chunk lies inside one chunk of each operand.
#pragma once
#include <array>
#include <initializer_list>
#include <tuple>
#include <utility>

#include "../core/expression.hpp"
#include "../core/host_isa.hpp"
#include "../core/pack.hpp"
#include "../core/shared_value.hpp"

TESSERA_BATCH_DIAGNOSTICS_BEGIN  // config.hpp: gcc false positives in batch code

namespace tessera {

// Every node below takes its operands' indices as a pack (I...) next to the operands, so each
// member reaches its operands with one fold, get<I>(...)..., and a chain of n nodes
// instantiates each recursive member (lower, bind, line, operator(), fill) once per node with no
// helper templates in between: 256 chained operations stay within the compiler's default template
// depth (900) and compile in about 30 s (tests/test_deep_expression.cpp, docs/reliability.md).
template <class Seq, class Op, class... L>
struct elementwise_line_of;

template <class Op, class... L>
using elementwise_line = elementwise_line_of<std::index_sequence_for<L...>, Op, L...>;

template <std::size_t... I, class Op, class... L>
struct elementwise_line_of<std::index_sequence<I...>, Op, L...> {
  using value_type = decltype(std::declval<Op>()(std::declval<typename L::value_type>()...));
  /// An op with a host batch form (ops::sin, ops::cos, ops::sqrt, ops::power,
  /// ops::float_power: fill_batch) runs once per batch, on its operands' batches.
  static constexpr bool op_batch = requires(const Op& o, const typename L::value_type*... in,
                                            index_t n, value_type* out) { o.fill_batch(in..., n, out); };
  /// Operands over stored memory (lines with contiguous()) are read in place in the batched
  /// path below: evaluated element by element instead, their run-time stride kept the loop
  /// scalar in the dispatched kernel copies of a plain build (ts::mean(x + 1) of a stored
  /// array: 22 against 34 GB/s with -march=native, one core, Zen 5).
  static constexpr bool reads_memory = (detail::contiguous_line<L> || ...);
  static constexpr bool batched = op_batch || reads_memory || (L::batched || ...);
  detail::pack<L...> ls;
  Op op;

  TESSERA_HD value_type operator()(index_t j) const { return op(detail::get<I>(ls)(j)...); }
  /// Pairs when an operand has them (paired_line): -1 when a paired operand cannot pair here
  /// or two paired operands pair different elements (another phase or gap).
  static constexpr bool paired = (paired_line<L> || ...);
  TESSERA_HD int pair_phase() const
    requires paired
  {
    int phase = -2, gap = 0;  // -2: no constraint yet
    (merge_pairing(detail::get<I>(ls), phase, gap), ...);
    return phase < 0 ? -1 : phase;
  }
  /// The first paired operand's gap (all paired operands agree when pair_phase() >= 0).
  TESSERA_HD int pair_gap() const
    requires paired
  {
    int gap = 0;
    (first_gap(detail::get<I>(ls), gap), ...);
    return gap;
  }
  TESSERA_HD void pair(index_t j, value_type& a, value_type& b) const
    requires paired
  {
    const index_t gap = pair_gap();
    const detail::pack<two<L>...> ps{{operand_pair(detail::get<I>(ls), j, gap)}...};
    a = op(detail::get<I>(ps).first...);
    b = op(detail::get<I>(ps).second...);
  }
  /// Prefetches the operands' memory (detail::prefetch_line).
  void prefetch(index_t j0, index_t n) const { (detail::prefetch_line(detail::get<I>(ls), j0, n), ...); }
  void fill(index_t j0, index_t n, value_type* out) const {
    if constexpr (op_batch) {
      detail::pack<std::array<typename L::value_type, batch_size>...> buf;
      (detail::get<I>(ls).fill(j0, n, detail::get<I>(buf).data()), ...);
      // the op's batch form is a leaf: one function per CPU level (core/host_isa.hpp)
      detail::run_host_leaf([&] { op.fill_batch(detail::get<I>(buf).data()..., n, out); });
    } else if constexpr (!batched) {
      for (index_t k = 0; k < n; ++k) out[k] = (*this)(j0 + k);
    } else {
      detail::pack<std::array<typename L::value_type, batch_size>...> buf;
      const detail::pack<const typename L::value_type*...> src{
          {source(detail::get<I>(ls), j0, n, detail::get<I>(buf).data())}...};
      for (index_t k = 0; k < n; ++k) out[k] = op(value(detail::get<I>(ls), detail::get<I>(src), j0, k)...);
    }
  }
  /// Elements j0 .. j0 + n - 1 for a consumer (host): f(values), values(k) being element
  /// j0 + k computed where f reads it, so a fold (backend/host/fold.hpp: sums and means) takes
  /// the op's results without storing them to a batch and reading them back (seed 003's
  /// mean(x + 1): the + 1 pass was a tenth of the time). f reads each k once. Lines without the
  /// batched form above (or with the op's own batch form) fill `scratch` (n elements) and pass
  /// it as a pointer.
  template <class F>
  void with_values(index_t j0, index_t n, value_type* scratch, F&& f) const {
    if constexpr (batched && !op_batch) {
      detail::pack<std::array<typename L::value_type, batch_size>...> buf;
      const detail::pack<const typename L::value_type*...> src{
          {source(detail::get<I>(ls), j0, n, detail::get<I>(buf).data())}...};
      f([&](index_t k) { return op(value(detail::get<I>(ls), detail::get<I>(src), j0, k)...); });
    } else {
      fill(j0, n, scratch);
      f(static_cast<const value_type*>(scratch));
    }
  }

 private:
  /// Where the batched path reads elements j0 .. j0 + n - 1 of operand line l: in place when l
  /// is contiguous memory, else evaluated into buf; nullptr for a line evaluated per element
  /// (value() calls it).
  template <class C>
  static const typename C::value_type* source(const C& l, index_t j0, index_t n, typename C::value_type* buf) {
    if constexpr (detail::contiguous_line<C>)
      if (const auto* p = l.contiguous(j0)) return p;
    if constexpr (detail::contiguous_line<C> || C::batched) {
      l.fill(j0, n, buf);
      return buf;
    } else {
      return nullptr;
    }
  }
  template <class C>
  static typename C::value_type value(const C& l, const typename C::value_type* p, index_t j0, index_t k) {
    if constexpr (detail::contiguous_line<C> || C::batched) return p[k];
    else return l(j0 + k);
  }
  template <class C>
  TESSERA_HD static void merge_pairing(const C& l, int& phase, int& gap) {
    if constexpr (paired_line<C>) {
      if (phase == -1) return;
      const int p = l.pair_phase();
      const int g = p < 0 ? 0 : l.pair_gap();
      if (p < 0 || (phase != -2 && (phase != p || gap != g))) {
        phase = -1;
      } else {
        phase = p;
        gap = g;
      }
    }
  }
  template <class C>
  TESSERA_HD static void first_gap(const C& l, int& gap) {
    if constexpr (paired_line<C>)
      if (gap == 0) gap = l.pair_gap();
  }
  template <class C>
  struct two {
    typename C::value_type first, second;
  };
  template <class C>
  TESSERA_HD static two<C> operand_pair(const C& l, index_t j, index_t gap) {
    two<C> r;
    if constexpr (paired_line<C>) l.pair(j, r.first, r.second);
    else {
      r.first = l(j);
      r.second = l(j + gap);
    }
    return r;
  }
};

template <class Seq, class Op, class... A>
struct elementwise_accessor_of;

template <class Op, class... A>
using elementwise_accessor = elementwise_accessor_of<std::index_sequence_for<A...>, Op, A...>;

template <std::size_t... I, class Op, class... A>
struct elementwise_accessor_of<std::index_sequence<I...>, Op, A...> {
  detail::pack<A...> as;
  bcast bc[sizeof...(A)];
  Op op;

  TESSERA_HD auto line(const ivec& start, int axis, index_t step) const {
    // Each operand's line: the same one where it is not broadcast, else mapped (bcast).
    ivec cs[sizeof...(A)];
    int ca[sizeof...(A)] = {};  // initialized: gcc -O1/-O2 warns (falsely) in flattened kernels
    index_t cst[sizeof...(A)] = {};
    bool same[sizeof...(A)];
    for (std::size_t i = 0; i < sizeof...(A); ++i) {
      same[i] = bc[i].identity();
      if (!same[i]) bc[i].map_line(start, axis, step, cs[i], ca[i], cst[i]);
    }
    using line_t = elementwise_line<Op, decltype(detail::get<I>(as).line(start, axis, step))...>;
    return line_t{{{detail::get<I>(as).line(same[I] ? start : cs[I], same[I] ? axis : ca[I],
                                            same[I] ? step : cst[I])}...},
                  op};
  }
};

namespace detail {

/// Broadcast shape of several shapes (NumPy rules), with a clear error naming both shapes.
inline shape_t broadcast_shapes(const std::vector<const shape_t*>& shapes) {
  std::size_t r = 0;
  for (auto* s : shapes) r = std::max(r, s->size());
  shape_t out(r, 1);
  for (auto* s : shapes) {
    std::size_t off = r - s->size();
    for (std::size_t k = 0; k < s->size(); ++k) {
      index_t n = (*s)[k];
      index_t& o = out[off + k];
      if (n == o || n == 1) continue;
      if (o == 1) o = n;
      else {
        std::ostringstream os;
        for (std::size_t i = 0; i < shapes.size(); ++i) {
          if (i) os << " and ";
          detail::stream_one(os, *shapes[i]);
        }
        throw_invalid("shapes ", os.str(), " cannot be broadcast together (axis ", off + k,
                      ": ", o, " vs ", n, ")");
      }
    }
  }
  return out;
}

/// The output grid of an elementwise node over operands with grids `grids` (NumPy broadcasting;
/// chunks: the common refinement of the operands' chunks on each axis), and in maps[i] how
/// operand i maps onto it. Not a template: one copy for every node type.
inline chunk_grid broadcast_grid(std::initializer_list<const chunk_grid*> grids, bcast* maps) {
  std::vector<const shape_t*> shapes;
  for (const chunk_grid* g : grids) shapes.push_back(&g->shape());
  const shape_t out = broadcast_shapes(shapes);
  chunks_t ch(out.size());
  std::size_t i = 0;
  for (const chunk_grid* g : grids) {
    bcast& bc = maps[i++];
    bc.offset = int(out.size()) - g->rank();
    bc.stretched = 0;
    for (int k = 0; k < g->rank(); ++k) {
      const std::size_t d = std::size_t(k + bc.offset);
      if (g->shape()[std::size_t(k)] != out[d]) {
        bc.stretched |= 1u << k;
        continue;
      }
      ch[d] = ch[d].empty() ? g->chunks()[std::size_t(k)] : refine(ch[d], g->chunks()[std::size_t(k)]);
    }
  }
  for (std::size_t d = 0; d < out.size(); ++d)
    if (ch[d].empty()) ch[d] = {out[d]};
  return chunk_grid(out, std::move(ch));
}

}  // namespace detail

template <class Op, class... A>
class elementwise;

namespace detail {

template <class Seq, class Op, class... A>
class elementwise_node;

template <std::size_t... I, class Op, class... A>
class elementwise_node<std::index_sequence<I...>, Op, A...> : public expression<elementwise<Op, A...>> {
 public:
  using value_type =
      decltype(std::declval<Op>()(std::declval<typename A::value_type>()...));

  elementwise_node(Op op, A... args)
      : args_(pack<A...>{{std::move(args)}...}),
        op_(op),
        grid_(broadcast_grid({&get<I>(*args_).grid()...}, bc_.data())) {}

  const chunk_grid& grid() const { return grid_; }
  /// The operands, read with detail::get<I>(operands()) (graph.hpp: for_each_operand).
  const pack<A...>& operands() const { return *args_; }
  const Op& op() const { return op_; }

  /// The node with its operands lowered; the node itself (no copy) when nothing below it
  /// lowers to another type.
  template <class P>
  decltype(auto) lower(const P& p) const {
    using L = elementwise<Op, std::remove_cvref_t<decltype(get<I>(*args_).lower(p))>...>;
    if constexpr (std::is_same_v<L, elementwise<Op, A...>>) return static_cast<const L&>(*this);
    else return L(op_, get<I>(*args_).lower(p)...);
  }

  template <class Ctx>
  auto bind(const box& b, Ctx& ctx) const {
    elementwise_accessor<Op, decltype(get<I>(*args_).bind(b, ctx))...> acc{
        {{get<I>(*args_).bind(bc_[I].identity() ? b : bc_[I].map_box(b), ctx)}...}, {}, op_};
    for (std::size_t i = 0; i < sizeof...(A); ++i) acc.bc[i] = bc_[i];
    return acc;
  }

 private:
  shared_value<pack<A...>> args_;  // core/shared_value.hpp: why not by value
  std::array<bcast, sizeof...(A)> bc_{};
  Op op_;
  chunk_grid grid_;
};

}  // namespace detail

/// The node: Op applied to the operands A... (detail::elementwise_node holds the members, with
/// the operands' indices as a pack).
template <class Op, class... A>
class elementwise : public detail::elementwise_node<std::index_sequence_for<A...>, Op, A...> {
 public:
  elementwise(Op op, A... args)
      : detail::elementwise_node<std::index_sequence_for<A...>, Op, A...>(op, std::move(args)...) {}
};

}  // namespace tessera

TESSERA_BATCH_DIAGNOSTICS_END
