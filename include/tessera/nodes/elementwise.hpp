// elementwise<Op, A...>: applies Op to corresponding elements of its operands, with NumPy
// broadcasting. The output grid is the common refinement of the operands' chunks, so every
// output chunk lies inside one chunk of each operand.
#pragma once
#include <array>
#include <tuple>
#include <utility>

#include "../core/expression.hpp"

namespace tessera {

template <class Op, class... L>
struct elementwise_line {
  using value_type = decltype(std::declval<Op>()(std::declval<typename L::value_type>()...));
  static constexpr bool batched = (L::batched || ...);
  std::tuple<L...> ls;
  Op op;

  TESSERA_HD value_type operator()(index_t j) const {
    return std::apply([&](const auto&... l) { return op(l(j)...); }, ls);
  }
  /// Pairs when an operand has them (paired_line): -1 when a paired operand cannot pair here
  /// or two paired operands start their pairs at different j.
  static constexpr bool paired = (paired_line<L> || ...);
  TESSERA_HD int pair_phase() const
    requires paired
  {
    int phase = 2;  // 2: no constraint yet
    std::apply([&](const auto&... l) { (merge_phase(l, phase), ...); }, ls);
    return phase == 2 ? -1 : phase;
  }
  TESSERA_HD void pair(index_t j, value_type& a, value_type& b) const
    requires paired
  {
    std::apply(
        [&](const auto&... l) {
          const auto ps = std::make_tuple(operand_pair(l, j)...);
          a = std::apply([&](const auto&... p) { return op(p.first...); }, ps);
          b = std::apply([&](const auto&... p) { return op(p.second...); }, ps);
        },
        ls);
  }
  void fill(index_t j0, index_t n, value_type* out) const {
    if constexpr (!batched) {
      for (index_t k = 0; k < n; ++k) out[k] = (*this)(j0 + k);
    } else {
      fill_batched(j0, n, out, std::index_sequence_for<L...>{});
    }
  }

 private:
  template <class C>
  TESSERA_HD static void merge_phase(const C& l, int& phase) {
    if constexpr (paired_line<C>) {
      const int p = l.pair_phase();
      phase = (p < 0 || (phase != 2 && phase != p)) ? -1 : p;
    }
  }
  template <class C>
  struct two {
    typename C::value_type first, second;
  };
  template <class C>
  TESSERA_HD static two<C> operand_pair(const C& l, index_t j) {
    two<C> r;
    if constexpr (paired_line<C>) l.pair(j, r.first, r.second);
    else {
      r.first = l(j);
      r.second = l(j + 1);
    }
    return r;
  }
  template <std::size_t... I>
  void fill_batched(index_t j0, index_t n, value_type* out, std::index_sequence<I...>) const {
    std::tuple<std::array<typename L::value_type, batch_size>...> buf;
    (std::get<I>(ls).fill(j0, n, std::get<I>(buf).data()), ...);
    for (index_t k = 0; k < n; ++k) out[k] = op(std::get<I>(buf)[std::size_t(k)]...);
  }
};

template <class Op, class... A>
struct elementwise_accessor {
  std::tuple<A...> as;
  bcast bc[sizeof...(A)];
  Op op;

  TESSERA_HD auto line(const ivec& start, int axis, index_t step) const {
    return line_impl(start, axis, step, std::index_sequence_for<A...>{});
  }

 private:
  template <std::size_t I>
  TESSERA_HD auto child_line(const ivec& start, int axis, index_t step) const {
    const auto& a = std::get<I>(as);
    if (bc[I].identity()) return a.line(start, axis, step);
    ivec cs;
    int ca;
    index_t cst;
    bc[I].map_line(start, axis, step, cs, ca, cst);
    return a.line(cs, ca, cst);
  }
  template <std::size_t... I>
  TESSERA_HD auto line_impl(const ivec& start, int axis, index_t step,
                            std::index_sequence<I...>) const {
    using line_t = elementwise_line<Op, decltype(std::get<I>(as).line(start, axis, step))...>;
    line_t l{{child_line<I>(start, axis, step)...}, op};
    return l;
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

}  // namespace detail

template <class Op, class... A>
class elementwise : public expression<elementwise<Op, A...>> {
 public:
  using value_type =
      decltype(std::declval<Op>()(std::declval<typename A::value_type>()...));

  elementwise(Op op, A... args) : args_(std::move(args)...), op_(op) {
    std::vector<const shape_t*> shapes;
    std::apply([&](const auto&... a) { (shapes.push_back(&a.shape()), ...); }, args_);
    shape_t out = detail::broadcast_shapes(shapes);
    const std::size_t r = out.size();
    chunks_t ch(r);
    std::size_t i = 0;
    std::apply(
        [&](const auto&... a) {
          ((init_operand(i++, a.grid(), out, ch)), ...);
        },
        args_);
    for (std::size_t d = 0; d < r; ++d)
      if (ch[d].empty()) ch[d] = {out[d]};
    grid_ = chunk_grid(out, std::move(ch));
  }

  const chunk_grid& grid() const { return grid_; }
  const std::tuple<A...>& operands() const { return args_; }
  const Op& op() const { return op_; }

  template <class P>
  auto lower(const P& p) const {
    return std::apply(
        [&](const auto&... a) {
          return elementwise<Op, std::remove_cvref_t<decltype(a.lower(p))>...>(op_, a.lower(p)...);
        },
        args_);
  }

  template <class Ctx>
  auto bind(const box& b, Ctx& ctx) const {
    return bind_impl(b, ctx, std::index_sequence_for<A...>{});
  }

 private:
  void init_operand(std::size_t i, const chunk_grid& g, const shape_t& out, chunks_t& ch) {
    bcast& bc = bc_[i];
    bc.offset = int(out.size()) - g.rank();
    bc.stretched = 0;
    for (int k = 0; k < g.rank(); ++k) {
      std::size_t d = std::size_t(k + bc.offset);
      if (g.shape()[std::size_t(k)] != out[d]) {
        bc.stretched |= 1u << k;
        continue;
      }
      ch[d] = ch[d].empty() ? g.chunks()[std::size_t(k)]
                            : detail::refine(ch[d], g.chunks()[std::size_t(k)]);
    }
  }
  template <class Ctx, std::size_t... I>
  auto bind_impl(const box& b, Ctx& ctx, std::index_sequence<I...>) const {
    elementwise_accessor<Op, decltype(std::get<I>(args_).bind(b, ctx))...> acc{
        {std::get<I>(args_).bind(bc_[I].identity() ? b : bc_[I].map_box(b), ctx)...}, {}, op_};
    for (std::size_t i = 0; i < sizeof...(A); ++i) acc.bc[i] = bc_[i];
    return acc;
  }

  std::tuple<A...> args_;
  std::array<bcast, sizeof...(A)> bc_{};
  Op op_;
  chunk_grid grid_;
};

}  // namespace tessera
