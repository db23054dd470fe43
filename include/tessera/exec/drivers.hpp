// The drivers, written once over the backend primitives (exec/backend.hpp):
//   evaluate_into / compute    a lowered expression, chunk by chunk, into a dense host buffer
//   persist                    into the backend's own chunked storage (array_type)
//   item                       the one element of a one-element expression
//   execute_reduction          fold tasks per input chunk + the shared combine tree; the
//                              result is the backend's own storage, so the next stage reads
//                              it where it is (on ts::cuda: on the device)
// Every driver runs its chunk tasks through detail::run_tasks (exec/observe.hpp), and the
// top-level calls (compute, persist) open an observation: progress, on_chunk_done and traces
// cover all of a call's stages with no code here.
#pragma once
#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <xtensor/xarray.hpp>

#include "../backend/host/kernel.hpp"  // for_each_row
#include "../core/expression.hpp"
#include "../core/huge_pages.hpp"
#include "../reduce/spec.hpp"
#include "backend.hpp"
#include "chunk_run.hpp"
#include "combine.hpp"
#include "observe.hpp"
#include "placement.hpp"

namespace tessera {

namespace detail {

/// Row-major strides of a shape.
inline ivec row_major_strides(const shape_t& s) {
  box b;
  b.lo.n = b.hi.n = int(s.size());
  for (int d = 0; d < b.rank(); ++d) b.hi[d] = s[std::size_t(d)];
  return tessera::row_major_strides(b);
}

/// Whether policy P's reductions can be finalized straight into the caller's host memory
/// (compute of a reduction): the combine tree's roots are host states in this process (the
/// host, ts::cuda, a backend of docs/architecture.md's recipe), unless the backend says
/// otherwise (ts::mpi, whose blocks are finished on their owner ranks).
template <class P>
constexpr bool backend_reduces_into_host_memory() {
  if constexpr (requires { backend<P>::reduces_into_host_memory; }) return backend<P>::reduces_into_host_memory;
  else return true;
}
template <class P>
concept reduces_into_host_memory = execution_policy<P> && backend_reduces_into_host_memory<P>();

/// The chunk tasks compute(x) runs with `pol`: task_count(x), plus a stage of the result's
/// chunks where a reduction at the top is not finalized into compute's memory (ts::mpi).
template <class P, expression_type X>
index_t compute_task_count(const X& x) {
  index_t n = task_count(x);
  if constexpr (is_reduction_node<X>::value && !reduces_into_host_memory<P>) n += x.grid().block_count();
  return n;
}

/// Evaluates a lowered expression chunk by chunk into a dense row-major host buffer.
template <execution_policy P, class E, class T>
void evaluate_into(const E& e, const P& pol, T* out) {
  using B = backend<P>;
  const chunk_grid& g = e.grid();
  const ivec st = row_major_strides(g.shape());
  auto tasks = make_tasks(e, g.block_count(), [&g](index_t b) { return g.block_box(b); });
  auto out_bytes = [&g](index_t b) { return g.block_box(b).count() * index_t(sizeof(T)); };
  detail::run_tasks(pol, tasks, "compute", out_bytes, [&](auto& env, index_t b) {
    const box bx = g.block_box(b);
    if (bx.count() == 0) return;
    auto acc = e.bind(bx, env.context());
    index_t off = 0;
    for (int d = 0; d < bx.rank(); ++d) off += bx.lo[d] * st[d];
    B::eval_to_host(env, acc, bx, out + off, st);
  });
}

/// compute's body: x evaluated with `pol` into a dense row-major host buffer. A node that can
/// write its values there itself (lower_into: a reduction, whose finalized values need no
/// stored result and copy) does; any other is lowered and evaluated chunk by chunk.
template <execution_policy P, class X, class T>
void compute_dense(const X& x, const P& pol, T* out) {
  if constexpr (requires { x.lower_into(pol, out); }) x.lower_into(pol, out);
  else evaluate_into(x.lower(pol), pol, out);
}

/// Evaluates a lowered expression into the backend's chunked storage (same grid).
template <execution_policy P, class E>
auto persist_lowered(const E& e, const P& pol) {
  using B = backend<P>;
  using T = typename E::value_type;
  const chunk_grid& g = e.grid();
  auto out = B::template make_array<T>(pol, g);
  auto tasks = make_tasks(e, g.block_count(), [&g](index_t b) { return g.block_box(b); },
                          index_t(sizeof(T)));
  auto out_bytes = [&tasks](index_t b) { return tasks.output_bytes(b); };
  detail::run_tasks(pol, tasks, "persist", out_bytes, [&](auto& env, index_t b) {
    const box bx = g.block_box(b);
    T* dst = B::block_destination(env, out, b);
    if (bx.count() == 0) return;
    auto acc = e.bind(bx, env.context());
    B::eval(env, acc, bx, dst, row_major_strides(bx));
  });
  return out;
}

}  // namespace detail

/// Evaluates x with `policy` and returns a dense xt::xarray on the host.
template <expression_type X, execution_policy P = host>
xt::xarray<typename X::value_type> compute(const X& x, const P& policy = P{}) {
  using T = typename X::value_type;
  backend<P>::check(policy);
  detail::observation observe(policy, [&] { return detail::compute_task_count<P>(x); });
  std::vector<std::size_t> sh(x.shape().begin(), x.shape().end());
  auto out = xt::xarray<T>::from_shape(sh);
  detail::advise_huge_pages(out.data(), out.size() * sizeof(T));  // before the tasks touch it
  detail::compute_dense(x, policy, out.data());  // empty chunks: tasks that write nothing
  observe.finish();
  return out;
}

/// Evaluates x into the policy's chunked storage (same chunks), usable in new expressions:
/// ts::array on the host, ts::device_array on ts::cuda.
template <expression_type X, execution_policy P = host>
auto persist(const X& x, const P& policy = P{}) {
  backend<P>::check(policy);
  detail::observation observe(policy, [&] { return task_count(x); });
  auto out = [&] {
    // a reduction's lowered result is already new storage of the policy: no copy
    if constexpr (detail::is_reduction_node<X>::value) return x.lower(policy);
    else return detail::persist_lowered(x.lower(policy), policy);
  }();
  observe.finish();
  return out;
}

/// The single element of a one-element expression.
template <expression_type X, class P = host>
typename X::value_type item(const X& x, const P& policy = P{}) {
  if (x.size() != 1)
    throw_invalid("item() needs an array of exactly one element, got shape ", x.shape());
  return *compute(x, policy).data();
}

namespace detail {

/// A reduction's result where compute wants it: row-major over the result's shape, in host
/// memory (compute's xt::xarray, compute_into's buffer). The finalized values of each output
/// block or tile go straight there, with no stored result to copy from.
template <class R>
struct dense_result {
  R* data = nullptr;
  ivec strides;  // row-major strides of the result's shape

  /// Finalizes states src (row-major over box ob of the result) into their places.
  template <class Op, class S>
  void finalize(const box& ob, const S* src, const Op& op) const {
    if (ob.count() == 0) return;
    const int r = ob.rank();
    if (r == 0) {
      data[0] = op.finalize(src[0]);
      return;
    }
    index_t base = 0;
    for (int d = 0; d < r; ++d) base += ob.lo[d] * strides[d];
    const index_t n = ob.extent(r - 1);
    for_each_row(ob, strides, [&](const ivec&, index_t off) {
      R* dst = data + base + off;
      for (index_t j = 0; j < n; ++j) dst[j] = op.finalize(src[j]);
      src += n;
    });
  }
};

template <class Out>
struct is_dense_result : std::false_type {};
template <class R>
struct is_dense_result<dense_result<R>> : std::true_type {};

/// The body of execute_reduction and execute_reduction_into: the fold tasks and the combine
/// tree, whose roots are finalized into `out` (the backend's array, or a dense_result).
template <execution_policy P, class Op, class E, class Out>
void run_reduction(const P& pol, const E& e, const Op& op, const reduce_spec& spec,
                   const chunk_grid& out_grid, Out& out) {
  using B = backend<P>;
  using R = typename Op::result_type;
  using state = typename Op::state;
  constexpr bool dense = is_dense_result<Out>::value;
  if (out_grid.size() == 0) return;

  constexpr index_t max_run = detail::fold_run_limit<B>();
  // Runs where the backend takes them, the chunking asks for them and the input's stored
  // blocks can be read in parts (probed only then).
  const detail::reduction_plan plan = [&] {
    detail::reduction_plan p(e.grid(), spec, max_run);
    if (p.run > 1 && !detail::reads_parts_in_place(e)) return detail::reduction_plan(e.grid(), spec);
    return p;
  }();
  const index_t nR = plan.nR;
  // Plan block K <-> kept-axes block K (with runs: one tile of output block out_block(K)); its
  // partials: the kept elements of K.
  detail::combine_tree<Op> tree(op, plan.nK, nR, spec.split_every,
                                [&](index_t K) { return plan.partials(K); });
  // With runs an output block is finished from its tiles: each finalized into the block's
  // values here, the block written when its last tile is in.
  // (Where the backend lends the block's host memory, tiles are written into it in place.)
  struct staged_block {
    std::unique_ptr<R[]> values;
    R* target = nullptr;  // the block's values: values.get() or the backend's host block
    index_t tiles = 0;
  };
  std::vector<staged_block> staged(std::size_t(!dense && plan.run > 1 ? out_grid.block_count() : 0));
  std::mutex staged_mutex;
  auto finish = [&](index_t K, const state* root) {
    if constexpr (dense) {
      box ob = out_grid.block_box(plan.out_block(K));
      if (plan.run > 1) {  // the tile's rows of the block along the tile axis
        const box tile = plan.task_box(K * nR);
        const int ta = plan.tile_axis;
        const int oa = spec.keep_dims ? ta : int(std::find(plan.kept.begin(), plan.kept.end(), ta) - plan.kept.begin());
        ob.lo[oa] = tile.lo[ta];
        ob.hi[oa] = tile.hi[ta];
      }
      out.finalize(ob, root, op);
    } else {
      if (plan.run == 1) {
        const index_t n = out_grid.block_box(K).count();
        B::write_block(pol, out, K, [&](R* dst) {
          for (index_t j = 0; j < n; ++j) dst[j] = op.finalize(root[std::size_t(j)]);
        });
        return;
      }
      const index_t O = plan.out_block(K);
      const index_t n = out_grid.block_box(O).count();
      // The tile's kept elements in the output block: rows along tile_axis, each `inner` long,
      // `outer` times (kept axes before the tile axis); the block differs from the tile only in
      // its extent along tile_axis.
      const box tile = plan.task_box(K * nR);
      box block = tile;
      const int ta = plan.tile_axis;
      const auto& off = e.grid().offsets(ta);
      const index_t bi = e.grid().block_along(ta, tile.lo[ta]);
      block.lo[ta] = off[std::size_t(bi)];
      block.hi[ta] = off[std::size_t(bi) + 1];
      index_t outer = 1, inner = 1;
      for (int d : plan.kept) {
        if (d < ta) outer *= tile.extent(d);
        if (d > ta) inner *= tile.extent(d);
      }
      const index_t rows = tile.extent(ta), block_rows = block.extent(ta);
      const index_t first = tile.lo[ta] - block.lo[ta];
      std::unique_lock<std::mutex> lock(staged_mutex);
      staged_block& s = staged[std::size_t(O)];
      if (!s.target) {
        s.target = detail::host_block_of<B>(pol, out, O);
        if (!s.target) {
          s.values.reset(new R[std::size_t(std::max<index_t>(n, 1))]);
          s.target = s.values.get();
        }
      }
      R* vals = s.target;
      lock.unlock();
      for (index_t o = 0; o < outer; ++o)
        for (index_t i = 0; i < rows; ++i) {
          const state* src = root + (o * rows + i) * inner;
          R* dst = vals + (o * block_rows + first + i) * inner;
          for (index_t j = 0; j < inner; ++j) dst[j] = op.finalize(src[j]);
        }
      lock.lock();
      if (++s.tiles < plan.run || !s.values) return;  // (no values: written in place)
      std::unique_ptr<R[]> done = std::move(s.values);
      lock.unlock();
      B::write_block(pol, out, O, [&](R* dst) { std::copy(done.get(), done.get() + n, dst); });
    }
  };
  // Task t folds input box (K = t / nR, R = t % nR): consecutive tasks feed one output
  // block, so only a few output blocks have pending partials at any time.
  auto tasks = detail::make_tasks(e, plan.tasks(), [&plan](index_t t) { return plan.task_box(t); });
  auto name = [] { return "fold " + detail::reduction_name<Op>::get(); };
  auto out_bytes = [&](index_t t) {  // the task's partials
    return plan.partials(t / nR) * index_t(sizeof(state));
  };
  detail::run_tasks(pol, tasks, name, out_bytes, [&](auto& env, index_t t) {
    const box bx = plan.task_box(t);
    state* part = tree.leaf(t);
    if (bx.count() > 0) {
      auto fold = [&](const auto& acc) { B::fold(env, op, acc, bx, spec, plan.istride, part); };
      bool folded = false;
      if constexpr (max_run > 1)  // a run of chunks, each bound on its own
        if ((folded = plan.run > 1)) fold(detail::bind_run(e, e.grid(), plan.run_axis, bx, env.context()));
      if (!folded) fold(e.bind(bx, env.context()));
    }
    env.then([&tree, &finish, t] { tree.deliver(t, finish); });
  });
}

}  // namespace detail

/// Runs a reduction of the lowered expression `e` with `pol` into the backend's storage with
/// grid `out_grid` (called by reduction::lower).
template <execution_policy P, class Op, class E>
auto execute_reduction(const P& pol, const E& e, const Op& op, const reduce_spec& spec,
                       const chunk_grid& out_grid) {
  auto out = backend<P>::template make_array<typename Op::result_type>(pol, out_grid);
  detail::run_reduction(pol, e, op, spec, out_grid, out);
  return out;
}

/// Runs the same reduction into `data`, row-major over out_grid's shape in host memory
/// (compute of a reduction, on a backend that reduces into host memory).
template <execution_policy P, class Op, class E>
  requires detail::reduces_into_host_memory<P>
void execute_reduction_into(const P& pol, const E& e, const Op& op, const reduce_spec& spec,
                            const chunk_grid& out_grid, typename Op::result_type* data) {
  detail::dense_result<typename Op::result_type> out{data, detail::row_major_strides(out_grid.shape())};
  detail::run_reduction(pol, e, op, spec, out_grid, out);
}

/// Runs a scan (reduce/scan.hpp) of the lowered expression `e` along `axis` into the backend's
/// storage (same grid): for each chunk position i along the axis, one batch of tasks (one per
/// column of chunks across the other axes) evaluates its chunk to host memory, and a then()
/// callback scans it from the running values of the column's chunk at i - 1 and writes it.
template <execution_policy P, class Op, class E>
auto execute_scan(const P& pol, const E& e, const Op& op, int axis) {
  using B = backend<P>;
  using T = typename E::value_type;
  using R = typename Op::result_type;
  const chunk_grid& g = e.grid();
  auto out = B::template make_array<R>(pol, g);
  if (g.size() == 0) return out;
  const shape_t nb = g.numblocks();
  const index_t na = nb[std::size_t(axis)];
  index_t step = 1;  // flat block id step along the axis
  for (std::size_t d = std::size_t(axis) + 1; d < nb.size(); ++d) step *= nb[d];
  std::vector<index_t> column;  // flat block id of each column's first chunk
  for (index_t b = 0; b < g.block_count(); ++b)
    if (g.block_index(b)[axis] == 0) column.push_back(b);
  struct running {
    std::vector<R> value;  // the column's cross-section after the chunks scanned so far
    bool started = false;
  };
  std::vector<running> run(column.size());
  for (index_t i = 0; i < na; ++i) {
    auto box_of = [&g, &column, i, step](index_t c) { return g.block_box(column[std::size_t(c)] + i * step); };
    auto tasks = detail::make_tasks(e, index_t(column.size()), box_of);
    auto out_bytes = [&box_of](index_t c) { return box_of(c).count() * index_t(sizeof(T)); };
    detail::run_tasks(pol, tasks, std::string(Op::name), out_bytes, [&, i](auto& env, index_t c) {
      const box bx = box_of(c);
      if (bx.count() == 0) return;
      std::shared_ptr<T[]> buf(new T[std::size_t(bx.count())]);  // (vector<bool> has no data())
      auto acc = e.bind(bx, env.context());
      B::eval_to_host(env, acc, bx, buf.get(), tessera::row_major_strides(bx));
      env.then([&, buf, bx, c, i] {
        index_t outer = 1, inner = 1;
        for (int d = 0; d < axis; ++d) outer *= bx.extent(d);
        for (int d = axis + 1; d < bx.rank(); ++d) inner *= bx.extent(d);
        const index_t len = bx.extent(axis);
        running& r = run[std::size_t(c)];
        if (r.value.empty()) r.value.resize(std::size_t(outer * inner));
        B::write_block(pol, out, column[std::size_t(c)] + i * step, [&](R* dst) {
          const T* x = buf.get();
          for (index_t o = 0; o < outer; ++o)
            for (index_t j = 0; j < len; ++j) {
              const index_t row = (o * len + j) * inner;
              R* a = r.value.data() + o * inner;
              if (j == 0 && !r.started)
                for (index_t k = 0; k < inner; ++k) dst[row + k] = a[k] = op.first(x[row + k]);
              else
                for (index_t k = 0; k < inner; ++k) dst[row + k] = a[k] = op.step(a[k], x[row + k]);
            }
        });
        r.started = true;
      });
    });
  }
  return out;
}

namespace detail {
// Unqualified call: overloads for policies that are not backends (ts::auto_backend) are found
// by argument-dependent lookup.
template <class X, class P>
auto compute_adl(const X& x, const P& policy) {
  return compute(x, policy);
}
}  // namespace detail

template <class D>
template <class P>
auto expression<D>::compute(const P& policy) const {
  return detail::compute_adl(derived(), policy);
}
template <class D>
template <class P>
auto expression<D>::item(const P& policy) const {
  return tessera::item(derived(), policy);
}

}  // namespace tessera
