// backend<mpi<L>>: the backend primitives (exec/backend.hpp) over MPI ranks, each rank running
// its share of a stage's tasks with the local policy's backend L. The drivers are unchanged: a
// stage is, on every rank,
//   1. owners: every task gets an owner rank (ownership.hpp: affinity to the rank holding a
//      distributed array's chunk, else contiguous runs of equal work), computed from the tasks
//      alone, so every rank computes the same assignment with no message;
//   2. fetch: the pieces (block, box) of distributed arrays that this rank's tasks read and
//      that live elsewhere are requested from their owners and received (only those boxes);
//   3. run: this rank's tasks run with backend<L>::run_tasks; the tasks of other ranks run their
//      body in "remote" mode: bound to the placement probe (nothing evaluated), their outputs
//      (eval_to_host destinations, fold partials) recorded as expected from the owner and their
//      then() callbacks held back;
//   4. agree: one collective says whether any rank failed; if one did, every rank throws
//      ts::rank_failure naming it (no rank is left waiting);
//   5. share: each rank sends its tasks' outputs (packed when the task completed) to the ranks
//      that expect them, and unpacks what it receives into the recorded destinations;
//   6. finish: the held-back then() callbacks run in task order (the reductions' combine tree
//      delivers every partial, in the same fixed tree as one process: the same bits).
// A task whose outputs only its own rank needs (ts::store writing a block of a file) says so
// with detail::keep_outputs_on_owner(env): other ranks skip it and nothing is sent.
#pragma once
#include <algorithm>
#include <cstring>
#include <exception>
#include <functional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "../../exec/backend.hpp"
#include "../../exec/chunk_run.hpp"
#include "../../exec/placement.hpp"
#include "../../reduce/spec.hpp"
#include "distributed_array.hpp"
#include "messages.hpp"
#include "ownership.hpp"
#include "policy.hpp"

namespace tessera {
namespace detail::mpi_runtime {

/// Bytes at `at` laid out over `region` with element strides `stride` (last one 1).
struct strided_bytes {
  std::byte* at = nullptr;
  box region;
  ivec stride;
  std::size_t element = 0;
  std::size_t size() const { return std::size_t(region.count()) * element; }
  /// Copies to (pack) or from (unpack) the contiguous row-major buffer `flat`.
  void copy(std::byte* flat, bool pack) const {
    const int r = region.rank();
    if (region.count() == 0) return;
    if (r == 0) {
      pack ? std::memcpy(flat, at, element) : std::memcpy(at, flat, element);
      return;
    }
    const std::size_t row = std::size_t(region.extent(r - 1)) * element;
    ivec i = region.lo;
    for (std::size_t done = 0;; done += row) {
      index_t off = 0;
      for (int d = 0; d < r; ++d) off += (i[d] - region.lo[d]) * stride[d];
      std::byte* p = at + std::size_t(off) * element;
      pack ? std::memcpy(flat + done, p, row) : std::memcpy(p, flat + done, row);
      int d = r - 2;
      for (; d >= 0; --d) {
        if (++i[d] < region.hi[d]) break;
        i[d] = region.lo[d];
      }
      if (d < 0) return;
    }
  }
};

/// One task's outputs on this rank.
struct task_log {
  std::vector<strided_bytes> pending;            // written by the task, not yet packed
  std::vector<std::vector<std::byte>> packed;    // its outputs, in order (owned tasks)
  std::vector<strided_bytes> expect;             // where its outputs go (another rank's task)
  std::vector<std::function<void()>> held;       // then() callbacks of another rank's task
  bool owner_only = false;                       // keep_outputs_on_owner: nothing shared
  void pack() {
    for (const strided_bytes& s : pending) {
      packed.emplace_back(s.size());
      s.copy(packed.back().data(), true);
    }
    pending.clear();
  }
};

/// Partials a fold over box b writes (the kept elements of b).
inline index_t partial_count(const box& b, const reduce_spec& spec) {
  index_t n = 1;
  for (int d = 0; d < b.rank(); ++d)
    if (!spec.reduced(d)) n *= b.extent(d);
  return n;
}

/// A task this rank runs: the local backend's environment plus what is shared.
template <class LocalEnv>
class owned_env {
 public:
  owned_env(LocalEnv& local, task_log& log, bool share, int rank)
      : local_(local), log_(&log), share_(share), rank_(rank) {}
  auto& context() { return local_.context(); }
  template <class F>
  void then(F&& f) {
    task_log* log = log_;
    local_.then([log, f = std::forward<F>(f)]() mutable {
      log->pack();  // before f: the combine tree may merge or free the partials
      f();
    });
  }
  auto lane()
    requires requires(LocalEnv& e) { e.lane(); }
  {
    return local_.lane();
  }
  LocalEnv& local() { return local_; }
  task_log& log() { return *log_; }
  /// Whether the task's outputs go to other ranks.
  bool shares() const { return share_ && !log_->owner_only; }
  void keep_outputs_on_owner() { log_->owner_only = true; }
  bool runs_here() const { return true; }
  int rank() const { return rank_; }

 private:
  LocalEnv& local_;
  task_log* log_;
  bool share_;
  int rank_;
};

/// A task another rank runs: bound to the placement probe (nothing evaluated); its outputs are
/// received from its owner and its then() callbacks run after they arrived.
class remote_env {
 public:
  remote_env(task_log& log, int owner) : log_(&log), owner_(owner) {}
  placement_probe& context() { return probe_; }
  template <class F>
  void then(F&& f) {
    if (!log_->owner_only) log_->held.emplace_back(std::forward<F>(f));
  }
  task_log& log() { return *log_; }
  int owner() const { return owner_; }
  void keep_outputs_on_owner() {
    log_->owner_only = true;
    log_->expect.clear();
    log_->held.clear();
  }
  bool runs_here() const { return false; }

 private:
  placement_probe probe_;
  task_log* log_;
  int owner_;
};

template <class E>
struct is_remote_env : std::false_type {};
template <>
struct is_remote_env<remote_env> : std::true_type {};

/// The tasks of this rank, as a Tasks object for the local backend.
template <class Tasks>
struct owned_tasks {
  const Tasks& all;
  const std::vector<index_t>& ids;
  index_t output_itemsize = all.output_itemsize;  // > 0: outputs stay resident (ts::cuda's placement)
  index_t count() const { return index_t(ids.size()); }
  box task_box(index_t i) const { return all.task_box(ids[std::size_t(i)]); }
  index_t work(index_t i) const { return all.work(ids[std::size_t(i)]); }
  auto where(index_t i) const { return all.where(ids[std::size_t(i)]); }
  auto output_bytes(index_t i) const { return all.output_bytes(ids[std::size_t(i)]); }
};

inline std::string what_of(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what()[0] ? x.what() : "an exception with an empty message";
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

/// Fetches the pieces of remote chunks that `mine` tasks read (step 2). Returns the stores that
/// now hold fetched pieces; `error` gets this rank's failure, if any.
inline std::vector<const remote_blocks*> fetch_pieces(MPI_Comm comm, const std::vector<remote_piece>& wanted,
                                                      std::string& error) {
  const int n = size(comm), me = rank(comm);
  // Requests per owner: id, block, rank, lo..., hi... (int64).
  std::vector<std::vector<std::int64_t>> req(static_cast<std::size_t>(n));
  std::vector<std::vector<const remote_piece*>> asked(static_cast<std::size_t>(n));
  for (const remote_piece& p : wanted) {
    auto& q = req[std::size_t(p.owner)];
    q.push_back(std::int64_t(p.store->id()));
    q.push_back(p.block);
    q.push_back(p.region.rank());
    for (int d = 0; d < p.region.rank(); ++d) q.push_back(p.region.lo[d]);
    for (int d = 0; d < p.region.rank(); ++d) q.push_back(p.region.hi[d]);
    asked[std::size_t(p.owner)].push_back(&p);
  }
  std::vector<std::int64_t> out_counts(static_cast<std::size_t>(n)), in_counts(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) out_counts[std::size_t(r)] = std::int64_t(req[std::size_t(r)].size() * sizeof(std::int64_t));
  MPI_Alltoall(out_counts.data(), 1, MPI_INT64_T, in_counts.data(), 1, MPI_INT64_T, comm);
  std::vector<std::vector<std::byte>> req_bytes(static_cast<std::size_t>(n));
  std::vector<const std::vector<std::byte>*> send(std::size_t(n), nullptr);
  std::vector<std::size_t> recv_size(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    auto& b = req_bytes[std::size_t(r)];
    b.resize(std::size_t(out_counts[std::size_t(r)]));
    if (!b.empty()) std::memcpy(b.data(), req[std::size_t(r)].data(), b.size());
    send[std::size_t(r)] = &b;
    recv_size[std::size_t(r)] = std::size_t(in_counts[std::size_t(r)]);
  }
  auto incoming = exchange(comm, send, recv_size, 7301);
  // Serve: the pieces asked of this rank, in the order asked.
  std::vector<std::vector<std::byte>> replies(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    const auto& in = incoming[std::size_t(r)];
    const std::size_t words = in.size() / sizeof(std::int64_t);
    std::vector<std::int64_t> q(words);
    if (words) std::memcpy(q.data(), in.data(), in.size());
    for (std::size_t i = 0; i < words;) {
      const std::uint64_t id = std::uint64_t(q[i]);
      const index_t f = q[i + 1];
      const int rk = int(q[i + 2]);
      box region;
      region.lo.n = region.hi.n = rk;
      for (int d = 0; d < rk; ++d) {
        region.lo[d] = q[i + 3 + std::size_t(d)];
        region.hi[d] = q[i + 3 + std::size_t(rk + d)];
      }
      i += 3 + 2 * std::size_t(rk);
      const remote_blocks* s = store_registry::get().find(id);
      auto& out = replies[std::size_t(r)];
      const std::size_t at = out.size();
      const std::size_t bytes = s ? std::size_t(region.count()) * s->element_size() : 0;
      if (!s) {
        if (error.empty())
          error = "rank " + std::to_string(r) + " asked for a chunk of distributed array #" + std::to_string(id) +
                  ", which no longer exists on this rank (every rank must keep the arrays it uses alive)";
        continue;
      }
      out.resize(at + bytes);
      try {
        if (!s->here(f)) throw std::runtime_error("block " + std::to_string(f) + " is not on this rank");
        s->copy_out(f, region, out.data() + at);
      } catch (...) {
        if (error.empty()) error = "serving a chunk to rank " + std::to_string(r) + ": " + what_of(std::current_exception());
      }
    }
  }
  (void)me;
  for (int r = 0; r < n; ++r) {
    send[std::size_t(r)] = &replies[std::size_t(r)];
    std::size_t want = 0;
    for (const remote_piece* p : asked[std::size_t(r)]) want += std::size_t(p->region.count()) * p->store->element_size();
    recv_size[std::size_t(r)] = want;
  }
  auto pieces = exchange(comm, send, recv_size, 7302);
  std::vector<const remote_blocks*> touched;
  for (int r = 0; r < n; ++r) {
    std::size_t at = 0;
    const auto& buf = pieces[std::size_t(r)];
    for (const remote_piece* p : asked[std::size_t(r)]) {
      const std::size_t bytes = std::size_t(p->region.count()) * p->store->element_size();
      std::vector<std::byte> piece(bytes);
      if (at + bytes <= buf.size()) std::memcpy(piece.data(), buf.data() + at, bytes);
      at += bytes;
      p->store->receive(p->block, p->region, std::move(piece));
      touched.push_back(p->store);
      mpi_traffic().piece_bytes_received += std::int64_t(bytes);
    }
  }
  return touched;
}

}  // namespace detail::mpi_runtime

template <class L>
struct backend<mpi<L>> {
  using local_backend = backend<L>;
  static constexpr bool defined = true;
  /// The local backend's: a task's fold runs there (the plan is the same on every rank and in
  /// one process, so the bits are).
  static constexpr index_t fold_run_limit = detail::fold_run_limit<local_backend>();
  template <class T>
  using array_type = distributed_array<T, L>;
  /// A reduction's blocks are finished on their owner ranks: compute gathers them (its own
  /// stage, backend/mpi/compute.hpp) rather than having them finalized into one rank's memory.
  static constexpr bool reduces_into_host_memory = false;

  static void check(const mpi<L>& pol) {
    local_backend::check(pol.local);
    const int n = pol.size();
    if (pol.root < -1 || pol.root >= n)
      throw_invalid("ts::mpi: root must be -1 (every rank) or a rank in [0, ", n, "), got ", pol.root);
  }

  /// The local policy a rank runs with: ts::cuda without .devices gets one GPU per rank (the
  /// node-local rank modulo the visible devices).
  static L local_policy(const mpi<L>& pol) {
    L l = pol.local;
    if constexpr (requires { l.devices.empty(); l.streams_per_device; L::memory_in_use(); }) {
      if (l.devices.empty()) {
        const int visible = int(L::memory_in_use().size());
        if (visible > 0) l.devices = {detail::mpi_runtime::node_rank(pol.comm) % visible};
      }
    }
    return l;
  }

  template <class T>
  static array_type<T> make_array(const mpi<L>& pol, const chunk_grid& g) {
    return array_type<T>(local_backend::template make_array<T>(pol.local, g));
  }

  /// The rank that runs each task (the same on every rank; no message). probes, when given,
  /// receives each task's placement probe (none on one rank).
  template <class Tasks>
  static std::vector<int> owners(const mpi<L>& pol, const Tasks& tasks,
                                 std::vector<detail::placement_probe>* probes = nullptr) {
    const index_t count = tasks.count();
    std::vector<detail::placement_probe> own;
    auto& p = probes ? *probes : own;
    p.clear();
    if (pol.size() == 1) return std::vector<int>(static_cast<std::size_t>(count), 0);
    p.reserve(static_cast<std::size_t>(count));
    for (index_t t = 0; t < count; ++t) p.push_back(tasks.where(t));
    return detail::mpi_runtime::assign_owners(
        count, pol.size(), [&](index_t t) { return tasks.work(t); },
        [&](index_t t) -> const auto& { return p[std::size_t(t)].rank_bytes(); });
  }

  template <class Tasks, class Body>
  static void run_tasks(const mpi<L>& pol, const Tasks& tasks, Body&& body) {
    run_tasks_to(pol, -1, tasks, body);
  }

  /// run_tasks whose eval_to_host outputs go to rank `root` only (-1: to every rank).
  template <class Tasks, class Body>
  static void run_tasks_to(const mpi<L>& pol, int root, const Tasks& tasks, Body& body) {
    namespace rt = detail::mpi_runtime;
    const int n = pol.size(), me = pol.rank();
    const L local = local_policy(pol);
    const index_t count = tasks.count();
    std::string error;  // this rank's failure
    std::exception_ptr cause;
    if (n == 1) {  // one rank: the local backend as it is (owned_env keeps the env type uniform)
      std::vector<rt::task_log> logs(static_cast<std::size_t>(count));
      try {
        local_backend::run_tasks(local, tasks, [&](auto& env, index_t t) {
          rt::owned_env<std::remove_reference_t<decltype(env)>> e(env, logs[std::size_t(t)], false, 0);
          body(e, t);
        });
      } catch (...) {
        cause = std::current_exception();
        error = rt::what_of(cause);
      }
      rt::agree(pol.comm, error, cause);
      return;
    }

    std::vector<int> owner;
    std::vector<index_t> mine;
    std::vector<detail::remote_piece> wanted;
    try {
      std::vector<detail::placement_probe> probes;
      owner = owners(pol, tasks, &probes);
      std::set<std::tuple<std::uint64_t, index_t, std::vector<index_t>>> seen;
      for (index_t t = 0; t < count; ++t) {
        if (owner[std::size_t(t)] != me) continue;
        mine.push_back(t);
        for (const detail::remote_piece& p : probes[std::size_t(t)].remote()) {
          std::vector<index_t> k;
          for (int d = 0; d < p.region.rank(); ++d) k.insert(k.end(), {p.region.lo[d], p.region.hi[d]});
          if (seen.insert({p.store->id(), p.block, std::move(k)}).second) wanted.push_back(p);
        }
      }
    } catch (...) {
      cause = std::current_exception();
      error = rt::what_of(cause);
      wanted.clear();
      mine.clear();
    }
    if (owner.size() != std::size_t(count)) owner.assign(std::size_t(count), -2);  // failed: run nothing
    std::vector<const detail::remote_blocks*> touched = rt::fetch_pieces(pol.comm, wanted, error);
    struct forget {
      std::vector<const detail::remote_blocks*>& s;
      ~forget() {
        for (auto* p : s) p->forget_received();
      }
    } forget_fetched{touched};

    std::vector<rt::task_log> logs(static_cast<std::size_t>(count));
    const bool share = root < 0 || root != me;
    if (error.empty()) {
      try {
        for (index_t t = 0; t < count; ++t) {  // other ranks' tasks: what they will send
          if (owner[std::size_t(t)] == me) continue;
          rt::remote_env e(logs[std::size_t(t)], owner[std::size_t(t)]);
          body(e, t);
        }
        rt::owned_tasks<Tasks> sub{tasks, mine};
        local_backend::run_tasks(local, sub, [&](auto& env, index_t i) {
          const index_t t = mine[std::size_t(i)];
          rt::owned_env<std::remove_reference_t<decltype(env)>> e(env, logs[std::size_t(t)], share, me);
          body(e, t);
          rt::task_log* lg = &logs[std::size_t(t)];
          env.then([lg] { lg->pack(); });  // outputs not packed by a then() of the body's own
        });
      } catch (...) {
        cause = std::current_exception();
        error = rt::what_of(cause);
      }
    }
    rt::agree(pol.comm, error, cause);

    // Share: this rank's outputs, in task order, to the ranks that expect them.
    std::vector<std::byte> out;
    if (share)
      for (index_t t : mine) {
        const rt::task_log& lg = logs[std::size_t(t)];
        if (lg.owner_only) continue;
        for (const auto& b : lg.packed) out.insert(out.end(), b.begin(), b.end());
      }
    std::vector<const std::vector<std::byte>*> send(std::size_t(n), nullptr);
    for (int r = 0; r < n; ++r)
      if (r != me && (root < 0 || r == root)) send[std::size_t(r)] = &out;
    std::vector<std::size_t> recv_size(std::size_t(n), 0);
    for (index_t t = 0; t < count; ++t)
      if (owner[std::size_t(t)] != me)
        for (const auto& s : logs[std::size_t(t)].expect) recv_size[std::size_t(owner[std::size_t(t)])] += s.size();
    auto in = rt::exchange(pol.comm, send, recv_size, 7303);
    std::vector<std::size_t> at(std::size_t(n), 0);
    try {
      for (index_t t = 0; t < count; ++t) {
        const int o = owner[std::size_t(t)];
        if (o == me) continue;
        rt::task_log& lg = logs[std::size_t(t)];
        for (const auto& s : lg.expect) {
          s.copy(in[std::size_t(o)].data() + at[std::size_t(o)], false);
          at[std::size_t(o)] += s.size();
        }
        for (auto& f : lg.held) f();
      }
    } catch (...) {
      cause = std::current_exception();
      error = rt::what_of(cause);
    }
    rt::agree(pol.comm, error, cause);
  }

  // --- inside a task ----------------------------------------------------------------------
  template <class Env, class Acc, class T>
  static void eval(detail::mpi_runtime::owned_env<Env>& env, const Acc& acc, const box& b, T* dst, const ivec& stride) {
    local_backend::eval(env.local(), acc, b, dst, stride);
  }
  template <class Acc, class T>
  static void eval(detail::mpi_runtime::remote_env&, const Acc&, const box&, T*, const ivec&) {}

  /// dst == nullptr: the result is wanted by other ranks only (compute to a root).
  template <class Env, class Acc, class T>
  static void eval_to_host(detail::mpi_runtime::owned_env<Env>& env, const Acc& acc, const box& b, T* dst,
                           const ivec& stride) {
    auto& log = env.log();
    if (!dst) {
      if (!env.shares()) return;
      log.packed.emplace_back(std::size_t(b.count()) * sizeof(T));
      local_backend::eval_to_host(env.local(), acc, b, reinterpret_cast<T*>(log.packed.back().data()),
                                  row_major_strides(b));
      return;
    }
    local_backend::eval_to_host(env.local(), acc, b, dst, stride);
    if (env.shares()) log.pending.push_back({reinterpret_cast<std::byte*>(dst), b, stride, sizeof(T)});
  }
  template <class Acc, class T>
  static void eval_to_host(detail::mpi_runtime::remote_env& env, const Acc&, const box& b, T* dst, const ivec& stride) {
    if (dst && !env.log().owner_only) env.log().expect.push_back({reinterpret_cast<std::byte*>(dst), b, stride, sizeof(T)});
  }

  template <class Env, class Op, class Acc>
  static void fold(detail::mpi_runtime::owned_env<Env>& env, const Op& op, const Acc& acc, const box& b,
                   const reduce_spec& spec, const ivec& istride, typename Op::state* partials) {
    static_assert(std::is_trivially_copyable_v<typename Op::state>,
                  "ts::mpi sends reduction partials as bytes: the reduction's state type must be trivially copyable");
    local_backend::fold(env.local(), op, acc, b, spec, istride, partials);
    if (env.shares()) env.log().pending.push_back(partials_of(partials, b, spec));
  }
  template <class Op, class Acc>
  static void fold(detail::mpi_runtime::remote_env& env, const Op&, const Acc&, const box& b, const reduce_spec& spec,
                   const ivec&, typename Op::state* partials) {
    if (!env.log().owner_only) env.log().expect.push_back(partials_of(partials, b, spec));
  }

  template <class T, class Env>
  static T* block_destination(detail::mpi_runtime::owned_env<Env>& env, array_type<T>& out, index_t b) {
    out.store().set_owner(b, env.rank(), true);
    return local_backend::block_destination(env.local(), out.store().local(), b);
  }
  template <class T>
  static T* block_destination(detail::mpi_runtime::remote_env& env, array_type<T>& out, index_t b) {
    out.store().set_owner(b, env.owner(), false);
    return nullptr;
  }
  template <class T, class Fill>
  static void write_block(const mpi<L>& pol, array_type<T>& out, index_t b, Fill&& fill) {
    local_backend::write_block(pol.local, out.store().local(), b, std::forward<Fill>(fill));
    out.store().set_owner(b, -1, true);  // a stage result written on every rank
  }

 private:
  template <class S>
  static detail::mpi_runtime::strided_bytes partials_of(S* partials, const box& b, const reduce_spec& spec) {
    box flat;
    flat.lo.n = flat.hi.n = 1;
    flat.hi[0] = detail::mpi_runtime::partial_count(b, spec);
    ivec one;
    one.n = 1;
    one[0] = 1;
    return {reinterpret_cast<std::byte*>(partials), flat, one, sizeof(S)};
  }
};

}  // namespace tessera
