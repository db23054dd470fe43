// The benchmarks' --progress and --trace FILE options (docs/diagnostics.md): what they set on
// the execution policy's .progress and .trace.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

struct observe_cli {
  bool progress = false;
  std::string trace;

  void add_to(CLI::App& app) {
    app.add_flag("--progress", progress, "a progress bar per computation on stderr (policy .progress)");
    app.add_option("--trace", trace,
                   "write each computation's Chrome trace (chrome://tracing, Perfetto) to this file, "
                   "replacing the previous one, with a one-line summary on stderr (policy .trace)");
  }
};
