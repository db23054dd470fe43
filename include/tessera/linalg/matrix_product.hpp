// The lazy matrix product (NumPy's matmul, Dask's a @ b): ts::matmul(a, b) without a policy.
// Neither operand is materialized: output block (batch..., i, j) is the sum over the contraction
// chunks p of a's box (batch..., rows i, p) times b's box (batch..., p, columns j), each box
// evaluated on the host when the block is read, multiplied with dense<host>::gemm (OpenBLAS) for
// float and double, with exact wrapping loops for integers. Memory per block in flight: one box
// of each operand and the output block. An operand's box is evaluated once per output block that
// reads it (b's column blocks for a, a's row blocks for b): persist an expensive operand that
// many output blocks read.
//
// NumPy's rules: 1-d a is a row (1, k) and 1-d b a column (k, 1), the added axis removed from
// the result; leading (batch) axes broadcast; a 0-d operand throws. The node lowers to a
// stored<> leaf over detail::product_store (as map_blocks: computed on the host, any backend's
// binding context gathers the blocks it needs); ts::matmul(a, b, pol) (linalg/matmul.hpp) is
// the eager product computed at the call.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "../backend/host/context.hpp"
#include "../backend/host/kernel.hpp"
#include "../backend/host/policy.hpp"
#include "../core/expression.hpp"
#include "../core/pack.hpp"
#include "../core/promote.hpp"
#include "../manipulation.hpp"
#include "../nodes/stored.hpp"
#include "../reduce/dtype.hpp"
#include "../view.hpp"
#include "dense_host.hpp"

namespace tessera {

namespace detail {

/// c (m x n) += a (m x k) b (k x n), all row-major. Floats through BLAS; integers wrap as
/// NumPy's (computed in unsigned arithmetic, so no signed overflow).
template <class T>
void gemm_accumulate(index_t m, index_t n, index_t k, const T* a, const T* b, T* c) {
  if (m == 0 || n == 0 || k == 0) return;
  if constexpr (std::is_floating_point_v<T>) {
    // row-major c = a b  <=>  column-major c' = b' a'
    linalg::dense<host>::gemm(false, false, n, m, k, T(1), b, n, a, k, T(1), c, n);
  } else {
    using W = std::conditional_t<(sizeof(T) <= 4), std::uint32_t, std::uint64_t>;
    for (index_t r = 0; r < m; ++r) {
      T* cr = c + r * n;
      for (index_t p = 0; p < k; ++p) {
        const W av = W(a[r * k + p]);
        const T* br = b + p * n;
        for (index_t j = 0; j < n; ++j) cr[j] = T(W(cr[j]) + av * W(br[j]));
      }
    }
  }
}

/// Chunks of the product: the output grid (batch..., m, n) and the contraction chunks.
struct product_layout {
  chunk_grid out;
  std::vector<index_t> contraction;  // chunks of the k axis (both operands' boundaries)
};

/// The chunk store behind a lowered matrix_product: block b computed from the operand boxes.
template <class T, class LA, class LB>
class product_store {
 public:
  using value_type = T;
  product_store(std::shared_ptr<const product_layout> layout, LA a, LB b)
      : layout_(std::move(layout)), a_(std::move(a)), b_(std::move(b)) {}

  const chunk_grid& grid() const { return layout_->out; }
  memory_space block_space(index_t) const { return memory_space::on_host(); }
  const T* block_pointer(index_t) const { return nullptr; }  // computed when read

  /// Binds the operand boxes block blk reads with the placement probe, so a backend sees (and
  /// fetches) the stored input behind a product block (ts::mpi: distributed operands).
  template <class Probe>
  void probe_inputs(index_t blk, Probe& probe) const {
    const box ob = layout_->out.block_box(blk);
    if (ob.count() == 0) return;
    const int r = ob.rank();
    index_t k0 = 0;
    for (index_t kk : layout_->contraction) {
      if (kk > 0) {
        box ab = ob, bb = ob;
        ab.lo[r - 1] = k0;
        ab.hi[r - 1] = k0 + kk;
        bb.lo[r - 2] = k0;
        bb.hi[r - 2] = k0 + kk;
        (void)a_.bind(ab, probe);
        (void)b_.bind(bb, probe);
      }
      k0 += kk;
    }
  }

  void read_block(index_t blk, T* out) const {
    const box ob = layout_->out.block_box(blk);
    std::fill(out, out + ob.count(), T(0));
    if (ob.count() == 0) return;
    const int r = ob.rank();
    const index_t mi = ob.extent(r - 2), nj = ob.extent(r - 1);
    index_t batches = 1, kmax = 0;
    for (int d = 0; d < r - 2; ++d) batches *= ob.extent(d);
    for (index_t c : layout_->contraction) kmax = std::max(kmax, c);
    std::vector<T> abuf(std::size_t(batches * mi * kmax)), bbuf(std::size_t(batches * kmax * nj));
    index_t k0 = 0;
    for (index_t kk : layout_->contraction) {
      if (kk > 0) {
        box ab = ob, bb = ob;  // batch axes as the output's; then (rows, k) and (k, columns)
        ab.lo[r - 1] = k0;
        ab.hi[r - 1] = k0 + kk;
        bb.lo[r - 2] = k0;
        bb.hi[r - 2] = k0 + kk;
        load(a_, ab, abuf.data());
        load(b_, bb, bbuf.data());
        for (index_t t = 0; t < batches; ++t)
          gemm_accumulate(mi, nj, kk, abuf.data() + t * mi * kk, bbuf.data() + t * kk * nj,
                          out + t * mi * nj);
      }
      k0 += kk;
    }
  }

 private:
  template <class L>
  static void load(const L& e, const box& bx, T* dst) {
    host_context ctx;
    write_box(e.bind(bx, ctx), bx, dst, row_major_strides(bx));
  }

  std::shared_ptr<const product_layout> layout_;
  LA a_;
  LB b_;
};

}  // namespace detail

/// The product of A (batch..., m, k) and B (batch..., k, n), both already broadcast to the
/// output's batch shape and of the same element type (see the header comment).
template <class A, class B>
class matrix_product : public expression<matrix_product<A, B>> {
 public:
  using value_type = typename A::value_type;
  static_assert(std::is_same_v<value_type, typename B::value_type>);
  static constexpr bool lowers_away = true;  // to a stored leaf (diagnostics/graph.hpp)
  matrix_product(A a, B b, std::shared_ptr<const detail::product_layout> layout)
      : operands_{{std::move(a)}, {std::move(b)}}, layout_(std::move(layout)) {}

  const chunk_grid& grid() const { return layout_->out; }
  /// The operands, read with detail::get<I>(operands()) (graph.hpp: for_each_operand).
  const detail::pack<A, B>& operands() const { return operands_; }
  const std::string& node_label() const {
    static const std::string label = "matmul";
    return label;
  }

  /// A leaf over the product store, the operands lowered for the host.
  template <class P>
  auto lower(const P&) const {
    const host hp{};
    using LA = std::remove_cvref_t<decltype(detail::get<0>(operands_).lower(hp))>;
    using LB = std::remove_cvref_t<decltype(detail::get<1>(operands_).lower(hp))>;
    using S = detail::product_store<value_type, LA, LB>;
    return stored<S>(std::make_shared<const S>(layout_, detail::get<0>(operands_).lower(hp),
                                               detail::get<1>(operands_).lower(hp)));
  }

 private:
  detail::pack<A, B> operands_;
  std::shared_ptr<const detail::product_layout> layout_;
};

namespace linalg {

/// NumPy's matmul (Dask's a @ b), lazy: see the header comment. The element type is the
/// operands' common type (NumPy's promotion); bool operands are refused.
template <expression_type A, expression_type B>
auto matmul(const A& a, const B& b) {
  using T = promote_t<typename A::value_type, typename B::value_type>;
  static_assert(!std::is_same_v<T, bool>, "matmul of bool arrays: cast them to an integer type first");
  const int ra = a.dimension(), rb = b.dimension();
  if (ra == 0 || rb == 0)
    throw_invalid("matmul: a 0-d operand (shapes ", a.shape(), " and ", b.shape(),
                  "); multiply by a scalar with * instead");
  // 1-d operands as a row / a column (the same node types for any rank: chosen at run time)
  auto a2 = expand_dims(tessera::detail::in_dtype<T>(a), ra == 1 ? std::vector<index_t>{0} : std::vector<index_t>{});
  auto b2 = expand_dims(tessera::detail::in_dtype<T>(b), rb == 1 ? std::vector<index_t>{1} : std::vector<index_t>{});
  const shape_t& sa = a2.shape();
  const shape_t& sb = b2.shape();
  const int na = int(sa.size()), nb = int(sb.size());
  const index_t m = sa[std::size_t(na - 2)], k = sa[std::size_t(na - 1)], n = sb[std::size_t(nb - 1)];
  if (sb[std::size_t(nb - 2)] != k)
    throw_invalid("matmul: shapes ", a.shape(), " and ", b.shape(), " are not aligned (", k,
                  " != ", sb[std::size_t(nb - 2)], ")");
  // batch axes broadcast (NumPy), chunks: the operand's own, or both operands' boundaries
  const int batch = std::max(na, nb) - 2;
  shape_t out_shape;
  chunks_t out_chunks;
  for (int d = 0; d < batch; ++d) {
    const int da = d - (batch - (na - 2)), db = d - (batch - (nb - 2));
    const index_t la = da >= 0 ? sa[std::size_t(da)] : 1, lb = db >= 0 ? sb[std::size_t(db)] : 1;
    if (la != lb && la != 1 && lb != 1)
      throw_invalid("matmul: batch axes of shapes ", a.shape(), " and ", b.shape(),
                    " do not broadcast (", la, " against ", lb, ")");
    const index_t len = std::max(la, lb);
    std::vector<index_t> c;
    if (la == len && da >= 0) c = a2.chunks()[std::size_t(da)];
    if (lb == len && db >= 0) c = c.empty() ? b2.chunks()[std::size_t(db)] : tessera::detail::refine(c, b2.chunks()[std::size_t(db)]);
    if (c.empty()) c = {len};
    out_shape.push_back(len);
    out_chunks.push_back(std::move(c));
  }
  auto full = [&](index_t rows, index_t cols, const std::vector<index_t>& rc, const std::vector<index_t>& cc) {
    shape_t s = out_shape;
    chunks_t c = out_chunks;
    s.push_back(rows);
    s.push_back(cols);
    c.push_back(rc);
    c.push_back(cc);
    return std::make_pair(s, c);
  };
  const auto [sa_full, ca_full] = full(m, k, a2.chunks()[std::size_t(na - 2)], a2.chunks()[std::size_t(na - 1)]);
  const auto [sb_full, cb_full] = full(k, n, b2.chunks()[std::size_t(nb - 2)], b2.chunks()[std::size_t(nb - 1)]);
  auto layout = std::make_shared<tessera::detail::product_layout>();
  auto [so, co] = full(m, n, a2.chunks()[std::size_t(na - 2)], b2.chunks()[std::size_t(nb - 1)]);
  layout->out = chunk_grid(so, co);
  layout->contraction = tessera::detail::refine(a2.chunks()[std::size_t(na - 1)], b2.chunks()[std::size_t(nb - 2)]);
  auto ab = broadcast_to(a2, sa_full, chunks_t(ca_full));
  auto bb = broadcast_to(b2, sb_full, chunks_t(cb_full));
  matrix_product<decltype(ab), decltype(bb)> p(std::move(ab), std::move(bb), std::move(layout));
  // the axes added for 1-d operands removed again (a view that keeps every axis otherwise)
  slice_vector s;
  const int ro = batch + 2;
  for (int d = 0; d < ro; ++d)
    s.push_back((ra == 1 && d == ro - 2) || (rb == 1 && d == ro - 1) ? slice(0) : slice(all()));
  return dynamic_view(p, s);
}

}  // namespace linalg
}  // namespace tessera
