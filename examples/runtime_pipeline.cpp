// Expressions built at run time with ts::lazy<T>: a loop that reassigns one variable, and a
// pipeline whose steps come from the command line (default "sin,square,half,add_one"). The
// result stays lazy until item(); each assignment is one fused piece. Run by ctest.
#include <tessera/lazy.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

namespace ts = tessera;

int main(int argc, char** argv) {
  auto x = ts::linspace<double>(0.0, 1.0, 1001, {100});

  // A relaxation loop: the type of `u` never changes.
  ts::lazy<double> u = x;
  for (int i = 0; i < 10; ++i) u = 0.5 * (u + x * x);
  const double mean_u = ts::mean(u).item();
  // every element converges towards x^2; after 10 halvings the mean is within 1e-3 of 1/3
  if (std::abs(mean_u - 1.0 / 3.0) > 2e-3) {
    std::fprintf(stderr, "runtime_pipeline: mean %.6f is not near 1/3\n", mean_u);
    return EXIT_FAILURE;
  }

  // A pipeline chosen at run time.
  std::string steps = argc > 1 ? argv[1] : "sin,square,half,add_one";
  ts::lazy<double> y = x;
  std::stringstream in(steps);
  for (std::string s; std::getline(in, s, ',');) {
    if (s == "sin") y = ts::sin(y);
    else if (s == "square") y = y * y;
    else if (s == "half") y = y * 0.5;
    else if (s == "add_one") y = y + 1.0;
    else {
      std::fprintf(stderr, "runtime_pipeline: unknown step '%s'\n", s.c_str());
      return EXIT_FAILURE;
    }
  }
  const double last = ts::compute(y)(1000);  // x = 1
  std::printf("u mean %.6f; %s at x = 1: %.12f (%d nested pieces)\n", mean_u, steps.c_str(), last,
              y.depth());
  if (steps == "sin,square,half,add_one" &&
      std::abs(last - (0.5 * std::sin(1.0) * std::sin(1.0) + 1.0)) > 1e-12) {
    std::fprintf(stderr, "runtime_pipeline: %.15f is not sin(1)^2 / 2 + 1\n", last);
    return EXIT_FAILURE;
  }
  return EXIT_SUCCESS;
}
