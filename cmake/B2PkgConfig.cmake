# SPDX-License-Identifier: BSD-3-Clause
# b2_install_pkgconfig(<template> <name>): configure <template> into <name>.pc and
# install it in <libdir>/pkgconfig. The file locates its prefix from its own place
# (${pcfiledir}), so `cmake --install --prefix X` and moved installations stay right;
# the template uses @B2_PC_PREFIX@, @B2_PC_LIBDIR@ and @B2_PC_INCLUDEDIR@.
function(b2_install_pkgconfig template name)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    set(B2_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
    set(B2_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
  else()
    # one ".." per component of <libdir>/pkgconfig (lib/pkgconfig or lib/<triplet>/pkgconfig)
    file(RELATIVE_PATH up "/b2root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/b2root")
    string(REGEX REPLACE "/$" "" up "${up}")
    set(B2_PC_PREFIX "\${pcfiledir}/${up}")
    set(B2_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  endif()
  if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
    set(B2_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
  else()
    set(B2_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
  endif()
  configure_file(${template} ${CMAKE_CURRENT_BINARY_DIR}/${name}.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${name}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
