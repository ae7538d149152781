# CUDA and NCCL are optional at build time.
#   PARBENCH_CUDA=AUTO  build the GPU parts when both are found
#   PARBENCH_CUDA=ON    fail clearly when either is missing
#   PARBENCH_CUDA=OFF   do not look
# Our machines carry both under /usr/local/cuda; CUDAToolkit_ROOT or
# NCCL_ROOT point elsewhere.
set(PARBENCH_HAVE_CUDA OFF)
string(TOUPPER "${PARBENCH_CUDA}" _pb_cuda)
if(NOT _pb_cuda MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "PARBENCH_CUDA must be AUTO, ON or OFF, not '${PARBENCH_CUDA}'")
endif()
if(NOT _pb_cuda STREQUAL "OFF")
  if(NOT CUDAToolkit_ROOT AND EXISTS /usr/local/cuda)
    set(CUDAToolkit_ROOT /usr/local/cuda)
  endif()
  find_package(CUDAToolkit QUIET)
  find_path(NCCL_INCLUDE_DIR nccl.h
            HINTS ${NCCL_ROOT} ${CUDAToolkit_ROOT} ENV NCCL_ROOT PATH_SUFFIXES include)
  find_library(NCCL_LIBRARY nccl
               HINTS ${NCCL_ROOT} ${CUDAToolkit_ROOT} ENV NCCL_ROOT PATH_SUFFIXES lib64 lib)
  if(CUDAToolkit_FOUND AND NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _pb_nccl_ver REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
    string(REGEX REPLACE ".*NCCL_MAJOR ([0-9]+).*NCCL_MINOR ([0-9]+).*NCCL_PATCH ([0-9]+).*"
           "\\1.\\2.\\3" PARBENCH_NCCL_VERSION "${_pb_nccl_ver}")
    set(PARBENCH_HAVE_CUDA ON)
    message(STATUS "parbench: CUDA ${CUDAToolkit_VERSION} and NCCL ${PARBENCH_NCCL_VERSION} "
                   "found (${NCCL_LIBRARY}); the NCCL backend lands with its own issue")
  elseif(_pb_cuda STREQUAL "ON")
    message(FATAL_ERROR "PARBENCH_CUDA=ON but CUDA (found: ${CUDAToolkit_FOUND}) or NCCL "
                        "(header: ${NCCL_INCLUDE_DIR}, library: ${NCCL_LIBRARY}) is missing; "
                        "set CUDAToolkit_ROOT / NCCL_ROOT or use PARBENCH_CUDA=OFF")
  else()
    message(STATUS "parbench: CUDA or NCCL not found: building without GPU support")
  endif()
endif()
