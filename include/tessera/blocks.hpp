// Block functions (Dask's map_blocks, map_overlap): a user's host function over whole blocks.
//
//   ts::map_blocks(f, x, y, ...)                      f(xb, yb, ...) per block, or
//                                                     f(info, xb, yb, ...) with ts::block_info
//   ts::map_blocks(f, ts::out_chunks(c), x, ...)      f returns blocks of other shapes: c
//   ts::map_blocks(f, ts::out_chunks(c))              no inputs: f(info) makes each block
//   ts::map_blocks(f, ts::drop_axis{1}, x, ...)       f removes axes (passed whole to f) or
//   ts::map_blocks(f, ts::new_axis{0}, x, ...)        adds axes (one chunk of length 1 or given)
//   ts::from_blocks(f, shape, chunks)                 the same, with NumPy-style shape/chunks
//   ts::blockwise(f, "ik", x, "ij", y, "jk")         index notation: contracted axes whole
//   ts::map_overlap(f, x, depth, boundary[, value])   f sees each block with a halo of `depth`
//   ts::map_overlap(f, ts::overlap{...}, x, y, ...)   (several arrays of one shape)
//                                                     cells ("none", "reflect", "periodic",
//                                                     "nearest", "constant"); its result's halo
//                                                     is cut off again (Dask's trim=True; with
//                                                     trim = false f returns the block without
//                                                     its halo itself)
//
// f receives one xtensor view per input (xt::adapt over a host buffer holding the block; take
// it as `const auto&`) and returns an xtensor expression or container of the block's shape;
// the result's element type is f's. Inputs are broadcast against each other as NumPy does
// (an axis of length 1 is passed as it is, unbroadcast, as Dask does) and split on the common
// refinement of their chunks. f runs on the host for every backend (nodes/mapped_blocks.hpp),
// possibly on several threads at once, and may be called more than once for a block: it must
// be a pure function of its arguments. An exception thrown by f reaches the caller of
// compute/persist like any failing chunk task.
#pragma once
#include <algorithm>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "nodes/mapped_blocks.hpp"
#include "pad.hpp"

namespace tessera {

/// The output chunks of a map_blocks whose f changes the blocks' shapes: one list per axis,
/// with as many blocks along each axis as the inputs have (Dask's chunks=).
struct out_chunks {
  chunks_t chunks;
  explicit out_chunks(chunks_t c) : chunks(std::move(c)) {}
};

/// Axes of the inputs (aligned at the end, as broadcasting does) that f removes (Dask's
/// drop_axis=): they are passed to f whole (the blocks along them concatenated), and the
/// output lacks them. `ts::drop_axis{1}`, `ts::drop_axis{{0, 2}}`.
struct drop_axis {
  std::vector<index_t> axes;
  drop_axis(std::initializer_list<index_t> a) : axes(a) {}
  explicit drop_axis(std::vector<index_t> a) : axes(std::move(a)) {}
};
/// Axes of the output that f adds (Dask's new_axis=), at these positions of the output, each
/// one chunk of length `lengths[i]` (1 when not given). `ts::new_axis{0}`,
/// `ts::new_axis({0, 3}, {2, 5})`.
struct new_axis {
  std::vector<index_t> axes;
  std::vector<index_t> lengths;
  new_axis(std::initializer_list<index_t> a) : axes(a) {}
  explicit new_axis(std::vector<index_t> a, std::vector<index_t> len = {}) : axes(std::move(a)), lengths(std::move(len)) {}
};

namespace detail {

inline chunk_grid declared_grid(const chunks_t& c) {
  shape_t shape;
  for (const auto& axis : c) {
    index_t n = 0;
    for (index_t k : axis) n += k;
    shape.push_back(n);
  }
  return chunk_grid(shape, c);
}

template <class F, class... X>
auto make_mapped_blocks(F f, std::shared_ptr<block_layout> layout, const X&... xs) {
  using R = typename block_result<F, typename X::value_type...>::value_type;
  return mapped_blocks<R, X...>(erase_block_function<R, typename X::value_type...>(std::move(f)),
                                std::move(layout), xs...);
}

/// The layout of map_blocks over inputs with grids `grids`: unified (broadcast) input grid;
/// output grid the same or `declared`.
inline std::shared_ptr<block_layout> blocks_layout(std::initializer_list<const chunk_grid*> grids,
                                                   const chunks_t* declared) {
  auto lay = std::make_shared<block_layout>();
  lay->name = "map_blocks";
  std::vector<bcast> maps(grids.size());
  lay->in = broadcast_grid(grids, maps.data());
  std::size_t i = 0;
  for (const chunk_grid* g : grids) {
    block_input_layout in;
    in.map = maps[i++];
    in.shape = g->shape();
    lay->inputs.push_back(in);
  }
  if (!declared) {
    lay->out = lay->in;
    return lay;
  }
  const chunk_grid out = declared_grid(*declared);
  const shape_t nb = lay->in.numblocks(), ob = out.numblocks();
  if (nb != ob)
    throw_invalid("map_blocks: out_chunks give ", ob, " blocks per axis but the inputs have ", nb,
                  " (unified chunks ", lay->in.chunks(), "); give one chunk length per input "
                  "block on each axis");
  lay->out = out;
  return lay;
}

}  // namespace detail

/// f applied to each block of xs... (see the header comment); the output has the inputs'
/// (broadcast) shape and the common refinement of their chunks.
template <class F, expression_type... X>
  requires(sizeof...(X) > 0)
auto map_blocks(F f, const X&... xs) {
  return detail::make_mapped_blocks(std::move(f), detail::blocks_layout({&xs.grid()...}, nullptr), xs...);
}

/// f applied to each block of xs..., returning blocks of the shapes `chunks` declares (block k
/// of the output comes from block k of the inputs). With no inputs, f(info) makes each block.
template <class F, expression_type... X>
auto map_blocks(F f, const out_chunks& chunks, const X&... xs) {
  if constexpr (sizeof...(X) == 0) {
    auto lay = std::make_shared<detail::block_layout>();
    lay->name = "map_blocks";
    lay->out = lay->in = detail::declared_grid(chunks.chunks);
    return detail::make_mapped_blocks(std::move(f), std::move(lay));
  } else {
    return detail::make_mapped_blocks(std::move(f), detail::blocks_layout({&xs.grid()...}, &chunks.chunks), xs...);
  }
}

/// A lazy array whose blocks f(info) makes (a callback per chunk: only the blocks a
/// computation touches are made). Chunks as everywhere (a length for all axes, one per axis,
/// lists, or automatic).
template <class F>
auto from_blocks(F f, const shape_t& shape, const chunks_arg& chunks = {}) {
  using R = typename detail::block_result<F>::value_type;
  const chunk_grid g = chunk_grid::make(shape, chunks, sizeof(R));
  return map_blocks(std::move(f), out_chunks(g.chunks()));
}

namespace detail {

/// The layout of blockwise: each letter's length and the common refinement of the chunks of
/// every input axis that carries it; the output's axes are out's letters.
inline std::shared_ptr<block_layout> blockwise_layout(const std::string& out,
                                                      const std::vector<std::string>& ins,
                                                      const std::vector<const chunk_grid*>& grids,
                                                      const std::string& new_letters = {},
                                                      const std::vector<index_t>& new_lengths = {}) {
  std::vector<char> letters;
  std::vector<index_t> length;
  std::vector<std::vector<index_t>> chunks;
  auto find = [&letters](char c) {
    const auto it = std::find(letters.begin(), letters.end(), c);
    return it == letters.end() ? -1 : int(it - letters.begin());
  };
  for (std::size_t i = 0; i < ins.size(); ++i) {
    const chunk_grid& g = *grids[i];
    if (int(ins[i].size()) != g.rank())
      throw_invalid("blockwise: input ", i, " has ", g.rank(), " dimensions but index '", ins[i], "' names ",
                    ins[i].size());
    for (std::size_t d = 0; d < ins[i].size(); ++d) {
      const char c = ins[i][d];
      if (ins[i].find(c) != d)
        throw_invalid("blockwise: index '", ins[i], "' of input ", i, " repeats '", std::string(1, c),
                      "' (diagonals are not supported)");
      const int k = find(c);
      if (k < 0) {
        letters.push_back(c);
        length.push_back(g.shape()[d]);
        chunks.push_back(g.chunks()[d]);
      } else if (length[std::size_t(k)] != g.shape()[d]) {
        throw_invalid("blockwise: index '", std::string(1, c), "' has length ", length[std::size_t(k)],
                      " in one input and ", g.shape()[d], " in input ", i);
      } else {
        chunks[std::size_t(k)] = refine(chunks[std::size_t(k)], g.chunks()[d]);
      }
    }
  }
  shape_t shape;
  chunks_t ch;
  for (std::size_t j = 0; j < new_letters.size(); ++j) {  // axes only the output has: one chunk
    letters.push_back(new_letters[j]);
    length.push_back(new_lengths[j]);
    chunks.push_back({new_lengths[j]});
  }
  for (std::size_t o = 0; o < out.size(); ++o) {
    const int k = find(out[o]);
    if (k < 0)
      throw_invalid("blockwise: output index '", out, "' has '", std::string(1, out[o]),
                    "', which no input has (new axes are not supported)");
    if (out.find(out[o]) != o) throw_invalid("blockwise: output index '", out, "' repeats a letter");
    shape.push_back(length[std::size_t(k)]);
    ch.push_back(chunks[std::size_t(k)]);
  }
  auto lay = std::make_shared<block_layout>();
  lay->name = "blockwise";
  lay->out = lay->in = chunk_grid(shape, ch);
  for (std::size_t i = 0; i < ins.size(); ++i) {
    block_input_layout in;
    in.shape = grids[i]->shape();
    for (char c : ins[i]) {
      const auto p = out.find(c);
      in.axis_of.push_back(p == std::string::npos ? -1 : int(p));
    }
    lay->inputs.push_back(in);
  }
  return lay;
}

template <class F, class... X>
auto make_blockwise(F f, const std::string& out, const std::vector<std::string>& ins, const X&... xs) {
  return make_mapped_blocks(std::move(f), blockwise_layout(out, ins, {&xs.grid()...}), xs...);
}

template <class T>
concept index_string = std::is_convertible_v<const T&, std::string_view>;

inline pad_mode overlap_mode(std::string_view b) {
  if (b == "none" || b == "constant") return pad_mode::constant;
  if (b == "reflect") return pad_mode::symmetric;  // Dask's reflect repeats the edge cell
  if (b == "periodic") return pad_mode::wrap;
  if (b == "nearest") return pad_mode::edge;
  throw_invalid("map_overlap: boundary '", b,
                "' is not one of none, reflect, periodic, nearest, constant");
}
}  // namespace detail

/// Dask's blockwise in index notation: `ts::blockwise(f, "ik", x, "ij", y, "jk")` calls f once
/// per output block with the matching block of each input: an axis whose letter is in the
/// output index is cut like the output (the common refinement of the chunks of every axis with
/// that letter), an axis whose letter is not is passed whole (Dask's concatenate=True), so a
/// contraction inside f sees the full contracted extent. f returns the output block (its
/// shape: the output's block along each letter), whose type gives the element type.
template <class F, class... A>
auto blockwise(F f, std::string_view out_index, const A&... args) {
  static_assert(sizeof...(A) % 2 == 0 && sizeof...(A) > 0,
                "blockwise: pass arrays and their index strings in pairs: x, \"ij\", y, \"jk\"");
  const auto t = std::forward_as_tuple(args...);
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    static_assert((expression_type<std::tuple_element_t<2 * I, std::tuple<A...>>> && ...),
                  "blockwise: every even argument after the output index must be an array");
    static_assert((detail::index_string<std::tuple_element_t<2 * I + 1, std::tuple<A...>>> && ...),
                  "blockwise: every array must be followed by its index string");
    return detail::make_blockwise(std::move(f), std::string(out_index),
                                  std::vector<std::string>{std::string(std::string_view(std::get<2 * I + 1>(t)))...},
                                  std::get<2 * I>(t)...);
  }(std::make_index_sequence<sizeof...(A) / 2>{});
}

namespace detail {
/// map_blocks with axes dropped and/or added: a blockwise over the inputs' axes aligned at the
/// end (internal letters), the output's letters without the dropped ones, with the new ones.
template <class F, class... X>
auto map_blocks_axes(F f, const std::vector<index_t>& drop, const new_axis& add, const X&... xs) {
  const int r = std::max({xs.dimension()...});
  std::vector<bool> dropped(std::size_t(r), false);
  for (int d : normalize_axes(drop, r, "map_blocks drop_axis")) dropped[std::size_t(d)] = true;
  // every input axis must have its axis's full length (no broadcasting of length-1 axes here)
  shape_t full(std::size_t(r), -1);
  auto note = [&](const shape_t& s) {
    for (std::size_t d = 0; d < s.size(); ++d) {
      index_t& f = full[std::size_t(r) - s.size() + d];
      if (f >= 0 && f != s[d])
        throw_invalid("map_blocks with drop_axis/new_axis: input axes of lengths ", f, " and ", s[d],
                      " (inputs aligned at the end) must be equal; broadcast_to them first");
      f = s[d];
    }
  };
  (note(xs.shape()), ...);
  auto letter = [](int d) { return char(1 + d); };  // internal letters: one per input axis
  std::string kept;
  for (int d = 0; d < r; ++d)
    if (!dropped[std::size_t(d)]) kept.push_back(letter(d));
  const int out_rank = int(kept.size() + add.axes.size());
  if (!add.lengths.empty() && add.lengths.size() != add.axes.size())
    throw_invalid("map_blocks new_axis: ", add.axes.size(), " axes but ", add.lengths.size(), " lengths");
  std::string out(std::size_t(out_rank), '\0'), added;
  std::vector<index_t> lengths;
  const std::vector<int> at = normalize_axes(add.axes, out_rank, "map_blocks new_axis");
  for (std::size_t j = 0; j < at.size(); ++j) {
    const char c = char(100 + int(j));
    out[std::size_t(at[j])] = c;
    added.push_back(c);
    const index_t len = add.lengths.empty() ? 1 : add.lengths[j];
    if (len < 0) throw_invalid("map_blocks new_axis: negative length ", len);
    lengths.push_back(len);
  }
  std::size_t next = 0;
  for (char& c : out)
    if (c == '\0') c = kept[next++];
  std::vector<std::string> ins;
  auto index_of = [&](int rank) {
    std::string s;
    for (int d = r - rank; d < r; ++d) s.push_back(letter(d));
    return s;
  };
  (ins.push_back(index_of(xs.dimension())), ...);
  auto lay = blockwise_layout(out, ins, {&xs.grid()...}, added, lengths);
  lay->name = "map_blocks";
  return make_mapped_blocks(std::move(f), std::move(lay), xs...);
}
}  // namespace detail

/// f removes the axes `drop` of the inputs (passed to f whole; see ts::drop_axis).
template <class F, expression_type... X>
  requires(sizeof...(X) > 0)
auto map_blocks(F f, const drop_axis& drop, const X&... xs) {
  return detail::map_blocks_axes(std::move(f), drop.axes, new_axis(std::vector<index_t>{}), xs...);
}
/// f adds the output axes `add` (see ts::new_axis).
template <class F, expression_type... X>
  requires(sizeof...(X) > 0)
auto map_blocks(F f, const new_axis& add, const X&... xs) {
  return detail::map_blocks_axes(std::move(f), {}, add, xs...);
}
/// Both: the dropped axes are the inputs', the new ones positions of the output.
template <class F, expression_type... X>
  requires(sizeof...(X) > 0)
auto map_blocks(F f, const drop_axis& drop, const new_axis& add, const X&... xs) {
  return detail::map_blocks_axes(std::move(f), drop.axes, add, xs...);
}

/// Options of map_overlap over several arrays (Dask's keyword arguments): `depth` one entry
/// per axis or one for every axis, `boundary` and `value` as below, `trim`.
struct overlap {
  std::vector<index_t> depth;
  std::string boundary = "none";
  double value = 0;
  bool trim = true;
};

/// f applied to each block of xs... (arrays of one shape, split on the common refinement of
/// their chunks), each extended by `depth[d]` cells on both sides of axis d, taken from the
/// neighbouring blocks, or beyond the array's edges as `boundary` says: "none" (no halo
/// there), "reflect" (mirrored, edge cell repeated: NumPy's symmetric), "periodic" (wrapped),
/// "nearest" (edge cell repeated), "constant" (`value`). f returns the extended block's shape;
/// the halo is cut from its result (trim = false: f returns the block's own shape, having cut
/// the halo itself: Dask's trim=False; block_info says how much halo each side got). Depth may
/// exceed a chunk's length.
template <class F, expression_type... X>
  requires(sizeof...(X) > 0)
auto map_overlap(F f, const overlap& o, const X&... xs) {
  const auto& first = std::get<0>(std::forward_as_tuple(xs...));
  const int r = first.dimension();
  std::vector<index_t> depth = o.depth;
  if (depth.size() == 1 && r != 1) depth.assign(std::size_t(r), o.depth[0]);
  if (int(depth.size()) != r)
    throw_invalid("map_overlap: depth ", o.depth, " has ", o.depth.size(), " entries but the array has ",
                  r, " dimensions");
  for (index_t d : depth)
    if (d < 0) throw_invalid("map_overlap: depth ", o.depth, " has a negative entry");
  chunks_t chunks = first.chunks();
  auto unify = [&](const auto& x) {
    if (x.shape() != first.shape())
      throw_invalid("map_overlap: the arrays have shapes ", first.shape(), " and ", x.shape(),
                    "; they must have one shape (broadcast_to them first)");
    for (int d = 0; d < r; ++d) chunks[std::size_t(d)] = detail::refine(chunks[std::size_t(d)], x.chunks()[std::size_t(d)]);
  };
  (unify(xs), ...);
  const pad_mode mode = detail::overlap_mode(o.boundary);
  const bool none = o.boundary == "none";
  std::vector<std::pair<index_t, index_t>> widths;
  for (index_t d : depth) widths.emplace_back(none ? 0 : d, none ? 0 : d);
  auto lay = std::make_shared<detail::block_layout>();
  lay->name = "map_overlap";
  lay->trim = o.trim;
  lay->out = lay->in = chunk_grid(first.shape(), chunks);
  detail::block_input_layout in;
  in.halo.n = in.shift.n = r;
  for (int d = 0; d < r; ++d) {
    in.halo[d] = depth[std::size_t(d)];
    in.shift[d] = none ? 0 : depth[std::size_t(d)];
  }
  in.clip = none;
  auto padded = [&](const auto& x) {
    auto p = pad(x, widths, mode, o.value);
    in.shape = p.shape();
    lay->inputs.push_back(in);
    return p;
  };
  // (each input's layout pushed in order: the pads are made left to right)
  auto inputs = std::tuple{padded(xs)...};
  return std::apply([&](const auto&... p) { return detail::make_mapped_blocks(std::move(f), lay, p...); }, inputs);
}

/// One array: `ts::map_overlap(f, x, depth, boundary, value, trim)` (depth per axis).
template <class F, expression_type X>
auto map_overlap(F f, const X& x, const std::vector<index_t>& depth,
                 std::string_view boundary = "none", double value = 0, bool trim = true) {
  if (int(depth.size()) != x.dimension())
    throw_invalid("map_overlap: depth ", depth, " has ", depth.size(), " entries but the array has ",
                  x.dimension(), " dimensions");
  return map_overlap(std::move(f), overlap{depth, std::string(boundary), value, trim}, x);
}

/// The same depth on every axis.
template <class F, expression_type X>
auto map_overlap(F f, const X& x, index_t depth, std::string_view boundary = "none", double value = 0,
                 bool trim = true) {
  return map_overlap(std::move(f), x, std::vector<index_t>(std::size_t(x.dimension()), depth), boundary,
                     value, trim);
}

}  // namespace tessera
