// Compiled by nvcc in the nvcc_element_code ctest: instantiates the per-element evaluation of
// several expressions inside a __global__ kernel, so host+device element code (accessors,
// lines, element functors) keeps compiling for the device.
#include <tessera/tessera.hpp>

namespace ts = tessera;

template <class Acc, class T>
__global__ void eval_rows(Acc acc, ts::box b, T* out) {
  const ts::index_t n = b.extent(b.rank() - 1);
  for (ts::index_t j = threadIdx.x; j < n; j += blockDim.x) {
    ts::ivec start = b.lo;
    out[j] = acc.line(start, b.rank() - 1, 1)(j);
  }
}

template <class E>
void instantiate(const E& e) {
  ts::host_context ctx;
  auto bx = e.grid().block_box(0);
  auto acc = e.bind(bx, ctx);
  eval_rows<<<1, 32>>>(acc, bx, static_cast<typename E::value_type*>(nullptr));
}

void instantiate_all() {
  auto a = ts::arange<double>(0, 64, 1, {16});
  auto f = ts::full<float>({8, 64}, 2.0f, {4, 16});
  auto s = ts::persist(f);
  instantiate(ts::exp(a * 0.5) + f / 3 - 1);                       // broadcasting, promotion
  instantiate(ts::where(a > 3.0, ts::sqrt(ts::abs(a)), -a));       // ternary, comparisons
  instantiate(ts::cast<int>(ts::transpose(s + 1.0f)));              // remap over stored data
  instantiate(ts::maximum(ts::pow(s, 2), ts::minimum(s, 1.5f)));    // binary functions
  instantiate(ts::rechunk(ts::cos(s) * ts::sin(s), {8, 8}));
  auto g = ts::random::default_rng(7);                               // counter-based leaves
  using namespace ts::placeholders;
  instantiate(ts::view(g.normal<double>(10, 1, {64, 64}, {16, 16}) + 1.0, ts::range(_, _, 2),
                       ts::range(_, _, -3)));                         // view over random
  instantiate(g.random<float>({8, 8}, {4, 4}) * g.integers<int>(0, 10, {8, 8}, {4, 4}) +
              ts::cast<float>(g.bernoulli(0.5, {8, 8}, {4, 4})));
  instantiate(g.exponential<double>(2.0, {8}, {4}) + g.lognormal<float>(0, 1, {8}, {4}) +
              g.gamma<double>(2.0, 1.0, {8}, {4}));
}
