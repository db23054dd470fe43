// Leaves over chunk stores: ts::array<T> (in-memory chunks, the result of persist /
// from_xtensor) and ts::stored<S> (any chunk store, e.g. a user's). Both bind through
// view_box (store/chunk_store.hpp): the binding context decides how a box is read.
#pragma once
#include <memory>

#include "../core/expression.hpp"
#include "../store/chunk_store.hpp"
#include "../store/copy.hpp"
#include "../store/memory.hpp"

namespace tessera {

/// An in-memory chunked array. Copies share the chunks (like a persisted Dask array).
template <class T>
class array : public expression<array<T>> {
 public:
  using value_type = T;

  array() : store_(std::make_shared<memory_store<T>>()) {}
  /// Allocates uninitialized chunks for `g`.
  explicit array(chunk_grid g) : store_(std::make_shared<memory_store<T>>(std::move(g))) {}

  const chunk_grid& grid() const { return store_->grid(); }
  const memory_store<T>& store() const { return *store_; }

  /// Pointer to block b (row-major), allocating it on first use.
  T* block_data(index_t b) { return store_->block_data(b); }
  const T* block_data(index_t b) const { return store_->block_pointer(b); }

  template <class Ctx>
  stored_accessor<T> bind(const box& b, Ctx& ctx) const {
    return view_box(*store_, b, ctx);
  }

 private:
  std::shared_ptr<memory_store<T>> store_;
};

/// A leaf over any chunk store (store/chunk_store.hpp); copies share the store.
template <chunk_store S>
class stored : public expression<stored<S>> {
 public:
  using value_type = typename S::value_type;

  explicit stored(std::shared_ptr<const S> s) : store_(std::move(s)) {
    if (!store_) throw_invalid("ts::stored needs a store, got a null pointer");
  }
  const chunk_grid& grid() const { return store_->grid(); }
  const S& store() const { return *store_; }

  template <class Ctx>
  stored_accessor<value_type> bind(const box& b, Ctx& ctx) const {
    return view_box(*store_, b, ctx);
  }

 private:
  std::shared_ptr<const S> store_;
};

/// An expression over the chunks of store s (read lazily: only the chunks a bound box touches).
template <chunk_store S>
stored<S> from_store(std::shared_ptr<S> s) {
  return stored<S>(std::shared_ptr<const S>(std::move(s)));
}

}  // namespace tessera
