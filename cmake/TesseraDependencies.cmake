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

