// Compiled (not run) by ctest: with KEEP_BOOL the keep flag is a bool and this must compile;
// with KEEP_INT it is an int, which NumPy users read as ddof, and this must NOT compile
// (issue 16: no silent int -> bool conversion). The bool case is the control that the failure
// is the flag's and not the include paths'.
#include <tessera/tessera.hpp>

int main() {
  auto x = tessera::zeros<double>({3, 4});
#if defined(KEEP_BOOL)
  auto v = tessera::variance(x, {1}, true);
#else
  auto v = tessera::variance(x, {1}, 1);
#endif
  (void)v;
}
