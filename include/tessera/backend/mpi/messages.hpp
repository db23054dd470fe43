// The messages of ts::mpi: every collective step of a stage (agreeing on failures, fetching
// remote pieces, sharing task outputs) is one call here, made by every rank of the communicator
// from the thread that called Tessera.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "session.hpp"

namespace tessera {

/// Bytes this process sent and received through ts::mpi since the start (or the last reset):
/// remote pieces fetched for tasks, task outputs shared (compute results, reduction partials),
/// failure messages. For tests and benchmarks.
struct mpi_traffic_counters {
  std::int64_t bytes_sent = 0, bytes_received = 0, messages_sent = 0;
  std::int64_t piece_bytes_received = 0;  // of which remote pieces of distributed arrays
  void reset() { *this = {}; }
};
inline mpi_traffic_counters& mpi_traffic() {
  static mpi_traffic_counters c;
  return c;
}

namespace detail::mpi_runtime {

/// Every rank learns whether any rank failed; if one did, every rank throws rank_failure naming
/// the lowest failing rank and its message (and how many others failed).
inline void agree(MPI_Comm comm, const std::string& error, std::exception_ptr cause = {}) {
  const int n = size(comm), me = rank(comm);
  if (n == 1) {
    if (!error.empty()) throw rank_failure(0, "tessera: ts::mpi: rank 0 of 1 failed: " + error, cause);
    return;
  }
  int len = int(error.size());
  std::vector<int> lens(static_cast<std::size_t>(n));
  MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, comm);
  if (std::all_of(lens.begin(), lens.end(), [](int l) { return l == 0; })) return;
  std::vector<int> displs(std::size_t(n), 0);
  for (int r = 1; r < n; ++r) displs[std::size_t(r)] = displs[std::size_t(r - 1)] + lens[std::size_t(r - 1)];
  std::string all(std::size_t(displs.back() + lens.back()), '\0');
  MPI_Allgatherv(error.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, comm);
  int first = -1, others = 0;
  for (int r = 0; r < n; ++r) {
    if (lens[std::size_t(r)] == 0) continue;
    if (first < 0) first = r;
    else ++others;
  }
  std::string what = "tessera: ts::mpi: rank " + std::to_string(first) + " of " + std::to_string(n) +
                     " failed: " + all.substr(std::size_t(displs[std::size_t(first)]), std::size_t(lens[std::size_t(first)]));
  if (others > 0) what += " (and " + std::to_string(others) + " more rank" + (others > 1 ? "s" : "") + " failed)";
  throw rank_failure(first, what, first == me ? cause : std::exception_ptr{});
}

/// Point-to-point exchange: send[r] goes to rank r, and recv_size[r] bytes come from rank r
/// (both known to both sides). Messages are cut into slices of at most 1 GiB (MPI counts are
/// int). Returns the received buffers (recv[me] is empty).
inline std::vector<std::vector<std::byte>> exchange(MPI_Comm comm, const std::vector<const std::vector<std::byte>*>& send,
                                                    const std::vector<std::size_t>& recv_size, int tag) {
  const int n = size(comm), me = rank(comm);
  constexpr std::size_t slice = std::size_t(1) << 30;
  std::vector<std::vector<std::byte>> recv(static_cast<std::size_t>(n));
  std::vector<MPI_Request> reqs;
  auto slices = [](std::size_t bytes) { return bytes == 0 ? std::size_t(0) : (bytes + slice - 1) / slice; };
  for (int r = 0; r < n; ++r) {
    if (r == me || recv_size[std::size_t(r)] == 0) continue;
    auto& buf = recv[std::size_t(r)];
    buf.resize(recv_size[std::size_t(r)]);
    for (std::size_t s = 0, k = slices(buf.size()); s < k; ++s) {
      const std::size_t off = s * slice, len = std::min(slice, buf.size() - off);
      reqs.emplace_back();
      MPI_Irecv(buf.data() + off, int(len), MPI_BYTE, r, tag, comm, &reqs.back());
    }
    mpi_traffic().bytes_received += std::int64_t(buf.size());
  }
  for (int r = 0; r < n; ++r) {
    const std::vector<std::byte>* buf = send[std::size_t(r)];
    if (r == me || !buf || buf->empty()) continue;
    for (std::size_t s = 0, k = slices(buf->size()); s < k; ++s) {
      const std::size_t off = s * slice, len = std::min(slice, buf->size() - off);
      reqs.emplace_back();
      MPI_Isend(buf->data() + off, int(len), MPI_BYTE, r, tag, comm, &reqs.back());
      ++mpi_traffic().messages_sent;
    }
    mpi_traffic().bytes_sent += std::int64_t(buf->size());
  }
  MPI_Waitall(int(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  return recv;
}

/// Each rank's count, gathered to every rank.
inline std::vector<std::int64_t> allgather_count(MPI_Comm comm, std::int64_t mine) {
  std::vector<std::int64_t> all(std::size_t(size(comm)));
  MPI_Allgather(&mine, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, comm);
  return all;
}

/// The node-local rank (ranks sharing this machine's memory, numbered from 0).
inline int node_rank(MPI_Comm comm) {
  MPI_Comm local;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank(comm), MPI_INFO_NULL, &local);
  int r = 0;
  MPI_Comm_rank(local, &r);
  MPI_Comm_free(&local);
  return r;
}

}  // namespace detail::mpi_runtime
}  // namespace tessera
