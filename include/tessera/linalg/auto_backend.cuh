// ts::linalg on ts::auto_backend (ts::best): every factorization runs with the CUDA policy when
// a usable device exists, otherwise with the host policy (after the one-line notice), with the
// same results up to rounding. Included by <tessera/linalg.hpp> in .cu translation units.
#pragma once
#include "../backend/cuda/auto_backend.cuh"
#include "dense_cuda.cuh"
#include "matmul.hpp"
#include "svd.hpp"
#include "svd_compressed.hpp"
#include "tsqr.hpp"
#include "tsqr_cuda.cuh"

namespace tessera::linalg {

// tsqr/qr/svd return Q and U as ts::device_array on both branches (host chunks on the
// fallback, as ts::persist(x, ts::auto_backend{}) does), so code does not change between
// machines.
template <expression_type X>
qr_result<detail::real_of<X>, device_array<detail::real_of<X>>> tsqr(const X& a, const auto_backend& pol,
                                                                     const tsqr_options& opt = {}) {
  if (tessera::detail::cuda_backend::auto_uses_gpu()) return tsqr(a, pol.gpu, opt);
  auto r = tsqr(a, pol.cpu, opt);
  return {device_array<detail::real_of<X>>::on_host(std::move(r.q)), std::move(r.r)};
}

template <expression_type X>
qr_result<detail::real_of<X>, device_array<detail::real_of<X>>> qr(const X& a, const auto_backend& pol,
                                                                   const tsqr_options& opt = {}) {
  return tsqr(a, pol, opt);
}

template <expression_type X>
svd_result<detail::real_of<X>, device_array<detail::real_of<X>>> svd(const X& a, const auto_backend& pol,
                                                                     const tsqr_options& opt = {}) {
  if (tessera::detail::cuda_backend::auto_uses_gpu()) return svd(a, pol.gpu, opt);
  auto r = svd(a, pol.cpu, opt);
  return {device_array<detail::real_of<X>>::on_host(std::move(r.u)), std::move(r.s), std::move(r.vt)};
}

template <expression_type X>
svd_result<detail::real_of<X>> svd_compressed(const X& a, index_t k, const auto_backend& pol,
                                              const svd_compressed_options& opt = {}) {
  if (tessera::detail::cuda_backend::auto_uses_gpu()) return svd_compressed(a, k, pol.gpu, opt);
  return svd_compressed(a, k, pol.cpu, opt);
}

/// Options before the policy: kept for compatibility (svd_compressed.hpp).
template <expression_type X>
svd_result<detail::real_of<X>> svd_compressed(const X& a, index_t k, const svd_compressed_options& opt,
                                              const auto_backend& pol) {
  return svd_compressed(a, k, pol, opt);
}

template <expression_type A, expression_type B>
array<detail::real_of<A>> matmul(const A& a, const B& b, const auto_backend& pol) {
  if (tessera::detail::cuda_backend::auto_uses_gpu()) return matmul(a, b, pol.gpu);
  return matmul(a, b, pol.cpu);
}

}  // namespace tessera::linalg
