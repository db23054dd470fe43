// The backend seam: what an execution policy's backend supplies. Every driver (compute,
// persist, item, reductions with their combine tree, linalg's row-block loads) is written once
// over these primitives (exec/drivers.hpp); ts::host (backend/host/) and ts::cuda
// (backend/cuda/) are two instances, and a new backend is one more specialization.
//
//   template <> struct tessera::backend<P> {
//     static constexpr bool defined = true;
//     template <class T> using array_type = ...;     // what a stage produces on P (persist,
//                                                     // a reduction): its own chunk store node
//     static void check(const P&);                   // validate the policy (throws)
//     template <class T>
//     static array_type<T> make_array(const P&, const chunk_grid&);
//
//     // Run tasks.count() chunk tasks, body(env, t) each, with placement (tasks.where(t):
//     // bytes of input per memory space; tasks.output_bytes(t): bytes the task leaves resident
//     // in array_type storage); the first failure is rethrown after every task has stopped.
//     template <class Tasks, class Body>
//     static void run_tasks(const P&, const Tasks& tasks, Body&& body);
//
//     // Inside a task, with its env:
//     env.context()                                   // the binding context for bind(box, ctx)
//     env.then(f)                                     // f() on the host once the task's work
//                                                     // is complete (at once on the host)
//     static void eval(env, acc, box, T* dst, ivec stride);          // fused kernel, dst in
//                                                                     // the env's memory space
//     static void eval_to_host(env, acc, box, T* host_dst, ivec stride); // result in host
//                                                                     // memory after then()
//     static void fold(env, op, acc, box, spec, istride, state* host_partials); // reduction
//                                                                     // partials, after then()
//     static constexpr index_t fold_run_limit = n;    // optional: fold adds into the partials
//                                                     // it is given, and a task may fold a run
//                                                     // of up to n chunks (exec/chunk_run.hpp)
//     template <class T>
//     static T* block_destination(env, array_type<T>&, index_t block); // where persist writes
//     template <class T, class Fill>
//     static void write_block(const P&, array_type<T>&, index_t block, Fill fill);
//                                                     // fill(T* host) gives the block's values
//                                                     // (reduction results); any thread
//     template <class T>
//     static T* host_block(const P&, array_type<T>&, index_t block); // optional: the block's
//                                                     // host memory, written in parts in place
//                                                     // (a reduction's tiles); else staged and
//                                                     // handed to write_block
//   };
//
// The drivers call run_tasks through detail::run_tasks (exec/observe.hpp), which wraps the body
// for progress, on_chunk_done and traces when they are asked for (a task is done when its then()
// callbacks have run), so a new backend is observed with no code of its own. Optional, for
// traces: env.lane() (the stream slot or worker that runs the task; host threads otherwise) and
// the policy members progress / trace / on_chunk_done (ts::progress_bar works on any policy).
//
// A backend over several processes (ts::mpi: backend/mpi/backend.hpp) gives its task
// environments keep_outputs_on_owner() and runs_here(): see detail::keep_outputs_on_owner below.
//
// Dense linear algebra adds linalg::dense<P> (linalg/dense_host.hpp, linalg/dense_cuda.cuh).
#pragma once

namespace tessera {

/// Specialized per execution policy (see above); the primary template marks "not a backend".
template <class P>
struct backend {
  static constexpr bool defined = false;
};

/// A policy type with a backend: the drivers accept it.
template <class P>
concept execution_policy = backend<P>::defined;

namespace detail {
/// In a chunk task's body: declares that only the rank running the task needs its outputs
/// (ts::store writing a block of a file), and says whether the task runs in this process.
/// Always true on backends without ranks (env has no keep_outputs_on_owner).
template <class Env>
bool keep_outputs_on_owner(Env& env) {
  if constexpr (requires { env.keep_outputs_on_owner(); env.runs_here(); }) {
    env.keep_outputs_on_owner();
    return env.runs_here();
  } else {
    return true;
  }
}
}  // namespace detail

}  // namespace tessera
