// The "add a backend" recipe of docs/architecture.md, compiled and run by the tests: a toy
// backend, recipe::staged, whose stage results live in a memory space of their own (host memory
// tagged memory_space::elsewhere(7), standing in for a device's), with every copy between that
// space and the host counted. It supplies only the primitives of exec/backend.hpp; compute,
// persist, item, reductions (with the combine tree) come from the shared drivers, and the shared
// test bodies (tests/test_core.cpp, test_reduce.cpp, test_view.cpp) run on it unchanged.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <vector>

#include <tessera/tessera.hpp>

namespace recipe {

namespace ts = tessera;

/// The policy: tasks run one after another on the calling thread.
struct staged {};

/// The toy backend's memory space.
inline constexpr ts::memory_space staged_space = ts::memory_space::elsewhere(7);

/// Copies across the space boundary (what a device backend would pay for).
struct transfer_counts {
  std::atomic<long> host_chunks_read{0};  // host chunks gathered into the staged space
  std::atomic<long> results_to_host{0};   // boxes copied out by compute()/item()
  std::atomic<long> blocks_from_host{0};  // blocks written from the host (reduction results)
  void reset() { host_chunks_read = 0, results_to_host = 0, blocks_from_host = 0; }
};
inline transfer_counts& transfers() {
  static transfer_counts c;
  return c;
}

/// 1. A chunk store for the backend's memory (store/chunk_store.hpp).
template <class T>
class staged_store {
 public:
  using value_type = T;
  explicit staged_store(ts::chunk_grid g) : grid_(std::move(g)), blocks_(std::size_t(grid_.block_count())) {}
  const ts::chunk_grid& grid() const { return grid_; }
  ts::memory_space block_space(ts::index_t) const { return staged_space; }
  const T* block_pointer(ts::index_t b) const { return blocks_[std::size_t(b)].get(); }
  void read_block(ts::index_t b, T* out) const {
    std::memcpy(out, block_pointer(b), std::size_t(grid_.block_box(b).count()) * sizeof(T));
  }
  T* block_data(ts::index_t b) {
    auto& p = blocks_[std::size_t(b)];
    if (!p) p.reset(new T[std::size_t(std::max<ts::index_t>(grid_.block_box(b).count(), 1))]());
    return p.get();
  }

 private:
  ts::chunk_grid grid_;
  std::vector<std::unique_ptr<T[]>> blocks_;
};

/// 2. The node over it: what persist and reductions return on this backend.
template <class T>
class staged_array : public ts::expression<staged_array<T>> {
 public:
  using value_type = T;
  explicit staged_array(ts::chunk_grid g) : store_(std::make_shared<staged_store<T>>(std::move(g))) {}
  const ts::chunk_grid& grid() const { return store_->grid(); }
  T* block_data(ts::index_t b) { return store_->block_data(b); }
  template <class Ctx>
  ts::stored_accessor<T> bind(const ts::box& b, Ctx& ctx) const {
    return ts::view_box(*store_, b, ctx);
  }

 private:
  std::shared_ptr<staged_store<T>> store_;
};

/// 3. The binding context: reads its own space in place, gathers anything else.
class staged_context {
 public:
  ts::memory_space space() const { return staged_space; }
  bool can_read(ts::memory_space m) const { return m == staged_space; }
  template <class T>
  T* scratch(ts::index_t n) {
    return host_.scratch<T>(n);
  }
  template <class Acc, class T>
  void evaluate(const Acc& acc, const ts::box& b, T* dst, const ts::ivec& stride) {
    ts::write_box(acc, b, dst, stride);
  }
  template <ts::chunk_store S>
  const typename S::value_type* gather(const S& s, const ts::box& b) {
    using T = typename S::value_type;
    const ts::chunk_grid& g = s.grid();
    T* dst = host_.scratch<T>(b.count());
    g.for_each_block_in(b, [&](ts::index_t f) {
      const ts::box blk = g.block_box(f);
      const T* p = s.block_pointer(f);
      if (!p || !can_read(s.block_space(f))) {
        if (s.block_space(f).is_host()) ++transfers().host_chunks_read;
        T* tmp = host_.scratch<T>(blk.count());
        s.read_block(f, tmp);
        p = tmp;
      }
      ts::detail::copy_box_overlap(p, blk, dst, b);
    });
    return dst;
  }

 private:
  ts::host_context host_;  // its scratch (the toy space is host memory)
};

}  // namespace recipe

/// 4. The primitives. The toy space is CPU-addressable memory, so the host's kernels (eval,
/// fold) serve as its own: inherited from backend<host>; the rest is the toy's.
template <>
struct tessera::backend<recipe::staged> : tessera::backend<tessera::host> {
  static constexpr bool defined = true;
  template <class T>
  using array_type = recipe::staged_array<T>;

  struct task_env {
    recipe::staged_context ctx;
    recipe::staged_context& context() { return ctx; }
    template <class F>
    void then(F&& f) {
      f();
    }
  };

  static void check(const recipe::staged&) {}
  template <class T>
  static array_type<T> make_array(const recipe::staged&, const chunk_grid& g) {
    return array_type<T>(g);
  }
  template <class Tasks, class Body>
  static void run_tasks(const recipe::staged&, const Tasks& tasks, Body&& body) {
    for (index_t t = 0; t < tasks.count(); ++t) {
      task_env env;
      body(env, t);
    }
  }
  template <class Acc, class T>
  static void eval_to_host(task_env& env, const Acc& acc, const box& b, T* dst, const ivec& stride) {
    ++recipe::transfers().results_to_host;
    backend<host>::eval_to_host(env, acc, b, dst, stride);
  }
  template <class T>
  static T* block_destination(task_env&, array_type<T>& out, index_t b) {
    return out.block_data(b);
  }
  template <class T, class Fill>
  static void write_block(const recipe::staged&, array_type<T>& out, index_t b, Fill&& fill) {
    ++recipe::transfers().blocks_from_host;
    fill(out.block_data(b));
  }
};
