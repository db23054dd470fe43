// Dask's x.visualize(filename): the expression graph (diagnostics/dot.hpp) rendered by
// Graphviz into an image.
//
//   ts::visualize(expr, "graph.svg");     // .svg, .png, .pdf (rendered), .dot (the text)
//
// The format is the file's extension. Rendering runs Graphviz's `dot` program (the TESSERA_DOT
// environment variable names another; Debian: `apt install graphviz`): the DOT text goes to a
// temporary file beside the target, `dot -T<format>` writes the target, the temporary file is
// removed. A missing program or a failed run throws tessera::io_error naming the command and
// its exit status; the target is then left as it was (dot writes it only when it succeeds).
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "../core/errors.hpp"
#include "dot.hpp"

namespace tessera {

namespace detail {
/// s quoted for the shell (single quotes; an embedded ' closed, escaped and reopened).
inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') q += "'\\''";
    else q += c;
  }
  return q + "'";
}
}  // namespace detail

/// Renders x's expression graph into `path` (see the header comment); returns path.
template <expression_type X>
std::string visualize(const X& x, const std::string& path) {
  const auto dot = path.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  if (ext == "dot" || ext == "gv") {
    write_dot(x, path);
    return path;
  }
  if (ext != "svg" && ext != "png" && ext != "pdf")
    throw_invalid("visualize: '", path, "' has extension '", ext,
                  "'; give a file ending in .svg, .png, .pdf or .dot");
  const char* env = std::getenv("TESSERA_DOT");
  const std::string program = env && *env ? env : "dot";
  const std::string text = path + ".tessera-dot";
  write_dot(x, text);
  const std::string cmd = detail::shell_quote(program) + " -T" + ext + " " + detail::shell_quote(text) + " -o " +
                          detail::shell_quote(path) + " 2>/dev/null";
  const int rc = std::system(cmd.c_str());
  std::remove(text.c_str());
  const int status = rc == -1 ? -1 : (WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc));
  if (status != 0)
    throw_io("visualize: '", cmd, "' failed with exit status ", status,
             status == 127 ? " (the program was not found: install Graphviz, or set TESSERA_DOT)" : "");
  return path;
}

}  // namespace tessera
