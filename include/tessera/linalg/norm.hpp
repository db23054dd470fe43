// NumPy's linalg.norm for chunked arrays: vector norms (any ord) over one axis or all
// elements, matrix norms (fro, nuc, 1, -1, 2, -2, inf, -inf) over two axes. The reductions run
// chunk by chunk on the policy; the 2 / -2 / nuc norms take the singular values of the matrix
// (ts::linalg::svd). The result is computed at the call (like ts::linalg::svd) and returned as
// a host ts::array of the reduced shape, in the float type NumPy uses (float64 for integers).
#pragma once
#include <cmath>
#include <limits>
#include <string_view>
#include <vector>

#include "../ops/arith.hpp"
#include "../ops/ufuncs.hpp"
#include "../reduce.hpp"
#include "../reshape.hpp"
#include "svd.hpp"

namespace tessera::linalg {

/// NumPy's `ord`: none (the default), a number (inf and -inf included), "fro" or "nuc".
struct norm_ord {
  enum class kind { none, number, fro, nuc } k = kind::none;
  double p = 0;
  norm_ord() = default;
  norm_ord(double v) : k(kind::number), p(v) {}
  norm_ord(int v) : k(kind::number), p(v) {}
  norm_ord(const char* s) : norm_ord(std::string_view(s)) {}
  norm_ord(std::string_view s) {
    if (s == "fro") k = kind::fro;
    else if (s == "nuc") k = kind::nuc;
    else throw_invalid("norm: ord '", s, "' is not a number, 'fro' or 'nuc'");
  }
};

namespace detail {
template <class R, class E>
xt::xarray<R> computed_as(const E& e, const host&) {
  return xt::xarray<R>(tessera::compute(e));
}
template <class R, class E, class P>
xt::xarray<R> computed_as(const E& e, const P& pol) {
  return xt::xarray<R>(tessera::compute(e, pol));
}

/// Vector norm of x over `axes` (all axes when empty).
template <class R, class X, class P>
xt::xarray<R> vector_norm(const X& x, const norm_ord& o, const std::vector<index_t>& axes, bool keep, const P& pol) {
  auto xr = tessera::cast<R>(x);
  auto a = tessera::abs(xr);
  const reduce_options opt{.keep_dims = keep};
  auto over = [&](const auto& e, auto reduce) {
    return axes.empty() ? computed_as<R>(reduce(e, opt), pol) : computed_as<R>(reduce(e, axes, opt), pol);
  };
  auto sum_of = [](const auto& e, auto&&... args) { return tessera::sum(e, args...); };
  auto max_of = [](const auto& e, auto&&... args) { return tessera::amax(e, args...); };
  auto min_of = [](const auto& e, auto&&... args) { return tessera::amin(e, args...); };
  const double inf = std::numeric_limits<double>::infinity();
  if (o.k == norm_ord::kind::none || (o.k == norm_ord::kind::number && o.p == 2)) {
    xt::xarray<R> s = over(xr * xr, sum_of);
    for (auto& v : s) v = std::sqrt(v);
    return s;
  }
  if (o.k != norm_ord::kind::number)
    throw_invalid("norm: ord 'fro' and 'nuc' are matrix norms; a vector norm takes a number");
  if (o.p == inf) return over(a, max_of);
  if (o.p == -inf) return over(a, min_of);
  if (o.p == 0) return over(tessera::cast<R>(xr != R(0)), sum_of);
  if (o.p == 1) return over(a, sum_of);
  xt::xarray<R> s = over(tessera::pow(a, R(o.p)), sum_of);
  for (auto& v : s) v = R(std::pow(double(v), 1.0 / o.p));
  return s;
}
}  // namespace detail

/// NumPy's norm(x, ord, axis, keepdims) (see the header comment): axes empty for all of x (a
/// 2-norm of the flattened array when ord is none; a matrix norm of a 2-d x otherwise), one
/// axis for a vector norm, two for a matrix norm.
template <expression_type X, class P = host>
auto norm(const X& x, const norm_ord& ord = {}, const std::vector<index_t>& axes = {}, bool keepdims = false,
          const P& pol = {}) {
  using XT = typename X::value_type;
  using R = std::conditional_t<std::is_floating_point_v<XT>, XT, double>;
  const int r = x.dimension();
  std::vector<index_t> ax;
  for (index_t a : axes) ax.push_back(tessera::detail::normalize_axis(a, r, "norm axis"));
  if (ax.size() > 2) throw_invalid("norm: ", ax.size(), " axes given; a norm takes one or two");
  if (ax.size() == 2 && ax[0] == ax[1]) throw_invalid("norm: the two axes are both axis ", ax[0]);
  const bool matrix = ax.size() == 2 || (ax.empty() && ord.k != norm_ord::kind::none && r == 2);
  if (ax.empty() && ord.k != norm_ord::kind::none && r != 1 && r != 2)
    throw_invalid("norm: an ord needs a 1-d or 2-d array (or axes), got dimension ", r);
  xt::xarray<R> out;
  if (!matrix) {
    out = detail::vector_norm<R>(x, ord, ax, keepdims, pol);
  } else {
    if (ax.empty()) ax = {0, 1};
    const index_t row = ax[0], col = ax[1];
    const double inf = std::numeric_limits<double>::infinity();
    auto xr = tessera::cast<R>(x);
    auto a = tessera::abs(xr);
    const reduce_options opt{.keep_dims = keepdims};
    if (ord.k == norm_ord::kind::none || ord.k == norm_ord::kind::fro) {
      out = detail::computed_as<R>(tessera::sum(xr * xr, ax, opt), pol);
      for (auto& v : out) v = std::sqrt(v);
    } else if (ord.k == norm_ord::kind::number && (ord.p == 1 || ord.p == -1 || ord.p == inf || ord.p == -inf)) {
      // 1: the largest column sum of |x| (sum over the row axis); inf: the largest row sum
      const bool cols = ord.p == 1 || ord.p == -1;
      const index_t summed = cols ? row : col, then = cols ? col : row;
      auto sums = tessera::sum(a, std::vector<index_t>{summed}, reduce_options{.keep_dims = true});
      out = ord.p > 0 ? detail::computed_as<R>(tessera::amax(sums, std::vector<index_t>{then}, reduce_options{.keep_dims = true}), pol)
                      : detail::computed_as<R>(tessera::amin(sums, std::vector<index_t>{then}, reduce_options{.keep_dims = true}), pol);
      if (!keepdims) out = xt::squeeze(out, std::vector<std::size_t>{std::size_t(row), std::size_t(col)});
    } else if (ord.k == norm_ord::kind::nuc || (ord.k == norm_ord::kind::number && (ord.p == 2 || ord.p == -2))) {
      if (r != 2) throw_invalid("norm: ord 2, -2 and 'nuc' are supported for 2-d arrays here, got dimension ", r);
      auto m = row < col ? tessera::cast<R>(tessera::transpose(x, {0, 1})) : tessera::cast<R>(tessera::transpose(x, {1, 0}));
      auto [u, s, vt] = svd(persist(m), host{});
      const auto sv = tessera::compute(s);
      R v = 0;
      if (ord.k == norm_ord::kind::nuc) for (auto e : sv) v += e;
      else v = ord.p == 2 ? xt::amax(sv)() : xt::amin(sv)();
      out = keepdims ? xt::xarray<R>(xt::xarray<R>::from_shape({1, 1})) : xt::xarray<R>(v);
      if (keepdims) out(0, 0) = v;
    } else {
      throw_invalid("norm: ord ", ord.p, " is not a matrix norm (fro, nuc, 1, -1, 2, -2, inf, -inf)");
    }
  }
  return from_xtensor(out);
}

}  // namespace tessera::linalg
