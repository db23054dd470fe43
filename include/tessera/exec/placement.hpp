// Where a chunk task's inputs live, found once for every backend: the placement probe is a
// binding context that binds nothing and records the bytes of stored input per memory space.
// A backend with several memory spaces (devices, ranks) runs a task where most of its input is.
#pragma once
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "../store/chunk_store.hpp"
#include "../store/evaluated_boxes.hpp"
#include "../store/remote.hpp"

namespace tessera::detail {

/// A store whose blocks are computed from inputs it can bind with a probe (product_store,
/// mapped_block_store): the probe sees those inputs too.
template <class S, class Probe>
concept probes_inputs = requires(const S& s, index_t f, Probe& p) { s.probe_inputs(f, p); };

class placement_probe {
 public:
  memory_space space() const { return memory_space::elsewhere(-1); }
  bool can_read(memory_space) const { return false; }  // every stored box reaches gather()
  template <chunk_store S>
  const typename S::value_type* gather(const S& s, const box& b) {
    const chunk_grid& g = s.grid();
    g.for_each_block_in(b, [&](index_t f) {
      const box piece = intersect(g.block_box(f), b);
      const std::int64_t n = piece.count() * std::int64_t(sizeof(typename S::value_type));
      add(s.block_space(f), n);
      if (piece.count() > 0 && !s.block_pointer(f)) in_place_ = false;  // read whole or computed
      if constexpr (probes_inputs<S, placement_probe>)  // a block computed from inputs
        if (piece.count() > 0) s.probe_inputs(f, *this);
      if constexpr (std::is_base_of_v<remote_blocks, S>) {  // chunks owned by ranks
        const int o = s.owner(f);
        in_place_ = false;
        if (o >= 0 && n > 0) add_rank(o, n);
        if (!s.here(f) && n > 0) remote_.push_back({&s, f, piece, o});
      }
    });
    return nullptr;
  }
  /// Nothing is evaluated while probing (the pieces a box is assembled from were bound, and
  /// so counted, before this is called).
  template <class T>
  T* scratch(index_t) {
    return nullptr;
  }
  template <class Acc, class T>
  void evaluate(const Acc&, const box&, T*, const ivec&) {}
  /// Whether the shared ts::lazy piece `key` is probed over box b for the first time in this
  /// task. A shared piece is evaluated once per task box, so its inputs count once; probing
  /// every reference instead would cost 2^n for n steps of `acc = acc + acc * 0.5`.
  bool first_probe(const void* key, const box& b) {
    if (probed_.recall(key, b)) return false;
    probed_.remember(key, b, key);
    return true;
  }
  /// Bytes of bound input in memory space m.
  std::int64_t bytes_in(memory_space m) const {
    for (auto& [s, n] : bytes_)
      if (s == m) return n;
    return 0;
  }
  const std::vector<std::pair<memory_space, std::int64_t>>& bytes() const { return bytes_; }
  /// Bytes of bound input per owner rank (stores with remote_blocks only), and the pieces of
  /// blocks that are not in this process.
  const std::vector<std::pair<int, std::int64_t>>& rank_bytes() const { return rank_bytes_; }
  const std::vector<remote_piece>& remote() const { return remote_; }
  /// Whether every stored block bound lies in this process's memory (block_pointer), so that
  /// binding part of a block reads only that part: false when a block is read whole (files)
  /// or computed (read_block), or is owned by a rank (remote_blocks, on every rank alike).
  bool reads_parts_in_place() const { return in_place_; }

 private:
  void add_rank(int r, std::int64_t n) {
    for (auto& [s, k] : rank_bytes_)
      if (s == r) {
        k += n;
        return;
      }
    rank_bytes_.emplace_back(r, n);
  }
  void add(memory_space m, std::int64_t n) {
    for (auto& [s, k] : bytes_)
      if (s == m) {
        k += n;
        return;
      }
    bytes_.emplace_back(m, n);
  }
  std::vector<std::pair<memory_space, std::int64_t>> bytes_;
  std::vector<std::pair<int, std::int64_t>> rank_bytes_;
  std::vector<remote_piece> remote_;
  evaluated_boxes probed_;  // shared lazy pieces already probed, by box
  bool in_place_ = true;
};

/// The chunk tasks of one driver: task t evaluates (or folds) box_of(t) of the lowered
/// expression `expr`; output_itemsize > 0 when each task leaves its box resident in the
/// backend's storage (persist).
template <class E, class BoxOf>
struct chunk_tasks {
  const E& expr;
  BoxOf box_of;
  index_t n;
  index_t output_itemsize = 0;

  index_t count() const { return n; }
  box task_box(index_t t) const { return box_of(t); }
  /// Elements the task evaluates (its share of the work).
  index_t work(index_t t) const { return box_of(t).count(); }
  /// Bytes of the task's inputs per memory space.
  placement_probe where(index_t t) const {
    placement_probe p;
    const box b = box_of(t);
    if (b.count() > 0) (void)expr.bind(b, p);
    return p;
  }
  std::int64_t output_bytes(index_t t) const { return box_of(t).count() * output_itemsize; }
};

template <class E, class BoxOf>
chunk_tasks<E, BoxOf> make_tasks(const E& e, index_t n, BoxOf box_of, index_t output_itemsize = 0) {
  return {e, std::move(box_of), n, output_itemsize};
}

}  // namespace tessera::detail
