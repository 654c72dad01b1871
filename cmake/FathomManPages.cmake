# Man pages generated from the programs' own --help (help2man), so that they never disagree.
#
# fathom_man_page(PAGE TARGET NAME "one-line description" [ARGS subcommand...] [HELP opt])
# builds ${CMAKE_BINARY_DIR}/man/PAGE.1 from `NAME ARGS --help` run through a wrapper that shows
# the program as NAME (not its build path), and installs it in ${CMAKE_INSTALL_MANDIR}/man1.
find_program(FATHOM_HELP2MAN help2man)
if(NOT FATHOM_HELP2MAN)
  message(STATUS "help2man not found: no man pages (apt-get install help2man)")
endif()
add_custom_target(man_pages ALL)

function(fathom_man_page page target name description)
  if(NOT FATHOM_HELP2MAN)
    return()
  endif()
  cmake_parse_arguments(ARG "" "HELP" "ARGS" ${ARGN})
  if(NOT ARG_HELP)
    set(ARG_HELP "--help")
  endif()
  set(wrapper ${CMAKE_BINARY_DIR}/man/bin/${page})
  list(JOIN ARG_ARGS " " args)
  file(GENERATE OUTPUT ${wrapper}
       CONTENT "#!/bin/bash\nexec -a ${name} \"$<TARGET_FILE:${target}>\" ${args} \"$@\"\n"
       FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  set(out ${CMAKE_BINARY_DIR}/man/${page}.1)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${FATHOM_HELP2MAN} --no-info --no-discard-stderr --section=1 "--name=${description}"
            "--help-option=${ARG_HELP}" "--version-string=${PROJECT_VERSION}"
            "--source=fathom ${PROJECT_VERSION}" --output=${out} ${wrapper}
    DEPENDS ${target} ${wrapper}
    COMMENT "Man page ${page}.1"
    VERBATIM)
  add_custom_target(man_${page} DEPENDS ${out})
  add_dependencies(man_pages man_${page})
  install(FILES ${out} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endfunction()
