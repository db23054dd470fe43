# ctest helper: install Tessera into a temporary prefix, then configure and build examples/
# as an outside project that uses find_package(tessera CONFIG REQUIRED).
file(REMOVE_RECURSE ${WORK})
set(prefix ${WORK}/prefix)
macro(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}")
  endif()
endmacro()
# The standard switch turns the tests off, and then Catch2 is not needed (disabling it here
# fails the configure if anything still asks for it).
run(${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/lib -G ${GENERATOR} -DBUILD_TESTING=OFF
    -DCMAKE_DISABLE_FIND_PACKAGE_Catch2=ON -DTESSERA_BUILD_BENCHMARKS=OFF -DTESSERA_BUILD_EXAMPLES=OFF -DCMAKE_INSTALL_PREFIX=${prefix})
run(${CMAKE_COMMAND} --install ${WORK}/lib)
# The common consumer shape: CMAKE_CXX_STANDARD 20 (with CUDA where nvcc is present, the .cu
# examples then ask CMake for the CUDA 20 dialect, which CMake 3.25 could not generate).
run(${CMAKE_COMMAND} -S ${SOURCE}/examples -B ${WORK}/app -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=20)
run(${CMAKE_COMMAND} --build ${WORK}/app --target quickstart)
run(${WORK}/app/quickstart)
if(EXISTS ${WORK}/app/CMakeFiles/cuda_auto_backend.dir)
  run(${CMAKE_COMMAND} --build ${WORK}/app --target cuda_auto_backend)
  run(${WORK}/app/cuda_auto_backend)
  message("CUDA consumer (CMAKE_CXX_STANDARD 20) built and ran")
endif()
message("consumer build against ${prefix} succeeded")
