// Element functors that round or take signs: floor, ceil, trunc (integers and bool keep their
// type, as NumPy >= 2.1 and the array API), round to a number of decimals (half to even, on
// integers in double, as NumPy), sign.
#pragma once
#include <cstdint>
#include <type_traits>

#include "../core/math.hpp"
#include "../core/promote.hpp"
#include "functors.hpp"

namespace tessera::ops {

#define TESSERA_ROUNDING(name)                                  \
  struct name {                                                 \
    template <class A>                                          \
    TESSERA_HD A operator()(A a) const {                        \
      if constexpr (std::is_floating_point_v<A>)                \
        return portable_math::name(a);                          \
      else return a;                                            \
    }                                                           \
  };
TESSERA_ROUNDING(floor)
TESSERA_ROUNDING(ceil)
TESSERA_ROUNDING(trunc)
#undef TESSERA_ROUNDING

/// NumPy's round(x, decimals) (alias around), with NumPy's own formula and so the same values
/// (its double rounding included): f = 10^|d| computed in double; floats y = rint(x * f) / f
/// for d > 0, rint(x / f) * f for d < 0 (f rounded to the type), rint(x) for d = 0. Integers:
/// unchanged for d >= 0; for d < 0 rint(x / f) * f in double, converted back as ts::cast does
/// (NumPy computes them in double too). bool: unchanged (ts::round casts bool to float first).
struct round_decimals {
  int decimals = 0;
  TESSERA_HD double power_of_ten() const {
    double f = 1;
    for (int i = 0, n = decimals < 0 ? -decimals : decimals; i < n; ++i) f *= 10.0;
    return f;
  }
  template <class A>
  TESSERA_HD A operator()(A a) const {
    if constexpr (std::is_floating_point_v<A>) {
      if (decimals == 0) return portable_math::rint(a);
      const A f = A(power_of_ten());
      return decimals > 0 ? portable_math::rint(a * f) / f : portable_math::rint(a / f) * f;
    } else if constexpr (std::is_same_v<A, bool>) {
      return a;
    } else {
      if (decimals >= 0) return a;
      const double f = power_of_ten();
      return cast_to<A>{}(portable_math::rint(double(a) / f) * f);
    }
  }
};

/// -1, 0 or 1 by the sign (NumPy's sign): NaN gives NaN, -0.0 gives 0.0; unsigned 0 or 1.
struct sign {
  template <class A>
  TESSERA_HD A operator()(A a) const {
    static_assert(!std::is_same_v<A, bool>,
                  "tessera: sign is not defined for bool arrays (NumPy raises); cast first");
    if constexpr (std::is_floating_point_v<A>) {
      if (a > 0) return A(1);
      if (a < 0) return A(-1);
      if (a == 0) return A(0);
      return a;  // NaN
    } else if constexpr (std::is_unsigned_v<A>) {
      return A(a > 0);
    } else {
      return A(a > 0 ? 1 : (a < 0 ? -1 : 0));
    }
  }
};

}  // namespace tessera::ops
