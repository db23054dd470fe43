# Finds Tessera's dependencies (Debian packages). Used by the build and by tesseraConfig.cmake.
include(CMakeFindDependencyMacro)
find_dependency(xtl)
find_dependency(xtensor)
find_dependency(TBB)

# LAPACKE + OpenBLAS (Debian: liblapacke-dev, libopenblas-dev) for ts::linalg on the host.
if(NOT TARGET tessera::lapack)
  find_path(TESSERA_LAPACKE_INCLUDE lapacke.h PATH_SUFFIXES openblas)
  find_library(TESSERA_LAPACKE_LIB lapacke)
  find_library(TESSERA_OPENBLAS_LIB NAMES openblas)
  if(TESSERA_LAPACKE_INCLUDE AND TESSERA_LAPACKE_LIB AND TESSERA_OPENBLAS_LIB)
    add_library(tessera::lapack INTERFACE IMPORTED)
    set_target_properties(tessera::lapack PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${TESSERA_LAPACKE_INCLUDE}"
      INTERFACE_LINK_LIBRARIES "${TESSERA_LAPACKE_LIB};${TESSERA_OPENBLAS_LIB}")
  else()
    message(WARNING "tessera: LAPACKE/OpenBLAS not found; tessera::linalg will not link")
    add_library(tessera::lapack INTERFACE IMPORTED)
  endif()
endif()


# Arrays on disk (tessera::io: Zarr and .npy): nlohmann-json, c-blosc, zstd, zlib and ISA-L's
# CRC32C (Debian: nlohmann-json3-dev, libblosc-dev, libzstd-dev, zlib1g-dev, libisal-dev).
if(NOT TARGET tessera::io_libraries)
  find_package(nlohmann_json 3 QUIET)
  find_package(ZLIB QUIET)
  find_path(TESSERA_BLOSC_INCLUDE blosc.h)
  find_library(TESSERA_BLOSC_LIB blosc)
  find_path(TESSERA_ZSTD_INCLUDE zstd.h)
  find_library(TESSERA_ZSTD_LIB zstd)
  find_path(TESSERA_ISAL_INCLUDE isa-l/crc.h)
  find_library(TESSERA_ISAL_LIB isal)
  add_library(tessera::io_libraries INTERFACE IMPORTED)
  if(nlohmann_json_FOUND AND ZLIB_FOUND AND TESSERA_BLOSC_INCLUDE AND TESSERA_BLOSC_LIB
     AND TESSERA_ZSTD_INCLUDE AND TESSERA_ZSTD_LIB AND TESSERA_ISAL_INCLUDE AND TESSERA_ISAL_LIB)
    set(TESSERA_IO_FOUND TRUE)
    set_target_properties(tessera::io_libraries PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${TESSERA_BLOSC_INCLUDE};${TESSERA_ZSTD_INCLUDE};${TESSERA_ISAL_INCLUDE}"
      INTERFACE_LINK_LIBRARIES
        "nlohmann_json::nlohmann_json;ZLIB::ZLIB;${TESSERA_BLOSC_LIB};${TESSERA_ZSTD_LIB};${TESSERA_ISAL_LIB}")
  else()
    set(TESSERA_IO_FOUND FALSE)
    message(WARNING "tessera: nlohmann-json, c-blosc, zstd, zlib or ISA-L not found; tessera::io "
                    "(Zarr, .npy) will not build (Debian: nlohmann-json3-dev libblosc-dev "
                    "libzstd-dev zlib1g-dev libisal-dev)")
  endif()
endif()

# MPI (tessera::mpi: the ts::mpi policy; Debian: libopenmpi-dev openmpi-bin). Optional: host-only
# users never need it.
if(NOT TARGET MPI::MPI_CXX)
  find_package(MPI COMPONENTS CXX QUIET)
endif()
