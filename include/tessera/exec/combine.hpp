// The reduction combine tree, written once for every backend: the per-chunk partials of one
// output block are merged in a fixed tree of fan-in split_every over the reduced-axes block
// index R, each tree node merged (children left to right) as soon as its children have been
// delivered. The tree and the merge order depend only on the chunking and split_every, so a
// result is bitwise identical for any thread count, device count or completion order.
// Partial buffers are recycled: a buffer merged into its parent, or a finished root, goes back
// to the tree and the next leaf reuses it (a fresh multi-MiB buffer per chunk cost page faults
// and zeroing: 40% of a reduction over a thinly chunked axis).
#pragma once
#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "../config.hpp"

namespace tessera::detail {

template <class Op>
class combine_tree {
 public:
  using state = typename Op::state;
  using part_ptr = std::unique_ptr<state[]>;

  /// nK output blocks of partials(K) states each, nR partials per output block; finish(K,
  /// merged partials) receives each output block's root exactly once.
  template <class Size>
  combine_tree(const Op& op, index_t nK, index_t nR, int split_every, Size partials)
      : op_(op), nK_(nK), nR_(nR) {
    // A fan-in above the number of blocks builds the same one-node tree: clamped, so that
    // split_every = INT_MAX does not allocate INT_MAX slots.
    fan_ = std::min<index_t>(split_every, std::max<index_t>(nR, 2));
    level_n_.push_back(nR);
    level_base_.push_back(0);
    while (level_n_.back() > 1) {
      level_base_.push_back(nodes_);
      level_n_.push_back((level_n_.back() + fan_ - 1) / fan_);
      nodes_ += level_n_.back();
    }
    done_ = std::vector<std::atomic<int>>(std::size_t(nK * nodes_));
    slots_.resize(std::size_t(nK * nodes_ * fan_));
    leaves_.resize(std::size_t(nK * nR));
    size_.resize(std::size_t(nK));
    for (index_t K = 0; K < nK; ++K) size_[std::size_t(K)] = partials(K);
  }

  /// Identity-initialized partials of task t = K * nR + R, owned by the tree until delivered.
  state* leaf(index_t t) {
    const index_t P = size_[std::size_t(t / nR_)];
    part_ptr& p = leaves_[std::size_t(t)];
    p = take(std::max<index_t>(P, 1));
    const state id = op_.identity();
    for (index_t j = 0; j < P; ++j) p[std::size_t(j)] = id;
    return p.get();
  }

  /// Hands task t's partials to the tree (thread-safe); runs finish(K, root) when it completes
  /// output block K.
  template <class Finish>
  void deliver(index_t t, Finish&& finish) {
    const index_t K = t / nR_;
    const index_t P = size_[std::size_t(K)];
    part_ptr p = std::move(leaves_[std::size_t(t)]);
    std::size_t lev = 0;
    index_t i = t % nR_;
    while (level_n_[lev] > 1) {
      const index_t node = i / fan_, slot = i % fan_;
      const std::size_t gid = std::size_t(K * nodes_ + level_base_[lev + 1] + node);
      slots_[gid * std::size_t(fan_) + std::size_t(slot)] = std::move(p);
      const index_t kids = std::min(fan_, level_n_[lev] - node * fan_);
      if (done_[gid].fetch_add(1, std::memory_order_acq_rel) + 1 != kids) return;
      p = std::move(slots_[gid * std::size_t(fan_)]);
      for (index_t k = 1; k < kids; ++k) {
        part_ptr& q = slots_[gid * std::size_t(fan_) + std::size_t(k)];
        for (index_t j = 0; j < P; ++j) op_.merge(p[std::size_t(j)], q[std::size_t(j)]);
        give_back(std::move(q), std::max<index_t>(P, 1));
      }
      ++lev;
      i = node;
    }
    finish(K, static_cast<const state*>(p.get()));
    give_back(std::move(p), std::max<index_t>(P, 1));
  }

 private:
  /// A buffer of at least n states: a recycled one when there is one, else a new one.
  part_ptr take(index_t n) {
    {
      std::lock_guard<std::mutex> lock(spare_mutex_);
      for (std::size_t k = spare_.size(); k-- > 0;)
        if (spare_[k].first >= n) {
          part_ptr p = std::move(spare_[k].second);
          spare_.erase(spare_.begin() + std::ptrdiff_t(k));
          return p;
        }
    }
    return part_ptr(new state[std::size_t(n)]);
  }
  /// Keeps a buffer of n states for a later leaf.
  void give_back(part_ptr p, index_t n) {
    std::lock_guard<std::mutex> lock(spare_mutex_);
    spare_.emplace_back(n, std::move(p));
  }

  Op op_;
  index_t nK_, nR_, fan_ = 2, nodes_ = 0;
  std::vector<index_t> level_n_, level_base_, size_;
  std::vector<std::atomic<int>> done_;
  std::vector<part_ptr> slots_, leaves_;
  std::mutex spare_mutex_;
  std::vector<std::pair<index_t, part_ptr>> spare_;  // (capacity, buffer) for later leaves
};

}  // namespace tessera::detail
