// Chunks that live with other processes (ranks): the part of the chunk store seam a distributed
// backend adds. A store whose blocks are owned by ranks derives from remote_blocks; the
// placement probe (exec/placement.hpp) then records, for each task it probes, the bytes of input
// per owner rank and the pieces (block, box) that are not here, and the backend fetches exactly
// those pieces before the task runs (backend/mpi/backend.hpp). Binding contexts read a fetched
// piece with read_overlap (backend/host/context.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "../core/grid.hpp"

namespace tessera::detail {

class remote_blocks {
 public:
  virtual ~remote_blocks() = default;
  /// The same number on every rank (stores are made in the same order everywhere).
  virtual std::uint64_t id() const = 0;
  /// The rank that owns block f, or -1 when every rank holds it.
  virtual int owner(index_t f) const = 0;
  /// Whether block f is in this process.
  virtual bool here(index_t f) const = 0;
  virtual std::size_t element_size() const = 0;
  /// Copies the overlap `region` of block f (which must be here) into out, row-major.
  virtual void copy_out(index_t f, const box& region, std::byte* out) const = 0;

  /// A fetched piece: region of block f, row-major (kept until forget_received()).
  void receive(index_t f, const box& region, std::vector<std::byte> bytes) const {
    received_[key(f, region)] = std::move(bytes);
  }
  const std::byte* received(index_t f, const box& region) const {
    auto it = received_.find(key(f, region));
    return it == received_.end() ? nullptr : it->second.data();
  }
  void forget_received() const { received_.clear(); }

 private:
  using key_t = std::tuple<index_t, std::vector<index_t>>;
  static key_t key(index_t f, const box& r) {
    std::vector<index_t> k;
    for (int d = 0; d < r.rank(); ++d) {
      k.push_back(r.lo[d]);
      k.push_back(r.hi[d]);
    }
    return {f, std::move(k)};
  }
  // Filled before a stage's tasks run and read (not written) while they run.
  mutable std::map<key_t, std::vector<std::byte>> received_;
};

/// A piece of a remote block that a task reads.
struct remote_piece {
  const remote_blocks* store = nullptr;
  index_t block = 0;
  box region;
  int owner = 0;
};

}  // namespace tessera::detail
