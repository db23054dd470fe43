// MPI start-up and shut-down for ts::mpi. The first ts::mpi call initializes MPI when the program
// has not (MPI_THREAD_FUNNELED: Tessera calls MPI from the thread that called it, never from its
// worker threads) and finalizes it at exit; a program that initialized MPI itself keeps doing
// so. ts::mpi_session is the one RAII guard for programs that want the span explicit. The other
// ts::mpi headers get <mpi.h> (its C API only) through this one.
#pragma once
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1  // MPI's C API only (no deprecated C++ bindings)
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <cstdlib>
#include <exception>
#include <string>

#include "../../core/errors.hpp"

namespace tessera {

/// Thrown on every rank when a rank failed during a ts::mpi call (a chunk task threw, memory ran
/// out, a remote piece could not be served): names the first failing rank and its message.
struct rank_failure : std::runtime_error {
  rank_failure(int rank, const std::string& what, std::exception_ptr cause = {})
      : std::runtime_error(what), rank_(rank), cause_(std::move(cause)) {}
  /// The lowest rank that failed.
  int rank() const { return rank_; }
  /// On that rank, the original exception (std::rethrow_exception it); null on the others.
  const std::exception_ptr& cause() const { return cause_; }

 private:
  int rank_;
  std::exception_ptr cause_;
};

namespace detail::mpi_runtime {

inline bool& we_initialized() {
  static bool v = false;
  return v;
}

/// Finalizes MPI at exit when Tessera initialized it (a function-local static's destructor).
struct finalizer {
  ~finalizer() {
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (we_initialized() && init && !fin) MPI_Finalize();
  }
};

/// MPI is initialized after this (by the program, an mpi_session, or here).
inline void ensure_initialized() {
  int init = 0;
  MPI_Initialized(&init);
  if (init) return;
  int fin = 0;
  MPI_Finalized(&fin);
  if (fin) throw_invalid("ts::mpi: MPI was already finalized; make Tessera calls before MPI_Finalize");
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    throw_invalid("ts::mpi: MPI_Init_thread failed");
  we_initialized() = true;
  static finalizer at_exit;
}

inline int rank(MPI_Comm c) {
  ensure_initialized();
  int r = 0;
  MPI_Comm_rank(c, &r);
  return r;
}
inline int size(MPI_Comm c) {
  ensure_initialized();
  int n = 1;
  MPI_Comm_size(c, &n);
  return n;
}

}  // namespace detail::mpi_runtime

/// Optional RAII guard: MPI initialized for its lifetime (finalized at its end when it
/// initialized MPI). Without one, the first ts::mpi call initializes MPI and exit finalizes it.
class mpi_session {
 public:
  mpi_session(int* argc = nullptr, char*** argv = nullptr) {
    int init = 0;
    MPI_Initialized(&init);
    if (!init) {
      int provided = 0;
      if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        throw_invalid("ts::mpi_session: MPI_Init_thread failed");
      owns_ = true;
    }
  }
  ~mpi_session() {
    int fin = 0;
    MPI_Finalized(&fin);
    if (owns_ && !fin) MPI_Finalize();
  }
  mpi_session(const mpi_session&) = delete;
  mpi_session& operator=(const mpi_session&) = delete;
  int rank() const { return detail::mpi_runtime::rank(MPI_COMM_WORLD); }
  int size() const { return detail::mpi_runtime::size(MPI_COMM_WORLD); }

 private:
  bool owns_ = false;
};

/// Whether this process was started by mpirun / mpiexec (Open MPI, MPICH, Slurm's PMI).
inline bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

}  // namespace tessera
