// shared_value<T>: an immutable T on the heap, shared by its copies (reference counted).
//
// A node holds its operands in one: a node is then a few words however deep its expression
// (a chain of n operations built in one statement holds n temporaries; by value they took
// O(n^2) stack, 256 chained additions overflowed it) and copying a node copies no subtree.
// std::shared_ptr would do the same, but instantiates about ten functions and a vtable per
// operand type; over a chain of 256 node types that was a third of the compile time
// (docs/reliability.md). This one instantiates a constructor, a destructor and a block type.
#pragma once
#include <atomic>
#include <cstddef>
#include <utility>

namespace tessera::detail {

template <class T>
class shared_value {
 public:
  explicit shared_value(T&& v) : b_(new block{std::move(v)}) {}
  shared_value(const shared_value& o) noexcept : b_(o.b_) {
    b_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  shared_value& operator=(const shared_value& o) noexcept {
    shared_value copy(o);
    std::swap(b_, copy.b_);
    return *this;
  }
  ~shared_value() {
    if (b_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete b_;
  }
  const T& operator*() const { return b_->value; }
  const T* operator->() const { return &b_->value; }

 private:
  struct block {
    T value;
    std::atomic<std::size_t> refs{1};
  };
  block* b_;  // never null (a moved-from value is a copy: moves take the copy constructor)
};

}  // namespace tessera::detail
