// looked_up<Op, C, V>: an elementwise function of the child's element and a small sorted table
// (isin, searchsorted, digitize: indexing.hpp). The table is a one-chunk ts::array<V>, bound
// like a stored leaf so the binding context brings it where the kernel runs; each element does
// a binary search in it.
#pragma once
#include <type_traits>

#include "../core/expression.hpp"
#include "stored.hpp"

namespace tessera {

namespace lookups {
/// NumPy's sort order: NaN after every number.
template <class A, class B>
TESSERA_HD bool sort_less(A a, B b) {
  if constexpr (std::is_floating_point_v<A> || std::is_floating_point_v<B>) {
    if (b != b) return a == a;
    if (a != a) return false;
  }
  return a < b;
}
/// First position in sorted t[0, n) whose value is not before x (right: is after x).
template <class X, class V>
TESSERA_HD index_t bound(const V* t, index_t n, X x, bool right) {
  index_t lo = 0, hi = n;
  while (lo < hi) {
    const index_t mid = lo + (hi - lo) / 2;
    const bool go_right = right ? !sort_less(x, t[mid]) : sort_less(t[mid], x);
    if (go_right) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
/// x in the table (sorted; equality as ==, so NaN is never found), or not (invert).
struct isin {
  bool invert = false;
  template <class X, class V>
  TESSERA_HD bool operator()(X x, const V* t, index_t n) const {
    const index_t i = bound(t, n, x, false);
    return (i < n && t[i] == x) != invert;
  }
};
/// Insertion index of x in the sorted table (NumPy's searchsorted, side left or right).
struct searchsorted {
  bool right = false;
  template <class X, class V>
  TESSERA_HD index_t operator()(X x, const V* t, index_t n) const {
    return bound(t, n, x, right);
  }
};
/// The bin of x (NumPy's digitize): bins increasing or decreasing (the table is then stored
/// reversed, ascending), right: intervals closed on the right.
struct digitize {
  bool right = false, decreasing = false;
  template <class X, class V>
  TESSERA_HD index_t operator()(X x, const V* t, index_t n) const {
    return decreasing ? n - bound(t, n, x, !right) : bound(t, n, x, !right);
  }
};
/// t[x]: the table's element at index x (0 <= x < n; choice from an array).
struct at {
  template <class X, class V>
  TESSERA_HD V operator()(X x, const V* t, index_t) const {
    return t[x];
  }
};
}  // namespace lookups

template <class Op, class L, class V>
struct looked_up_line {
  using value_type = decltype(std::declval<const Op&>()(std::declval<typename L::value_type>(),
                                                        static_cast<const V*>(nullptr), index_t(0)));
  static constexpr bool batched = L::batched;
  L x;
  const V* t;
  index_t n;
  Op op;
  TESSERA_HD value_type operator()(index_t j) const { return op(x(j), t, n); }
  void fill(index_t j0, index_t m, value_type* out) const {
    if constexpr (batched) {
      typename L::value_type buf[batch_size];
      x.fill(j0, m, buf);
      for (index_t k = 0; k < m; ++k) out[k] = op(buf[k], t, n);
    } else {
      for (index_t k = 0; k < m; ++k) out[k] = (*this)(j0 + k);
    }
  }
};

template <class Op, class A, class V>
struct looked_up_accessor {
  A a;
  stored_accessor<V> table;
  index_t n;
  Op op;
  TESSERA_HD auto line(const ivec& start, int axis, index_t step) const {
    using L = decltype(a.line(start, axis, step));
    return looked_up_line<Op, L, V>{a.line(start, axis, step), table.p, n, op};
  }
};

template <class Op, class C, class V>
class looked_up : public expression<looked_up<Op, C, V>> {
 public:
  using value_type = decltype(std::declval<const Op&>()(std::declval<typename C::value_type>(),
                                                        static_cast<const V*>(nullptr), index_t(0)));
  /// table: one chunk, sorted ascending in NumPy's order (the caller sorts it).
  looked_up(Op op, C child, array<V> table) : op_(op), child_(std::move(child)), table_(std::move(table)) {}
  const chunk_grid& grid() const { return child_.grid(); }
  const C& child() const { return child_; }
  const array<V>& table() const { return table_; }

  template <class P>
  decltype(auto) lower(const P& p) const {
    using L = std::remove_cvref_t<decltype(child_.lower(p))>;
    if constexpr (std::is_same_v<L, C>) return static_cast<const looked_up&>(*this);
    else return looked_up<Op, L, V>(op_, child_.lower(p), table_);
  }
  template <class Ctx>
  auto bind(const box& b, Ctx& ctx) const {
    using A = decltype(child_.bind(b, ctx));
    return looked_up_accessor<Op, A, V>{child_.bind(b, ctx), view_box(table_.store(), table_.grid().whole(), ctx),
                                        table_.shape()[0], op_};
  }

 private:
  Op op_;
  C child_;
  array<V> table_;
};

}  // namespace tessera
