// Micro-benchmark of the counter-based random arrays (docs/random.md): nanoseconds per element
// on one core for the host batch path (the element functor's fill(), what the chunk kernel
// calls per row), for contiguous rows and for strided rows (views), plus a full compute().
//   ./bench_random --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <memory>

#include <tessera/tessera.hpp>
#include <tessera/random.hpp>

namespace ts = tessera;
namespace tr = tessera::random;

namespace {

constexpr ts::index_t row = 1 << 16;  // elements per iteration

/// Fills `row` elements in batch_size pieces, as write_box does for one chunk row.
template <class A>
void run_fill(benchmark::State& state, const A& a, ts::index_t dflat) {
  using T = typename A::value_type;
  const auto& f = a.function();
  std::unique_ptr<T[]> out(new T[row]);
  ts::index_t base = 0;
  for (auto _ : state) {
    for (ts::index_t j = 0; j < row; j += ts::batch_size)
      f.fill((base + j) * dflat, dflat, ts::batch_size, out.get() + j);
    base += row;
    benchmark::DoNotOptimize(out.get());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * row);
  state.counters["ns_per_elem"] = benchmark::Counter(
      double(state.iterations() * row), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_normal_double(benchmark::State& s) { run_fill(s, tr::default_rng(1).standard_normal<double>({ts::index_t(1) << 40}), 1); }
void BM_normal_float(benchmark::State& s) { run_fill(s, tr::default_rng(1).standard_normal<float>({ts::index_t(1) << 40}), 1); }
void BM_normal_double_strided(benchmark::State& s) { run_fill(s, tr::default_rng(1).standard_normal<double>({ts::index_t(1) << 40}), 3); }
void BM_normal_float_strided(benchmark::State& s) { run_fill(s, tr::default_rng(1).standard_normal<float>({ts::index_t(1) << 40}), 3); }
void BM_uniform_double(benchmark::State& s) { run_fill(s, tr::default_rng(1).random<double>({ts::index_t(1) << 40}), 1); }
void BM_uniform_float(benchmark::State& s) { run_fill(s, tr::default_rng(1).random<float>({ts::index_t(1) << 40}), 1); }
void BM_exponential_double(benchmark::State& s) { run_fill(s, tr::default_rng(1).exponential<double>(1, {ts::index_t(1) << 40}), 1); }
void BM_lognormal_double(benchmark::State& s) { run_fill(s, tr::default_rng(1).lognormal<double>(0, 1, {ts::index_t(1) << 40}), 1); }
void BM_integers_int32(benchmark::State& s) { run_fill(s, tr::default_rng(1).integers<int>(0, 1000, {ts::index_t(1) << 40}), 1); }
void BM_bernoulli(benchmark::State& s) { run_fill(s, tr::default_rng(1).bernoulli(0.3, {ts::index_t(1) << 40}), 1); }
void BM_gamma_double(benchmark::State& s) { run_fill(s, tr::default_rng(1).gamma<double>(2.5, 1, {ts::index_t(1) << 40}), 1); }

/// Whole-array compute() of a 4000 x 4000 normal(10, 1) on one thread (kernel + allocation).
void BM_compute_normal_4000sq_1thread(benchmark::State& state) {
  auto g = tr::default_rng(7);
  auto x = g.normal<double>(10, 1, {4000, 4000}, {1000, 1000});
  for (auto _ : state) {
    auto a = ts::compute(x, ts::host{.threads = 1});
    benchmark::DoNotOptimize(a.data());
  }
  state.counters["ns_per_elem"] = benchmark::Counter(
      double(state.iterations()) * 16e6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace

BENCHMARK(BM_normal_double);
BENCHMARK(BM_normal_float);
BENCHMARK(BM_normal_double_strided);
BENCHMARK(BM_normal_float_strided);
BENCHMARK(BM_uniform_double);
BENCHMARK(BM_uniform_float);
BENCHMARK(BM_exponential_double);
BENCHMARK(BM_lognormal_double);
BENCHMARK(BM_integers_int32);
BENCHMARK(BM_bernoulli);
BENCHMARK(BM_gamma_double);
BENCHMARK(BM_compute_normal_4000sq_1thread)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
