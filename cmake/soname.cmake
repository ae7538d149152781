# pb_soname(VAR LIBS): VAR = the soname of the first library in LIBS (a
# path, as pkg-config's *_LINK_LIBRARIES gives), for a library parbench
# opens with dlopen: the soname is the file the dynamic linker would have
# loaded, so the build and the run agree on the version.
function(pb_soname var libs)
  list(GET libs 0 lib)
  execute_process(COMMAND "${CMAKE_OBJDUMP}" -p "${lib}" OUTPUT_VARIABLE dump
                  RESULT_VARIABLE rc ERROR_QUIET)
  string(REGEX MATCH "SONAME +([^ \n]+)" found "${dump}")
  if(NOT rc EQUAL 0 OR NOT found)
    message(FATAL_ERROR "cannot read the soname of ${lib} (objdump -p)")
  endif()
  set(${var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  message(STATUS "${lib}: soname ${CMAKE_MATCH_1}")
endfunction()
