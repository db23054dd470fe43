# ctest helper: compile SRC with nvcc (device code for sm_90) or skip when nvcc is absent.
if(NOT NVCC OR NOT EXISTS "${NVCC}")
  message("SKIPPED: nvcc not found; host+device element code was not compiled for the device")
  return()
endif()
execute_process(
  COMMAND ${NVCC} -std=c++20 -arch=sm_90 --expt-relaxed-constexpr -I${INC} -c ${SRC} -o ${OUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc failed to compile ${SRC} (exit ${rc})")
endif()
message("nvcc compiled ${SRC}")
