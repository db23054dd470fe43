// The "add a backend" recipe (tests/support/recipe_backend.hpp): the core test bodies of
// tests/test_core.cpp run on the toy backend, plus what only a backend with its own memory space
// shows: a stage's result stays in that space for the next stage.
#include "support/recipe_backend.hpp"
#define TESSERA_TEST_BACKENDS recipe::staged
#include "test_core.cpp"

TEST_CASE("a stage result stays in the backend's memory space", "[recipe][staging]") {
  // (40, 60) generated input: nothing stored on the host.
  auto x = ts::full<double>({40, 60}, 1.5, {7, 11}) * ts::sin(ts::arange<double>(0, 60, 1, {13}));
  auto s = ts::sum(x, {1});                  // stage 1: a reduction
  auto z = ts::amax(ts::abs(s - ts::mean(s)));  // stages 2 and 3 read stage 1's result
  STATIC_REQUIRE(std::is_same_v<decltype(s.lower(recipe::staged{})), recipe::staged_array<double>>);
  STATIC_REQUIRE(std::is_same_v<decltype(ts::persist(x, recipe::staged{})), recipe::staged_array<double>>);
  recipe::transfers().reset();
  const double v = ts::item(z * 2.0, recipe::staged{});
  CHECK(recipe::transfers().host_chunks_read == 0);  // no stage read host memory
  CHECK(recipe::transfers().results_to_host == 1);   // only item() brought data back
  CHECK(recipe::transfers().blocks_from_host > 0);   // the combine tree's roots, written back
  CHECK(v == ts::item(z * 2.0, ts::host{}));         // same folds, same tree: same bits
  // The reduction at the top: its roots (host states) are finalized into item's result, so
  // nothing of it goes to the backend's space and back.
  recipe::transfers().reset();
  CHECK(ts::item(z, recipe::staged{}) == v / 2.0);
  CHECK(recipe::transfers().host_chunks_read == 0);
  CHECK(recipe::transfers().results_to_host == 0);
  const long from_host = recipe::transfers().blocks_from_host;  // stages 1 and 2 only
  recipe::transfers().reset();
  (void)ts::item(z * 2.0, recipe::staged{});
  CHECK(recipe::transfers().blocks_from_host == from_host + 1);  // + z's one block
  // A host array as input is read (once per chunk a task touches), as a device backend would.
  recipe::transfers().reset();
  auto h = ts::persist(x, ts::host{});
  (void)ts::compute(h + 1.0, recipe::staged{});
  CHECK(recipe::transfers().host_chunks_read == h.grid().block_count());
}
