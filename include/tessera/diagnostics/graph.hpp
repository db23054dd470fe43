// The expression graph as the diagnostics see it (ts::describe, ts::to_dot): what each node is
// called, its operands, and the chunk tasks an evaluation runs. Read from the nodes' public
// accessors (operands(), child(), op(), spec(), map(), function(), store()), so the node
// headers stay about evaluation; a node type this header does not know is shown by its C++
// type name, as a leaf.
//
//   node_name(x)      NumPy's / Dask's word for the node: "add", "normal", "getitem",
//                     "transpose", "rechunk", "mean", "array", "from_zarr", ...
//   node_detail(x)    what distinguishes it: a view's index ("[::2, 100:200]"), a reduction's
//                     axes, a constant's value, a file's path ("" where nothing)
//   for_each_operand(x, f)   f(operand) for each operand, in order
//   task_count(x)     chunk tasks compute(x) runs: one per output chunk, plus one per input
//                     chunk of every reduction below (each a separate stage); a reduction
//                     at the top writes its output chunks in its own fold stage
//   stage_count(x)    stages compute(x) runs: 1 + the reductions below (a reduction at the
//                     top: the reductions alone)
#pragma once
#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>

#include "../core/expression.hpp"
#include "../nodes/elementwise.hpp"
#include "../nodes/generated.hpp"
#include "../nodes/rechunk.hpp"
#include "../nodes/remap.hpp"
#include "../nodes/stored.hpp"
#include "../reduce/spec.hpp"

namespace tessera {

// Declared here, defined in reduce/: the drivers include this header (task_count sizes a
// computation's progress), and reduce/reduction.hpp includes the drivers.
template <class Op, class X>
class reduced;
namespace reducers {
template <class T, bool Max>
struct extremum;
template <class T, bool Max, bool NanSkip>
struct argext;
template <class T, bool Sqrt>
struct variance_base;
template <class R, class T>
struct custom;
}  // namespace reducers

namespace detail {

/// The unqualified name of a C++ type: namespaces and template arguments removed
/// ("tessera::ops::plus" -> "plus", "tessera::reducers::mean<double>" -> "mean"); a lambda's
/// closure type gives "lambda".
inline std::string unqualified_name(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> full(abi::__cxa_demangle(mangled, nullptr, nullptr, &status),
                                              std::free);
  std::string s = status == 0 && full ? std::string(full.get()) : std::string(mangled);
  if (s.find("lambda") != std::string::npos) return "lambda";
  // Cut template arguments (outermost '<' at depth 0), then keep what follows the last "::".
  std::string out;
  int depth = 0;
  for (char c : s) {
    if (c == '<') ++depth;
    if (depth == 0) out += c;
    if (c == '>') --depth;
  }
  const std::size_t colon = out.rfind("::");
  return colon == std::string::npos ? out : out.substr(colon + 2);
}
template <class T>
std::string unqualified_name() {
  return unqualified_name(typeid(T).name());
}

/// NumPy's name of an element operation functor (ops/functors.hpp); a user's functor (ts::map)
/// keeps its own type name, a lambda is "map".
template <class Op>
std::string operation_name() {
  const std::string n = unqualified_name<Op>();
  static const std::pair<const char*, const char*> numpy[] = {
      {"plus", "add"},         {"minus", "subtract"}, {"multiplies", "multiply"},
      {"divides", "divide"},   {"negate", "negative"}, {"select", "where"},
      {"cast_to", "astype"},   {"lambda", "map"}};
  for (const auto& [ours, theirs] : numpy)
    if (n == ours) return theirs;
  return n;
}

/// A reduction op's user-facing name (the accumulators behind alias templates: amax is
/// extremum<T, true>); a user reducer (reduce/custom.hpp) shows its own type name.
template <class Op>
struct reduction_name {
  static std::string get() { return unqualified_name<Op>(); }
};
template <class T, bool Max>
struct reduction_name<reducers::extremum<T, Max>> {
  static std::string get() { return Max ? "amax" : "amin"; }
};
template <class T, bool Max, bool NanSkip>
struct reduction_name<reducers::argext<T, Max, NanSkip>> {
  static std::string get() { return std::string(NanSkip ? "nan" : "") + (Max ? "argmax" : "argmin"); }
};
template <class T, bool Sqrt>
struct reduction_name<reducers::variance_base<T, Sqrt>> {
  static std::string get() { return Sqrt ? "stddev" : "variance"; }
};
template <class R, class T>
struct reduction_name<reducers::custom<R, T>> {
  static std::string get() { return "reduce " + unqualified_name<R>(); }
};

template <class T>
struct is_array_node : std::false_type {};
template <class T>
struct is_array_node<array<T>> : std::true_type {};
template <class T>
struct is_stored_node : std::false_type {};
template <class S>
struct is_stored_node<stored<S>> : std::true_type {};
template <class T>
struct is_generated_node : std::false_type {};
template <class F>
struct is_generated_node<generated<F>> : std::true_type {};
template <class T>
struct is_elementwise_node : std::false_type {};
template <class Op, class... A>
struct is_elementwise_node<elementwise<Op, A...>> : std::true_type {};
template <class T>
struct is_reduction_node : std::false_type {};
template <class Op, class X>
struct is_reduction_node<reduced<Op, X>> : std::true_type {};

/// A remap is a transpose when it only permutes whole axes (not the identity), else a view
/// (getitem).
inline bool is_permutation(const affine_map& m, const shape_t& out_shape, const shape_t& in_shape) {
  if (m.out_rank != m.base.n) return false;
  bool moved = false;
  for (int d = 0; d < m.out_rank; ++d) {
    const int k = m.src[d];
    if (k < 0 || m.step[d] != 1 || m.base[k] != 0) return false;
    if (out_shape[std::size_t(d)] != in_shape[std::size_t(k)]) return false;
    moved |= k != d;
  }
  return moved;
}

/// The view's index in NumPy's notation, from its map and shapes: an input axis read by an
/// output axis is a slice start:stop:step (parts at their defaults left out), one read by none
/// an integer, an output axis reading none a None (newaxis): "[::2, 1, None, 3:7]". A map
/// that also reorders axes reads "transpose(2, 0, 1)[...]": NumPy's x.transpose(2, 0, 1)[...]
/// (the axes read, in output order, then the integer-indexed ones). An empty slice of a new
/// axis (a view of a view) adds a second index: "[3, None, ::2][0:0]".
inline std::string index_notation(const affine_map& m, const shape_t& out_shape,
                                  const shape_t& in_shape) {
  std::vector<int> read_by(std::size_t(m.base.n), -1);  // output axis reading input axis k
  bool ordered = true;
  int last = -1;
  for (int d = 0; d < m.out_rank; ++d) {
    if (m.src[d] < 0) continue;
    read_by[std::size_t(m.src[d])] = d;
    if (m.src[d] < last) ordered = false;
    last = m.src[d];
  }
  auto slice_text = [&](int k, int d) {
    std::ostringstream os;
    const index_t len = out_shape[std::size_t(d)], step = m.step[d], start = m.base[k];
    const index_t n = in_shape[std::size_t(k)];
    const index_t stop = start + step * len;  // one past the last, in the step's direction
    const bool full_start = step > 0 ? start == 0 : start == n - 1;
    const bool full_stop = step > 0 ? stop >= n : stop < 0;
    if (!full_start || len == 0) os << start;
    os << ':';
    if (!full_stop || len == 0) os << stop;
    if (step != 1) os << ':' << step;
    return os.str();
  };
  std::vector<std::string> parts;
  std::string prefix;
  if (ordered) {
    // Input axes in order; new axes where the output has them.
    int d_out = 0;
    auto new_axes_before = [&](int d) {
      for (; d_out < d; ++d_out)
        if (m.src[d_out] < 0) parts.push_back("None");
    };
    for (int k = 0; k < m.base.n; ++k) {
      const int d = read_by[std::size_t(k)];
      if (d < 0) {
        parts.push_back(std::to_string(m.base[k]));
        continue;
      }
      new_axes_before(d);
      parts.push_back(slice_text(k, d));
      d_out = d + 1;
    }
    new_axes_before(m.out_rank);
  } else {
    std::ostringstream perm;
    perm << "transpose(";
    std::vector<int> unread;
    int j = 0;
    for (int d = 0; d < m.out_rank; ++d) {
      if (m.src[d] < 0) {
        parts.push_back("None");
        continue;
      }
      perm << (j++ ? ", " : "") << m.src[d];
      parts.push_back(slice_text(m.src[d], d));
    }
    for (int k = 0; k < m.base.n; ++k)
      if (read_by[std::size_t(k)] < 0) {
        perm << (j++ ? ", " : "") << k;
        parts.push_back(std::to_string(m.base[k]));
      }
    perm << ')';
    prefix = perm.str();
  }
  std::string out = prefix + '[';
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  out += ']';
  int last_empty = -1;
  for (int d = 0; d < m.out_rank; ++d)
    if (m.src[d] < 0 && out_shape[std::size_t(d)] == 0) last_empty = d;
  if (last_empty >= 0) {
    out += '[';
    for (int d = 0; d <= last_empty; ++d)
      out += std::string(d ? ", " : "") + (m.src[d] < 0 && out_shape[std::size_t(d)] == 0 ? "0:0" : ":");
    out += ']';
  }
  return out;
}

}  // namespace detail

/// f(operand) for each operand of x (none for leaves). Up to four operands are called directly,
/// so a recursion through f costs no template depth in between (deep expressions, issue 18).
template <expression_type X, class F>
void for_each_operand(const X& x, F&& f) {
  if constexpr (requires { x.operands(); }) {
    const auto& t = x.operands();
    constexpr std::size_t n = detail::pack_size<std::remove_cvref_t<decltype(t)>>::value;
    if constexpr (n <= 4) {
      if constexpr (n > 0) f(detail::get<0>(t));
      if constexpr (n > 1) f(detail::get<1>(t));
      if constexpr (n > 2) f(detail::get<2>(t));
      if constexpr (n > 3) f(detail::get<3>(t));
    } else {
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        (f(detail::get<I>(t)), ...);
      }(std::make_index_sequence<n>{});
    }
  } else if constexpr (requires { x.child(); }) {
    f(x.child());
  } else if constexpr (requires { x.for_each_part(f); }) {
    x.for_each_part(f);
  }
}

/// NumPy's / Dask's word for the node x (see the header comment).
template <expression_type X>
std::string node_name(const X& x) {
  using N = std::remove_cvref_t<X>;
  if constexpr (detail::is_elementwise_node<N>::value) {
    return detail::operation_name<std::remove_cvref_t<decltype(x.op())>>();
  } else if constexpr (detail::is_reduction_node<N>::value) {
    return detail::reduction_name<typename N::op_type>::get();
  } else if constexpr (is_remap<N>::value) {
    return detail::is_permutation(x.map(), x.shape(), x.child().shape()) ? "transpose" : "getitem";
  } else if constexpr (is_rechunked<N>::value) {
    return "rechunk";
  } else if constexpr (detail::is_array_node<N>::value) {
    return "array";
  } else if constexpr (detail::is_stored_node<N>::value) {
    std::string s = detail::unqualified_name<std::remove_cvref_t<decltype(x.store())>>();
    if (s.size() > 6 && s.compare(s.size() - 6, 6, "_store") == 0) s = "from_" + s.substr(0, s.size() - 6);
    return s;
  } else if constexpr (detail::is_generated_node<N>::value) {
    using F = std::remove_cvref_t<decltype(x.function())>;
    if constexpr (requires { x.function().dist; }) {  // random::philox_array<D>
      std::string s = detail::unqualified_name<std::remove_cvref_t<decltype(x.function().dist)>>();
      if (s.size() > 5 && s.compare(s.size() - 5, 5, "_dist") == 0) s.resize(s.size() - 5);
      return s;
    } else {
      const std::string s = detail::unqualified_name<F>();
      return s == "constant" ? "full" : s;
    }
  } else if constexpr (requires { x.node_label(); }) {  // e.g. "map_blocks"
    return std::string(x.node_label());
  } else {
    return detail::unqualified_name<N>();
  }
}

/// What distinguishes the node x from others of its name ("" where nothing).
template <expression_type X>
std::string node_detail(const X& x) {
  using N = std::remove_cvref_t<X>;
  std::ostringstream os;
  if constexpr (detail::is_reduction_node<N>::value) {
    const reduce_spec& s = x.spec();
    const int r = x.child().dimension();
    int reduced = 0;
    for (int d = 0; d < r; ++d) reduced += s.reduced(d);
    if (reduced < r || r == 0) {
      os << "axis=(";
      bool first = true;
      for (int d = 0; d < r; ++d)
        if (s.reduced(d)) os << (first ? "" : ", ") << d, first = false;
      os << (reduced == 1 ? ",)" : ")");
    }
    if (s.keep_dims) os << (os.tellp() > 0 ? ", " : "") << "keepdims";
  } else if constexpr (is_remap<N>::value) {
    if (detail::is_permutation(x.map(), x.shape(), x.child().shape())) {
      os << "axes=(";
      for (int d = 0; d < x.map().out_rank; ++d) os << (d ? ", " : "") << x.map().src[d];
      os << (x.map().out_rank == 1 ? ",)" : ")");
    } else {
      os << detail::index_notation(x.map(), x.shape(), x.child().shape());
    }
  } else if constexpr (detail::is_stored_node<N>::value) {
    if constexpr (requires { x.store().path(); }) os << x.store().path();
    else if constexpr (requires { x.store().metadata().path; }) os << x.store().metadata().path.string();
  } else if constexpr (detail::is_generated_node<N>::value) {
    using F = std::remove_cvref_t<decltype(x.function())>;
    if constexpr (requires { x.function().value; }) os << +x.function().value;
    else if constexpr (requires { x.function().start; x.function().step; })
      os << "start=" << +x.function().start << ", step=" << +x.function().step;
    (void)sizeof(F);
  }
  return os.str();
}

namespace detail {
/// Whether a node of type N has a reduction in its subtree, from the types alone (the walks
/// below skip subtrees without one: a chain of n elementwise nodes instantiates no code).
template <class N>
constexpr bool holds_reduction();
template <class P>
struct pack_holds_reduction;
template <std::size_t... I, class... A>
struct pack_holds_reduction<pack_of<std::index_sequence<I...>, A...>> {
  static constexpr bool value = (holds_reduction<A>() || ...);
};
/// Nodes other than reductions that run a stage of their own when lowered (scans): they say
/// how many task batches and tasks it runs.
template <class N>
concept staged_node = requires(const N& x) {
  N::runs_stage;
  x.stage_count();
  x.stage_tasks();
};
/// Nodes with a run-time list of operands (concatenate): their operand types as a tuple.
template <class N>
concept listed_operands = requires { typename N::operand_types; };
template <class T>
struct tuple_holds_reduction;
template <class... A>
struct tuple_holds_reduction<std::tuple<A...>> {
  static constexpr bool value = (holds_reduction<A>() || ...);
};
/// Nodes whose expression is erased (ts::lazy): they say how many stages and tasks the
/// reductions inside them run.
template <class N>
concept erased_node = requires(const N& x) {
  x.erased_stages();
  x.erased_tasks();
};
template <class N>
constexpr bool holds_reduction() {
  if constexpr (is_reduction_node<N>::value || staged_node<N> || erased_node<N>) return true;
  else if constexpr (listed_operands<N>) return tuple_holds_reduction<typename N::operand_types>::value;
  else if constexpr (requires(const N& x) { x.operands(); })
    return pack_holds_reduction<std::remove_cvref_t<decltype(std::declval<const N&>().operands())>>::value;
  else if constexpr (requires(const N& x) { x.child(); })
    return holds_reduction<std::remove_cvref_t<decltype(std::declval<const N&>().child())>>();
  else return false;
}

/// Nodes that lower to another node (a stored leaf) without running a stage (map_blocks,
/// nanargmin's check): like reductions, they have no bind() until lowered.
template <class N>
concept lowered_away = requires { N::lowers_away; };
/// Whether N's own subtree (not looking inside erased pieces, which lower themselves) holds a
/// node that must be lowered before it can bind.
template <class N>
constexpr bool must_lower();
template <class P>
struct pack_must_lower;
template <std::size_t... I, class... A>
struct pack_must_lower<pack_of<std::index_sequence<I...>, A...>> {
  static constexpr bool value = (must_lower<A>() || ...);
};
template <class T>
struct tuple_must_lower;
template <class... A>
struct tuple_must_lower<std::tuple<A...>> {
  static constexpr bool value = (must_lower<A>() || ...);
};
template <class N>
constexpr bool must_lower() {
  if constexpr (erased_node<N>) return false;
  else if constexpr (is_reduction_node<N>::value || staged_node<N> || lowered_away<N>) return true;
  else if constexpr (listed_operands<N>) return tuple_must_lower<typename N::operand_types>::value;
  else if constexpr (requires(const N& x) { x.operands(); })
    return pack_must_lower<std::remove_cvref_t<decltype(std::declval<const N&>().operands())>>::value;
  else if constexpr (requires(const N& x) { x.child(); })
    return must_lower<std::remove_cvref_t<decltype(std::declval<const N&>().child())>>();
  else return false;
}

/// Stages and tasks of the stages below x's own: the reductions in x's subtree.
template <expression_type X>
index_t inner_stages(const X& x) {
  using N = std::remove_cvref_t<X>;
  if constexpr (!holds_reduction<N>()) {
    return 0;
  } else if constexpr (is_reduction_node<N>::value) {  // an empty result runs no folds
    return (x.grid().size() > 0 ? 1 : 0) + inner_stages(x.child());
  } else if constexpr (staged_node<N>) {
    return x.stage_count() + inner_stages(x.child());
  } else if constexpr (erased_node<N>) {
    return x.erased_stages();
  } else {
    index_t n = 0;
    for_each_operand(x, [&](const auto& a) { n += inner_stages(a); });
    return n;
  }
}
template <expression_type X>
index_t inner_tasks(const X& x) {
  using N = std::remove_cvref_t<X>;
  if constexpr (!holds_reduction<N>()) {
    return 0;
  } else if constexpr (is_reduction_node<N>::value) {
    return (x.grid().size() > 0 ? reduction_plan(x.child().grid(), x.spec()).tasks() : 0) +
           inner_tasks(x.child());
  } else if constexpr (staged_node<N>) {
    return x.stage_tasks() + inner_tasks(x.child());
  } else if constexpr (erased_node<N>) {
    return x.erased_tasks();
  } else {
    index_t n = 0;
    for_each_operand(x, [&](const auto& a) { n += inner_tasks(a); });
    return n;
  }
}
}  // namespace detail

/// Stages compute(x) runs: one for x's own chunks and one per reduction in x (each occurrence:
/// a reduction used twice runs twice). A reduction at the top has no stage of its own chunks:
/// its fold stage finalizes the result where compute (or persist) wants it (on ts::mpi,
/// compute gathers it in one more stage).
template <expression_type X>
index_t stage_count(const X& x) {
  return (detail::is_reduction_node<std::remove_cvref_t<X>>::value ? 0 : 1) + detail::inner_stages(x);
}

/// Chunk tasks compute(x) (and persist(x)) run: one per chunk of x, plus, for every reduction
/// in x, one per chunk of the reduction's input (its fold tasks; the combine tree runs as the
/// folds complete, not as tasks). A reduction at the top: its fold tasks alone (stage_count).
template <expression_type X>
index_t task_count(const X& x) {
  const index_t own = detail::is_reduction_node<std::remove_cvref_t<X>>::value ? 0 : x.grid().block_count();
  return own + detail::inner_tasks(x);
}

}  // namespace tessera
