// Fault injection (issue 18): a chunk task that throws midway through an evaluation, on every
// backend. For each driver (compute, persist, item, a reduction, a reduction feeding a second
// stage, to_zarr) a chunk store whose read of one block throws (the read runs inside the chunk
// task on every backend, so ts::cuda gets it too) while the other tasks are slow:
//   * the exception that propagates is the task's own (type and message: not wrapped, not
//     replaced by a later one; with one worker, the first failing block in order and nothing
//     read after it),
//   * when the call returns no task of it is still running (the store's read counter stops) and
//     no thread is left behind (/proc/self/task after many failures),
//   * nothing leaks (scripts/sanitize.sh runs this executable under ASan + LeakSanitizer),
//   * the next evaluation of the same expression works and is correct.
// Also a throw in on_chunk_done (every backend), and on the host a throwing ts::map functor
// (the fused kernel itself), a throwing reducer add (inside the fold) and merge (inside the
// combine tree). The writers' file-level guarantees after a failure (no partial chunk files,
// metadata kept) are tested in test_zarr.cpp / test_npy.cpp; progress and traces of a failing
// call in test_progress.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <xtensor/xarray.hpp>
#include <tessera/zarr.hpp>

#include "support/backends.hpp"
#include "support/cases.hpp"
#include "support/files.hpp"

namespace ts = tessera;
using namespace testing;

namespace {

/// The exception a faulty chunk throws: its own type, so a test sees whether the exception that
/// reaches the caller is the very one thrown (not a copy sliced to std::exception, not a
/// wrapper).
struct injected_fault : std::runtime_error {
  index_t block;
  injected_fault(const std::string& what, index_t b) : std::runtime_error(what), block(b) {}
};

/// Shared state of a faulty store (the store is copied into the expression).
struct fault_state {
  std::atomic<index_t> reads{0};
  std::atomic<index_t> fail_from{-1};  // blocks >= fail_from (and < fail_to) throw; -1: none
  std::atomic<index_t> fail_to{1 << 30};
  std::atomic<int> delay_us{0};        // each good read sleeps this long (tasks in flight)
  std::mutex m;
  std::vector<index_t> thrown;         // blocks that threw, in order
};

/// A user chunk store over 2-d `g`: block b holds b + 0.5 everywhere, read through read_block
/// (never addressable, so every task calls it, on the host and on ts::cuda).
struct faulty_store {
  using value_type = double;
  ts::chunk_grid g;
  std::shared_ptr<fault_state> s;
  const ts::chunk_grid& grid() const { return g; }
  ts::memory_space block_space(index_t) const { return ts::memory_space::elsewhere(3); }
  const double* block_pointer(index_t) const { return nullptr; }
  void read_block(index_t b, double* out) const {
    s->reads.fetch_add(1);
    const index_t from = s->fail_from.load();
    if (from >= 0 && b >= from && b < s->fail_to.load()) {
      {
        std::lock_guard lock(s->m);
        s->thrown.push_back(b);
      }
      throw injected_fault("injected failure in block " + std::to_string(b), b);
    }
    if (int us = s->delay_us.load(); us > 0) std::this_thread::sleep_for(std::chrono::microseconds(us));
    std::fill(out, out + g.block_box(b).count(), double(b) + 0.5);
  }
};

/// The array a faulty store over `g` holds.
xt::xarray<double> faulty_values(const ts::chunk_grid& g) {
  xt::xarray<double> r = xt::xarray<double>::from_shape({std::size_t(g.shape()[0]), std::size_t(g.shape()[1])});
  for (index_t b = 0; b < g.block_count(); ++b) {
    const auto bx = g.block_box(b);
    for (index_t i = bx.lo[0]; i < bx.hi[0]; ++i)
      for (index_t j = bx.lo[1]; j < bx.hi[1]; ++j) r(i, j) = double(b) + 0.5;
  }
  return r;
}

/// Threads of this process (Linux: /proc/self/task).
std::size_t live_threads() {
  std::size_t n = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

/// Reads a counter until it has not changed for `quiet`: returns the settled value, or -1 if it
/// still changed after `limit` (a task still running after its call returned).
index_t settled(const std::atomic<index_t>& c, std::chrono::milliseconds quiet = std::chrono::milliseconds(30)) {
  index_t v = c.load();
  for (int k = 0; k < 5; ++k) {
    std::this_thread::sleep_for(quiet);
    const index_t w = c.load();
    if (w == v) return v;
    v = w;
  }
  return -1;
}

/// Array equality as one bool (Catch's CHECK cannot decompose an xtensor comparison).
bool same(const xt::xarray<double>& a, const xt::xarray<double>& b) { return a == b; }

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

/// The evaluations a fault is injected into: each runs x's drivers and checks the result
/// against the store's values (when check is set).
enum class driver { compute, persist, item, reduce_axis, two_stage, to_zarr };
const driver all_drivers[] = {driver::compute, driver::persist,   driver::item,
                              driver::reduce_axis, driver::two_stage, driver::to_zarr};
const char* name(driver d) {
  switch (d) {
    case driver::compute: return "compute";
    case driver::persist: return "persist";
    case driver::item: return "item(sum)";
    case driver::reduce_axis: return "sum over axis 1";
    case driver::two_stage: return "x - mean(x)";
    case driver::to_zarr: return "to_zarr";
  }
  return "?";
}

template <class P>
void run(driver d, const ts::chunk_grid& g, const std::shared_ptr<fault_state>& s, const P& pol,
         const std::string& zarr_path) {
  auto x = ts::from_store(std::make_shared<faulty_store>(faulty_store{g, s}));
  const xt::xarray<double> want = faulty_values(g);
  switch (d) {
    case driver::compute: {
      const auto got = ts::compute(x + 1.0, pol);
      CHECK(same(got, want + 1.0));
      break;
    }
    case driver::persist: {
      auto p = ts::persist(x * 2.0, pol);
      CHECK(same(ts::compute(p, pol), want * 2.0));
      break;
    }
    case driver::item: {
      const double got = ts::item(ts::sum(x), pol);  // outside CHECK, which would catch
      CHECK(close(got, xt::sum(want)()));
      break;
    }
    case driver::reduce_axis: {
      const auto got = ts::compute(ts::sum(x, 1), pol);
      const xt::xarray<double> ref = xt::sum(want, {1});
      REQUIRE(got.size() == ref.size());
      for (std::size_t i = 0; i < ref.size(); ++i) CHECK(close(got.flat(i), ref.flat(i)));
      break;
    }
    case driver::two_stage: {
      const auto got = ts::compute(x - ts::mean(x), pol);
      const double m = xt::mean(want)();
      for (std::size_t i = 0; i < want.size(); ++i) CHECK(close(got.flat(i), want.flat(i) - m));
      break;
    }
    case driver::to_zarr: {
      ts::zarr_options o;
      o.mode = ts::write_mode::overwrite;
      ts::to_zarr(x, zarr_path, o, pol);
      CHECK(same(ts::compute(ts::from_zarr<double>(zarr_path), pol), want));
      break;
    }
  }
}

}  // namespace

TEMPLATE_TEST_CASE("a chunk task that throws midway fails every driver with its exception; "
                   "nothing runs on; the next evaluation is correct",
                   "[faults]", TESSERA_TEST_BACKENDS) {
  const TestType pol = make_policy<TestType>(4);
  temp_dir dir("tessera_faults");
  const ts::chunk_grid g = ts::chunk_grid::make({48, 40}, std::vector<index_t>{6, 8}, 8);  // 8 x 5 blocks
  for (driver d : all_drivers) {
    for (index_t bad : {index_t(0), index_t(17), g.block_count() - 1}) {
      INFO("driver " << name(d) << ", failing block " << bad);
      auto s = std::make_shared<fault_state>();
      s->delay_us = 300;  // the other tasks are still running when the bad one throws
      s->fail_from = bad;
      s->fail_to = bad + 1;
      const std::string path = dir / (std::string("z") + std::to_string(int(d)) + ".zarr");
      try {
        run(d, g, s, pol, path);
        FAIL("no exception");
      } catch (const injected_fault& e) {
        CHECK(e.block == bad);
        CHECK(std::string(e.what()) == "injected failure in block " + std::to_string(bad));
      }
      // The call returned: no task of it still reads.
      CHECK(settled(s->reads) >= 0);
      CHECK(s->thrown == std::vector<index_t>{bad});
      // The same expression again, with the fault gone: complete and correct.
      s->fail_from = -1;
      s->delay_us = 0;
      run(d, g, s, pol, path);
    }
  }
}

TEMPLATE_TEST_CASE("when several chunk tasks throw, one of their exceptions propagates, intact; "
                   "one worker stops at the first failing block",
                   "[faults]", TESSERA_TEST_BACKENDS) {
  const ts::chunk_grid g = ts::chunk_grid::make({60, 60}, std::vector<index_t>{6, 6}, 8);  // 100 blocks
  SECTION("many workers") {
    const TestType pol = make_policy<TestType>(4);
    auto s = std::make_shared<fault_state>();
    s->fail_from = 30;  // 30..99 all throw
    auto x = ts::from_store(std::make_shared<faulty_store>(faulty_store{g, s}));
    try {
      (void)ts::compute(x + 1.0, pol);
      FAIL("no exception");
    } catch (const injected_fault& e) {
      std::lock_guard lock(s->m);
      INFO("blocks that threw: " << s->thrown.size());
      CHECK(std::find(s->thrown.begin(), s->thrown.end(), e.block) != s->thrown.end());
      CHECK(std::string(e.what()) == "injected failure in block " + std::to_string(e.block));
    }
    CHECK(settled(s->reads) >= 0);
    // Cancellation: the tasks not yet started when the first one failed are not run (on the
    // host TBB cancels the loop; on ts::cuda the device worker stops taking blocks).
    CHECK(s->thrown.size() < 70);
  }
  SECTION("one worker: blocks in order, nothing after the first failure") {
    const TestType pol = make_policy<TestType>(1);
    auto s = std::make_shared<fault_state>();
    s->fail_from = 30;
    auto x = ts::from_store(std::make_shared<faulty_store>(faulty_store{g, s}));
    if constexpr (std::is_same_v<TestType, ts::host>) {
      CHECK_THROWS_WITH(ts::compute(x + 1.0, pol), "injected failure in block 30");
      CHECK(s->thrown == std::vector<index_t>{30});
      CHECK(s->reads.load() == 31);
    } else {  // one stream per device; with several devices each may meet its own first block
      CHECK_THROWS_AS(ts::compute(x + 1.0, pol), injected_fault);
      REQUIRE_FALSE(s->thrown.empty());
      CHECK(s->thrown.front() >= 30);
      CHECK(std::set<index_t>(s->thrown.begin(), s->thrown.end()).size() == s->thrown.size());
    }
  }
}

TEMPLATE_TEST_CASE("repeated failures leave no thread behind", "[faults][threads]", TESSERA_TEST_BACKENDS) {
  const TestType pol = make_policy<TestType>(4);
  const ts::chunk_grid g = ts::chunk_grid::make({40, 40}, std::vector<index_t>{5, 5}, 8);
  auto s = std::make_shared<fault_state>();
  auto x = ts::from_store(std::make_shared<faulty_store>(faulty_store{g, s}));
  auto fail_once = [&](int k) {
    s->fail_from = index_t(k % 64);
    s->fail_to = s->fail_from + 1;
    switch (k % 3) {
      case 0: CHECK_THROWS_AS(ts::compute(x * 3.0, pol), injected_fault); break;
      case 1: CHECK_THROWS_AS(ts::persist(x * 3.0, pol), injected_fault); break;
      default: CHECK_THROWS_AS(ts::item(ts::sum(x), pol), injected_fault); break;
    }
  };
  // Warm up: the worker pool (TBB's, the CUDA scheduler's) exists afterwards.
  (void)ts::compute(x * 3.0, pol);
  for (int k = 0; k < 6; ++k) fail_once(k);
  const std::size_t before = live_threads();
  for (int k = 0; k < 40; ++k) fail_once(k);
  const std::size_t after = live_threads();
  INFO("threads before " << before << ", after 40 failed evaluations " << after);
  // A thread left behind per failure would add 40; a pool may still grow to its size.
  CHECK(after <= before + 4);
  CHECK(settled(s->reads) >= 0);
  s->fail_from = -1;
  CHECK(same(ts::compute(x * 3.0, pol), faulty_values(g) * 3.0));
}

TEMPLATE_TEST_CASE("a throw in on_chunk_done fails the call with it; the next call is observed from 1",
                   "[faults][observe]", TESSERA_TEST_BACKENDS) {
  TestType pol = make_policy<TestType>(3);
  const ts::chunk_grid g = ts::chunk_grid::make({30, 30}, std::vector<index_t>{5, 5}, 8);  // 36 blocks
  auto s = std::make_shared<fault_state>();
  s->delay_us = 200;
  auto x = ts::from_store(std::make_shared<faulty_store>(faulty_store{g, s}));
  for (int stage : {0, 1}) {  // 0: a one-stage compute; 1: the fold stage of x - mean(x)
    INFO("stage " << stage);
    auto calls = std::make_shared<std::atomic<index_t>>(0);
    pol.on_chunk_done = [calls](index_t done, index_t) {
      calls->fetch_add(1);
      if (done == 10) throw std::runtime_error("callback refuses chunk 10");
    };
    if (stage == 0) CHECK_THROWS_WITH(ts::compute(x + 1.0, pol), "callback refuses chunk 10");
    else CHECK_THROWS_WITH(ts::compute(x - ts::mean(x), pol), "callback refuses chunk 10");
    CHECK(settled(s->reads) >= 0);
    CHECK(settled(*calls) >= 10);
    std::vector<index_t> seen;
    index_t total = 0;
    pol.on_chunk_done = [&seen, &total](index_t done, index_t t) {
      seen.push_back(done);
      total = t;
    };
    const auto got = ts::compute(x + 1.0, pol);
    CHECK(same(got, faulty_values(g) + 1.0));
    REQUIRE(seen.size() == 36);
    CHECK(total == 36);
    for (std::size_t i = 0; i < seen.size(); ++i) CHECK(seen[i] == index_t(i + 1));
  }
}

#ifndef __CUDACC__  // host-only: these throw from element code, which device code cannot
namespace {

/// Shared counters of the host-only throwing functors (plain pointers: functors are copied).
struct element_counters {
  std::atomic<index_t> calls{0};
  std::atomic<int> throws{0};
};

/// y = x + 1, throwing at element value `poison` (an arange value: its flat index).
struct poisoned_plus_one {
  element_counters* c;
  double poison;
  double operator()(double v) const {
    c->calls.fetch_add(1, std::memory_order_relaxed);
    if (v == poison) {
      c->throws.fetch_add(1);
      throw std::domain_error("poisoned element " + std::to_string(index_t(v)));
    }
    return v + 1.0;
  }
};

/// Sum whose add throws on element value `poison` and whose merge throws when `merge_poison`
/// (> 0) is reached by a partial sum.
struct poisoned_sum {
  element_counters* c;
  double poison;
  double merge_poison;
  double init() const { return 0.0; }
  void add(double& s, double v) const {
    c->calls.fetch_add(1, std::memory_order_relaxed);
    if (v == poison) throw std::domain_error("fold met poison " + std::to_string(index_t(v)));
    s += v;
  }
  void merge(double& a, const double& b) const {
    if (merge_poison > 0 && a + b >= merge_poison) throw std::overflow_error("merge past the limit");
    a += b;
  }
};

}  // namespace

TEST_CASE("a ts::map functor that throws inside the fused kernel fails the call with its exception",
          "[faults][host]") {
  const index_t n = 64 * 1000;
  auto x = ts::arange<double>(0, double(n), 1, {1000});  // 64 chunks; element i is i
  for (int threads : {1, 4}) {
    for (double poison : {0.0, 31234.0, double(n - 1)}) {
      INFO(threads << " threads, poison " << poison);
      element_counters c;
      const ts::host pol{.threads = threads};
      CHECK_THROWS_AS(ts::compute(ts::map(poisoned_plus_one{&c, poison}, x), pol), std::domain_error);
      CHECK_THROWS_WITH(ts::persist(ts::map(poisoned_plus_one{&c, poison}, x), pol),
                        "poisoned element " + std::to_string(index_t(poison)));
      CHECK(settled(c.calls) >= 0);
      CHECK(c.throws.load() == 2);
      if (threads == 1) {  // serial: chunks in order, none after the failing one
        const index_t chunk = index_t(poison) / 1000;
        CHECK(c.calls.load() <= 2 * (chunk + 1) * 1000);
      }
      // Good afterwards.
      element_counters ok;
      const auto got = ts::compute(ts::map(poisoned_plus_one{&ok, -1.0}, x), pol);
      CHECK(got(n - 1) == double(n));
      CHECK(got(0) == 1.0);
      CHECK(ok.calls.load() == n);
    }
  }
}

TEST_CASE("a reducer whose add (fold) or merge (combine tree) throws fails the reduction with it",
          "[faults][host][reduce]") {
  const index_t n = 90 * 400;
  auto x = ts::arange<double>(0, double(n), 1, {400});  // 90 chunks
  const double total = double(n) * double(n - 1) / 2;
  for (int threads : {1, 3}) {
    const ts::host pol{.threads = threads};
    INFO(threads << " threads");
    element_counters c;
    CHECK_THROWS_WITH(ts::item(ts::reduce(x, poisoned_sum{&c, 12345.0, 0}), pol), "fold met poison 12345");
    CHECK_THROWS_AS(ts::compute(ts::reduce(x, poisoned_sum{&c, 35999.0, 0}, {0}), pol), std::domain_error);
    // merge: the partial sums pass total / 2 only in the combine tree's upper levels
    CHECK_THROWS_WITH(ts::item(ts::reduce(x, poisoned_sum{&c, -1.0, total / 2}), pol), "merge past the limit");
    CHECK(settled(c.calls) >= 0);
    element_counters ok;
    CHECK(ts::item(ts::reduce(x, poisoned_sum{&ok, -1.0, 0}), pol) == total);
    CHECK(ok.calls.load() == n);
    // A reduction feeding a second stage: the failure in the first stage fails the call.
    element_counters c2;
    CHECK_THROWS_AS(ts::compute(x - ts::reduce(x, poisoned_sum{&c2, 400.0, 0}), pol), std::domain_error);
  }
}
#endif
