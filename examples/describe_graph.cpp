// What an expression is and how it will run, before running it: ts::describe (also
// `std::cout << x`) prints Dask's summary (node, dtype, shape, chunks, bytes, tasks, stages),
// ts::to_dot the graph with one cluster per stage (render it with Graphviz's dot).
//
//   describe_graph [DIR]   prints the summaries and writes DIR/seed003.dot (DIR defaults to ".")
#include <filesystem>
#include <iostream>
#include <tessera/diagnostics.hpp>
#include <tessera/tessera.hpp>

namespace ts = tessera;
using ts::placeholders::_;

int main(int argc, char** argv) {
  const std::filesystem::path dir = argc > 1 ? argv[1] : ".";
  auto x = ts::random::default_rng(3).normal<double>(10, 1, {20000, 20000}, {2000, 2000});
  auto y = ts::view(x + 1, ts::range(_, _, 2), ts::range(_, _, 2));  // seed 003, variant (a)
  auto m = ts::mean(y);

  std::cout << y << '\n' << m << '\n';  // nothing is evaluated
  std::cout << ts::repr(ts::mean(x, {0})) << '\n';
  const std::string path = (dir / "seed003.dot").string();
  ts::write_dot(m - ts::mean(x, {0}), path);
  std::cout << "wrote " << path << " (dot -Tsvg " << path << " -o seed003.svg)\n";

  // The summary's task count is what compute runs: 100 folds, whose combine writes the 0-d
  // result (a reduction at the top has no stage of its own chunks).
  return ts::task_count(m) == 100 && ts::stage_count(m) == 1 ? 0 : 1;
}
