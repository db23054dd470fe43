// ts::distributed_array: what persist and the reductions return under ts::mpi. Its chunks stay on
// their owner ranks (a reduction's result, small, is on every rank); an expression that reads a
// box of a chunk owned elsewhere fetches that box, and only it, before its tasks run
// (backend/mpi/backend.hpp).
#pragma once
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "../../core/expression.hpp"
#include "../../exec/backend.hpp"
#include "../../store/chunk_store.hpp"
#include "../../store/copy.hpp"
#include "../../store/remote.hpp"

namespace tessera {
namespace detail::mpi_runtime {

/// The distributed stores alive in this process, by id: a rank serves requests for pieces of
/// its chunks from here.
class store_registry {
 public:
  static store_registry& get() {
    static store_registry r;
    return r;
  }
  std::uint64_t add(const remote_blocks* s) {
    std::lock_guard lock(m_);
    const std::uint64_t id = next_++;
    live_[id] = s;
    return id;
  }
  void remove(std::uint64_t id) {
    std::lock_guard lock(m_);
    live_.erase(id);
  }
  const remote_blocks* find(std::uint64_t id) const {
    std::lock_guard lock(m_);
    auto it = live_.find(id);
    return it == live_.end() ? nullptr : it->second;
  }

 private:
  mutable std::mutex m_;
  std::uint64_t next_ = 1;
  std::map<std::uint64_t, const remote_blocks*> live_;
};

/// Chunks of a grid held by ranks: the local backend's array (the blocks held here) plus the
/// owner of every block.
template <class T, class Local>
class distributed_store final : public remote_blocks {
 public:
  using value_type = T;

  explicit distributed_store(Local local)
      : local_(std::move(local)),
        owner_(std::size_t(local_.grid().block_count()), -1),
        here_(std::size_t(local_.grid().block_count())) {
    id_ = store_registry::get().add(this);
  }
  ~distributed_store() override { store_registry::get().remove(id_); }
  distributed_store(const distributed_store&) = delete;
  distributed_store& operator=(const distributed_store&) = delete;

  const chunk_grid& grid() const { return local_.grid(); }
  memory_space block_space(index_t f) const {
    return here(f) ? local_.store().block_space(f) : memory_space::elsewhere(1 + owner(f));
  }
  const T* block_pointer(index_t f) const { return here(f) ? local_.store().block_pointer(f) : nullptr; }
  void read_block(index_t f, T* out) const {
    if (here(f)) return local_.store().read_block(f, out);
    const box blk = grid().block_box(f);
    std::memcpy(out, fetched(f, blk), std::size_t(blk.count()) * sizeof(T));
  }
  /// The overlap of block f with box b, into dst laid out as b (row-major).
  void read_overlap(index_t f, const box& b, T* dst) const {
    const box blk = grid().block_box(f), piece = intersect(blk, b);
    if (piece.count() == 0) return;
    if (here(f)) {
      std::unique_ptr<T[]> tmp(new T[std::size_t(piece.count())]);  // (vector<bool> has no data())
      copy_out(f, piece, reinterpret_cast<std::byte*>(tmp.get()));
      copy_box_overlap(static_cast<const T*>(tmp.get()), piece, dst, b);
    } else {
      copy_box_overlap(reinterpret_cast<const T*>(fetched(f, piece)), piece, dst, b);
    }
  }

  // remote_blocks
  std::uint64_t id() const override { return id_; }
  int owner(index_t f) const override { return owner_[std::size_t(f)]; }
  bool here(index_t f) const override { return here_[std::size_t(f)].load(std::memory_order_acquire); }
  std::size_t element_size() const override { return sizeof(T); }
  void copy_out(index_t f, const box& region, std::byte* out) const override {
    const box blk = grid().block_box(f);
    const T* p = local_.store().block_pointer(f);
    if (p && local_.store().block_space(f).is_host()) {
      copy_box_overlap(p, blk, reinterpret_cast<T*>(out), region);
    } else {
      std::unique_ptr<T[]> whole(new T[std::size_t(blk.count())]);
      local_.store().read_block(f, whole.get());
      copy_box_overlap(static_cast<const T*>(whole.get()), blk, reinterpret_cast<T*>(out), region);
    }
  }

  /// Set by the backend: block f is owned by rank r (-1: by every rank) and is here or not.
  /// Distinct blocks may be set concurrently.
  void set_owner(index_t f, int r, bool is_here) {
    owner_[std::size_t(f)] = r;
    here_[std::size_t(f)].store(is_here, std::memory_order_release);
  }
  Local& local() { return local_; }
  const Local& local() const { return local_; }

 private:
  const std::byte* fetched(index_t f, const box& piece) const {
    if (const std::byte* p = received(f, piece)) return p;
    throw_invalid("ts::distributed_array: block ", f, " is on rank ", owner(f),
                  " and the box needed here was not fetched: read a distributed array under its ts::mpi policy "
                  "(compute(x, policy)), in a stage's chunk tasks");
  }
  Local local_;
  std::vector<int> owner_;
  std::vector<std::atomic<bool>> here_;
  std::uint64_t id_ = 0;
};

}  // namespace detail::mpi_runtime

template <class L>
struct mpi;

/// An array whose chunks live on the ranks of a ts::mpi policy (persist's result there).
/// Copies share the chunks. Use it in expressions like any array; compute() gathers it.
template <class T, class L>
class distributed_array : public expression<distributed_array<T, L>> {
 public:
  using value_type = T;
  using local_array = typename backend<L>::template array_type<T>;
  using store_type = detail::mpi_runtime::distributed_store<T, local_array>;

  explicit distributed_array(local_array local) : store_(std::make_shared<store_type>(std::move(local))) {}

  const chunk_grid& grid() const { return store_->grid(); }
  /// The rank that owns block b (-1: every rank holds it), and whether it is in this process.
  int owner(index_t b) const { return store_->owner(b); }
  bool here(index_t b) const { return store_->here(b); }
  const store_type& store() const { return *store_; }
  store_type& store() { return *store_; }

  template <class Ctx>
  stored_accessor<T> bind(const box& b, Ctx& ctx) const {
    return view_box(*store_, b, ctx);
  }

 private:
  std::shared_ptr<store_type> store_;
};

}  // namespace tessera
