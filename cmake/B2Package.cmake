# SPDX-License-Identifier: BSD-3-Clause
# Packaging: `cpack -G DEB` in a build tree makes one Debian package, libb2blosc,
# holding everything `cmake --install` installs: libb2blosc.so.1 (+ .so, .a), the
# headers in /usr/include/b2blosc/, b2blosc.pc and b2blosc_h5filter.pc, the CMake
# package b2blosc, libb2blosc_h5filter.a, the HDF5 plugin libH5Zb2.so in Debian's
# default HDF5 plugin directory (hdf5/serial/plugins, with a symlink in the Open
# MPI HDF5's hdf5/openmpi/plugins), the b2 program and its man page, and Debian's
# copyright (DEP-5) and changelog.Debian.gz in /usr/share/doc/libb2blosc.
#
# Configure the tree for packaging with the Debian layout:
#   cmake -S . -B build-deb -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_BUILD_TYPE=Release
#   cmake --build build-deb -j2 && (cd build-deb && cpack -G DEB)
# GNUInstallDirs gives the multiarch libdir (lib/x86_64-linux-gnu) only when the
# prefix is /usr at configure time; cpack refuses to make a .deb from a tree
# configured otherwise (its files would land in /usr/lib, where neither the
# dynamic loader's multiarch path nor HDF5's plugin search looks).
#
# Depends: dpkg-shlibdeps (package dpkg-dev) computes the run-time libraries of
# libb2blosc.so.1, libH5Zb2.so and b2 (liblz4, libzstd, libdeflate0, msgpack,
# libzfp unless B2_WITH_ZFP=OFF, libxxhash, libc, and libhdf5 for b2; zlib only
# when built with B2_ZLIB_ENCODER=zlib). The development files need more:
# b2blosc.pc names liblz4, libzstd, libdeflate, libxxhash (and zlib with that
# option) in Requires.private (pkg-config fails without their .pc files), and
# linking the static libraries needs the codec and msgpack -dev packages
# (libzfp-dev too when built with zfp; zlib1g-dev with the zlib encoder, whose
# CMake package then finds ZLIB); they are added. So is python3, for the h5py module b2blosc_h5
# in /usr/lib/python3/dist-packages (lintian: python-package-missing-depends-on-python).

# ---- the man page of b2, installed with the program (gzipped as Debian wants) ----
if(TARGET b2cli)
  set(B2_MAN_SRC ${PROJECT_SOURCE_DIR}/tools/b2.1)
  find_program(B2_GZIP gzip)
  if(B2_GZIP)
    add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/man/b2.1.gz
      COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
      COMMAND ${CMAKE_COMMAND} -E copy ${B2_MAN_SRC} ${PROJECT_BINARY_DIR}/man/b2.1
      COMMAND ${B2_GZIP} -9nf ${PROJECT_BINARY_DIR}/man/b2.1
      DEPENDS ${B2_MAN_SRC} VERBATIM)
    add_custom_target(b2_man ALL DEPENDS ${PROJECT_BINARY_DIR}/man/b2.1.gz)
    install(FILES ${PROJECT_BINARY_DIR}/man/b2.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  else()
    install(FILES ${B2_MAN_SRC} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  endif()
endif()

# ---- CPack ----
set(CPACK_PACKAGE_NAME "libb2blosc")
set(CPACK_PACKAGE_VENDOR "libb2")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(B2_PACKAGE_CONTACT "libb2 maintainers <maintainers@users.noreply.a-seed-e5276d63.example>"
  CACHE STRING "Maintainer field of the Debian package")
set(CPACK_PACKAGE_CONTACT "${B2_PACKAGE_CONTACT}")

# ---- Debian's copyright (DEP-5) and changelog.Debian.gz in usr/share/doc/libb2blosc ----
# The copyright file is made from LICENSE: its copyright line, and its terms
# (from "Redistribution") as the BSD-3-Clause licence text, each line indented
# by one space and blank lines written " .".
set(B2_DEB_DOCDIR ${CMAKE_INSTALL_DATAROOTDIR}/doc/libb2blosc)
file(READ ${PROJECT_SOURCE_DIR}/LICENSE B2_LICENSE_TEXT)
string(REGEX MATCH "Copyright \\(c\\) ([^\n]*)" _ "${B2_LICENSE_TEXT}")
set(B2_COPYRIGHT_HOLDER "${CMAKE_MATCH_1}")
string(FIND "${B2_LICENSE_TEXT}" "Redistribution" _pos)
string(SUBSTRING "${B2_LICENSE_TEXT}" ${_pos} -1 _terms)
string(STRIP "${_terms}" _terms)
string(REGEX REPLACE "\n[ \t]*\n" "\n.\n" _terms "${_terms}")
string(REGEX REPLACE "\n" "\n " _terms "${_terms}")
file(WRITE ${PROJECT_BINARY_DIR}/deb/copyright
  "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
  "Upstream-Name: libb2\n"
  "\n"
  "Files: *\n"
  "Copyright: ${B2_COPYRIGHT_HOLDER}\n"
  "License: BSD-3-Clause\n"
  "\n"
  "License: BSD-3-Clause\n"
  " ${_terms}\n")
install(FILES ${PROJECT_BINARY_DIR}/deb/copyright DESTINATION ${B2_DEB_DOCDIR})
# The changelog dpkg and lintian expect of a non-native package (version
# <upstream>-<release>); dated from SOURCE_DATE_EPOCH when set (reproducible).
string(TIMESTAMP B2_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(WRITE ${PROJECT_BINARY_DIR}/deb/changelog.Debian
  "libb2blosc (${PROJECT_VERSION}-1) unstable; urgency=medium\n\n"
  "  * libb2 ${PROJECT_VERSION}, packaged with CPack (cmake/B2Package.cmake).\n\n"
  " -- ${B2_PACKAGE_CONTACT}  ${B2_DEB_DATE}\n")
find_program(B2_GZIP gzip)
if(B2_GZIP)
  add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/deb/doc/changelog.Debian.gz
    COMMAND ${CMAKE_COMMAND} -E copy ${PROJECT_BINARY_DIR}/deb/changelog.Debian
      ${PROJECT_BINARY_DIR}/deb/doc/changelog.Debian
    COMMAND ${B2_GZIP} -9nf ${PROJECT_BINARY_DIR}/deb/doc/changelog.Debian
    DEPENDS ${PROJECT_BINARY_DIR}/deb/changelog.Debian VERBATIM)
  add_custom_target(b2_deb_changelog ALL DEPENDS ${PROJECT_BINARY_DIR}/deb/doc/changelog.Debian.gz)
  install(FILES ${PROJECT_BINARY_DIR}/deb/doc/changelog.Debian.gz DESTINATION ${B2_DEB_DOCDIR})
endif()

set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "Blosc2 chunks, frames and b2nd arrays: library, HDF5 filter 32026 and b2 tool")
# CPack puts the summary above this text, as the first line of the Description field.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "libb2 is a from-scratch C11 implementation of the Blosc2 storage formats
(chunks, contiguous and sparse frames, b2nd N-dimensional arrays), reading and
writing the files c-blosc2 does.
.
This package holds the shared and static library libb2blosc with its headers
(/usr/include/b2blosc), pkg-config and CMake files; the HDF5 filter plugin for
filter id 32026 (Blosc2) in HDF5's default plugin directory, so HDF5 programs
and h5py read and write Blosc2-compressed datasets without HDF5_PLUGIN_PATH;
and the b2 command-line program (compress, inspect, verify, slice, benchmark).")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")

set(CPACK_DEBIAN_PACKAGE_NAME "libb2blosc")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # libb2blosc_<version>-<release>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION "libs")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "liblz4-dev, libzstd-dev, libdeflate-dev, libmsgpack-dev, libxxhash-dev, python3")
if(B2_WITH_ZFP)
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libzfp-dev")
endif()
if(B2_ZLIB_ENCODER STREQUAL "zlib")
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", zlib1g-dev")
endif()
# a shlibs file for libb2blosc.so.1 and the ldconfig trigger
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
# ldconfig runs through dpkg's trigger. Newer CPack (CMake 4's, from pip) writes that
# trigger itself, and given ours as an extra control file ships it executable, which
# lintian refuses; older CPack (Debian 12's 3.25) calls ldconfig from postinst/postrm
# and needs ours. Which one runs is read off the CPackDeb module of this CMake.
file(READ ${CMAKE_ROOT}/Modules/Internal/CPack/CPackDeb.cmake _b2_cpackdeb)
string(FIND "${_b2_cpackdeb}" "CPACK_DEBIAN_GENERATE_LDCONFIG_TRIGGERS" _b2_cpack_triggers)
if(_b2_cpack_triggers EQUAL -1)
  file(WRITE ${PROJECT_BINARY_DIR}/deb/triggers "activate-noawait ldconfig\n")
  set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_BINARY_DIR}/deb/triggers)
endif()
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Boost.Build's program is also /usr/bin/b2 (Debian 12: libboost1.74-tools-dev).
set(CPACK_DEBIAN_PACKAGE_CONFLICTS "libboost1.74-tools-dev")

# Checked when cpack runs: a .deb needs the Debian layout (see above).
set(B2_CPACK_OPTIONS "# written by cmake/B2Package.cmake\n")
if(NOT (CMAKE_INSTALL_PREFIX MATCHES "^/usr/?$" AND NOT IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}"
        AND (NOT CMAKE_LIBRARY_ARCHITECTURE
             OR CMAKE_INSTALL_LIBDIR STREQUAL "lib/${CMAKE_LIBRARY_ARCHITECTURE}")))
  string(APPEND B2_CPACK_OPTIONS
    "if(CPACK_GENERATOR STREQUAL \"DEB\")\n"
    "  message(FATAL_ERROR \"this tree was configured with CMAKE_INSTALL_PREFIX=${CMAKE_INSTALL_PREFIX} \"\n"
    "    \"(libdir ${CMAKE_INSTALL_LIBDIR}); a Debian package needs -DCMAKE_INSTALL_PREFIX=/usr \"\n"
    "    \"at configure time, which gives the multiarch libdir lib/<triplet>\")\n"
    "endif()\n")
endif()
file(WRITE ${PROJECT_BINARY_DIR}/B2CPackOptions.cmake "${B2_CPACK_OPTIONS}")
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_BINARY_DIR}/B2CPackOptions.cmake)

include(CPack)
