# HIP (AMD GPUs) is optional at build time, as CUDA is (cmake/cuda.cmake).
#   PARBENCH_HIP=AUTO  build the AMD parts when hipcc and the HIP headers are found
#   PARBENCH_HIP=ON    fail clearly when either is missing
#   PARBENCH_HIP=OFF   do not look
# Of HIP, only hipcc (for the kernels) and hip/hip_runtime_api.h (types)
# are needed: libamdhip64 is opened at run time (collectives/pb_gpurt.h
# says why), never linked.  HIP_ROOT or ROCM_PATH point elsewhere than
# Debian's /usr or ROCm's /opt/rocm.
#
# The kernels (collectives/pb_hip_kernels.hip) are built as one code
# object per AMD target this hipcc supports: every target of the list
# below is tried at configure time with a tiny kernel that reads the
# same real-time clock the kernels read (pb_hip_clock.h), and the build
# says which it kept.  -DPARBENCH_HIP_TARGETS="gfx90a;gfx942" replaces
# the probe.  A device with no matching object takes the host fallback
# (pb_hip_kernels.h), so HIP with no target at all still builds.
set(PARBENCH_HIP AUTO CACHE STRING "Build the HIP (AMD GPU) parts: AUTO, ON or OFF")
set_property(CACHE PARBENCH_HIP PROPERTY STRINGS AUTO ON OFF)
set(PARBENCH_HIP_TARGETS "" CACHE STRING
    "AMD targets to build kernels for (e.g. gfx90a;gfx942); empty: every one hipcc supports")
set(PARBENCH_HAVE_HIP OFF)
# MI100 (gfx908), MI200 (gfx90a), MI300 (gfx940-942), MI350 (gfx950),
# and Radeon: RDNA2 (gfx1030), RDNA3 (gfx110x), RDNA4 (gfx120x); gfx906 is MI50/MI60
set(PB_HIP_CANDIDATES gfx906 gfx908 gfx90a gfx940 gfx941 gfx942 gfx950
                      gfx1030 gfx1100 gfx1101 gfx1200 gfx1201)

string(TOUPPER "${PARBENCH_HIP}" _pb_hip)
if(NOT _pb_hip MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "PARBENCH_HIP must be AUTO, ON or OFF, not '${PARBENCH_HIP}'")
endif()
if(NOT _pb_hip STREQUAL "OFF")
  find_program(PB_HIPCC hipcc HINTS ${HIP_ROOT} ENV ROCM_PATH /opt/rocm PATH_SUFFIXES bin)
  find_path(PB_HIP_INCLUDE_DIR hip/hip_runtime_api.h
            HINTS ${HIP_ROOT} ENV ROCM_PATH /opt/rocm PATH_SUFFIXES include)
  if(PB_HIPCC AND EXISTS "${PB_HIPCC}" AND PB_HIP_INCLUDE_DIR)
    set(PARBENCH_HAVE_HIP ON)
  elseif(_pb_hip STREQUAL "ON")
    message(FATAL_ERROR "PARBENCH_HIP=ON but hipcc (found: ${PB_HIPCC}) or the HIP headers "
                        "(hip/hip_runtime_api.h: ${PB_HIP_INCLUDE_DIR}) are missing; "
                        "set HIP_ROOT / ROCM_PATH or use PARBENCH_HIP=OFF")
  else()
    message(STATUS "parbench: hipcc or the HIP headers not found: building without AMD GPU support")
  endif()
endif()

if(PARBENCH_HAVE_HIP)
  execute_process(COMMAND ${PB_HIPCC} --version OUTPUT_VARIABLE _pb_hipv ERROR_QUIET)
  string(REGEX MATCH "HIP version: ([0-9]+\\.[0-9]+\\.[0-9]+)" _pb_m "${_pb_hipv}")
  set(PB_HIP_VERSION "${CMAKE_MATCH_1}")
  if(PARBENCH_HIP_TARGETS)
    set(PB_HIP_BUILT ${PARBENCH_HIP_TARGETS})
    set(_pb_why "as asked by PARBENCH_HIP_TARGETS")
  else()
    # probed once per hipcc: the answer is cached under its version
    if(NOT "${_PB_HIP_PROBE_KEY}" STREQUAL "${PB_HIPCC} ${PB_HIP_VERSION}")
      set(_pb_dir ${CMAKE_BINARY_DIR}/hip_probe)
      file(MAKE_DIRECTORY ${_pb_dir})
      file(WRITE ${_pb_dir}/probe.hip
           "#include \"pb_hip_clock.h\"\n"
           "extern \"C\" __global__ void pb_probe(unsigned long long *o) { o[0] = pb_hip_now(); }\n")
      set(_pb_ok "")
      foreach(t ${PB_HIP_CANDIDATES})
        execute_process(COMMAND ${PB_HIPCC} --genco --no-gpu-bundle-output --offload-arch=${t}
                                -I${CMAKE_SOURCE_DIR}/collectives probe.hip -o probe_${t}.co
                        WORKING_DIRECTORY ${_pb_dir} RESULT_VARIABLE _pb_rc
                        OUTPUT_QUIET ERROR_QUIET TIMEOUT 120)
        if(_pb_rc EQUAL 0)
          list(APPEND _pb_ok ${t})
        endif()
      endforeach()
      set(_PB_HIP_PROBED "${_pb_ok}" CACHE INTERNAL "AMD targets the hipcc supports")
      set(_PB_HIP_PROBE_KEY "${PB_HIPCC} ${PB_HIP_VERSION}" CACHE INTERNAL "which hipcc was probed")
    endif()
    set(PB_HIP_BUILT ${_PB_HIP_PROBED})
    set(_pb_not ${PB_HIP_CANDIDATES})
    if(PB_HIP_BUILT)
      list(REMOVE_ITEM _pb_not ${PB_HIP_BUILT})
    endif()
    list(JOIN _pb_not " " _pb_not)
    set(_pb_why "not supported by this hipcc: ${_pb_not}")
  endif()
  list(JOIN PB_HIP_BUILT " " PB_HIP_BUILT_NAMES)
  if(PB_HIP_BUILT)
    message(STATUS "parbench: HIP ${PB_HIP_VERSION}: kernels for ${PB_HIP_BUILT_NAMES} (${_pb_why})")
  else()
    message(STATUS "parbench: HIP ${PB_HIP_VERSION}: kernels for no target (${_pb_why}); "
                   "every AMD GPU takes the host fallback (fill and check by copies, no busy)")
  endif()
  # HIP's C API header for types only: SYSTEM, not held to our warnings
  add_library(parbench::hip_headers INTERFACE IMPORTED)
  set_target_properties(parbench::hip_headers PROPERTIES
                        INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${PB_HIP_INCLUDE_DIR}"
                        INTERFACE_COMPILE_DEFINITIONS __HIP_PLATFORM_AMD__)
endif()

# pb_hip_kernels: the code objects, embedded, and their C loader.
# --no-gpu-bundle-output: --genco alone wraps even one target's object in
# a clang offload bundle; the plain AMDGPU ELF is what the loader picks by
# target itself, loads as well, and what the unit test can read.  A
# function, called by the top CMakeLists.txt once pb_collectives (whose
# host checker the fallback uses) is defined.
function(pb_hip_kernels_library)
  set(src ${CMAKE_SOURCE_DIR}/collectives)
  set(dir ${CMAKE_BINARY_DIR}/hip_kernels)
  file(MAKE_DIRECTORY ${dir})
  set(objs "")
  # the kernels are held to warnings as the C is (PARBENCH_WERROR)
  set(warn -Wall -Wextra)
  if(PARBENCH_WERROR)
    list(APPEND warn -Werror)
  endif()
  foreach(t ${PB_HIP_BUILT})
    add_custom_command(OUTPUT ${dir}/pb_hip_kernels_${t}.co
      COMMAND ${PB_HIPCC} --genco --no-gpu-bundle-output -O3 --offload-arch=${t} ${warn} -I${src}
              ${src}/pb_hip_kernels.hip -o ${dir}/pb_hip_kernels_${t}.co
      DEPENDS ${src}/pb_hip_kernels.hip ${src}/pb_hip_clock.h ${src}/pb_check_math.h
              ${src}/pb_expect.h ${CMAKE_SOURCE_DIR}/core/pb_coll.h ${CMAKE_SOURCE_DIR}/core/pb_dtype.h
      COMMENT "hipcc: the verification kernels for ${t}" VERBATIM)
    list(APPEND objs ${dir}/pb_hip_kernels_${t}.co)
  endforeach()
  add_custom_command(OUTPUT ${dir}/pb_hip_kobj_gen.c
    COMMAND ${CMAKE_COMMAND} "-DTARGETS=${PB_HIP_BUILT}" -DDIR=${dir} -DOUT=${dir}/pb_hip_kobj_gen.c
            -P ${CMAKE_SOURCE_DIR}/cmake/pb_hip_embed.cmake
    DEPENDS ${objs} ${CMAKE_SOURCE_DIR}/cmake/pb_hip_embed.cmake
    COMMENT "Embedding the HIP code objects" VERBATIM)
  add_library(pb_hip_kernels STATIC ${dir}/pb_hip_kobj_gen.c
              ${src}/pb_hip_kern.c ${src}/pb_hip_kern_host.c)
  target_include_directories(pb_hip_kernels PRIVATE ${src})
  # the host fallback reuses the host checker (pb_check.c) of pb_collectives
  target_link_libraries(pb_hip_kernels PUBLIC parbench::hip_headers pb_core pb_util
                        PRIVATE pb_collectives)
  # a generated table of bytes may pass the 4095 characters C11 promises
  set_source_files_properties(${dir}/pb_hip_kobj_gen.c PROPERTIES
                              COMPILE_OPTIONS -Wno-overlength-strings)
endfunction()
