// Memory spaces: where the bytes of a chunk live. A chunk store reports one per chunk; a binding
// context reads in place only from the spaces it can access (Kokkos's "accessible from") and
// asks for a gathered copy otherwise.
#pragma once

namespace tessera {

struct memory_space {
  enum class kind : unsigned char {
    host,    // addressable by the CPU
    device,  // memory of CUDA device `id`
    other,   // anything else (a file, another rank, a toy backend's fake device): read through
             // the store's read_block
  };
  kind where = kind::host;
  int id = 0;  // the device (kind::device) or an owner-chosen number (kind::other)

  static constexpr memory_space on_host() { return {}; }
  static constexpr memory_space on_device(int d) { return {kind::device, d}; }
  static constexpr memory_space elsewhere(int i) { return {kind::other, i}; }
  constexpr bool is_host() const { return where == kind::host; }
  friend constexpr bool operator==(const memory_space&, const memory_space&) = default;
};

}  // namespace tessera
