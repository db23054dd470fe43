// The "add a backend" recipe (tests/support/recipe_backend.hpp): the view test bodies of
// tests/test_view.cpp run on the toy backend.
#include "support/recipe_backend.hpp"
#define TESSERA_TEST_BACKENDS recipe::staged
#include "test_view.cpp"
