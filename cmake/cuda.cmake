# CUDA and NCCL are optional at build time.
#   PARBENCH_CUDA=AUTO  build the GPU parts when CUDA and nccl.h are found
#   PARBENCH_CUDA=ON    fail clearly when either is missing
#   PARBENCH_CUDA=OFF   do not look
# Our machines carry both under /usr/local/cuda; CUDAToolkit_ROOT or
# NCCL_ROOT point elsewhere.  Of NCCL only the header is needed: libnccl
# is opened at run time (collectives/pb_nccl_lib.h), never linked.
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
  if(CUDAToolkit_FOUND AND NCCL_INCLUDE_DIR)
    file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _pb_nccl_ver REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
    string(REGEX REPLACE ".*NCCL_MAJOR ([0-9]+).*NCCL_MINOR ([0-9]+).*NCCL_PATCH ([0-9]+).*"
           "\\1.\\2.\\3" PARBENCH_NCCL_VERSION "${_pb_nccl_ver}")
    set(PARBENCH_HAVE_CUDA ON)
    message(STATUS "parbench: CUDA ${CUDAToolkit_VERSION} and nccl.h ${PARBENCH_NCCL_VERSION} "
                   "found (${NCCL_INCLUDE_DIR}): building the nccl backend "
                   "(libnccl.so.2 is opened at run time)")
  elseif(_pb_cuda STREQUAL "ON")
    message(FATAL_ERROR "PARBENCH_CUDA=ON but CUDA (found: ${CUDAToolkit_FOUND}) or NCCL "
                        "(header nccl.h: ${NCCL_INCLUDE_DIR}) is missing; "
                        "set CUDAToolkit_ROOT / NCCL_ROOT or use PARBENCH_CUDA=OFF")
  else()
    message(STATUS "parbench: CUDA or NCCL not found: building without GPU support")
  endif()
endif()

if(PARBENCH_HAVE_CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    set(CMAKE_CUDA_COMPILER ${CUDAToolkit_NVCC_EXECUTABLE})
  endif()
  # Ampere and Hopper; more with -DCMAKE_CUDA_ARCHITECTURES=...
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 80 90)
  endif()
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  enable_language(CUDA)
  # nccl.h only: its types and enums; the library is dlopen'ed.
  # SYSTEM: CUDA and NCCL headers are not held to our warning flags
  add_library(parbench::nccl_headers INTERFACE IMPORTED)
  set_target_properties(parbench::nccl_headers PROPERTIES
                        INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
endif()
