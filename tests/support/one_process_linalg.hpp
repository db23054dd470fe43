// With support/one_process.hpp, for tests/mpi/test_mpi_linalg.cpp: every factorization the shared
// linalg bodies make on ts::mpi<ts::host> (tsqr, qr, svd, svd_compressed, lstsq) is also made in
// this one process with the policy's local policy, and every factor is checked to have the
// same bits (the distributed Q / U gathered by the ranks).
#pragma once
#include <tessera/linalg_mpi.hpp>

#include "one_process.hpp"

namespace testing {
template <class T, class D, class One>
void check_factor_same_as_one_process(const D& ranks, const One& one, const tessera::mpi<tessera::host>& pol) {
  auto got = tessera::compute(ranks, pol);
  if (pol.root >= 0 && pol.rank() != pol.root) return;
  check_same_as_one_process<T>(got, tessera::compute(one, pol.local));
}
template <class T, class R, class One>
void check_svd_same_as_one_process(const R& r, const One& one, const tessera::mpi<tessera::host>& pol) {
  check_factor_same_as_one_process<T>(r.u, one.u, pol);
  check_factor_same_as_one_process<T>(r.s, one.s, pol);
  check_factor_same_as_one_process<T>(r.vt, one.vt, pol);
}
}  // namespace testing

// Each is more specialized than the library's overload for mpi<L>, which it calls (explicit
// template arguments <X, host> select that one).
namespace tessera::linalg {

template <expression_type X>
auto tsqr(const X& a, const mpi<host>& pol, const tsqr_options& opt = {}) {
  using T = detail::real_of<X>;
  auto r = tsqr<X, host>(a, pol, opt);
  auto one = tsqr(a, pol.local, opt);
  testing::check_factor_same_as_one_process<T>(r.q, one.q, pol);
  testing::check_factor_same_as_one_process<T>(r.r, one.r, pol);
  return r;
}

template <expression_type X>
auto qr(const X& a, const mpi<host>& pol, const tsqr_options& opt = {}) {
  return tsqr(a, pol, opt);
}

template <expression_type X>
auto svd(const X& a, const mpi<host>& pol, const tsqr_options& opt = {}) {
  using T = detail::real_of<X>;
  auto r = svd<X, host>(a, pol, opt);
  auto one = svd(a, pol.local, opt);
  testing::check_svd_same_as_one_process<T>(r, one, pol);
  return r;
}

template <expression_type X>
auto svd_compressed(const X& a, index_t k, const mpi<host>& pol, const svd_compressed_options& opt = {}) {
  using T = detail::real_of<X>;
  auto r = svd_compressed<X, host>(a, k, pol, opt);
  auto one = svd_compressed(a, k, pol.local, opt);
  testing::check_svd_same_as_one_process<T>(r, one, pol);
  return r;
}

template <expression_type X>
auto svd_compressed(const X& a, index_t k, const svd_compressed_options& opt, const mpi<host>& pol) {
  return svd_compressed(a, k, pol, opt);
}

template <expression_type A, expression_type B>
auto lstsq(const A& a, const B& b, const mpi<host>& pol) {
  using T = detail::real_of<A>;
  auto r = lstsq<A, B, host>(a, b, pol);
  auto one = lstsq(a, b, pol.local);
  CHECK(r.rank == one.rank);
  testing::check_factor_same_as_one_process<T>(r.x, one.x, pol);
  testing::check_factor_same_as_one_process<T>(r.residuals, one.residuals, pol);
  testing::check_factor_same_as_one_process<T>(r.s, one.s, pol);
  return r;
}

}  // namespace tessera::linalg
