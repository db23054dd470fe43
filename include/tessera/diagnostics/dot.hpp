// The expression graph as Graphviz dot (Dask's x.visualize(), at the level Tessera runs it):
//
//   std::string dot = ts::to_dot(expr);    ts::write_dot(expr, "graph.dot");
//   $ dot -Tsvg graph.dot -o graph.svg
//
// One box per node (its name, index or axes, dtype, shape and chunks), arrows from operands to
// the node that reads them, and one cluster per stage: the nodes a stage's chunk kernel fuses,
// labelled with the stage's task count. A reduction starts a stage (its fold tasks, one per
// input chunk, then the combine tree); the stage above reads its stored result (at the root,
// the combine tree writes compute's result itself). Stages are numbered in the order they
// run, and there are stage_count(x) of them.
#pragma once
#include <sstream>
#include <string>
#include <vector>

#include "../core/errors.hpp"
#include "../store/file.hpp"
#include "describe.hpp"
#include "graph.hpp"

namespace tessera {

namespace detail {

/// A dot double-quoted string's contents: quotes and backslashes escaped, lines joined by \n.
inline std::string dot_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

class dot_writer {
 public:
  /// Emits the stage whose result is node x (the root, or a reduction) and returns x's id.
  template <expression_type X>
  int stage(const X& x) {
    std::ostringstream nodes;
    const int id = node(x, nodes);
    const int number = ++stages_;  // after the stages x's reductions start: execution order
    index_t tasks = x.grid().block_count();
    std::string what = "one fused kernel per chunk";
    if constexpr (is_reduction_node<std::remove_cvref_t<X>>::value) {
      tasks = reduction_plan(x.child().grid(), x.spec()).tasks();
      what = "a fold per input chunk, then a combine tree of fan-in " +
             std::to_string(x.spec().split_every);
    }
    clusters_ << "  subgraph cluster_stage" << number << " {\n"
              << "    label=\"stage " << number << ": " << tasks << (tasks == 1 ? " task" : " tasks")
              << " (" << what << ")\";\n    style=\"rounded,dashed\"; color=gray40; fontname=\"Helvetica\";\n"
              << nodes.str() << "  }\n";
    return id;
  }

  std::string finish(int root) {
    std::ostringstream os;
    os << "digraph tessera {\n"
       << "  rankdir=BT;\n"
       << "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=11];\n"
       << "  edge [color=gray30];\n"
       << clusters_.str() << edges_.str() << "  n" << root << " [penwidth=2];\n"
       << "}\n";
    return os.str();
  }

 private:
  template <expression_type X>
  int node(const X& x, std::ostringstream& nodes) {
    using N = std::remove_cvref_t<X>;
    const int id = next_++;
    std::vector<int> inputs;
    // Operands first: a reduction operand is a stage of its own, others fuse into this one.
    for_each_operand(x, [&](const auto& a) {
      using A = std::remove_cvref_t<decltype(a)>;
      if constexpr (is_reduction_node<A>::value) inputs.push_back(stage(a));
      else inputs.push_back(node(a, nodes));
    });
    const std::string d = node_detail(x);
    std::string label = node_name(x) + (d.empty() ? "" : " " + d) + "\n" +
                        dtype_name<typename N::value_type>() + " " + tuple_text(x.shape());
    if (x.dimension() > 0) label += "\nchunks " + tuple_text(chunk_size(x.grid())) + ", " +
                                    std::to_string(x.grid().block_count()) + " in all";
    const char* fill = "lightgoldenrod1";  // fused operations
    if constexpr (is_reduction_node<N>::value) fill = "darkorange";
    else if constexpr (is_remap<N>::value || is_rechunked<N>::value) fill = "lightblue";
    else if (inputs.empty()) fill = "gray90";  // leaves
    nodes << "    n" << id << " [label=\"" << dot_escape(label) << "\", fillcolor=" << fill << "];\n";
    for (int in : inputs) edges_ << "  n" << in << " -> n" << id << ";\n";
    return id;
  }

  int next_ = 0, stages_ = 0;
  std::ostringstream clusters_, edges_;
};

}  // namespace detail

/// x's expression graph as Graphviz dot (see the header comment). Nothing is evaluated.
template <expression_type X>
std::string to_dot(const X& x) {
  detail::dot_writer w;
  const int root = w.stage(x);
  return w.finish(root);
}

/// Writes to_dot(x) to `path` (a temporary name, renamed when complete); tessera::io_error
/// naming the path if it cannot be written.
template <expression_type X>
void write_dot(const X& x, const std::string& path) {
  const std::string s = to_dot(x);
  detail::write_file_atomic(path, s.data(), s.size());
}

}  // namespace tessera
