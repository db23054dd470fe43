// Randomized truncated SVD on ts::mpi (host ranks): svd_compressed.hpp's passes with each row
// block of A, Y, Q and U on its owner rank (the owners of a's row blocks, as in tsqr_mpi.hpp).
// Y_b = A_b Omega and U_b = Q_b U_B are local; Q = orth(Y) is the distributed TSQR; the n x l
// partial products A_b' Q_b are sent to every rank and summed in block order, as one process
// sums them, so u, s and vt are bitwise identical to svd_compressed(a, k, policy.local, opt).
#pragma once
#include "svd_compressed.hpp"
#include "tsqr_mpi.hpp"

namespace tessera::linalg {

/// Rank-k randomized SVD on MPI ranks. Tall (m >= n): u (m x k) distributed by a's row chunks,
/// s and vt on every rank; short-fat: through the transpose, vt distributed by a's column chunks,
/// u and s on every rank. Bitwise identical to svd_compressed(a, k, policy.local, opt).
template <expression_type X, class L>
svd_result<detail::real_of<X>, distributed_array<detail::real_of<X>, L>, distributed_array<detail::real_of<X>, L>>
svd_compressed(
    const X& a, index_t k, const mpi<L>& pol, const svd_compressed_options& opt = {}) {
  using T = detail::real_of<X>;
  namespace rt = tessera::detail::mpi_runtime;
  backend<mpi<L>>::check(pol);
  detail::check_real_type<T>();
  detail::check_matrix(a, "svd_compressed");
  const index_t m = a.shape()[0], n = a.shape()[1];
  if (k < 1 || k > std::min(m, n))
    throw_invalid("svd_compressed: k = ", k, " must be in [1, ", std::min(m, n), "] for shape ", a.shape());
  if (opt.n_power_iter < 0) throw_invalid("svd_compressed: n_power_iter = ", opt.n_power_iter, " must be >= 0");
  if (m < n) return detail::transposed(svd_compressed(transpose(a), k, pol, opt), pol);  // as one process
  const host& local = pol.local;
  const auto rows = detail::pass_row_chunks(a.chunks()[0], n, sizeof(T), opt.tsqr.max_dense_bytes);
  const index_t B = index_t(rows.size());
  const index_t l = k + std::min(n - k, std::max<index_t>(0, opt.oversampling));
  auto omega_expr = random::default_rng(opt.seed).standard_normal<T>({n, l}, chunks_t{{n}, {l}});
  std::vector<T> omega_t(std::size_t(n * l));
  tessera::detail::evaluate_into(omega_expr.lower(local), local, omega_t.data());

  std::string error;
  std::exception_ptr cause;
  const int bt = detail::blas_threads_for(local, B);
  std::vector<std::vector<T>> ab;  // this rank's row blocks of A, row-major, one pass at a time
  detail::row_owners own;
  std::vector<index_t> mine;
  auto load_a = [&] {
    own = detail::load_row_blocks<T>(a, pol, rows, ab, true);
    mine.clear();
    for (index_t b = 0; b < B; ++b)
      if (own.block[std::size_t(b)] == own.me) mine.push_back(b);
  };
  std::vector<std::vector<T>> y(static_cast<std::size_t>(B));
  auto pass_y = [&](const T* x, bool x_is_col_major_n_by_l) {
    load_a();
    detail::on_this_rank(error, cause, [&] {
      typename dense<host>::threads_guard g(bt);
      dense<host>::parallel(local, index_t(mine.size()), [&](index_t i) {
        const index_t b = mine[std::size_t(i)], mb = rows[std::size_t(b)];
        auto& yb = y[std::size_t(b)];
        yb.resize(std::size_t(mb * l));
        if (x_is_col_major_n_by_l)
          dense<host>::gemm(true, false, l, mb, n, T(1), x, n, ab[std::size_t(b)].data(), n, T(0), yb.data(), l);
        else
          dense<host>::gemm(false, false, l, mb, n, T(1), x, l, ab[std::size_t(b)].data(), n, T(0), yb.data(), l);
        std::vector<T>().swap(ab[std::size_t(b)]);
      });
    });
    rt::agree(pol.comm, error, cause);
  };
  auto pass_z = [&](const std::vector<std::vector<T>>& q, std::vector<T>& z) {
    load_a();
    std::vector<std::vector<T>> part(static_cast<std::size_t>(B));
    detail::on_this_rank(error, cause, [&] {
      typename dense<host>::threads_guard g(bt);
      dense<host>::parallel(local, index_t(mine.size()), [&](index_t i) {
        const index_t b = mine[std::size_t(i)], mb = rows[std::size_t(b)];
        auto& pb = part[std::size_t(b)];
        pb.resize(std::size_t(n * l));
        dense<host>::gemm(false, true, n, l, mb, T(1), ab[std::size_t(b)].data(), n, q[std::size_t(b)].data(), l, T(0),
                          pb.data(), n);
        std::vector<T>().swap(ab[std::size_t(b)]);
      });
    });
    rt::agree(pol.comm, error, cause);
    detail::share_blocks(own, part, [&](index_t) { return n * l; });  // every partial to every rank
    z.assign(std::size_t(n * l), T(0));
    for (auto& pb : part)  // in block order, as one process
      for (std::size_t i = 0; i < z.size(); ++i) z[i] += pb[i];
  };
  auto orth_y = [&](std::vector<std::vector<T>>& q) {  // as one process: CholeskyQR2 first
    detail::tsqr_factors<T> f;
    bool cholesky = false;
    if (opt.tsqr.method == tsqr_method::automatic) {
      f.q.assign(static_cast<std::size_t>(B), {});
      for (index_t b : mine) f.q[std::size_t(b)] = y[std::size_t(b)];  // row-major
      cholesky = detail::cholesky_qr2_factor_loaded(pol, own, rows, l, f);
    }
    if (!cholesky) {  // (a declined CholeskyQR2 left f empty)
      f.q.assign(static_cast<std::size_t>(B), {});
      for (index_t b : mine) {
        f.q[std::size_t(b)].resize(std::size_t(rows[std::size_t(b)] * l));
        detail::row_to_col_major(y[std::size_t(b)].data(), rows[std::size_t(b)], l, f.q[std::size_t(b)].data());
      }
      detail::tsqr_factor_loaded(pol, own, rows, l, opt.tsqr, f);
    }
    const index_t kq = f.k;
    q.resize(static_cast<std::size_t>(B));
    for (index_t b : mine) q[std::size_t(b)].resize(std::size_t(rows[std::size_t(b)] * kq));
    detail::tsqr_apply_mpi(local, own, f, static_cast<const T*>(nullptr), kq,
                           [&](index_t b) { return q[std::size_t(b)].data(); });
    return kq;
  };

  pass_y(omega_t.data(), false);
  std::vector<std::vector<T>> q;
  std::vector<T> z;
  for (index_t it = 0; it < opt.n_power_iter; ++it) {
    orth_y(q);
    pass_z(q, z);
    std::vector<T> rz;
    detail::qr_in_place<host>(n, l, z, rz);  // the same on every rank
    pass_y(z.data(), true);
  }
  const index_t lq = orth_y(q);
  if (lq != l) throw_invalid("svd_compressed: internal rank mismatch ", lq, " != ", l);
  pass_z(q, z);
  std::vector<T> s, ub, vtk;
  detail::projected_svd(local, z, n, l, k, s, ub, vtk);  // the same on every rank

  auto u = detail::rows_array<T>(own, rows, k);
  auto& store = u.store();
  detail::on_this_rank(error, cause, [&] {
    typename dense<host>::threads_guard g(bt);
    dense<host>::parallel(local, index_t(mine.size()), [&](index_t i) {
      const index_t b = mine[std::size_t(i)];
      dense<host>::gemm(true, false, k, rows[std::size_t(b)], l, T(1), ub.data(), l, q[std::size_t(b)].data(), l, T(0),
                        store.local().block_data(b), k);
    });
  });
  rt::agree(pol.comm, error, cause);
  svd_result<T, distributed_array<T, L>, distributed_array<T, L>> res{
      std::move(u), detail::array_from_vector(s.data(), k),
      detail::on_every_rank(detail::array_from_col_major(vtk.data(), k, n, {k}, a.chunks()[1]))};
  return res;
}

/// The options-before-policy order (svd_compressed.hpp), on MPI ranks.
template <expression_type X, class L>
auto svd_compressed(const X& a, index_t k, const svd_compressed_options& opt, const mpi<L>& pol) {
  return svd_compressed(a, k, pol, opt);
}

}  // namespace tessera::linalg
