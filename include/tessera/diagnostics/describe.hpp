// What an array is, at a glance, without evaluating it (Dask's repr and its HTML table):
//
//   std::cout << x;            // or ts::describe(x), fmt::format("{}", x)
//
//   tessera.array<add, shape=(20000, 20000), dtype=float64, chunksize=(2000, 2000)>
//     node      add (elementwise, fused into its chunk tasks)
//     dtype     float64
//     shape     (20000, 20000)
//     chunks    (2000, 2000), regular: 10 x 10 = 100 chunks
//     bytes     2.98 GiB array, 30.52 MiB per chunk
//     tasks     100 in 1 stage
//     backend   chosen at compute; inputs generated in the chunk tasks
//
// ts::repr(x) is the first line alone. fmt and std::format formatters: diagnostics/format.hpp
// ("{}" the summary, "{:s}" the line). Each line is made from
// the grid and the graph (diagnostics/graph.hpp): nothing is read or computed.
#pragma once
#include <algorithm>
#include <cstdio>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>

#include "../core/expression.hpp"
#include "../store/dtype.hpp"
#include "graph.hpp"

namespace tessera {

namespace detail {

/// NumPy's name of element type T ("float64", "int32", "bool").
template <class T>
std::string dtype_name() {
  if constexpr (std::is_integral_v<T> || std::is_same_v<T, float> || std::is_same_v<T, double>)
    return dtype::of<T>().name();
  else return unqualified_name<T>();
}

/// Bytes as Dask's format_bytes writes them: "512 B", "1.50 kiB", "2.98 GiB".
inline std::string format_bytes(double n) {
  static const char* units[] = {"B", "kiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (n >= 1024.0 && u < 6) n /= 1024.0, ++u;
  char buf[48];
  if (u == 0) std::snprintf(buf, sizeof buf, "%.0f B", n);
  else std::snprintf(buf, sizeof buf, "%.2f %s", n, units[u]);
  return buf;
}

inline std::string tuple_text(const shape_t& s) {
  std::ostringstream os;
  os << '(';
  for (std::size_t d = 0; d < s.size(); ++d) os << (d ? ", " : "") << s[d];
  os << (s.size() == 1 ? ",)" : ")");
  return os.str();
}

/// The largest chunk length of each axis (Dask's chunksize).
inline shape_t chunk_size(const chunk_grid& g) {
  shape_t c;
  for (const auto& axis : g.chunks()) c.push_back(axis.empty() ? 0 : *std::max_element(axis.begin(), axis.end()));
  return c;
}

/// An axis is regular when every chunk but the last has one length and the last is no longer.
inline bool regular_axis(const std::vector<index_t>& a) {
  for (std::size_t i = 1; i + 1 < a.size(); ++i)
    if (a[i] != a[0]) return false;
  return a.size() < 2 || a.back() <= a[0];
}

/// "(2000, 2000), regular: 10 x 10 = 100 chunks", or for irregular axes their lengths (up to 8)
/// or their range: "(5, 9); axis 1 irregular (9, 2, 9, 4): 3 x 4 = 12 chunks".
inline std::string chunks_text(const chunk_grid& g) {
  std::ostringstream os;
  os << tuple_text(chunk_size(g));
  std::ostringstream irregular;
  for (int d = 0; d < g.rank(); ++d) {
    const auto& a = g.chunks()[std::size_t(d)];
    if (regular_axis(a)) continue;
    irregular << "; axis " << d << " irregular ";
    if (a.size() <= 8) {
      irregular << '(';
      for (std::size_t i = 0; i < a.size(); ++i) irregular << (i ? ", " : "") << a[i];
      irregular << ')';
    } else {
      irregular << a.size() << " chunks of " << *std::min_element(a.begin(), a.end()) << " to "
                << *std::max_element(a.begin(), a.end());
    }
  }
  const std::string irr = irregular.str();
  os << (irr.empty() ? ", regular" : irr) << ": ";
  if (g.rank() == 0) {
    os << "1 chunk";
    return os.str();
  }
  for (int d = 0; d < g.rank(); ++d) os << (d ? " x " : "") << g.chunks()[std::size_t(d)].size();
  const index_t n = g.block_count();
  if (g.rank() > 1) os << " = " << n;
  os << (n == 1 ? " chunk" : " chunks");
  return os.str();
}

/// What kind of node x is, in words.
template <expression_type X>
std::string node_role(const X& x) {
  using N = std::remove_cvref_t<X>;
  if constexpr (is_reduction_node<N>::value) return "reduction, a stage of its own";
  else if constexpr (is_elementwise_node<N>::value) return "elementwise, fused into its chunk tasks";
  else if constexpr (is_remap<N>::value) return "a view, fused: reads only what it selects";
  else if constexpr (is_rechunked<N>::value) return "fused: each chunk reads its box of the input";
  else if constexpr (is_generated_node<N>::value) return "generated in the chunk tasks";
  else if constexpr (is_array_node<N>::value) return "chunks in host memory";
  else if constexpr (is_stored_node<N>::value) return "chunk store, read in the chunk tasks";
  else {
    (void)x;
    return unqualified_name<N>() == "device_array" ? "chunks in CUDA device memory" : "leaf";
  }
}

/// Where the leaves of x keep their data: "host memory", "device memory", "files",
/// "generated in the chunk tasks", ... (each once).
template <expression_type X>
void leaf_places(const X& x, std::set<std::string>& out) {
  using N = std::remove_cvref_t<X>;
  bool leaf = true;
  for_each_operand(x, [&](const auto& a) {
    leaf = false;
    leaf_places(a, out);
  });
  if (!leaf) return;
  if constexpr (is_array_node<N>::value) out.insert("host memory");
  else if constexpr (is_generated_node<N>::value) {
    if (x.dimension() > 0) out.insert("generated in the chunk tasks");  // not a scalar operand
  }
  else if constexpr (is_stored_node<N>::value) {
    if constexpr (requires { x.store().path(); } || requires { x.store().metadata().path; })
      out.insert("read from files");
    else out.insert("read from a chunk store");
  } else if (unqualified_name<N>() == "device_array") out.insert("CUDA device memory");
  else out.insert(unqualified_name<N>());
}

template <expression_type X>
std::string backend_text(const X& x) {
  using N = std::remove_cvref_t<X>;
  if constexpr (is_array_node<N>::value) return "host (ts::array: persisted, host memory)";
  else if (unqualified_name<N>() == "device_array") return "cuda (ts::device_array: persisted, device memory)";
  std::set<std::string> places;
  leaf_places(x, places);
  if (places.empty()) return "chosen at compute";
  std::string s = "chosen at compute; inputs ";
  bool first = true;
  for (const auto& p : places) s += (first ? "" : ", ") + p, first = false;
  return s;
}

}  // namespace detail

/// One line, as Dask's repr: "tessera.array<add, shape=(20000, 20000), dtype=float64,
/// chunksize=(2000, 2000)>".
template <expression_type X>
std::string repr(const X& x) {
  std::ostringstream os;
  os << "tessera.array<" << node_name(x) << ", shape=" << detail::tuple_text(x.shape())
     << ", dtype=" << detail::dtype_name<typename X::value_type>()
     << ", chunksize=" << detail::tuple_text(detail::chunk_size(x.grid())) << '>';
  return os.str();
}

/// The summary: repr(x), then node, dtype, shape, chunks, bytes, tasks and backend lines (see
/// the header comment). Nothing is evaluated.
template <expression_type X>
std::string describe(const X& x) {
  using T = typename X::value_type;
  const chunk_grid& g = x.grid();
  index_t chunk_elems = 1;
  for (index_t c : detail::chunk_size(g)) chunk_elems *= c;
  const std::string detail_text = node_detail(x);
  const index_t stages = stage_count(x);
  std::ostringstream os;
  os << repr(x) << '\n'
     << "  node      " << node_name(x) << (detail_text.empty() ? "" : " " + detail_text) << " ("
     << detail::node_role(x) << ")\n"
     << "  dtype     " << detail::dtype_name<T>() << '\n'
     << "  shape     " << detail::tuple_text(x.shape()) << '\n'
     << "  chunks    " << detail::chunks_text(g) << '\n'
     << "  bytes     " << detail::format_bytes(double(x.size()) * double(sizeof(T))) << " array, "
     << detail::format_bytes(double(chunk_elems) * double(sizeof(T))) << " per chunk\n"
     << "  tasks     " << task_count(x) << " in " << stages << (stages == 1 ? " stage" : " stages")
     << '\n'
     << "  backend   " << detail::backend_text(x) << '\n';
  return os.str();
}

/// Streams describe(x).
template <expression_type X>
std::ostream& operator<<(std::ostream& os, const X& x) {
  return os << describe(x);
}

}  // namespace tessera
