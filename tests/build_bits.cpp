// The same computations compiled two ways (tests/CMakeLists.txt: a user's plain build, no
// -march, and tessera::native, -march=native): each prints a hash of every result's bytes, and
// the test `build_configurations` compares the two outputs. A build of the project or a user's
// with tessera::native must give the bits of the plain build (whose host kernels pick the same
// CPU level at run time): no contraction of a * b + c into an FMA outside the kernel copies
// (core/host_isa.hpp), where the combine tree merges variances and means.
#include <tessera/reduce.hpp>
#include <tessera/tessera.hpp>
#include <tessera/view.hpp>

#include <cstdint>
#include <cstdio>

namespace ts = tessera;
using ts::placeholders::_;

namespace {
/// FNV-1a of an array's bytes.
template <class A>
std::uint64_t hash(const A& a) {
  std::uint64_t h = 1469598103934665603ull;
  const auto* p = reinterpret_cast<const unsigned char*>(a.data());
  for (std::size_t i = 0; i < a.size() * sizeof(*a.data()); ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}
template <class X>
void show(const char* name, const X& x, const ts::host& pol) {
  std::printf("%-26s %016llx\n", name, (unsigned long long)hash(ts::compute(x, pol)));
}
}  // namespace

int main() {
  const ts::host pol{.threads = 2};
  auto g = ts::random::default_rng(5);
  auto lazy = g.normal<double>(3, 2, {300, 70, 90}, ts::shape_t{7, 20, 90}) * 1.5;
  auto x = ts::persist(lazy, pol);
  show("normals", lazy, pol);
  show("normals [::2, :, ::3]", ts::view(lazy, ts::range(_, _, 2), ts::all(), ts::range(_, _, 3)), pol);
  show("sum axis 0", ts::sum(x, {0}), pol);
  show("mean axes 0, 2", ts::mean(lazy, {0, 2}), pol);
  show("mean", ts::mean(x), pol);
  show("variance axis 0", ts::variance(x, {0}), pol);
  show("variance axis 2", ts::variance(x, {2}), pol);
  show("variance axis 0 (lazy)", ts::variance(lazy, {0}), pol);
  show("stddev axis 1", ts::stddev(x, {1}), pol);
  show("variance", ts::variance(lazy), pol);
  show("x - mean(x, 0)", x - ts::mean(x, {0}), pol);
  show("exp, log, sin, pow", ts::exp(x * 0.1) + ts::log(ts::abs(x) + 1.0) * ts::sin(x) - ts::pow(ts::abs(x), 1.5), pol);
  show("argmax axis 1", ts::argmax(x, 1), pol);
  return 0;
}
