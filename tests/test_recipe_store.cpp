// The "add a chunk store" recipe of docs/architecture.md, compiled and run: a store whose chunks
// are produced by a user callback when a task first needs them (a stand-in for a file format or
// a remote source). It supplies the four members of the chunk_store concept; ts::from_store
// makes it an expression leaf, and every backend reads it through its binding context.
#include <catch2/catch.hpp>

#include <functional>
#include <mutex>
#include <set>
#include <stdexcept>
#include <xtensor/xarray.hpp>
#include <xtensor/xview.hpp>

#include "support/recipe_backend.hpp"
#include "support/cases.hpp"

namespace ts = tessera;

namespace {

/// Chunks computed by `produce(box, out)` on demand; records which chunks were read.
template <class T>
class callback_store {
 public:
  using value_type = T;
  using producer = std::function<void(const ts::box&, T*)>;

  callback_store(ts::chunk_grid g, producer produce) : grid_(std::move(g)), produce_(std::move(produce)) {}

  const ts::chunk_grid& grid() const { return grid_; }
  ts::memory_space block_space(ts::index_t) const { return ts::memory_space::elsewhere(1); }
  const T* block_pointer(ts::index_t) const { return nullptr; }  // never addressable: read it
  void read_block(ts::index_t b, T* out) const {
    {
      std::lock_guard lock(m_);
      read_.push_back(b);
    }
    produce_(grid_.block_box(b), out);
  }

  std::set<ts::index_t> blocks_read() const {
    std::lock_guard lock(m_);
    return {read_.begin(), read_.end()};
  }
  std::size_t reads() const {
    std::lock_guard lock(m_);
    return read_.size();
  }
  void forget() {
    std::lock_guard lock(m_);
    read_.clear();
  }

 private:
  ts::chunk_grid grid_;
  producer produce_;
  mutable std::mutex m_;
  mutable std::vector<ts::index_t> read_;
};

/// value(i, j) = 1000 i + j, written row-major over the chunk's box.
void fill_index(const ts::box& b, double* out) {
  for (ts::index_t i = b.lo[0]; i < b.hi[0]; ++i)
    for (ts::index_t j = b.lo[1]; j < b.hi[1]; ++j) *out++ = 1000.0 * double(i) + double(j);
}

xt::xarray<double> dense_index(std::size_t m, std::size_t n) {
  xt::xarray<double> a = xt::xarray<double>::from_shape({m, n});
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) a(i, j) = 1000.0 * double(i) + double(j);
  return a;
}

bool same_array(const xt::xarray<double>& a, const xt::xarray<double>& b) { return a == b; }

}  // namespace

TEMPLATE_TEST_CASE("a callback store is read lazily by every backend", "[store][recipe]", ts::host,
                   recipe::staged) {
  TestType pol{};
  auto store = std::make_shared<callback_store<double>>(ts::chunk_grid::make({100, 80}, {13, 17}, 8),
                                                        fill_index);
  auto a = ts::from_store(store);
  const auto ref = dense_index(100, 80);

  // Whole array and an expression over it: every chunk read once per evaluation.
  CHECK(same_array(ts::compute(a, pol), ref));
  CHECK(store->reads() == std::size_t(a.grid().block_count()));
  store->forget();
  CHECK(same_array(ts::compute(a * 2.0 + 1.0, pol), ref * 2.0 + 1.0));

  // A view touches rows 20..29 (row chunks 1 and 2) and columns 0..9 (column chunk 0): only
  // those two chunks are produced.
  store->forget();
  auto v = ts::compute(ts::view(a, ts::range(20, 30), ts::range(0, 10)), pol);
  CHECK(same_array(v, xt::xarray<double>(xt::view(ref, xt::range(20, 30), xt::range(0, 10)))));
  CHECK(store->blocks_read() == std::set<ts::index_t>{1 * 5 + 0, 2 * 5 + 0});

  // A reduction folds the store's chunks like any other input.
  CHECK(ts::item(ts::sum(a), pol) == Approx(xt::sum(ref)()).epsilon(1e-14));
}

TEMPLATE_TEST_CASE("a failing chunk read reports its error and leaves the store usable",
                   "[store][recipe][fault]", ts::host, recipe::staged) {
  TestType pol{};
  std::atomic<bool> fail{true};
  auto store = std::make_shared<callback_store<double>>(
      ts::chunk_grid::make({30, 30}, {10, 10}, 8), [&fail](const ts::box& b, double* out) {
        if (fail && b.lo[0] == 10 && b.lo[1] == 20)
          throw std::runtime_error("chunk (1, 2) is unreadable");
        fill_index(b, out);
      });
  auto a = ts::from_store(store);
  CHECK_THROWS_WITH(ts::compute(a + 1.0, pol), "chunk (1, 2) is unreadable");
  fail = false;
  CHECK(same_array(ts::compute(a + 1.0, pol), dense_index(30, 30) + 1.0));
  CHECK_THROWS_AS(ts::stored<callback_store<double>>(nullptr), std::invalid_argument);
}
