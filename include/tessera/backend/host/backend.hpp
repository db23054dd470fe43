// backend<host>: the host's primitives (exec/backend.hpp). Tasks are oneTBB tasks on the
// policy's threads; a task's kernels run in the task, so then() runs at once.
#pragma once
#include "../../exec/backend.hpp"
#include "../../nodes/stored.hpp"
#include "context.hpp"
#include "fold.hpp"
#include "kernel.hpp"
#include "policy.hpp"

namespace tessera {

template <>
struct backend<host> {
  static constexpr bool defined = true;
  template <class T>
  using array_type = array<T>;
  /// fold adds into the partials it is given: a reduction task may fold a run of thin chunks
  /// (exec/chunk_run.hpp).
  static constexpr index_t fold_run_limit = 8;

  /// One chunk task's environment.
  class task_env {
   public:
    host_context& context() { return ctx_; }
    template <class F>
    void then(F&& f) {
      f();
    }

   private:
    host_context ctx_;
  };

  static void check(const host&) {}

  template <class T>
  static array<T> make_array(const host&, const chunk_grid& g) {
    return array<T>(g);
  }

  template <class Tasks, class Body>
  static void run_tasks(const host& pol, const Tasks& tasks, Body&& body) {
    detail::for_each_block(pol, tasks.count(), [&](index_t t) {
      task_env env;
      body(env, t);
    });
  }

  // The kernels take any task environment: a backend whose memory the CPU addresses (the
  // recipe backend of docs/architecture.md) reuses them.
  template <class Env, class Acc, class T>
  static void eval(Env&, const Acc& acc, const box& b, T* dst, const ivec& stride) {
    write_box(acc, b, dst, stride);
  }
  template <class Env, class Acc, class T>
  static void eval_to_host(Env&, const Acc& acc, const box& b, T* dst, const ivec& stride) {
    write_box(acc, b, dst, stride);
  }
  template <class Env, class Op, class Acc>
  static void fold(Env&, const Op& op, const Acc& acc, const box& b, const reduce_spec& spec,
                   const ivec& istride, typename Op::state* partials) {
    detail::fold_box(op, acc, b, spec, istride, partials);
  }

  template <class T>
  static T* block_destination(task_env&, array<T>& out, index_t b) {
    return out.block_data(b);
  }
  /// The block's host memory, written in place (in parts, by distinct callers for distinct
  /// parts): a reduction over runs finalizes its tiles straight into it.
  template <class T>
  static T* host_block(const host&, array<T>& out, index_t b) {
    return out.block_data(b);
  }
  template <class T, class Fill>
  static void write_block(const host&, array<T>& out, index_t b, Fill&& fill) {
    fill(out.block_data(b));
  }
};

}  // namespace tessera
