// Tall-skinny QR (TSQR) of a chunked matrix, evaluated row block by row block.
//
// On the host, tall inputs (m >= n) go first to CholeskyQR2 (cholesky_qr2.hpp: Gram matrices
// through syrk/trsm/gemm), which declines for ill-conditioned or rank-deficient input; then,
// and with tsqr_method::householder, Householder TSQR below.
//
// Tree path (default; every row block has at least n rows):
//   pass 1 (parallel over row blocks): geqrf of each cache-sized leaf of the block, keeping the
//           Householder form; the leaves' n x n R factors are merged pairwise by tpqrt, level
//           by level (pairs of a level in parallel); the root is R.
//   pass 2: X (identity for QR, U_R for the SVD) goes down the tree (tpmqrt), then each leaf
//           applies its reflectors (ormqr) and the block is written row-major into the result.
// Stacked path (row blocks shorter than n, tree = false or an explicit fanin):
//   pass 1: A_b = Q_b R_b (geqrf + orgqr per block); the R_b are stacked and factored,
//           [R_1; ...; R_B] = P R, recursively in groups of `fanin` when there are more;
//   pass 2: Q's block b = Q_b P_b X with gemm, written straight into the row-major chunk.
//
// Q and the result keep the input's row chunks; the input is never materialized whole: each
// row block is evaluated once (dense<P>::load: bind + write_box on the host, the chunk kernel
// on a device) into a dense buffer.
//
// Every step is written against a policy P (ts::host or ts::cuda): tasks run through
// dense<P>::parallel and every dense kernel through dense<P> (LAPACK/OpenBLAS or cuSOLVER/
// cuBLAS). The tree path needs tpqrt/tpmqrt, which cuSOLVER lacks: ts::cuda takes the stacked
// path (one geqrf + orgqr per row block on the device).
#pragma once
#include <functional>
#include <vector>

#include "cholesky_qr2.hpp"
#include "common.hpp"
#include "tsqr_factors.hpp"

namespace tessera::linalg {
namespace detail {

/// In-place QR of the column-major m x n matrix a on backend P: a becomes Q (m x kk,
/// kk = min(m, n)), r the kk x n upper trapezoid. Returns kk.
template <class P = host, class T>
index_t qr_in_place(index_t m, index_t n, std::vector<T>& a, std::vector<T>& r) {
  const index_t kk = std::min(m, n);
  r.resize(std::size_t(kk * n));  // every entry written by qr_explicit
  dense<P>::qr_explicit(m, n, a.data(), r.data());
  a.resize(std::size_t(m * kk));  // the first kk columns are contiguous
  return kk;
}

inline index_t auto_fanin(index_t n, index_t fanin) {
  if (fanin > 0) return std::max<index_t>(2, fanin);
  return std::max<index_t>(2, (index_t(1) << 24) / std::max<index_t>(1, n * n));
}

/// Factors the stack of the column-major factors rs[i] (ks[i] x n): [rs] = [P_i] R.
/// Sets r (k x n), k = min(sum ks, n) and p[i] (ks[i] x k).
template <class T, class P>
void reduce_r(const P& pol, index_t n, std::vector<std::vector<T>>& rs,
              const std::vector<index_t>& ks, index_t fanin, std::vector<T>& r, index_t& k,
              std::vector<std::vector<T>>& p) {
  const index_t cnt = index_t(rs.size());
  p.assign(static_cast<std::size_t>(cnt), {});
  auto stack = [&](index_t i0, index_t i1, std::vector<index_t>& offs) {
    offs.assign(1, 0);
    for (index_t i = i0; i < i1; ++i) offs.push_back(offs.back() + ks[static_cast<std::size_t>(i)]);
    const index_t K = offs.back();
    std::vector<T> s(std::size_t(K * n));
    for (index_t i = i0; i < i1; ++i) {
      const index_t ki = ks[static_cast<std::size_t>(i)], o = offs[std::size_t(i - i0)];
      const T* src = rs[static_cast<std::size_t>(i)].data();
      for (index_t j = 0; j < n; ++j)
        std::copy(src + j * ki, src + (j + 1) * ki, s.data() + j * K + o);
      std::vector<T>().swap(rs[static_cast<std::size_t>(i)]);
    }
    return s;
  };
  if (cnt == 1) {
    k = ks[0];
    r = std::move(rs[0]);
    p[0].assign(std::size_t(k * k), T(0));
    for (index_t i = 0; i < k; ++i) p[0][std::size_t(i * k + i)] = T(1);
    return;
  }
  if (cnt <= fanin) {
    std::vector<index_t> offs;
    std::vector<T> s = stack(0, cnt, offs);
    const index_t K = offs.back();
    {
      typename dense<P>::threads_guard g(dense<P>::concurrency(pol));
      dense<P>::single(pol, [&] { k = qr_in_place<P>(K, n, s, r); });
    }
    for (index_t i = 0; i < cnt; ++i) {
      const index_t ki = ks[static_cast<std::size_t>(i)], o = offs[static_cast<std::size_t>(i)];
      auto& pi = p[static_cast<std::size_t>(i)];
      pi.resize(std::size_t(ki * k));
      for (index_t j = 0; j < k; ++j)
        std::copy(s.data() + j * K + o, s.data() + j * K + o + ki, pi.data() + j * ki);
    }
    return;
  }
  // A tree level: groups of `fanin` factors, each stacked and factored in parallel.
  const index_t groups = (cnt + fanin - 1) / fanin;
  std::vector<std::vector<T>> gq(static_cast<std::size_t>(groups)), gr(static_cast<std::size_t>(groups));
  std::vector<std::vector<index_t>> goffs(static_cast<std::size_t>(groups));
  std::vector<index_t> gk(static_cast<std::size_t>(groups));
  {
    typename dense<P>::threads_guard g(blas_threads_for(pol, groups));
    dense<P>::parallel(pol, groups, [&](index_t gi) {
      const index_t i0 = gi * fanin, i1 = std::min(cnt, i0 + fanin);
      auto& offs = goffs[static_cast<std::size_t>(gi)];
      gq[static_cast<std::size_t>(gi)] = stack(i0, i1, offs);
      gk[static_cast<std::size_t>(gi)] = qr_in_place<P>(offs.back(), n, gq[static_cast<std::size_t>(gi)], gr[static_cast<std::size_t>(gi)]);
    });
  }
  std::vector<std::vector<T>> gp;
  reduce_r(pol, n, gr, gk, fanin, r, k, gp);
  typename dense<P>::threads_guard g(blas_threads_for(pol, cnt));
  dense<P>::parallel(pol, cnt, [&](index_t i) {
    const index_t gi = i / fanin, ki = ks[static_cast<std::size_t>(i)];
    const index_t K = goffs[static_cast<std::size_t>(gi)].back(), o = goffs[static_cast<std::size_t>(gi)][std::size_t(i - gi * fanin)];
    auto& pi = p[static_cast<std::size_t>(i)];
    pi.resize(std::size_t(ki * k));
    dense<P>::gemm(false, false, ki, k, gk[static_cast<std::size_t>(gi)], T(1), gq[static_cast<std::size_t>(gi)].data() + o, K,
                      gp[static_cast<std::size_t>(gi)].data(), gk[static_cast<std::size_t>(gi)], T(0), pi.data(), ki);
  });
}

/// The tree path's leaves: each row block cut into leaves of about 256 Ki elements (at least n
/// rows, leaf_rows when given), in block order.
template <class T>
void plan_leaves(tsqr_factors<T>& f, index_t leaf_rows) {
  const index_t n = f.n, B = index_t(f.rows.size());
  const index_t target = std::max<index_t>(n, leaf_rows > 0 ? leaf_rows : (index_t(1) << 18) / n);
  f.first_leaf.assign(1, 0);
  for (index_t b = 0; b < B; ++b) {
    const index_t mb = f.rows[std::size_t(b)], nl = std::max<index_t>(1, mb / target);
    for (index_t i = 0; i < nl; ++i) {
      const index_t lo = mb * i / nl, hi = mb * (i + 1) / nl;
      f.leaves.push_back({b, lo, hi - lo});
    }
    f.first_leaf.push_back(index_t(f.leaves.size()));
  }
}

/// geqrf of each leaf of row block b (loaded column-major in f.q[b]); the leaves' n x n R
/// factors into rb (indexed by leaf).
template <class P, class T>
void factor_leaves(tsqr_factors<T>& f, index_t b, std::vector<std::vector<T>>& rb) {
  const index_t n = f.n, mb = f.rows[std::size_t(b)];
  T* a = f.q[std::size_t(b)].data();
  for (index_t li = f.first_leaf[std::size_t(b)]; li < f.first_leaf[std::size_t(b) + 1]; ++li) {
    const auto& lf = f.leaves[std::size_t(li)];
    auto& tau = f.tau[std::size_t(li)];
    tau.resize(std::size_t(n));
    T* al = a + lf.off;
    dense<P>::geqrf(lf.rows, n, al, mb, tau.data());
    auto& r = rb[std::size_t(li)];
    r.assign(std::size_t(n * n), T(0));
    for (index_t j = 0; j < n; ++j) std::copy(al + j * mb, al + j * mb + j + 1, r.data() + j * n);
  }
}

/// Pass 2 of the tree path for row block b: each leaf applies its reflectors (ormqr) to [C_leaf;
/// 0] (c, indexed by leaf, n x kx column-major; freed), written row-major to d. Frees f.q[b].
template <class P, class T>
void apply_leaves(tsqr_factors<T>& f, index_t b, std::vector<std::vector<T>>& c, index_t kx, T* d) {
  const index_t n = f.n, mb = f.rows[std::size_t(b)];
  T* cf = scratch<T, 0>(std::size_t(mb * kx));
  std::fill(cf, cf + mb * kx, T(0));
  for (index_t li = f.first_leaf[std::size_t(b)]; li < f.first_leaf[std::size_t(b) + 1]; ++li) {
    const auto& lf = f.leaves[std::size_t(li)];
    const auto& cl = c[std::size_t(li)];
    for (index_t j = 0; j < kx; ++j)
      std::copy(cl.data() + j * n, cl.data() + (j + 1) * n, cf + j * mb + lf.off);
    std::vector<T>().swap(c[std::size_t(li)]);
    dense<P>::ormqr(lf.rows, kx, n, f.q[std::size_t(b)].data() + lf.off, mb,
                       f.tau[std::size_t(li)].data(), cf + lf.off, mb);
  }
  std::vector<T>().swap(f.q[std::size_t(b)]);
  // column-major mb x kx -> row-major
  constexpr index_t tb = 64;
  for (index_t i0 = 0; i0 < mb; i0 += tb)
    for (index_t j = 0; j < kx; ++j)
      for (index_t i = i0; i < std::min(mb, i0 + tb); ++i) d[i * kx + j] = cf[j * mb + i];
}

/// Pass 2 of the stacked path for row block b: Q_b P_b X (rows x kx, row-major) into d, where x
/// is k x kx column-major (nullptr: the identity). Frees f.q[b] and f.p[b].
template <class P, class T>
void apply_stacked(tsqr_factors<T>& f, index_t b, const T* x, index_t kx, T* d) {
  const index_t mb = f.rows[static_cast<std::size_t>(b)], kb = f.kb[static_cast<std::size_t>(b)];
  std::vector<T> w;
  const T* wp = f.p[static_cast<std::size_t>(b)].data();
  if (x) {
    w.resize(std::size_t(kb * kx));
    dense<P>::gemm(false, false, kb, kx, f.k, T(1), wp, kb, x, f.k, T(0), w.data(), kb);
    wp = w.data();
  }
  // row-major (Q_b W_b) == column-major W_b' Q_b'
  dense<P>::gemm(true, true, kx, mb, kb, T(1), wp, kb, f.q[static_cast<std::size_t>(b)].data(), mb, T(0), d, kx);
  std::vector<T>().swap(f.q[static_cast<std::size_t>(b)]);
  std::vector<T>().swap(f.p[static_cast<std::size_t>(b)]);
}

/// Tree path of pass 1 + reduction (every row block has at least n rows). Narrow matrices
/// split each row block into cache-sized leaves (geqrf runs in cache); the leaves' n x n R
/// factors are merged pairwise by tpqrt, level by level, leaf pairs in parallel.
template <class T, class P, class Load>
void tsqr_factor_tree(const P& pol, tsqr_factors<T>& f, Load&& load, index_t leaf_rows) {
  const index_t n = f.n, B = index_t(f.rows.size());
  f.tree = true;
  f.k = n;
  f.nb = std::min<index_t>(n, 48);
  f.kb.assign(static_cast<std::size_t>(B), n);
  f.q.resize(static_cast<std::size_t>(B));
  plan_leaves(f, leaf_rows);
  const index_t NL = index_t(f.leaves.size());
  f.tau.resize(static_cast<std::size_t>(NL));
  std::vector<std::vector<T>> rb(static_cast<std::size_t>(NL));
  {
    typename dense<P>::threads_guard g(blas_threads_for(pol, B));
    dense<P>::parallel(pol, B, [&](index_t b) {
      const index_t mb = f.rows[std::size_t(b)];
      auto& a = f.q[std::size_t(b)];
      a.resize(std::size_t(mb * n));
      load(b, a.data());
      factor_leaves<P>(f, b, rb);
    });
  }
  std::vector<index_t> cur(static_cast<std::size_t>(NL));
  for (index_t i = 0; i < NL; ++i) cur[std::size_t(i)] = i;
  while (cur.size() > 1) {
    const index_t pairs = index_t(cur.size() / 2);
    auto& level = f.levels.emplace_back(static_cast<std::size_t>(pairs));
    typename dense<P>::threads_guard g(blas_threads_for(pol, pairs));
    dense<P>::parallel(pol, pairs, [&](index_t j) {
      auto& mg = level[std::size_t(j)];
      mg.top = cur[std::size_t(2 * j)];
      mg.bot = cur[std::size_t(2 * j + 1)];
      mg.t.resize(std::size_t(f.nb * n));
      dense<P>::tpqrt(n, n, n, f.nb, rb[std::size_t(mg.top)].data(), n,
                         rb[std::size_t(mg.bot)].data(), n, mg.t.data(), f.nb);
      mg.v = std::move(rb[std::size_t(mg.bot)]);
    });
    std::vector<index_t> next;
    for (std::size_t i = 0; i < cur.size(); i += 2) next.push_back(cur[i]);
    cur = std::move(next);
  }
  f.r = std::move(rb[std::size_t(cur[0])]);
}

/// Pass 1 + reduction. `load(b, buf)` fills buf with row block b (rows[b] x n) column-major.
template <class T, class P, class Load>
tsqr_factors<T> tsqr_factor(const P& pol, const std::vector<index_t>& rows, index_t n,
                            Load&& load, const tsqr_options& opt) {
  tsqr_factors<T> f;
  f.n = n;
  f.rows = rows;
  const index_t B = index_t(rows.size());
  if constexpr (dense<P>::tree_path) {
    if (opt.tree && opt.fanin == 0 && std::all_of(rows.begin(), rows.end(), [&](index_t r) { return r >= n; })) {
      tsqr_factor_tree(pol, f, std::forward<Load>(load), opt.leaf_rows);
      return f;
    }
  }
  f.kb.resize(static_cast<std::size_t>(B));
  f.q.resize(static_cast<std::size_t>(B));
  std::vector<std::vector<T>> rb(static_cast<std::size_t>(B));
  {
    typename dense<P>::threads_guard g(blas_threads_for(pol, B));
    dense<P>::parallel(pol, B, [&](index_t b) {
      const index_t mb = rows[static_cast<std::size_t>(b)];
      std::vector<T> a(std::size_t(mb * n));
      load(b, a.data());
      f.kb[static_cast<std::size_t>(b)] = qr_in_place<P>(mb, n, a, rb[static_cast<std::size_t>(b)]);
      f.q[static_cast<std::size_t>(b)] = std::move(a);
    });
  }
  reduce_r(pol, n, rb, f.kb, auto_fanin(n, opt.fanin), f.r, f.k, f.p);
  return f;
}

/// Pass 1 over a row source (an input expression evaluated row block by row block):
/// CholeskyQR2 where the backend has it, the method allows it and a is tall (m >= n), for an
/// SVD (`gram_svd`) its Gram route first; Householder TSQR otherwise or when CholeskyQR2
/// declines (the input is evaluated again).
template <class T, class P, class Src>
tsqr_factors<T> tsqr_factor_source(const P& pol, const Src& src, const tsqr_options& opt, bool gram_svd = false) {
  if constexpr (host_cholesky_qr2<P>) {
    if (opt.method == tsqr_method::automatic && src.n > 0 && src.off.back() >= src.n) {
      tsqr_factors<T> f;
      if (cholesky_qr2_factor<T>(pol, src, f, gram_svd)) return f;
    }
  }
  std::vector<index_t> rows;
  for (index_t b = 0; b < src.blocks(); ++b) rows.push_back(src.rows(b));
  return tsqr_factor<T>(pol, rows, src.n, [&](index_t b, T* cm) {
    T* rm = scratch<T, 1>(std::size_t(src.rows(b) * src.n));
    src.template load_row_major<T>(b, rm);
    row_to_col_major(rm, src.rows(b), src.n, cm);
  }, opt);
}

/// Pass 2 of the tree path: the root's n x kx matrix goes down the tree (tpmqrt), then each
/// leaf applies its own reflectors (ormqr) to [C_leaf; 0], written row-major to dst(b).
template <class T, class P, class Dst>
void tsqr_apply_tree(const P& pol, tsqr_factors<T>& f, const T* x, index_t kx, Dst& dst) {
  const index_t n = f.n, B = index_t(f.rows.size()), NL = index_t(f.leaves.size());
  std::vector<std::vector<T>> c(static_cast<std::size_t>(NL));
  auto& root = c[0];
  root.assign(std::size_t(n * kx), T(0));
  if (x) std::copy(x, x + n * kx, root.data());
  else
    for (index_t i = 0; i < std::min(n, kx); ++i) root[std::size_t(i * n + i)] = T(1);
  for (auto lv = f.levels.rbegin(); lv != f.levels.rend(); ++lv) {
    auto& level = *lv;
    typename dense<P>::threads_guard g(blas_threads_for(pol, index_t(level.size())));
    dense<P>::parallel(pol, index_t(level.size()), [&](index_t j) {
      auto& mg = level[std::size_t(j)];
      auto& bot = c[std::size_t(mg.bot)];
      bot.assign(std::size_t(n * kx), T(0));
      dense<P>::tpmqrt(n, kx, n, n, f.nb, mg.v.data(), n, mg.t.data(), f.nb,
                          c[std::size_t(mg.top)].data(), n, bot.data(), n);
    });
  }
  typename dense<P>::threads_guard g(blas_threads_for(pol, B));
  dense<P>::parallel(pol, B, [&](index_t b) { apply_leaves<P>(f, b, c, kx, dst(b)); });
}

/// Pass 2: writes block b of Q X (rows[b] x kx, row-major) to dst(b), where x is k x kx
/// column-major (nullptr: the identity, kx == k). Frees the Q_b as it goes.
template <class T, class P, class Dst>
void tsqr_apply(const P& pol, tsqr_factors<T>& f, const T* x, index_t kx, Dst&& dst) {
  const index_t B = index_t(f.rows.size());
  if constexpr (host_cholesky_qr2<P>) {
    if (f.cholesky) {
      cholesky_qr2_apply(pol, f, x, kx, dst);
      return;
    }
  }
  if constexpr (dense<P>::tree_path) {
    if (f.tree) {
      tsqr_apply_tree(pol, f, x, kx, dst);
      return;
    }
  }
  typename dense<P>::threads_guard g(blas_threads_for(pol, B));
  dense<P>::parallel(pol, B, [&](index_t b) { apply_stacked<P>(f, b, x, kx, dst(b)); });
}

/// Q X as a chunked array with the given row chunks and one column chunk.
template <class T, class P>
array<T> tsqr_apply_array(const P& pol, tsqr_factors<T>& f, const T* x, index_t kx) {
  if constexpr (host_cholesky_qr2<P>) {
    if (f.cholesky && f.in_array && kx == f.n) return cholesky_qr2_apply_in_place(pol, f, x, kx);
  }
  index_t m = 0;
  for (auto r : f.rows) m += r;
  array<T> out(chunk_grid({m, kx}, chunks_t{f.rows, {kx}}));
  for (index_t b = 0; b < index_t(f.rows.size()); ++b) out.block_data(b);  // allocate serially
  tsqr_apply(pol, f, x, kx, [&](index_t b) { return out.block_data(b); });
  return out;
}

template <class X>
void check_dense_fits(const X& a, index_t k, index_t n, std::size_t itemsize, const tsqr_options& opt,
                      const char* what) {
  if (3.0 * double(k) * double(n) * double(itemsize) > opt.max_dense_bytes)
    throw_invalid(what, " of the ", a.shape()[0], " x ", a.shape()[1],
                  " matrix needs dense ", k, " x ", n,
                  " factors that exceed max_dense_bytes = ", opt.max_dense_bytes,
                  " (too large in both directions); use ts::linalg::svd_compressed for a "
                  "truncated randomized SVD instead");
}

/// The argument checks of a QR of a (nothing is evaluated) and its pass's row blocks.
template <class T, class X>
std::vector<index_t> qr_row_blocks(const X& a, const tsqr_options& opt) {
  check_real_type<T>();
  check_matrix(a, "tsqr");
  const index_t m = a.shape()[0], n = a.shape()[1], k = std::min(m, n);
  check_dense_fits(a, k, n, sizeof(T), opt, "QR");
  return pass_row_chunks(a.chunks()[0], n, sizeof(T), opt.max_dense_bytes);
}

}  // namespace detail

/// QR factorization by TSQR: a (m x n, any 2-D value expression) = q r with q m x k
/// orthonormal columns (a's row chunks, one column chunk) and r k x n upper trapezoidal,
/// k = min(m, n). Columns split over several chunks are combined per row block. Each input
/// row block is evaluated once (twice when CholeskyQR2 declines and Householder TSQR runs).
template <expression_type X, linalg_policy P = host>
qr_result<detail::real_of<X>> tsqr(const X& a, const P& pol = {}, const tsqr_options& opt = {}) {
  using T = detail::real_of<X>;
  auto rows = detail::qr_row_blocks<T>(a, opt);  // checks a first
  const index_t n = a.shape()[1];
  auto src = detail::make_row_source(a, rows, pol);
  auto f = detail::tsqr_factor_source<T>(pol, src, opt);
  qr_result<T> res;
  res.r = detail::array_from_col_major(f.r.data(), f.k, n, {f.k}, a.chunks()[1]);
  res.q = detail::tsqr_apply_array<T>(pol, f, nullptr, f.k);
  return res;
}

/// QR factorization (TSQR for every shape: short-fat inputs give k = m and an m x n r).
template <expression_type X, linalg_policy P = host>
qr_result<detail::real_of<X>> qr(const X& a, const P& pol = {}, const tsqr_options& opt = {}) {
  return tsqr(a, pol, opt);
}

}  // namespace tessera::linalg
