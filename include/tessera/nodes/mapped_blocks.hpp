// mapped_blocks<R, X...>: a user's host function applied to whole blocks (Dask's map_blocks and
// map_overlap; blocks.hpp builds it). Unlike every other node it is not fused: f is opaque host
// code over xtensor views of whole input blocks. lower(policy) lowers the inputs for the host
// and returns a stored<> leaf over a detail::mapped_block_store, a chunk store whose
// read_block(b) evaluates the input boxes of output block b on the host, calls f (held as a
// std::function returning xt::xarray<R>: no node type names the user's function) and checks
// the shape of its result. The binding context decides the rest (store/chunk_store.hpp): a host
// task gathers the block into its scratch, a device task gathers it on the host and copies it
// to the device. So a block is computed when a chunk task touches it, once per task that
// touches it (a consumer whose tasks follow the output's chunks computes each block once), and
// nothing is kept: memory stays bounded by the blocks in flight.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xstrided_view.hpp>

#include "../backend/host/context.hpp"
#include "../backend/host/kernel.hpp"
#include "../backend/host/policy.hpp"
#include "../core/errors.hpp"
#include "../core/expression.hpp"
#include "../core/pack.hpp"
#include "../store/chunk_store.hpp"
#include "elementwise.hpp"
#include "stored.hpp"

namespace tessera {

struct host;

/// Where one block lies in one array (Dask's block_info entries).
struct block_location {
  std::vector<index_t> chunk_location;  // the block's index along each axis
  std::vector<index_t> num_chunks;      // blocks along each axis
  std::vector<std::pair<index_t, index_t>> array_location;  // [start, stop) along each axis
  shape_t shape;                        // the whole array's shape
  /// The block's own shape (stop - start along each axis).
  shape_t block_shape() const {
    shape_t s;
    for (auto [a, b] : array_location) s.push_back(b - a);
    return s;
  }
};

/// What a map_blocks function may ask about the block it computes (Dask's block_info): the
/// output block (block_info[None] in Dask) and, in inputs[i], the box of input i it was given
/// (for map_overlap: the block with its halo, in the array's coordinates: a halo beyond the
/// array's edge starts below 0 or ends past its length).
struct block_info : block_location {
  std::vector<block_location> inputs;
};

namespace detail {

/// The box of input i that output block k reads, and how much of f's result is halo.
struct block_input_layout {
  bcast map;      // output (unified input grid) axes -> this input's axes
  /// blockwise: the unified grid's axis of each of this input's axes, -1 for an axis read
  /// whole (an index contracted away); empty: `map` says it
  std::vector<int> axis_of;
  ivec halo;      // map_overlap: cells added on each side of each axis (output axes)
  bool clip = true;  // halo cut at the array's edges (boundary "none"); else read from `shift`
  ivec shift;     // offset of the input's origin (a padded input: the halo width)
  shape_t shape;  // the input's own shape (after padding)
};

struct block_layout {
  chunk_grid out;      // the output grid
  chunk_grid in;       // the unified grid of the inputs (output block k reads input block k)
  std::vector<block_input_layout> inputs;
  bool trim = false;   // map_overlap: f returns the block with its halo, cut afterwards
  std::string name;    // "map_blocks" / "map_overlap" (messages, diagnostics)
};

/// Input i's box for the unified block box `u` (in the input's coordinates) and the halo it
/// carries below and above along each output axis.
inline box input_box(const block_input_layout& in, const box& u, ivec* below = nullptr,
                     ivec* above = nullptr) {
  if (below) {
    below->n = above->n = u.rank();
    for (int d = 0; d < u.rank(); ++d) (*below)[d] = (*above)[d] = 0;
  }
  if (!in.axis_of.empty()) {  // blockwise
    box e;
    e.lo.n = e.hi.n = int(in.axis_of.size());
    for (int d = 0; d < e.lo.n; ++d) {
      const int o = in.axis_of[std::size_t(d)];
      e.lo[d] = o < 0 ? 0 : u.lo[o];
      e.hi[d] = o < 0 ? in.shape[std::size_t(d)] : u.hi[o];
    }
    return e;
  }
  if (in.halo.n == 0) return in.map.identity() ? u : in.map.map_box(u);  // map_blocks
  box e = u;  // output coordinates, extended by the halo (map_overlap: one input, same rank)
  for (int d = 0; d < u.rank(); ++d) {
    const index_t h = in.halo.n > d ? in.halo[d] : 0;
    index_t lo = u.lo[d] - h + (in.shift.n > d ? in.shift[d] : 0);
    index_t hi = u.hi[d] + h + (in.shift.n > d ? in.shift[d] : 0);
    if (in.clip) {
      const index_t n = in.shape[std::size_t(d)];
      lo = std::max<index_t>(lo, 0);
      hi = std::min<index_t>(hi, n);
    }
    if (below) {
      (*below)[d] = (u.lo[d] + (in.shift.n > d ? in.shift[d] : 0)) - lo;
      (*above)[d] = hi - (u.hi[d] + (in.shift.n > d ? in.shift[d] : 0));
    }
    e.lo[d] = lo;
    e.hi[d] = hi;
  }
  return e;
}

inline std::vector<std::size_t> xshape(const box& b) {
  std::vector<std::size_t> s(std::size_t(b.rank()));
  for (int d = 0; d < b.rank(); ++d) s[std::size_t(d)] = std::size_t(b.extent(d));
  return s;
}

inline block_location locate(const chunk_grid& g, const box& b, const ivec& k) {
  block_location l;
  const shape_t nb = g.numblocks();
  for (int d = 0; d < b.rank(); ++d) {
    l.chunk_location.push_back(k[d]);
    l.num_chunks.push_back(nb[std::size_t(d)]);
    l.array_location.emplace_back(b.lo[d], b.hi[d]);
  }
  l.shape = g.shape();
  return l;
}

template <class T>
using block_view = decltype(xt::adapt(std::declval<T*>(), std::size_t(0), xt::no_ownership(),
                                      std::declval<const std::vector<std::size_t>&>()));

template <bool WithInfo, class F, class... V>
struct invoke_block {
  using type = std::invoke_result_t<const F&, const block_info&, V&...>;
};
template <class F, class... V>
struct invoke_block<false, F, V...> {
  using type = std::invoke_result_t<const F&, V&...>;
};

/// f's result for blocks of element types T...: called with block_info first when it takes it.
template <class F, class... T>
struct block_result {
  static constexpr bool with_info =
      std::is_invocable_v<const F&, const block_info&, block_view<T>&...>;
  static_assert(with_info || std::is_invocable_v<const F&, block_view<T>&...>,
                "map_blocks: f must be callable as f(blocks...) or f(ts::block_info, blocks...), "
                "one xtensor view per input array (take them as const auto&)");
  using type = std::remove_cvref_t<typename invoke_block<with_info, F, block_view<T>...>::type>;
  static_assert(requires { typename type::value_type; },
                "map_blocks: f must return an xtensor expression or container of the block's "
                "shape (e.g. xt::xarray<T>), not a scalar");
  using value_type = typename type::value_type;
};

/// f behind one call signature: the block_info and one view per input in, the block out.
/// (Erased so that no node or store type names the user's function: nvcc cannot name a host
/// lambda's type in the kernels a reduction of the result launches.)
template <class R, class... T>
using block_function = std::function<xt::xarray<R>(const block_info&, block_view<T>&...)>;

template <class R, class... T, class F>
std::shared_ptr<const block_function<R, T...>> erase_block_function(F f) {
  return std::make_shared<const block_function<R, T...>>(
      [f = std::move(f)](const block_info& info, block_view<T>&... v) -> xt::xarray<R> {
        if constexpr (block_result<F, T...>::with_info) return f(info, v...);
        else return f(v...);
      });
}

/// The chunk store behind a lowered mapped_blocks node: block b is f of its input boxes.
template <class R, class... L>
class mapped_block_store {
 public:
  using value_type = R;
  using function_type = block_function<R, typename L::value_type...>;
  mapped_block_store(std::shared_ptr<const function_type> f, std::shared_ptr<const block_layout> layout,
                     L... inputs)
      : f_(std::move(f)), layout_(std::move(layout)), inputs_{{std::move(inputs)}...} {}

  const chunk_grid& grid() const { return layout_->out; }
  memory_space block_space(index_t) const { return memory_space::on_host(); }
  const R* block_pointer(index_t) const { return nullptr; }  // computed when read

  void read_block(index_t b, R* out) const {
    read(b, out, std::index_sequence_for<L...>{});
  }

  /// Binds the input boxes block b reads with the placement probe, so a backend sees (and
  /// fetches) the stored input behind a block (ts::mpi: distributed inputs).
  template <class Probe>
  void probe_inputs(index_t b, Probe& probe) const {
    probe_each(b, probe, std::index_sequence_for<L...>{});
  }

 private:
  template <class Probe, std::size_t... I>
  void probe_each(index_t b, Probe& probe, std::index_sequence<I...>) const {
    [[maybe_unused]] const box ub = layout_->in.block_box(b);
    ivec below, above;
    (probe_one<I>(ub, probe, I == 0 ? &below : nullptr, I == 0 ? &above : nullptr), ...);
  }
  template <std::size_t I, class Probe>
  void probe_one(const box& ub, Probe& probe, ivec* below, ivec* above) const {
    const box ib = input_box(layout_->inputs[I], ub, below, above);
    if (ib.count() > 0) (void)get<I>(inputs_).bind(ib, probe);
  }

  template <std::size_t... I>
  void read(index_t b, R* out, std::index_sequence<I...>) const {
    const block_layout& lay = *layout_;
    const ivec k = lay.out.block_index(b);
    const box ob = lay.out.block_box(b);
    [[maybe_unused]] const box ub = lay.in.block_box(b);  // the same block numbers: the grids have the same numblocks
    block_info info;
    static_cast<block_location&>(info) = locate(lay.out, ob, k);
    ivec below, above;  // halo of the (first) input, cut from f's result (map_overlap)
    // Each input's box evaluated on the host into a buffer of its own.
    std::vector<std::unique_ptr<std::byte[]>> buffers;
    info.inputs.resize(sizeof...(L));
    [[maybe_unused]] auto views = std::make_tuple(evaluate<I>(k, ub, info, buffers, I == 0 ? &below : nullptr,
                                             I == 0 ? &above : nullptr)...);
    const xt::xarray<R> r = (*f_)(info, std::get<I>(views)...);
    std::vector<std::size_t> want = xshape(ob);
    if (lay.trim)
      for (int d = 0; d < ob.rank(); ++d) want[std::size_t(d)] += std::size_t(below[d] + above[d]);
    bool same = r.dimension() == want.size();
    for (std::size_t d = 0; same && d < want.size(); ++d) same = std::size_t(r.shape()[d]) == want[d];
    if (!same) {
      std::vector<index_t> got;
      for (std::size_t d = 0; d < r.dimension(); ++d) got.push_back(index_t(r.shape()[d]));
      std::vector<index_t> w(want.begin(), want.end());
      throw_invalid(lay.name, ": f returned shape ", got, " for block ",
                    std::vector<index_t>(info.chunk_location), " but that block has shape ", w,
                    lay.trim ? " (the block with its halo)"
                             : (lay.name == "map_overlap" ? " (without its halo: trim = false)" : ""),
                    "; declare other block shapes with ts::out_chunks");
    }
    auto dst = xt::adapt(out, std::size_t(ob.count()), xt::no_ownership(), xshape(ob));
    if (!lay.trim) {
      xt::noalias(dst) = r;
    } else {
      xt::xstrided_slice_vector sv;
      for (int d = 0; d < ob.rank(); ++d) sv.push_back(xt::range(below[d], below[d] + ob.extent(d)));
      xt::noalias(dst) = xt::strided_view(r, sv);
    }
  }

  template <std::size_t I>
  auto evaluate(const ivec& k, const box& ub, block_info& info,
                std::vector<std::unique_ptr<std::byte[]>>& buffers, ivec* below, ivec* above) const {
    using E = std::tuple_element_t<I, std::tuple<L...>>;
    using T = typename E::value_type;
    const block_input_layout& in = layout_->inputs[I];
    const E& e = get<I>(inputs_);
    const box ib = input_box(in, ub, below, above);
    buffers.emplace_back(new std::byte[std::size_t(std::max<index_t>(ib.count(), 1)) * sizeof(T) + 64]);
    T* p = reinterpret_cast<T*>(buffers.back().get());
    if (ib.count() > 0) {
      host_context ctx;
      write_box(e.bind(ib, ctx), ib, p, row_major_strides(ib));
    }
    ivec ki;
    ki.n = ib.rank();
    std::vector<index_t> nb;  // blocks along each of the input's axes (unified grid; 1: whole)
    for (int d = 0; d < ib.rank(); ++d) {
      const int o = in.axis_of.empty() ? ((in.map.stretched >> d) & 1u ? -1 : d + in.map.offset)
                                       : in.axis_of[std::size_t(d)];
      ki[d] = o < 0 ? 0 : k[o];
      nb.push_back(o < 0 ? 1 : layout_->in.numblocks()[std::size_t(o)]);
    }
    block_location l = locate(e.grid(), ib, ki);
    l.num_chunks = nb;
    for (int d = 0; d < in.shift.n; ++d) {  // a padded input: in the unpadded array's coordinates
      l.array_location[std::size_t(d)].first -= in.shift[d];
      l.array_location[std::size_t(d)].second -= in.shift[d];
      l.shape[std::size_t(d)] -= 2 * in.shift[d];
    }
    info.inputs[I] = std::move(l);  // (the inputs are evaluated in no particular order)
    T* const data = p;  // adapted by value (an lvalue would be held by reference)
    return block_view<T>(xt::adapt(static_cast<T*>(data), std::size_t(ib.count()), xt::no_ownership(), xshape(ib)));
  }

  std::shared_ptr<const function_type> f_;
  std::shared_ptr<const block_layout> layout_;
  pack<L...> inputs_;
};

}  // namespace detail

/// f applied to whole blocks of X... (see the header comment); R is f's result's value type.
template <class R, class... X>
class mapped_blocks : public expression<mapped_blocks<R, X...>> {
 public:
  using value_type = R;
  using function_type = detail::block_function<R, typename X::value_type...>;
  static constexpr bool lowers_away = true;  // to a stored leaf (diagnostics/graph.hpp)
  mapped_blocks(std::shared_ptr<const function_type> f, std::shared_ptr<const detail::block_layout> layout,
                X... inputs)
      : f_(std::move(f)), layout_(std::move(layout)), inputs_{{std::move(inputs)}...} {}

  const chunk_grid& grid() const { return layout_->out; }
  /// The inputs, read with detail::get<I>(operands()) (graph.hpp: for_each_operand).
  const detail::pack<X...>& operands() const { return inputs_; }
  const detail::block_layout& layout() const { return *layout_; }
  /// diagnostics/graph.hpp: "map_blocks" or "map_overlap".
  const std::string& node_label() const { return layout_->name; }

  /// A leaf over the block store, its inputs lowered for the host (f is host code: on any
  /// backend the blocks are computed on the host and the binding context moves them).
  template <class P>
  auto lower(const P& policy) const {
    return lowered(policy, std::index_sequence_for<X...>{});
  }

 private:
  template <class P, std::size_t... I>
  auto lowered(const P& policy, std::index_sequence<I...>) const {
    const auto& hp = host_policy(policy);
    using S = detail::mapped_block_store<R, std::remove_cvref_t<decltype(detail::get<I>(inputs_).lower(hp))>...>;
    return stored<S>(std::make_shared<const S>(f_, layout_, detail::get<I>(inputs_).lower(hp)...));
  }
  template <class P>
  static decltype(auto) host_policy(const P& policy) {
    if constexpr (std::is_same_v<P, host>) return (policy);
    else return host{};
  }

  std::shared_ptr<const function_type> f_;
  std::shared_ptr<const detail::block_layout> layout_;
  detail::pack<X...> inputs_;
};

}  // namespace tessera
