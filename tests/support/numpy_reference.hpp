// NumPy as the reference at test time: a test saves inputs and results as .npy files with a
// case list (case_writer), then tests/differential/numpy_reference.py recomputes each case with
// NumPy and compares (run_numpy_reference). Also edgy_data: random arrays full of the values
// that find bugs (NaN, +-inf, +-0, ties, integer extremes).
#pragma once
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <string>

#include <catch2/catch.hpp>
#include <tessera/npy.hpp>
#include <tessera/tessera.hpp>

#include "backends.hpp"
#include "cases.hpp"
#include "files.hpp"

#ifndef TESSERA_NUMPY_REFERENCE
#error "TESSERA_NUMPY_REFERENCE (the path of tests/differential/numpy_reference.py) is not set"
#endif

namespace testing {

/// Values that exercise each function's edges: NaN, infinities, signed zeros, ties for
/// rounding, huge and tiny magnitudes; integers: extremes, 0, -1, small and full-range values.
template <class T>
xt::xarray<T> edgy_data(std::mt19937_64& rng, const tessera::shape_t& shape) {
  std::vector<std::size_t> sh(shape.begin(), shape.end());
  auto a = xt::xarray<T>::from_shape(sh);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (auto& v : a) {
    const auto pick = rng() % 16;
    if constexpr (std::is_same_v<T, bool>) {
      v = rng() & 1;
    } else if constexpr (std::is_floating_point_v<T>) {
      using lim = std::numeric_limits<T>;
      const T special[] = {lim::quiet_NaN(), lim::infinity(), -lim::infinity(), T(0), -T(0),
                           T(0.5), T(-0.5), T(2.5), T(-3.5), T(1), T(-1), lim::max(),
                           lim::denorm_min(), T(1e-3), T(0.999), T(-1e10)};
      if (pick == 0) v = special[rng() % 16];
      else if (pick < 4) v = T(std::ldexp(u(rng), int(rng() % 120) - 60));
      else if (pick < 6) v = T(double(std::int64_t(rng() % 41) - 20) / 2);  // ties
      else v = T(u(rng) * 10);
    } else {
      using lim = std::numeric_limits<T>;
      const T special[] = {lim::min(), lim::max(), T(0), T(1), T(T(0) - T(1)), T(lim::min() + 1)};
      if (pick == 0) v = special[rng() % 6];
      else if (pick < 4) {
        const std::uint64_t bits = rng();
        std::memcpy(&v, &bits, sizeof(T));
      } else v = T(std::int64_t(rng() % 41) - 20);
    }
  }
  return a;
}

/// NumPy's dtype name of T (the script's case lines).
template <class T>
std::string dtype_name() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, float>) return "float32";
  else if constexpr (std::is_same_v<T, double>) return "float64";
  else return (std::is_signed_v<T> ? "int" : "uint") + std::to_string(sizeof(T) * 8);
}

/// The cases of one run: saves inputs and results under dir, one line per case in cases.txt.
template <class P>
struct case_writer {
  const P& pol;
  const temp_dir& dir;
  std::ofstream list;
  int n = 0;
  case_writer(const P& p, const temp_dir& d) : pol(p), dir(d), list(d / "cases.txt") {}

  template <class X>
  std::string input(const X& x) {
    const std::string name = "in" + std::to_string(n++) + ".npy";
    if constexpr (tessera::expression_type<X>) tessera::to_npy(x, dir / name);
    else tessera::to_npy(tessera::from_xtensor(x), dir / name);
    return name;
  }
  void line(const std::string& func, const std::string& out, const std::string& param,
            std::initializer_list<std::string> inputs) {
    list << func << ' ' << out << ' ' << param;
    for (auto& i : inputs) list << ' ' << i;
    list << '\n';
  }
  /// The lazy expression path: expr's result computed with the backend, for NumPy's `func`
  /// of the inputs.
  template <class E>
  void add(const std::string& func, const E& expr, std::initializer_list<std::string> inputs,
           const std::string& param = "-") {
    const std::string out = "out" + std::to_string(n++) + ".npy";
    if constexpr (ranked<P>)
      // ts::mpi: each rank has its own temporary directory, and to_npy writes each block on its
      // owner only (into that rank's file); gather the result instead.
      tessera::to_npy(tessera::from_xtensor(tessera::compute(expr, pol)), dir / out);
    else
      tessera::to_npy(expr, dir / out, pol);
    line(func, out, param, inputs);
  }
  /// The element path: functor f (the element code every backend runs) applied on the host
  /// to each element of same-shape dense inputs; one instantiation per function and type
  /// instead of a whole chunked evaluation, so every element type meets every function.
  template <class F, class X, class... Y>
  void elements(const std::string& func, F f, const std::string& param,
                std::initializer_list<std::string> inputs, const xt::xarray<X>& x,
                const xt::xarray<Y>&... y) {
    using R = decltype(f(X{}, Y{}...));
    auto r = xt::xarray<R>::from_shape(x.shape());
    for (std::size_t k = 0; k < x.size(); ++k) r.flat(k) = f(x.flat(k), y.flat(k)...);
    const std::string out = "out" + std::to_string(n++) + ".npy";
    tessera::to_npy(tessera::from_xtensor(r), dir / out);
    line(func, out, param, inputs);
  }
};

/// The Python that has NumPy (TESSERA_TEST_PYTHON, default /usr/bin/python3), or "" with a
/// reason in `why`.
inline std::string numpy_python(std::string& why) {
  const char* env = std::getenv("TESSERA_TEST_PYTHON");
  const std::string python = env ? env : "/usr/bin/python3";
  if (std::system((python + " -c 'import numpy' > /dev/null 2>&1").c_str()) == 0) return python;
  why = python + " cannot import numpy (scripts/install-deps.sh installs python3-numpy; "
                 "TESSERA_TEST_PYTHON picks another Python)";
  return "";
}

/// Runs numpy_reference.py over dir's cases (floating math within `ulps`); true when NumPy
/// agrees with every case (mismatches are printed by the script).
inline bool run_numpy_reference(const std::string& python, const temp_dir& dir, int ulps) {
  const std::string cmd = python + " " + TESSERA_NUMPY_REFERENCE + " " + dir.path.string() +
                          " --ulps " + std::to_string(ulps);
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
}

/// The randomized NumPy comparison of a test case: for each iteration (test_iterations(n),
/// seed test_seed(seed), both printed), make_cases(writer, rng) saves its cases in a fresh
/// directory and NumPy checks them (floating math within `ulps`). Skips with a warning where
/// no Python has NumPy.
template <class P, class F>
void check_against_numpy(const P& pol, std::uint64_t seed_default, int n, int ulps, F&& make_cases) {
  std::string why;
  const std::string python = numpy_python(why);
  if (python.empty()) {
    WARN("skipped: " << why);
    return;
  }
  const auto seed = test_seed(seed_default);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < test_iterations(n); ++it) {
    INFO("seed " << seed << " iteration " << it);
    temp_dir dir("tessera_numpy");
    {
      case_writer<P> w(pol, dir);
      make_cases(w, rng);
    }
    CHECK(run_numpy_reference(python, dir, ulps));
  }
}

}  // namespace testing
