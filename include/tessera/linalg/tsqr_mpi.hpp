// TSQR, QR and the thin SVD on ts::mpi (host ranks): tsqr.hpp's factorization with each row
// block on the rank that owns it (backend<mpi<L>>::owners, the same assignment as a compute
// stage over the row blocks), so Q and U stay distributed by rows and only R factors travel.
//
// Tree path (every row block has at least n rows): each rank factors the leaves of its blocks
// (geqrf); the leaves' n x n R factors are merged pairwise by tpqrt in the same binary tree as
// one process, each merge on the rank that holds its top node, a bottom R sent there when
// another rank holds it; the root R is broadcast. Pass 2 sends the tree's n x kx pieces back
// down the same edges (tpmqrt), then each rank applies its leaves' reflectors (ormqr) to its
// blocks. Stacked path (short blocks, tree = false or an explicit fanin): each rank factors its
// blocks, every rank receives every R_b and factors the stack identically (reduce_r), and each
// rank forms its blocks of Q. CholeskyQR2 (tall input, tried first as on one process): each
// rank forms its blocks' Gram matrices, every rank receives them all and makes the same
// Cholesky step, twice; each rank forms its blocks of Q. Every way the operations and their order are those of one
// process, so Q, R, U, S and Vt are bitwise identical to ts::host with the same local policy.
//
// Every rank calls these functions together (SPMD). A failure on a rank (a row block that
// cannot be evaluated, LAPACK refusing) reaches every rank as ts::rank_failure.
#pragma once
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "../backend/mpi/backend.hpp"
#include "../backend/mpi/compute.hpp"
#include "svd.hpp"
#include "tsqr.hpp"

namespace tessera::linalg {
namespace detail {

/// A rank's part of a row-block factorization: which rank owns each row block.
struct row_owners {
  std::vector<int> block;  // owner of row block b
  std::vector<int> leaf;   // owner of leaf i (tree path)
  int me = 0;
  MPI_Comm comm = MPI_COMM_WORLD;
};

/// Runs f() and records a failure for the next agreement (no rank throws alone).
template <class F>
void on_this_rank(std::string& error, std::exception_ptr& cause, F&& f) {
  if (!error.empty()) return;
  try {
    f();
  } catch (...) {
    cause = std::current_exception();
    error = tessera::detail::mpi_runtime::what_of(cause);
  }
}

/// Sends, for each listed edge (from, to) in order, count(i) elements of item(i) from rank
/// `from` to rank `to`, and stores what arrives in place(i) (count(i) elements). Every rank
/// calls it with the same edges: one exchange.
template <class T, class Edges, class Count, class Item, class Place>
void move_items(const row_owners& own, const Edges& edges, Count&& count, Item&& item, Place&& place) {
  namespace rt = tessera::detail::mpi_runtime;
  const int n = rt::size(own.comm);
  std::vector<std::vector<std::byte>> out(static_cast<std::size_t>(n));
  std::vector<std::size_t> in_size(static_cast<std::size_t>(n), 0);
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const std::size_t bytes = std::size_t(count(i)) * sizeof(T);
    const auto [from, to] = edges[i];
    if (from == to) continue;
    if (from == own.me) {
      auto& o = out[static_cast<std::size_t>(to)];
      const std::size_t at = o.size();
      o.resize(at + bytes);
      std::memcpy(o.data() + at, item(i), bytes);
    } else if (to == own.me) {
      in_size[static_cast<std::size_t>(from)] += bytes;
    }
  }
  std::vector<const std::vector<std::byte>*> send(static_cast<std::size_t>(n), nullptr);
  for (int r = 0; r < n; ++r) send[static_cast<std::size_t>(r)] = &out[static_cast<std::size_t>(r)];
  auto in = rt::exchange(own.comm, send, in_size, 7401);
  std::vector<std::size_t> at(static_cast<std::size_t>(n), 0);
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const auto [from, to] = edges[i];
    if (from == to || to != own.me) continue;
    const std::size_t bytes = std::size_t(count(i)) * sizeof(T);
    T* dst = place(i);
    std::memcpy(dst, in[static_cast<std::size_t>(from)].data() + at[static_cast<std::size_t>(from)], bytes);
    at[static_cast<std::size_t>(from)] += bytes;
  }
}

/// Every rank's items[b - b0] (count(b) elements each, b over the row blocks [b0, b1) of `own`)
/// to every rank: afterwards each rank holds all of them. One exchange.
template <class T, class Count>
void share_block_range(const row_owners& own, index_t b0, index_t b1, std::vector<std::vector<T>>& items,
                       Count&& count) {
  const int ranks = tessera::detail::mpi_runtime::size(own.comm);
  std::vector<std::pair<int, int>> edges;
  std::vector<std::size_t> which;
  for (index_t b = b0; b < b1; ++b)
    for (int to = 0; to < ranks; ++to) {
      edges.push_back({own.block[std::size_t(b)], to});
      which.push_back(std::size_t(b - b0));
    }
  auto n = [&](std::size_t i) { return std::size_t(count(b0 + index_t(which[i]))); };
  move_items<T>(own, edges, n, [&](std::size_t i) { return items[which[i]].data(); },
                [&](std::size_t i) {
                  items[which[i]].resize(n(i));
                  return items[which[i]].data();
                });
}

/// Every rank's items[b] (count(b) elements each, b over the row blocks of `own`) to every
/// rank: afterwards each rank holds all of them. One exchange.
template <class T, class Count>
void share_blocks(const row_owners& own, std::vector<std::vector<T>>& items, Count&& count) {
  share_block_range(own, 0, index_t(own.block.size()), items, std::forward<Count>(count));
}

/// An m x cols distributed array in the row blocks `rows` of `own`: each block owned by its rank
/// and allocated there.
template <class T>
distributed_array<T, host> rows_array(const row_owners& own, const std::vector<index_t>& rows, index_t cols) {
  index_t m = 0;
  for (auto r : rows) m += r;
  distributed_array<T, host> out(array<T>(chunk_grid({m, cols}, chunks_t{rows, {cols}})));
  auto& store = out.store();
  for (index_t b = 0; b < index_t(rows.size()); ++b) {
    const bool here = own.block[std::size_t(b)] == own.me;
    store.set_owner(b, own.block[std::size_t(b)], here);
    if (here) store.local().block_data(b);  // allocate serially
  }
  return out;
}

/// A small array held whole by every rank, as a distributed array (owner -1 for every block).
template <class T>
distributed_array<T, host> on_every_rank(array<T> a) {
  distributed_array<T, host> out(std::move(a));
  for (index_t b = 0; b < out.grid().block_count(); ++b) out.store().set_owner(b, -1, true);
  return out;
}

/// The SVD of A from the SVD of A' made on the ranks (short-fat matrices): A = Vt' S U'. The
/// transposed large factor keeps its blocks where they are (each output block reads one block:
/// its owner computes it), the small one stays on every rank.
template <class T, class L>
svd_result<T, distributed_array<T, L>, distributed_array<T, L>> transposed(
    const svd_result<T, distributed_array<T, L>, distributed_array<T, L>>& t, const mpi<L>& pol) {
  return {on_every_rank(persist(transpose(t.vt), pol.local)), t.s, persist(transpose(t.u), pol)};
}

/// Row blocks of the matrix expression a (rows `rows`, all columns), each evaluated on its owner
/// rank into out[b] (column-major, or row-major with row_major = true); other ranks' blocks
/// stay empty.
template <class T, class X, class L>
row_owners load_row_blocks(const X& a, const mpi<L>& pol, const std::vector<index_t>& rows,
                           std::vector<std::vector<T>>& out, bool row_major = false) {
  using B = backend<mpi<L>>;
  const index_t n = a.shape()[1];
  auto low = rechunk(a, chunks_t{rows, {n}}).lower(pol);
  const chunk_grid& g = low.grid();
  auto tasks = tessera::detail::make_tasks(low, g.block_count(), [&g](index_t b) { return g.block_box(b); });
  row_owners own;
  own.comm = pol.comm;
  own.me = pol.rank();
  own.block = B::owners(pol, tasks);
  out.assign(rows.size(), {});
  for (std::size_t b = 0; b < rows.size(); ++b)
    if (own.block[b] == own.me) out[b].resize(std::size_t(rows[b] * n));
  auto out_bytes = [&](index_t b) { return rows[std::size_t(b)] * n * index_t(sizeof(T)); };
  tessera::detail::run_tasks(pol, tasks, "tsqr row block", out_bytes, [&](auto& env, index_t b) {
    if (!tessera::detail::keep_outputs_on_owner(env)) return;  // other ranks: nothing
    const box bx = g.block_box(b);
    auto acc = low.bind(bx, env.context());
    if (row_major) {
      B::eval_to_host(env, acc, bx, out[std::size_t(b)].data(), row_major_strides(bx));
    } else {
      std::vector<T> rm(std::size_t(bx.count()));
      B::eval_to_host(env, acc, bx, rm.data(), row_major_strides(bx));
      row_to_col_major(rm.data(), rows[std::size_t(b)], n, out[std::size_t(b)].data());
    }
  });
  return own;
}

/// Pass 1 + the R tree, distributed (see the header), over row blocks already in f.q (column-
/// major, this rank's blocks of `own`). f.r ends on every rank.
template <class T, class L>
void tsqr_factor_loaded(const mpi<L>& pol, row_owners& own, const std::vector<index_t>& rows, index_t n,
                        const tsqr_options& opt, tsqr_factors<T>& f) {
  static_assert(std::is_same_v<L, host>, "ts::linalg on ts::mpi runs host ranks (ts::mpi<ts::host>)");
  namespace rt = tessera::detail::mpi_runtime;
  const host& local = pol.local;
  const index_t B = index_t(rows.size());
  f.n = n;
  f.rows = rows;
  own.leaf.clear();
  std::string error;
  std::exception_ptr cause;
  std::vector<index_t> mine;
  for (index_t b = 0; b < B; ++b)
    if (own.block[std::size_t(b)] == own.me) mine.push_back(b);
  const index_t nm = index_t(mine.size());
  const std::size_t nn = std::size_t(n * n);

  if (opt.tree && opt.fanin == 0 && std::all_of(rows.begin(), rows.end(), [&](index_t r) { return r >= n; })) {
    f.tree = true;
    f.k = n;
    f.nb = std::min<index_t>(n, 48);
    f.kb.assign(static_cast<std::size_t>(B), n);
    plan_leaves(f, opt.leaf_rows);
    for (const auto& lf : f.leaves) own.leaf.push_back(own.block[std::size_t(lf.block)]);
    const index_t NL = index_t(f.leaves.size());
    f.tau.resize(static_cast<std::size_t>(NL));
    std::vector<std::vector<T>> rb(static_cast<std::size_t>(NL));
    on_this_rank(error, cause, [&] {
      typename dense<host>::threads_guard g(blas_threads_for(local, B));
      dense<host>::parallel(local, nm, [&](index_t i) { factor_leaves<host>(f, mine[std::size_t(i)], rb); });
    });
    rt::agree(pol.comm, error, cause);
    std::vector<index_t> cur(static_cast<std::size_t>(NL));
    for (index_t i = 0; i < NL; ++i) cur[std::size_t(i)] = i;
    while (cur.size() > 1) {
      const index_t pairs = index_t(cur.size() / 2);
      auto& level = f.levels.emplace_back(static_cast<std::size_t>(pairs));
      std::vector<std::pair<int, int>> edges(static_cast<std::size_t>(pairs));  // bottom R -> top's rank
      for (index_t j = 0; j < pairs; ++j) {
        auto& mg = level[std::size_t(j)];
        mg.top = cur[std::size_t(2 * j)];
        mg.bot = cur[std::size_t(2 * j + 1)];
        edges[std::size_t(j)] = {own.leaf[std::size_t(mg.bot)], own.leaf[std::size_t(mg.top)]};
      }
      move_items<T>(own, edges, [&](std::size_t) { return nn; }, [&](std::size_t j) { return rb[std::size_t(level[j].bot)].data(); },
                    [&](std::size_t j) {
                      auto& r = rb[std::size_t(level[j].bot)];
                      r.resize(nn);
                      return r.data();
                    });
      for (index_t j = 0; j < pairs; ++j)  // sent: the top's rank merges it
        if (edges[std::size_t(j)].first == own.me && edges[std::size_t(j)].second != own.me)
          std::vector<T>().swap(rb[std::size_t(level[std::size_t(j)].bot)]);
      std::vector<index_t> here;
      for (index_t j = 0; j < pairs; ++j)
        if (edges[std::size_t(j)].second == own.me) here.push_back(j);
      on_this_rank(error, cause, [&] {
        typename dense<host>::threads_guard g(blas_threads_for(local, pairs));
        dense<host>::parallel(local, index_t(here.size()), [&](index_t h) {
          auto& mg = level[std::size_t(here[std::size_t(h)])];
          mg.t.resize(std::size_t(f.nb * n));
          dense<host>::tpqrt(n, n, n, f.nb, rb[std::size_t(mg.top)].data(), n, rb[std::size_t(mg.bot)].data(), n,
                             mg.t.data(), f.nb);
          mg.v = std::move(rb[std::size_t(mg.bot)]);
        });
      });
      rt::agree(pol.comm, error, cause);
      std::vector<index_t> next;
      for (std::size_t i = 0; i < cur.size(); i += 2) next.push_back(cur[i]);
      cur = std::move(next);
    }
    f.r = std::move(rb[std::size_t(cur[0])]);
    f.r.resize(nn);
    MPI_Bcast(f.r.data(), int(nn * sizeof(T)), MPI_BYTE, own.leaf[std::size_t(cur[0])], pol.comm);
    return;
  }

  // Stacked path: every rank factors its blocks, then receives every R_b.
  f.kb.resize(static_cast<std::size_t>(B));
  for (index_t b = 0; b < B; ++b) f.kb[std::size_t(b)] = std::min(rows[std::size_t(b)], n);
  std::vector<std::vector<T>> rb(static_cast<std::size_t>(B));
  on_this_rank(error, cause, [&] {
    typename dense<host>::threads_guard g(blas_threads_for(local, B));
    dense<host>::parallel(local, nm, [&](index_t i) {
      const index_t b = mine[std::size_t(i)];
      qr_in_place<host>(rows[std::size_t(b)], n, f.q[std::size_t(b)], rb[std::size_t(b)]);
    });
  });
  rt::agree(pol.comm, error, cause);
  share_blocks(own, rb, [&](index_t b) { return f.kb[std::size_t(b)] * n; });  // every R_b to every rank
  on_this_rank(error, cause, [&] { reduce_r(local, n, rb, f.kb, auto_fanin(n, opt.fanin), f.r, f.k, f.p); });
  rt::agree(pol.comm, error, cause);
}

/// CholeskyQR2 (cholesky_qr2.hpp), distributed, over row blocks already in f.q (row-major,
/// this rank's blocks of `own`): each rank forms its blocks' Gram matrices, every rank receives
/// all of them and makes the same Cholesky step as one process (the same sums in the same
/// order), twice. false (f cleared, on every rank alike) when an acceptance test fails. With
/// `gram_svd` (for svd), the Gram route after the first step (gram_svd.hpp): the same decision
/// and the same s and vt on every rank; accepted, f.q keeps A's blocks and there is no second pass.
template <class T, class L>
bool cholesky_qr2_factor_loaded(const mpi<L>& pol, const row_owners& own, const std::vector<index_t>& rows,
                                index_t n, tsqr_factors<T>& f, bool gram_svd = false) {
  namespace rt = tessera::detail::mpi_runtime;
  const host& local = pol.local;
  const index_t B = index_t(rows.size());
  start_cholesky_qr2(f, rows, n);
  std::string error;
  std::exception_ptr cause;
  const index_t wave = gram_wave(index_t(rt::size(pol.comm)) * local.concurrency(), B, n, sizeof(T));
  // per_block(b, gram) on this rank's blocks, wave by wave, every Gram matrix of a wave to every
  // rank, summed in block order; then step(r): a Cholesky step (the same on every rank)
  auto pass = [&](auto&& per_block, auto&& step, std::vector<T>& r) {
    sum_grams_in_waves<T>(B, n, wave, r, [&](index_t b0, index_t b1, std::vector<std::vector<T>>& grams) {
      std::vector<index_t> here;
      for (index_t b = b0; b < b1; ++b)
        if (own.block[std::size_t(b)] == own.me) here.push_back(b);
      on_this_rank(error, cause, [&] {
        typename dense<host>::threads_guard g(blas_threads_for(local, B));
        dense<host>::parallel(local, index_t(here.size()), [&](index_t i) {
          const index_t b = here[std::size_t(i)];
          per_block(b, grams[std::size_t(b - b0)]);
        });
      });
      rt::agree(pol.comm, error, cause);
      share_block_range(own, b0, b1, grams, [&](index_t) { return n * n; });
    });
    bool ok = false;
    on_this_rank(error, cause, [&] { ok = step(r); });
    rt::agree(pol.comm, error, cause);
    int all = ok ? 1 : 0;  // the same on every rank by construction; agreed on all the same
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, pol.comm);
    return all == 1;
  };
  std::vector<T> r1;
  bool ok = pass([&](index_t b, std::vector<T>& g) { gram_of_block<host>(n, rows[std::size_t(b)], f.q[std::size_t(b)].data(), g); },
                 [&](std::vector<T>& g) { return first_gram_step(local, n, gram_svd, g, f); }, r1);
  if (ok && f.gram) return true;  // the Gram route of svd (the same decision on every rank)
  ok = ok && pass([&](index_t b, std::vector<T>& g) {
         orthogonalize_block<host>(n, rows[std::size_t(b)], r1.data(), f.q[std::size_t(b)].data(), g);
       }, [&](std::vector<T>& g) { return cholesky_of_gram(local, n, cholesky_qr2_second_limit, g); }, f.r2);
  if (!ok) {
    f = tsqr_factors<T>{};
    return false;
  }
  finish_cholesky_qr2(local, f, std::move(r1));  // R = R2 R1
  return true;
}

/// Pass 1 + the R tree of the matrix expression a, its row blocks evaluated on their owners:
/// CholeskyQR2 first where one process would use it (automatic method, m >= n), the Householder
/// TSQR when it declines (the blocks evaluated again) or is not asked for.
template <class T, class X, class L>
row_owners tsqr_factor_mpi(const X& a, const mpi<L>& pol, const std::vector<index_t>& rows,
                           const tsqr_options& opt, tsqr_factors<T>& f, bool gram_svd = false) {
  const index_t n = a.shape()[1];
  if (opt.method == tsqr_method::automatic && n > 0 && a.shape()[0] >= n) {
    row_owners own = load_row_blocks<T>(a, pol, rows, f.q, /*row_major=*/true);
    if (cholesky_qr2_factor_loaded(pol, own, rows, n, f, gram_svd)) return own;
  }
  row_owners own = load_row_blocks<T>(a, pol, rows, f.q);
  tsqr_factor_loaded(pol, own, rows, a.shape()[1], opt, f);
  return own;
}

/// Pass 2, distributed: this rank's blocks of Q X (rows[b] x kx, row-major) into dst(b).
template <class T, class Dst>
void tsqr_apply_mpi(const host& local, const row_owners& own, tsqr_factors<T>& f, const T* x, index_t kx,
                    Dst&& dst) {
  namespace rt = tessera::detail::mpi_runtime;
  std::string error;
  std::exception_ptr cause;
  const index_t n = f.n, B = index_t(f.rows.size());
  std::vector<index_t> mine;
  for (index_t b = 0; b < B; ++b)
    if (own.block[std::size_t(b)] == own.me) mine.push_back(b);
  if (f.cholesky) {
    on_this_rank(error, cause, [&] {
      const std::vector<T> w = cholesky_qr2_right_factor(local, f, x, kx);
      typename dense<host>::threads_guard g(blas_threads_for(local, B));
      dense<host>::parallel(local, index_t(mine.size()), [&](index_t i) {
        cholesky_qr2_apply_block<host>(f, mine[std::size_t(i)], w, kx, dst(mine[std::size_t(i)]));
      });
    });
    rt::agree(own.comm, error, cause);
    return;
  }
  if (!f.tree) {
    on_this_rank(error, cause, [&] {
      typename dense<host>::threads_guard g(blas_threads_for(local, B));
      dense<host>::parallel(local, index_t(mine.size()), [&](index_t i) {
        const index_t b = mine[std::size_t(i)];
        apply_stacked<host>(f, b, x, kx, dst(b));
      });
    });
    rt::agree(own.comm, error, cause);
    return;
  }
  const index_t NL = index_t(f.leaves.size());
  const std::size_t cn = std::size_t(n * kx);
  std::vector<std::vector<T>> c(static_cast<std::size_t>(NL));
  if (own.leaf[0] == own.me) {
    auto& root = c[0];
    root.assign(cn, T(0));
    if (x) std::copy(x, x + n * kx, root.data());
    else
      for (index_t i = 0; i < std::min(n, kx); ++i) root[std::size_t(i * n + i)] = T(1);
  }
  for (auto lv = f.levels.rbegin(); lv != f.levels.rend(); ++lv) {
    auto& level = *lv;
    const index_t pairs = index_t(level.size());
    std::vector<index_t> here;
    std::vector<std::pair<int, int>> edges(static_cast<std::size_t>(pairs));  // the bottom piece -> its rank
    for (index_t j = 0; j < pairs; ++j) {
      const auto& mg = level[std::size_t(j)];
      edges[std::size_t(j)] = {own.leaf[std::size_t(mg.top)], own.leaf[std::size_t(mg.bot)]};
      if (edges[std::size_t(j)].first == own.me) here.push_back(j);
    }
    on_this_rank(error, cause, [&] {
      typename dense<host>::threads_guard g(blas_threads_for(local, pairs));
      dense<host>::parallel(local, index_t(here.size()), [&](index_t h) {
        auto& mg = level[std::size_t(here[std::size_t(h)])];
        auto& bot = c[std::size_t(mg.bot)];
        bot.assign(cn, T(0));
        dense<host>::tpmqrt(n, kx, n, n, f.nb, mg.v.data(), n, mg.t.data(), f.nb, c[std::size_t(mg.top)].data(), n,
                            bot.data(), n);
      });
    });
    rt::agree(own.comm, error, cause);
    move_items<T>(own, edges, [&](std::size_t) { return cn; }, [&](std::size_t j) { return c[std::size_t(level[j].bot)].data(); },
                  [&](std::size_t j) {
                    auto& v = c[std::size_t(level[j].bot)];
                    v.resize(cn);
                    return v.data();
                  });
    for (index_t j = 0; j < pairs; ++j)
      if (edges[std::size_t(j)].first == own.me && edges[std::size_t(j)].second != own.me)
        std::vector<T>().swap(c[std::size_t(level[std::size_t(j)].bot)]);
  }
  on_this_rank(error, cause, [&] {
    typename dense<host>::threads_guard g(blas_threads_for(local, B));
    dense<host>::parallel(local, index_t(mine.size()), [&](index_t i) {
      const index_t b = mine[std::size_t(i)];
      apply_leaves<host>(f, b, c, kx, dst(b));
    });
  });
  rt::agree(own.comm, error, cause);
}

/// Q X as a distributed array: row chunks f.rows, one column chunk, each block on its owner.
template <class T>
distributed_array<T, host> tsqr_apply_distributed(const host& local, const row_owners& own, tsqr_factors<T>& f,
                                                  const T* x, index_t kx) {
  auto out = rows_array<T>(own, f.rows, kx);
  auto& store = out.store();
  tsqr_apply_mpi(local, own, f, x, kx, [&](index_t b) { return store.local().block_data(b); });
  return out;
}

}  // namespace detail

/// QR by TSQR on MPI ranks: q (m x k) distributed by a's row chunks (each block on the rank that
/// factored it), r (k x n) on every rank. Bitwise identical to tsqr(a, policy.local).
template <expression_type X, class L>
qr_result<detail::real_of<X>, distributed_array<detail::real_of<X>, L>> tsqr(const X& a, const mpi<L>& pol,
                                                                             const tsqr_options& opt = {}) {
  using T = detail::real_of<X>;
  backend<mpi<L>>::check(pol);
  auto rows = detail::qr_row_blocks<T>(a, opt);  // checks a first
  const index_t n = a.shape()[1];
  detail::tsqr_factors<T> f;
  auto own = detail::tsqr_factor_mpi<T>(a, pol, rows, opt, f);
  qr_result<T, distributed_array<T, L>> res{detail::tsqr_apply_distributed<T>(pol.local, own, f, nullptr, f.k),
                                            detail::array_from_col_major(f.r.data(), f.k, n, {f.k}, a.chunks()[1])};
  return res;
}

/// QR on MPI ranks (TSQR).
template <expression_type X, class L>
auto qr(const X& a, const mpi<L>& pol, const tsqr_options& opt = {}) {
  return tsqr(a, pol, opt);
}

/// Thin SVD on MPI ranks. Tall (m >= n): u distributed by a's row chunks (each block on the rank
/// that factored it), s and vt on every rank. Short-fat: through the transpose, as one process
/// does: vt distributed by a's column chunks, u and s on every rank. Bitwise identical to
/// svd(a, policy.local).
template <expression_type X, class L>
svd_result<detail::real_of<X>, distributed_array<detail::real_of<X>, L>, distributed_array<detail::real_of<X>, L>> svd(
    const X& a, const mpi<L>& pol, const tsqr_options& opt = {}) {
  using T = detail::real_of<X>;
  backend<mpi<L>>::check(pol);
  detail::check_real_type<T>();
  detail::check_matrix(a, "svd");
  const index_t m = a.shape()[0], n = a.shape()[1];
  detail::check_dense_fits(a, std::min(m, n), std::min(m, n), sizeof(T), opt, "the SVD");
  if (m < n) return detail::transposed(svd(transpose(a), pol, opt), pol);
  auto rows = detail::pass_row_chunks(a.chunks()[0], n, sizeof(T), opt.max_dense_bytes);
  detail::tsqr_factors<T> f;
  auto own = detail::tsqr_factor_mpi<T>(a, pol, rows, opt, f, /*gram_svd=*/true);
  const index_t k = f.k;
  std::vector<T> s, ur, vt;
  detail::svd_of_factors<T>(pol.local, f, n, s, ur, vt);  // the same factors on every rank
  svd_result<T, distributed_array<T, L>, distributed_array<T, L>> res{
      detail::tsqr_apply_distributed<T>(pol.local, own, f, ur.data(), k), detail::array_from_vector(s.data(), k),
      detail::on_every_rank(detail::array_from_col_major(vt.data(), k, n, {k}, a.chunks()[1]))};
  return res;
}

}  // namespace tessera::linalg
