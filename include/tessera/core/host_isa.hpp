// Runtime CPU dispatch of the host's hot kernels (docs/architecture.md, "CPU dispatch").
//
// A header-only library is compiled by its user, usually for the distribution's baseline
// (x86-64: SSE2, no FMA). So that such a build still runs at full vector width, the host's
// kernels (the chunk kernel that fills a box, the reduction fold, the Philox lanes) are compiled
// here a second and third time for AVX2+FMA (x86-64-v3) and AVX-512 (x86-64-v4), and the copy
// to run is chosen once per process from CPUID. Levels at or below what the translation unit is
// already compiled for (-march=native, -march=x86-64-v3, ...) are not compiled twice.
//
// Results are identical at every level: the random module's multiply-adds are explicit fused
// multiply-adds everywhere (math.hpp), and the kernel copies are compiled without floating-point
// contraction, so `x * a + b` rounds twice at every level, as NumPy does.
//
// Choosing the level: TESSERA_HOST_ISA=baseline|avx2|avx512 in the environment lowers it
// (for comparisons); ts::set_host_isa() does the same from code. A level the CPU lacks, or one
// below what the program was compiled for, is an error naming the level.
// TESSERA_NO_DISPATCH (a macro) compiles only the translation unit's own level.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "../config.hpp"

// x86-64 with GCC or Clang: the levels below exist. nvcc's host pass keeps one level (its front
// end does not take the target pragmas); a .cu file's host code uses the flags it is given.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#define TESSERA_X86_LEVELS 1
#else
#define TESSERA_X86_LEVELS 0
#endif

// The level this translation unit is compiled for: 2 AVX-512 (F, BW, DQ, VL) + FMA, 1 AVX2 + FMA,
// 0 anything else.
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && \
    defined(__AVX512VL__) && defined(__FMA__)
#define TESSERA_COMPILED_ISA 2
#elif defined(__AVX2__) && defined(__FMA__)
#define TESSERA_COMPILED_ISA 1
#else
#define TESSERA_COMPILED_ISA 0
#endif

#if TESSERA_X86_LEVELS && !defined(TESSERA_NO_DISPATCH)
#define TESSERA_HOST_DISPATCH 1
#else
#define TESSERA_HOST_DISPATCH 0
#endif

// Target features of the levels (what __builtin_cpu_supports checks, and what the copies and
// the Philox lanes are compiled with).
#define TESSERA_ISA_AVX2_FEATURES "avx2,fma,bmi,bmi2,popcnt"
#define TESSERA_ISA_AVX512_FEATURES \
  "avx512f,avx512bw,avx512dq,avx512vl,avx512cd,avx2,fma,bmi,bmi2,popcnt"

// A region of functions compiled for one level (the functions defined between BEGIN and END).
#if TESSERA_X86_LEVELS && defined(__clang__)
#define TESSERA_ISA_BEGIN_AVX2 \
  _Pragma("clang attribute push (__attribute__((target(\"avx2,fma,bmi,bmi2,popcnt\"))), apply_to = function)")
#define TESSERA_ISA_BEGIN_AVX512 \
  _Pragma("clang attribute push (__attribute__((target(\"avx512f,avx512bw,avx512dq,avx512vl,avx512cd,avx2,fma,bmi,bmi2,popcnt\"))), apply_to = function)")
#define TESSERA_ISA_END _Pragma("clang attribute pop")
#elif TESSERA_X86_LEVELS
#define TESSERA_ISA_BEGIN_AVX2 \
  _Pragma("GCC push_options") _Pragma("GCC target(\"avx2,fma,bmi,bmi2,popcnt\")")
#define TESSERA_ISA_BEGIN_AVX512        \
  _Pragma("GCC push_options")           \
  _Pragma("GCC target(\"avx512f,avx512bw,avx512dq,avx512vl,avx512cd,avx2,fma,bmi,bmi2,popcnt\")")
#define TESSERA_ISA_END _Pragma("GCC pop_options")
#endif

// The attributes of a dispatched kernel copy: everything it calls is inlined into it (so the
// whole chunk kernel, down to the element functions, is compiled for the copy's level), without
// floating-point contraction (GCC contracts a * b + c into an FMA under -std=gnu++ when the
// level has FMA; Clang contracts only within one source expression).
#if defined(TESSERA_KERNEL_ATTRIBUTES)
#elif defined(__GNUC__) && !defined(__clang__)
#define TESSERA_KERNEL_ATTRIBUTES __attribute__((flatten, optimize("fp-contract=off")))
#elif defined(__clang__)
#define TESSERA_KERNEL_ATTRIBUTES __attribute__((flatten))
#else
#define TESSERA_KERNEL_ATTRIBUTES
#endif

// Host functions that must round a * b + c twice, as NumPy does (quantile interpolation,
// histogram bins): no contraction into an FMA.
#if defined(__GNUC__) && !defined(__clang__)
#define TESSERA_NO_CONTRACT __attribute__((optimize("fp-contract=off")))
#else
#define TESSERA_NO_CONTRACT
#endif

// Expressions nested deeper than this run at the compiled level only: inlining a whole
// 256-operation chain into each copy takes GCC minutes (docs/reliability.md, deep expressions).
#ifndef TESSERA_DISPATCH_MAX_DEPTH
#define TESSERA_DISPATCH_MAX_DEPTH 24
#endif

namespace tessera {

/// Instruction-set levels of the host kernels (x86-64; other CPUs have `baseline` only).
enum class host_isa : int {
  baseline = 0,  ///< what the program was compiled for (x86-64: SSE2)
  avx2 = 1,      ///< x86-64-v3: AVX2, FMA, BMI2
  avx512 = 2,    ///< x86-64-v4: AVX-512 F/BW/DQ/VL/CD
};

inline const char* to_string(host_isa isa) {
  switch (isa) {
    case host_isa::baseline: return "baseline";
    case host_isa::avx2: return "avx2";
    case host_isa::avx512: return "avx512";
  }
  return "unknown";
}

/// The level the program's own translation units are compiled for (their -march).
inline constexpr host_isa compiled_host_isa = host_isa(TESSERA_COMPILED_ISA);

/// The highest level this CPU runs (CPUID), never below compiled_host_isa.
inline host_isa detected_host_isa() {
#if TESSERA_X86_LEVELS
  static const host_isa level = [] {
    __builtin_cpu_init();
    const bool v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                    __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
                    __builtin_cpu_supports("popcnt");
    const bool v4 = v3 && __builtin_cpu_supports("avx512f") &&
                    __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                    __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512cd");
    const host_isa cpu = v4 ? host_isa::avx512 : v3 ? host_isa::avx2 : host_isa::baseline;
    return cpu < compiled_host_isa ? compiled_host_isa : cpu;
  }();
  return level;
#else
  return compiled_host_isa;
#endif
}

namespace detail {

/// The level named by a string: baseline / avx2 / avx512, or x86-64 / x86-64-v3 / x86-64-v4.
inline host_isa parse_host_isa(std::string_view s, const char* where) {
  if (s == "baseline" || s == "x86-64" || s == "sse2") return host_isa::baseline;
  if (s == "avx2" || s == "x86-64-v3") return host_isa::avx2;
  if (s == "avx512" || s == "x86-64-v4") return host_isa::avx512;
  throw std::invalid_argument(std::string("tessera: ") + where + " = '" + std::string(s) +
                              "' is not a host instruction-set level (expected baseline, avx2 "
                              "or avx512)");
}

/// Checks that `isa` can run here: not above the CPU's level, not below the compiled one.
inline host_isa checked_host_isa(host_isa isa, const char* where) {
  if (int(isa) < 0 || int(isa) > 2)
    throw std::invalid_argument(std::string("tessera: ") + where + ": host_isa(" +
                                std::to_string(int(isa)) + ") is not a level");
  if (isa > detected_host_isa())
    throw std::invalid_argument(std::string("tessera: ") + where + ": level " + to_string(isa) +
                                " is above this CPU's (" + to_string(detected_host_isa()) + ")");
  if (isa < compiled_host_isa)
    throw std::invalid_argument(std::string("tessera: ") + where + ": level " + to_string(isa) +
                                " is below the level this program is compiled for (" +
                                to_string(compiled_host_isa) + ")");
  return isa;
}

/// The level set by TESSERA_HOST_ISA (checked once), else the CPU's.
inline host_isa environment_host_isa() {
  static const host_isa level = [] {
    const char* e = std::getenv("TESSERA_HOST_ISA");
    if (!e || !*e) return detected_host_isa();
    return checked_host_isa(parse_host_isa(e, "TESSERA_HOST_ISA"), "TESSERA_HOST_ISA");
  }();
  return level;
}

/// The level set from code (-1: none).
inline std::atomic<int>& host_isa_override() {
  static std::atomic<int> level{-1};
  return level;
}

}  // namespace detail

/// The level the host kernels run at now: set_host_isa's, else TESSERA_HOST_ISA's, else the
/// CPU's. Without dispatch (TESSERA_NO_DISPATCH, non-x86, nvcc), the compiled level.
inline host_isa host_isa_in_use() {
#if TESSERA_HOST_DISPATCH
  const int o = detail::host_isa_override().load(std::memory_order_relaxed);
  return o >= 0 ? host_isa(o) : detail::environment_host_isa();
#else
  return compiled_host_isa;
#endif
}

/// Runs the host kernels at `isa` from now on (process-wide) and returns the previous level.
/// Throws std::invalid_argument naming the level when the CPU lacks it or the program is
/// compiled above it (or without dispatch, for any level but the compiled one).
inline host_isa set_host_isa(host_isa isa) {
  const host_isa before = host_isa_in_use();
#if TESSERA_HOST_DISPATCH
  detail::host_isa_override().store(int(detail::checked_host_isa(isa, "set_host_isa")),
                                    std::memory_order_relaxed);
#else
  if (isa != compiled_host_isa)
    throw std::invalid_argument(std::string("tessera: set_host_isa: level ") + to_string(isa) +
                                " is not available: this translation unit has no CPU dispatch "
                                "(compiled level " + to_string(compiled_host_isa) + ")");
#endif
  return before;
}

namespace detail {

/// Nesting depth of a type's template arguments, counted up to `cap` (an expression's
/// accessor: one level per node).
template <class T, int cap>
struct type_depth : std::integral_constant<int, 0> {};
template <template <class...> class Tm, class... A, int cap>
struct type_depth<Tm<A...>, cap>
    : std::integral_constant<int, (cap <= 0 ? 0 : 1 + std::max({0, type_depth<A, cap - 1>::value...}))> {};

/// True when kernels over accessor Acc get the dispatched copies (not too deep to inline).
template <class Acc>
inline constexpr bool dispatched_kernel =
    type_depth<Acc, TESSERA_DISPATCH_MAX_DEPTH + 1>::value <= TESSERA_DISPATCH_MAX_DEPTH;

// The dispatched copies of a host kernel f (a lambda holding the kernel's body): f() with the
// body inlined and compiled for the copy's level.
#if TESSERA_HOST_DISPATCH
TESSERA_ISA_BEGIN_AVX2
template <class F>
TESSERA_KERNEL_ATTRIBUTES void host_kernel_avx2(F& f) {
  f();
}
TESSERA_ISA_END
TESSERA_ISA_BEGIN_AVX512
template <class F>
TESSERA_KERNEL_ATTRIBUTES void host_kernel_avx512(F& f) {
  f();
}
TESSERA_ISA_END
#endif

/// Runs the kernel body f at the level in use (host_isa_in_use()); with Dispatch false, or at
/// the compiled level, as compiled.
template <bool Dispatch, class F>
void run_host_kernel(F&& f) {
#if TESSERA_HOST_DISPATCH
  if constexpr (Dispatch && TESSERA_COMPILED_ISA < 2) {
    const host_isa isa = host_isa_in_use();
    if (isa == host_isa::avx512) return host_kernel_avx512(f);
    if constexpr (TESSERA_COMPILED_ISA < 1)
      if (isa == host_isa::avx2) return host_kernel_avx2(f);
  }
#endif
  f();
}

// A leaf of the host kernels (the random generators' batch fill): compiled once per level in a
// function of its own, not inlined into every kernel copy that calls it. The kernel copies are
// flattened (everything they call is inlined into them), so a generator called from several
// places of a kernel used to be compiled once per call site, per kernel and per level: a fold
// over random normals was a 300 KB function per level and a plain build of a small program
// took minutes (examples/mpi/seed003_ranks.cpp: 387 s at -O3, 33 s without dispatch).
// TESSERA_LEAF_NOINLINE: where there are kernel copies, keeps a function (a leaf, or a
// dispatcher to per-level functions such as philox::batch) out of them.
#if TESSERA_HOST_DISPATCH && TESSERA_COMPILED_ISA < 2
#define TESSERA_LEAF_NOINLINE __attribute__((noinline))
#else
#define TESSERA_LEAF_NOINLINE
#endif
#if TESSERA_HOST_DISPATCH && TESSERA_COMPILED_ISA < 2
TESSERA_ISA_BEGIN_AVX2
template <class F>
TESSERA_LEAF_NOINLINE TESSERA_KERNEL_ATTRIBUTES void host_leaf_avx2(F& f) {
  f();
}
TESSERA_ISA_END
TESSERA_ISA_BEGIN_AVX512
template <class F>
TESSERA_LEAF_NOINLINE TESSERA_KERNEL_ATTRIBUTES void host_leaf_avx512(F& f) {
  f();
}
TESSERA_ISA_END

/// Runs the leaf body f at the level in use, from one function per level (see above); where
/// there are no copies, f() in place.
template <class F>
TESSERA_LEAF_NOINLINE void run_host_leaf(F&& f) {
  const host_isa isa = host_isa_in_use();
  if (isa == host_isa::avx512) return host_leaf_avx512(f);
  if constexpr (TESSERA_COMPILED_ISA < 1)
    if (isa == host_isa::avx2) return host_leaf_avx2(f);
  f();
}
#else
template <class F>
TESSERA_INLINE void run_host_leaf(F&& f) {
  f();
}
#endif

}  // namespace detail
}  // namespace tessera
