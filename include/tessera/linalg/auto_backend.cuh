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

namespace tessera::linalg {

template <expression_type X>
qr_result<detail::real_of<X>> tsqr(const X& a, const auto_backend& pol, const tsqr_options& opt = {}) {
  if (tessera::detail::cu::auto_uses_gpu()) return tsqr(a, pol.gpu, opt);
  return tsqr(a, pol.cpu, opt);
}

template <expression_type X>
qr_result<detail::real_of<X>> qr(const X& a, const auto_backend& pol, const tsqr_options& opt = {}) {
  return tsqr(a, pol, opt);
}

template <expression_type X>
svd_result<detail::real_of<X>> svd(const X& a, const auto_backend& pol, const tsqr_options& opt = {}) {
  if (tessera::detail::cu::auto_uses_gpu()) return svd(a, pol.gpu, opt);
  return svd(a, pol.cpu, opt);
}

template <expression_type X>
svd_result<detail::real_of<X>> svd_compressed(const X& a, index_t k, const svd_compressed_options& opt,
                                              const auto_backend& pol) {
  if (tessera::detail::cu::auto_uses_gpu()) return svd_compressed(a, k, opt, pol.gpu);
  return svd_compressed(a, k, opt, pol.cpu);
}

template <expression_type A, expression_type B>
array<detail::real_of<A>> matmul(const A& a, const B& b, const auto_backend& pol) {
  if (tessera::detail::cu::auto_uses_gpu()) return matmul(a, b, pol.gpu);
  return matmul(a, b, pol.cpu);
}

}  // namespace tessera::linalg
