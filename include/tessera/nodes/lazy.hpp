// lazy<T>: a lazy array whose expression type is erased, so one C++ type holds any expression
// of element type T. A loop `acc = acc + y` and a pipeline chosen at run time compile; the
// result stays lazy and is evaluated chunk by chunk like any other node.
//
// What is erased and what is fused. The expression assigned to a lazy<T> (a "piece") keeps
// its concrete type inside a detail::erased_expression<E>, behind a few virtual functions
// that run on the host (never in element code):
//   lower        the piece lowers its expression for the policy (reductions in it run their
//                stages) and wraps the result in a new piece
//   bind         host context: the piece binds its expression and returns an erased accessor
//                whose line fills a batch (up to batch_size elements) through one function
//                pointer, the concrete line's own batched fill: everything inside a piece is
//                one fused pass, a piece boundary costs one indirect call per batch.
//                Device context (nvcc translation units): the piece evaluates its box into
//                device scratch with its own fused kernel and binds as stored memory.
//                Placement probe: the piece's stored inputs are counted as usual (a
//                shared piece's once per task box, as it is evaluated).
//                Any other context (a new backend's): the piece is evaluated on the host and
//                the box gathered into the context's space.
// Nested pieces (a loop of n steps nests n pieces) are evaluated recursively, batch by batch;
// every `checkpoint`-th level evaluates its box into task scratch once instead, so a deep loop
// costs bounded stack (a box of scratch per checkpoint level).
//
// Shared pieces. A piece read more than once (`acc = acc + acc * 0.5`: both operands are the
// same piece) would be evaluated once per reference, so n such steps cost 2^n. Each piece
// counts the pieces built over it (a parent counts each reference); one with two or more is
// "shared": bound in a host context it evaluates its box into task scratch once and every
// other reference in that task reads it (the context's evaluated_boxes), and within one
// lowering pass a shared piece is lowered once (a reduction inside runs once), so such a loop
// costs n. A count can include parents since discarded: such a piece pays one scratch
// evaluation per task (no fusion with its reader), never a wrong value. The same holds in a
// device context (device scratch).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../backend/host/context.hpp"
#include "../backend/host/kernel.hpp"
#include "../backend/host/policy.hpp"
#include "../core/errors.hpp"
#include "../core/expression.hpp"
#include "../core/host_isa.hpp"
#include "../diagnostics/graph.hpp"
#include "../exec/placement.hpp"
#include "../store/accessor.hpp"

namespace tessera {

struct host;
struct cuda;
namespace detail::cuda_backend {
class device_context;
}

// 1 where the pieces built in this translation unit can run on ts::cuda (an nvcc translation
// unit: <tessera/lazy.hpp> includes the CUDA backend there). A piece built elsewhere refuses
// ts::cuda with a message saying so.
#if defined(__CUDACC__)
#define TESSERA_LAZY_DEVICE 1
#else
#define TESSERA_LAZY_DEVICE 0
#endif

namespace detail {

/// Fills elements j0 .. j0 + n - 1 (n <= batch_size) of a bound accessor's line.
template <class T>
using erased_fill_fn = void (*)(const void* acc, const ivec& start, int axis, index_t step,
                                index_t j0, index_t n, T* out);

/// The line of a piece bound on the host: the concrete accessor lives in task scratch.
template <class T>
struct erased_line {
  using value_type = T;
  static constexpr bool batched = true;
  const void* acc;
  erased_fill_fn<T> fill_rows;
  ivec start;
  int axis;
  index_t step;

  // TESSERA_HD only so that generic element code compiles under nvcc: an erased line exists on
  // the host (device contexts bind a piece as stored memory).
  TESSERA_HD T operator()(index_t j) const {
    T v;
    fill_rows(acc, start, axis, step, j, 1, &v);
    return v;
  }
  void fill(index_t j0, index_t n, T* out) const { fill_rows(acc, start, axis, step, j0, n, out); }
};

template <class T>
struct erased_accessor {
  using value_type = T;
  const void* acc = nullptr;
  erased_fill_fn<T> fill_rows = nullptr;
  TESSERA_HD erased_line<T> line(const ivec& start, int axis, index_t step) const {
    return {acc, fill_rows, start, axis, step};
  }
};

/// The concrete batch fill behind an erased line, run at the host's instruction-set level.
template <class Acc, class T>
void erased_fill(const void* p, const ivec& start, int axis, index_t step, index_t j0, index_t n,
                 T* out) {
  const Acc& acc = *static_cast<const Acc*>(p);
  run_host_kernel<dispatched_kernel<Acc>>([&] { acc.line(start, axis, step).fill(j0, n, out); });
}

/// Every `lazy_checkpoint`-th nesting level of pieces evaluates its box into scratch.
inline constexpr int lazy_checkpoint = 16;

/// The erased interface of a piece (host code only).
template <class T>
class erased_piece {
 public:
  using ptr = std::shared_ptr<const erased_piece>;
  virtual ~erased_piece() = default;
  virtual const chunk_grid& grid() const = 0;
  /// Nesting level: 1 + the deepest piece inside this one's expression.
  virtual int depth() const = 0;
  /// The piece over the expression lowered for the host policy (self when nothing lowers).
  virtual ptr lower_host(const host& policy, const ptr& self) const = 0;
  /// The same for ts::cuda (`policy` points to one); only pieces built by nvcc can.
  virtual ptr lower_device(const void* policy, const ptr& self) const = 0;
  virtual erased_accessor<T> bind_host(const box& b, host_context& ctx) const = 0;
  virtual void probe(const box& b, placement_probe& ctx) const = 0;
  /// Box b evaluated into device scratch of `context` (a device_context); nvcc pieces only.
  virtual const T* evaluate_device(const box& b, void* context) const = 0;
  /// Stages and tasks the reductions inside run when lowered (0: lowering changes nothing but
  /// the type of the lazies inside, so the piece binds as it is). Counted once, at construction.
  virtual index_t inner_stages() const = 0;
  virtual index_t inner_tasks() const = 0;
  /// Whether this piece and every piece inside it were built by nvcc (can run on ts::cuda).
  virtual bool device_capable() const = 0;
  /// Whether lowering changes anything but the type of the lazies inside: a node in the piece
  /// or in a piece inside it must be lowered (a reduction, a block function) before binding.
  virtual bool needs_lowering() const = 0;
  virtual std::string expression_name() const = 0;

  /// A piece built over an expression that reads this one (once per reference).
  void note_parent() const { parents_.fetch_add(1, std::memory_order_relaxed); }
  /// Read by two or more references (see the header comment: evaluated once per task box).
  bool shared() const { return parents_.load(std::memory_order_relaxed) >= 2; }
  /// A lowered piece takes its source's sharing (lowered parents are not counted: a parent
  /// lowered at every compute would otherwise count its pieces again each time).
  void mark_shared() const {
    parents_.store(std::max(2, parents_.load(std::memory_order_relaxed)), std::memory_order_relaxed);
  }

 private:
  mutable std::atomic<int> parents_{0};
};

template <class X>
int erased_depth_of(const X& x);
template <class X>
void note_parents(const X& x);
template <class X>
bool erased_device_capable(const X& x);
template <class X>
bool erased_needs_lowering(const X& x);

/// U, named through a type that depends on X (defers the use of an incomplete U).
template <class X, class U>
struct dependent {
  using type = U;
};

/// The concrete piece over expression E (Device: built by nvcc, so it can run on ts::cuda).
template <class E, class T, bool Device>
class erased_expression final : public erased_piece<T> {
  static_assert(std::is_same_v<typename E::value_type, T>);

 public:
  using ptr = typename erased_piece<T>::ptr;
  /// count_parents: whether the lazies in e count this piece as a parent (not for a piece
  /// made by lowering another).
  explicit erased_expression(E e, bool count_parents = true)
      : expr_(std::move(e)),
        depth_(1 + erased_depth_of(expr_)),
        stages_(detail::inner_stages(expr_)),
        tasks_(detail::inner_tasks(expr_)),
        device_(Device && erased_device_capable(expr_)),
        lower_(detail::must_lower<E>() || erased_needs_lowering(expr_)) {
    if (count_parents) note_parents(expr_);
  }

  const chunk_grid& grid() const override { return expr_.grid(); }
  int depth() const override { return depth_; }

  ptr lower_host(const host& policy, const ptr& self) const override { return lowered(policy, self); }
  ptr lower_device(const void* policy, const ptr& self) const override {
    if constexpr (Device) {
      return lowered(*static_cast<const cuda*>(policy), self);
    } else {
      (void)policy;
      (void)self;
      throw_invalid("ts::lazy: this piece (", expression_name(),
                    ") was built in a translation unit not compiled by nvcc, so it has no "
                    "device code; build the ts::lazy in a .cu file that includes "
                    "<tessera/lazy.hpp> to run it on ts::cuda");
    }
  }

  erased_accessor<T> bind_host(const box& b, host_context& ctx) const override {
    if constexpr (!bindable<host_context>) {
      return not_lowered<erased_accessor<T>>();
    } else {
      if (this->shared()) {  // read by several references: evaluated once per task box
        const void* key = static_cast<const erased_piece<T>*>(this);
        const T* data = static_cast<const T*>(ctx.evaluated().recall(key, b));
        if (!data) {
          data = evaluate_into_scratch(b, ctx);
          ctx.evaluated().remember(key, b, data);
        }
        stored_accessor<T> s;
        s.p = data;
        s.origin = b.lo;
        s.stride = row_major_strides(b);
        return place(s, ctx);
      }
      if (depth_ % lazy_checkpoint == 0) {  // evaluated once into scratch: bounded recursion
        stored_accessor<T> s;
        s.p = evaluate_into_scratch(b, ctx);
        s.origin = b.lo;
        s.stride = row_major_strides(b);
        return place(s, ctx);
      }
      return place(expr_.bind(b, ctx), ctx);
    }
  }
  void probe(const box& b, placement_probe& ctx) const override {
    if constexpr (bindable<placement_probe>) (void)expr_.bind(b, ctx);
    else not_lowered<int>();
  }

  const T* evaluate_device(const box& b, void* context) const override {
    if constexpr (Device) {
      using Ctx = typename dependent<E, cuda_backend::device_context>::type;
      if constexpr (bindable<Ctx>) {
        auto& ctx = *static_cast<Ctx*>(context);
        auto acc = expr_.bind(b, ctx);
        T* dst = ctx.template scratch<T>(b.count());
        ctx.evaluate(acc, b, dst, row_major_strides(b));
        return dst;
      } else {
        return not_lowered<const T*>();
      }
    } else {
      (void)b;
      (void)context;
      return not_lowered<const T*>();  // unreachable: lower_device refused the piece
    }
  }

  index_t inner_stages() const override { return stages_; }
  index_t inner_tasks() const override { return tasks_; }
  bool device_capable() const override { return device_; }
  bool needs_lowering() const override { return lower_; }
  std::string expression_name() const override { return node_name(expr_); }

 private:
  /// Whether E can bind at all: nothing in it is left to lower but the lazies inside, which
  /// bind their own pieces (one that still holds a reduction cannot; its piece is replaced by
  /// the lowered one before anything binds). The same for every context Ctx; the parameter
  /// only defers the check to the use.
  template <class Ctx>
  static constexpr bool bindable = !detail::must_lower<E>();
  template <class R>
  R not_lowered() const {
    throw std::logic_error("ts::lazy: a piece over '" + expression_name() +
                           "' was bound before it was lowered for a policy");
  }
  template <class P>
  ptr lowered(const P& policy, const ptr& self) const {
    using L = std::remove_cvref_t<decltype(expr_.lower(policy))>;
    if constexpr (std::is_same_v<L, E>) {
      return self;
    } else {
      return std::make_shared<erased_expression<L, T, Device>>(expr_.lower(policy), false);
    }
  }
  T* evaluate_into_scratch(const box& b, host_context& ctx) const {
    T* dst = ctx.template scratch<T>(b.count());
    if (b.count() > 0) write_box(expr_.bind(b, ctx), b, dst, row_major_strides(b));
    return dst;
  }
  template <class Acc>
  static erased_accessor<T> place(const Acc& acc, host_context& ctx) {
    static_assert(std::is_trivially_copyable_v<Acc>, "accessors are plain data");
    static_assert(alignof(Acc) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
    void* mem = ctx.template scratch<std::byte>(index_t(sizeof(Acc)));
    ::new (mem) Acc(acc);
    return {mem, &erased_fill<Acc, T>};
  }

  E expr_;
  int depth_;
  index_t stages_, tasks_;
  bool device_, lower_;
};

/// A box of host memory as a one-block store (the generic context's gather reads it).
template <class T>
struct host_box_store {
  using value_type = T;
  chunk_grid g;
  const T* data;
  const chunk_grid& grid() const { return g; }
  memory_space block_space(index_t) const { return memory_space::on_host(); }
  const T* block_pointer(index_t) const { return data; }
  void read_block(index_t, T* out) const { std::copy(data, data + g.size(), out); }
};

}  // namespace detail

namespace detail {

/// The shared pieces one lowering pass has lowered so far (the outermost lower_piece call of a
/// piece that needs lowering, on this thread: a shared piece inside it is lowered once; see the
/// header comment).
struct lowering_pass {
  std::vector<std::pair<const void*, std::shared_ptr<const void>>> done;
  static lowering_pass*& current() {
    thread_local lowering_pass* p = nullptr;
    return p;
  }
};

template <class T, class P>
typename erased_piece<T>::ptr lower_piece_once(const typename erased_piece<T>::ptr& p, const P& policy);

/// The piece lowered for `policy`: itself when nothing inside needs lowering (the lazies inside
/// bind their own pieces), else a new piece over the lowered expression (once per pass for a
/// shared piece).
template <class T, class P>
typename erased_piece<T>::ptr lower_piece(const typename erased_piece<T>::ptr& p, const P& policy) {
  if (!p->needs_lowering()) return lower_piece_once<T>(p, policy);  // itself (after the device check)
  lowering_pass*& pass = lowering_pass::current();
  lowering_pass own;
  const bool outer = pass == nullptr;
  if (outer) pass = &own;
  struct restore {
    lowering_pass*& ref;
    bool outer;
    ~restore() {
      if (outer) ref = nullptr;
    }
  } r{pass, outer};
  if (!p->shared()) return lower_piece_once<T>(p, policy);
  for (const auto& [key, lowered] : pass->done)
    if (key == p.get()) return std::static_pointer_cast<const erased_piece<T>>(lowered);
  auto q = lower_piece_once<T>(p, policy);
  q->mark_shared();
  pass->done.emplace_back(p.get(), q);
  return q;
}

template <class T, class P>
typename erased_piece<T>::ptr lower_piece_once(const typename erased_piece<T>::ptr& p, const P& policy) {
  if constexpr (std::is_same_v<P, cuda>) {
    if (!p->device_capable())
      throw_invalid("ts::lazy: a piece in '", p->expression_name(),
                    "' was built in a translation unit not compiled by nvcc, so it has no "
                    "device code; build the ts::lazy in a .cu file that includes "
                    "<tessera/lazy.hpp> to run it on ts::cuda");
    return p->needs_lowering() ? p->lower_device(&policy, p) : p;
  } else if constexpr (std::is_same_v<P, host>) {
    return p->needs_lowering() ? p->lower_host(policy, p) : p;
  } else {  // other backends read host results
    return p->needs_lowering() ? p->lower_host(host{}, p) : p;
  }
}

/// Binds piece p over box b in context ctx (see the header comment).
template <class T, class Ctx>
auto bind_piece(const erased_piece<T>& piece, const box& b, Ctx& ctx) {
  if constexpr (std::is_same_v<Ctx, host_context>) {
    return piece.bind_host(b, ctx);
  } else if constexpr (std::is_same_v<Ctx, placement_probe>) {
    if (!piece.shared() || ctx.first_probe(&piece, b)) piece.probe(b, ctx);  // once per box
    return stored_accessor<T>{};
  } else {
    stored_accessor<T> a;
    if (b.count() == 0) return a;
    if constexpr (std::is_same_v<Ctx, cuda_backend::device_context>) {
      if (piece.shared()) {  // read by several references: evaluated once per task box
        a.p = static_cast<const T*>(ctx.evaluated().recall(&piece, b));
        if (!a.p) {
          a.p = piece.evaluate_device(b, &ctx);
          ctx.evaluated().remember(&piece, b, a.p);
        }
      } else {
        a.p = piece.evaluate_device(b, &ctx);
      }
    } else {  // another backend's context: evaluated on the host, gathered into its space
      std::vector<T> h(std::size_t(b.count()));
      host_context hc;
      write_box(piece.bind_host(b, hc), b, h.data(), row_major_strides(b));
      shape_t shape(std::size_t(b.rank()));
      chunks_t chunks(std::size_t(b.rank()));
      for (int d = 0; d < b.rank(); ++d) {
        shape[std::size_t(d)] = b.hi[d];
        if (b.lo[d] > 0) chunks[std::size_t(d)].push_back(b.lo[d]);
        chunks[std::size_t(d)].push_back(b.extent(d));
      }
      host_box_store<T> s{chunk_grid(shape, chunks), h.data()};
      a.p = ctx.gather(s, b);
    }
    a.origin = b.lo;
    a.stride = row_major_strides(b);
    return a;
  }
}

}  // namespace detail

/// A ts::lazy lowered for a policy (what lazy<T>::lower returns): its own type, so that every
/// node above a lazy sees that lowering may have replaced something and lowers its operands
/// (a node whose operands lower to their own types keeps itself).
template <class T>
class lowered_lazy : public expression<lowered_lazy<T>> {
 public:
  using value_type = T;
  explicit lowered_lazy(typename detail::erased_piece<T>::ptr p) : piece_(std::move(p)) {}
  const chunk_grid& grid() const { return piece_->grid(); }
  int depth() const { return piece_->depth(); }
  template <class P>
  lowered_lazy lower(const P& policy) const {
    return lowered_lazy(detail::lower_piece<T>(piece_, policy));
  }
  template <class Ctx>
  auto bind(const box& b, Ctx& ctx) const {
    return detail::bind_piece<T>(*piece_, b, ctx);
  }
  index_t erased_stages() const { return piece_->inner_stages(); }
  index_t erased_tasks() const { return piece_->inner_tasks(); }
  std::string erased_name() const { return piece_->expression_name(); }
  bool empty_or_device_capable() const { return piece_->device_capable(); }
  bool needs_lowering() const { return piece_->needs_lowering(); }
  void note_parent() const { piece_->note_parent(); }

 private:
  typename detail::erased_piece<T>::ptr piece_;
};

/// A lazy array of element type T over any expression (type-erased; see the header comment).
/// Built implicitly from an expression of element type T, explicitly (an astype) from another
/// element type. Copies share the expression.
template <class T>
class lazy : public expression<lazy<T>> {
 public:
  using value_type = T;

  /// An empty lazy array: assign an expression before using it.
  lazy() = default;

  template <expression_type E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, lazy> &&
             std::is_same_v<typename std::remove_cvref_t<E>::value_type, T>)
  lazy(const E& e)  // NOLINT: implicit, so `acc = acc + y` works
      : piece_(std::make_shared<detail::erased_expression<std::remove_cvref_t<E>, T,
                                                          bool(TESSERA_LAZY_DEVICE)>>(e)) {}

  /// Another element type: NumPy's astype (a cast node inside the piece), never implicit.
  template <expression_type E>
    requires(!std::is_same_v<typename std::remove_cvref_t<E>::value_type, T>)
  explicit lazy(const E& e) : lazy(tessera::cast<T>(e)) {}

  bool empty() const { return !piece_; }
  const chunk_grid& grid() const { return piece().grid(); }
  /// How many pieces are nested in this one, itself included (a loop of n steps: n + 1).
  int depth() const { return piece_ ? piece_->depth() : 0; }

  template <class P>
  lowered_lazy<T> lower(const P& policy) const {
    (void)piece();  // an empty lazy throws here
    return lowered_lazy<T>(detail::lower_piece<T>(piece_, policy));
  }

  template <class Ctx>
  auto bind(const box& b, Ctx& ctx) const {
    return detail::bind_piece<T>(piece(), b, ctx);
  }

  // diagnostics/graph.hpp: the stages and tasks of the reductions inside the piece.
  index_t erased_stages() const { return piece().inner_stages(); }
  index_t erased_tasks() const { return piece().inner_tasks(); }
  /// node_name of the erased expression's root ("add", "normal", ...).
  std::string erased_name() const { return piece().expression_name(); }
  /// Whether the pieces can run on ts::cuda (an empty lazy: nothing to refuse yet).
  bool empty_or_device_capable() const { return !piece_ || piece_->device_capable(); }
  bool needs_lowering() const { return piece_ && piece_->needs_lowering(); }
  /// (nodes/lazy.hpp: a piece built over this lazy counts as one more reader of its piece)
  void note_parent() const {
    if (piece_) piece_->note_parent();
  }

 private:
  const detail::erased_piece<T>& piece() const {
    if (!piece_)
      throw_invalid("ts::lazy<T> is empty (default-constructed): assign an expression to it "
                    "before use");
    return *piece_;
  }

  typename detail::erased_piece<T>::ptr piece_;
};

template <expression_type E>
lazy(const E&) -> lazy<typename E::value_type>;

namespace detail {
template <class X>
struct is_lazy : std::false_type {};
template <class T>
struct is_lazy<lazy<T>> : std::true_type {};
template <class T>
struct is_lazy<lowered_lazy<T>> : std::true_type {};

/// Whether every lazy leaf of x can run on ts::cuda (true when it has none).
template <class X>
bool erased_device_capable(const X& x) {
  if constexpr (is_lazy<X>::value) {
    return x.empty_or_device_capable();
  } else {
    bool ok = true;
    for_each_operand(x, [&](const auto& a) { ok = ok && erased_device_capable(a); });
    return ok;
  }
}

/// Whether a lazy leaf of x needs lowering (false when it has none).
template <class X>
bool erased_needs_lowering(const X& x) {
  if constexpr (is_lazy<X>::value) {
    return x.needs_lowering();
  } else {
    bool any = false;
    for_each_operand(x, [&](const auto& a) { any = any || erased_needs_lowering(a); });
    return any;
  }
}

/// Each lazy leaf of x (each reference) notes one more parent on its piece.
template <class X>
void note_parents(const X& x) {
  if constexpr (is_lazy<X>::value) {
    x.note_parent();
  } else {
    for_each_operand(x, [&](const auto& a) { note_parents(a); });
  }
}

/// The deepest piece nesting among x's lazy leaves (0 when it has none).
template <class X>
int erased_depth_of(const X& x) {
  if constexpr (is_lazy<X>::value) {
    return x.depth();
  } else {
    int d = 0;
    for_each_operand(x, [&](const auto& a) { d = std::max(d, erased_depth_of(a)); });
    return d;
  }
}
}  // namespace detail

}  // namespace tessera
