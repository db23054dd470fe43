// unique / unique_counts (NumPy's): the sorted distinct values of an array (and how often each
// occurs), computed at the call. The result's length depends on the data, so it cannot stay
// lazy: the array is evaluated slab by slab (the rows of chunks along axis 0, every other axis
// whole) with the policy, each slab's values sorted and run-length counted on the host, and the
// runs merged. Memory: one slab plus the distinct values. NaN sorts last and all NaNs count as
// one value (NumPy's equal_nan=True).
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "../backend/host.hpp"
#include "../compute.hpp"
#include "../indexing.hpp"
#include "../nodes/stored.hpp"
#include "../view.hpp"

namespace tessera {

/// The distinct values (sorted) and their counts.
template <class T>
struct unique_result {
  array<T> values;
  array<std::int64_t> counts;
};

namespace detail {

template <class T>
bool unique_less(T a, T b) {  // NumPy's sort order: NaN last
  if constexpr (std::is_floating_point_v<T>) {
    if (b != b) return a == a;
    if (a != a) return false;
  }
  return a < b;
}
template <class T>
bool unique_same(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return a == b || (a != a && b != b);
  else return a == b;
}

/// Sorted runs of (value, count) of x (S: T's storage type; bool as unsigned char).
template <class T, class S, expression_type X, class P>
std::vector<std::pair<S, std::int64_t>> unique_runs(const X& x, const P& pol) {
  std::vector<std::pair<S, std::int64_t>> runs;
  if (x.size() == 0) return runs;
  auto add_sorted = [&runs](std::vector<S>& v) {
    std::sort(v.begin(), v.end(), [](S a, S b) { return unique_less<S>(a, b); });
    std::vector<std::pair<S, std::int64_t>> mine;
    for (S e : v) {
      if (!mine.empty() && unique_same<S>(mine.back().first, e)) ++mine.back().second;
      else mine.emplace_back(e, 1);
    }
    std::vector<std::pair<S, std::int64_t>> merged;
    merged.reserve(runs.size() + mine.size());
    std::size_t i = 0, j = 0;
    while (i < runs.size() || j < mine.size()) {
      if (j == mine.size() || (i < runs.size() && unique_less<S>(runs[i].first, mine[j].first))) {
        merged.push_back(runs[i++]);
      } else if (i == runs.size() || unique_less<S>(mine[j].first, runs[i].first)) {
        merged.push_back(mine[j++]);
      } else {  // the same value in both
        merged.emplace_back(runs[i].first, runs[i].second + mine[j].second);
        ++i;
        ++j;
      }
    }
    runs.swap(merged);
  };
  if (x.dimension() == 0) {
    std::vector<S> v{S(compute(x, pol)())};
    add_sorted(v);
    return runs;
  }
  const auto& rows = x.chunks()[0];
  index_t lo = 0;
  for (index_t len : rows) {
    slice_vector s{slice(range(lo, lo + len))};
    for (int d = 1; d < x.dimension(); ++d) s.push_back(slice(all()));
    lo += len;
    const auto slab = compute(dynamic_view(x, s), pol);
    std::vector<S> v(slab.begin(), slab.end());
    add_sorted(v);
  }
  return runs;
}

}  // namespace detail

/// NumPy's unique(x): the sorted distinct values of x (1-d, one chunk), computed with `pol`.
template <expression_type X, class P = host>
array<typename X::value_type> unique(const X& x, const P& pol = {}) {
  using T = typename X::value_type;
  using S = std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>;
  std::vector<T> values;
  for (const auto& r : detail::unique_runs<T, S>(x, pol)) values.push_back(T(r.first));
  return detail::table_array(values);
}

/// NumPy's unique_counts(x) (unique with return_counts=True): the sorted distinct values and
/// how often each occurs (int64).
template <expression_type X, class P = host>
unique_result<typename X::value_type> unique_counts(const X& x, const P& pol = {}) {
  using T = typename X::value_type;
  using S = std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>;
  std::vector<T> values;
  std::vector<std::int64_t> counts;
  for (const auto& r : detail::unique_runs<T, S>(x, pol)) {
    values.push_back(T(r.first));
    counts.push_back(r.second);
  }
  return {detail::table_array(values), detail::table_array(counts)};
}

}  // namespace tessera
