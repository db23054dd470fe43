// The array methods of expression<D> (core/expression.hpp): NumPy's / Dask's x.sum(),
// x.persist(), x.T(), ... each calling the free function of the same name with x first.
#pragma once
#include "exec/drivers.hpp"
#include "nodes/rechunk.hpp"
#include "nodes/remap.hpp"
#include "ops/arith.hpp"
#include "reduce.hpp"
#include "reshape.hpp"

namespace tessera {

template <class D>
template <class P>
auto expression<D>::persist(const P& policy) const {
  return tessera::persist(derived(), policy);
}
template <class D>
auto expression<D>::rechunk(const chunks_arg& chunks) const {
  return tessera::rechunk(derived(), chunks);
}
template <class D>
auto expression<D>::T() const {
  return tessera::transpose(derived());
}
template <class D>
auto expression<D>::transpose() const {
  return tessera::transpose(derived());
}
template <class D>
auto expression<D>::reshape(const shape_t& shape) const {
  return tessera::reshape(derived(), shape);
}
template <class D>
auto expression<D>::ravel() const {
  return tessera::ravel(derived());
}
template <class D>
auto expression<D>::flatten() const {
  return tessera::ravel(derived());
}
template <class D>
template <class U>
auto expression<D>::astype() const {
  return tessera::cast<U>(derived());
}

#define TESSERA_MEMBER_REDUCTION(name, fn)                                   \
  template <class D>                                                         \
  auto expression<D>::name() const {                                         \
    return tessera::fn(derived());                                           \
  }                                                                          \
  template <class D>                                                         \
  auto expression<D>::name(index_t axis) const {                             \
    return tessera::fn(derived(), std::vector<index_t>{axis});               \
  }                                                                          \
  template <class D>                                                         \
  auto expression<D>::name(const std::vector<index_t>& axes) const {         \
    return tessera::fn(derived(), axes);                                     \
  }
#define TESSERA_MEMBER_DTYPE_REDUCTION(name, fn)                             \
  template <class D>                                                         \
  template <class R>                                                         \
  auto expression<D>::name() const {                                         \
    return tessera::fn<R>(derived());                                        \
  }                                                                          \
  template <class D>                                                         \
  template <class R>                                                         \
  auto expression<D>::name(index_t axis) const {                             \
    return tessera::fn<R>(derived(), std::vector<index_t>{axis});            \
  }                                                                          \
  template <class D>                                                         \
  template <class R>                                                         \
  auto expression<D>::name(const std::vector<index_t>& axes) const {         \
    return tessera::fn<R>(derived(), axes);                                  \
  }
TESSERA_MEMBER_DTYPE_REDUCTION(sum, sum)
TESSERA_MEMBER_DTYPE_REDUCTION(prod, prod)
TESSERA_MEMBER_DTYPE_REDUCTION(mean, mean)
TESSERA_MEMBER_DTYPE_REDUCTION(var, variance)
#undef TESSERA_MEMBER_DTYPE_REDUCTION
TESSERA_MEMBER_REDUCTION(max, amax)
TESSERA_MEMBER_REDUCTION(min, amin)
TESSERA_MEMBER_REDUCTION(any, any)
TESSERA_MEMBER_REDUCTION(all, all)
#undef TESSERA_MEMBER_REDUCTION

template <class D>
auto expression<D>::argmax() const {
  return tessera::argmax(derived());
}
template <class D>
auto expression<D>::argmax(index_t axis) const {
  return tessera::argmax(derived(), std::vector<index_t>{axis});
}
template <class D>
auto expression<D>::argmin() const {
  return tessera::argmin(derived());
}
template <class D>
auto expression<D>::argmin(index_t axis) const {
  return tessera::argmin(derived(), std::vector<index_t>{axis});
}
template <class D>
template <class R>
auto expression<D>::cumsum() const {
  return tessera::cumsum<R>(derived());
}
template <class D>
template <class R>
auto expression<D>::cumsum(index_t axis) const {
  return tessera::cumsum<R>(derived(), axis);
}
template <class D>
template <class R>
auto expression<D>::cumprod() const {
  return tessera::cumprod<R>(derived());
}
template <class D>
template <class R>
auto expression<D>::cumprod(index_t axis) const {
  return tessera::cumprod<R>(derived(), axis);
}

}  // namespace tessera
