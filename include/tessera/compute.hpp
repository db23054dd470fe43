// Evaluation entry points: compute (to xt::xarray), persist (to the policy's chunked storage),
// item, and from_xtensor.
#pragma once
#include <xtensor/xarray.hpp>

#include "backend/host.hpp"
#include "exec/drivers.hpp"
#include "nodes/stored.hpp"

namespace tessera {

/// Copies an xtensor expression into a new chunked array.
template <class E>
auto from_xtensor(const xt::xexpression<E>& e, const chunks_arg& chunks = {}) {
  using T = typename E::value_type;
  xt::xarray<T> a = e.derived_cast();
  shape_t shape(a.shape().begin(), a.shape().end());
  array<T> out(chunk_grid::make(shape, chunks, sizeof(T)));
  const chunk_grid& g = out.grid();
  const box whole = g.whole();
  for (index_t b = 0; b < g.block_count(); ++b) {
    box bx = g.block_box(b);
    T* dst = out.block_data(b);
    if (bx.count() > 0) detail::copy_box_overlap(a.data(), whole, dst, bx);
  }
  return out;
}

}  // namespace tessera
