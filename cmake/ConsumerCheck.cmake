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
run(${CMAKE_COMMAND} -S ${SOURCE}/examples -B ${WORK}/app -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK}/app --target quickstart)
run(${WORK}/app/quickstart)
message("consumer build against ${prefix} succeeded")
