# SPDX-License-Identifier: BSD-3-Clause
# HDF5 for the filter plugin (headers only: h5plugin/h5api.c resolves the HDF5
# functions at run time), the b2 tool and test_h5register (headers + libhdf5).
#
# Serial HDF5 by default, even where a parallel (MPI) HDF5 is installed beside it
# (Debian: libhdf5-dev + libhdf5-openmpi-dev, where hdf5.pc may then point at the
# MPI build); -DB2_HDF5_PARALLEL=ON asks for the parallel one. Searched, in order:
#   1. find_package(HDF5) (the h5cc/h5pcc wrappers, HDF5's CMake package, or a
#      plain search; HDF5_ROOT and HDF5_C_COMPILER_EXECUTABLE steer it);
#   2. pkg-config: hdf5-serial then hdf5 (serial), or hdf5-openmpi, hdf5-mpich
#      then hdf5 (parallel), each with its full flags.
# Whether a candidate is parallel is read from its H5pubconf.h (H5_HAVE_PARALLEL),
# as that is what makes H5public.h include <mpi.h>. A parallel HDF5 brings
# find_package(MPI COMPONENTS C) for MPI's include directory (and MPI::MPI_C for
# the programs). When only a parallel HDF5 exists it is used without the option.
#
# Results:
#   B2_HDF5_FOUND, B2_HDF5_IS_PARALLEL, B2_HDF5_VERSION
#   b2_hdf5_headers  INTERFACE target: HDF5's (and MPI's) include directories
#   b2_hdf5          INTERFACE target: b2_hdf5_headers + HDF5's libraries (+ MPI)
include_guard(GLOBAL)

option(B2_HDF5_PARALLEL
  "Build against the parallel (MPI) HDF5; OFF: the serial one, even when both are installed" OFF)

# _b2_hdf5_inspect(<dirs>): B2_HDF5_CAND_HEADER (dir holding hdf5.h, or empty),
# B2_HDF5_CAND_PARALLEL and B2_HDF5_CAND_VERSION from H5pubconf.h.
function(_b2_hdf5_inspect)
  set(header "")
  set(parallel FALSE)
  set(version "")
  foreach(dir IN LISTS ARGN)
    if(NOT header AND EXISTS "${dir}/hdf5.h")
      set(header "${dir}")
    endif()
    foreach(conf H5pubconf.h H5pubconf-64.h H5pubconf-32.h)
      if(EXISTS "${dir}/${conf}")
        file(STRINGS "${dir}/${conf}" par REGEX "^[ \t]*#[ \t]*define[ \t]+H5_HAVE_PARALLEL[ \t]+1")
        if(par)
          set(parallel TRUE)
        endif()
        file(STRINGS "${dir}/${conf}" ver REGEX "^[ \t]*#[ \t]*define[ \t]+H5_VERSION[ \t]+")
        if(NOT version AND ver MATCHES "H5_VERSION[ \t]+\"([0-9]+\\.[0-9]+\\.[0-9]+)")
          set(version "${CMAKE_MATCH_1}")
        endif()
      endif()
    endforeach()
  endforeach()
  set(B2_HDF5_CAND_HEADER "${header}" PARENT_SCOPE)
  set(B2_HDF5_CAND_PARALLEL ${parallel} PARENT_SCOPE)
  set(B2_HDF5_CAND_VERSION "${version}" PARENT_SCOPE)
endfunction()

# What FindHDF5 cached for one setting of the option (wrapper, libraries) is no
# answer for the other: forget it when the option changes (HDF5_ROOT stays).
if(DEFINED B2_HDF5_PARALLEL_SEEN AND NOT B2_HDF5_PARALLEL_SEEN STREQUAL B2_HDF5_PARALLEL)
  get_cmake_property(_b2_cached CACHE_VARIABLES)
  foreach(var IN LISTS _b2_cached)
    if(var MATCHES "^HDF5_" AND NOT var STREQUAL "HDF5_ROOT")
      unset(${var} CACHE)
    endif()
  endforeach()
endif()
set(B2_HDF5_PARALLEL_SEEN "${B2_HDF5_PARALLEL}" CACHE INTERNAL "")

if(B2_HDF5_PARALLEL)
  set(_b2_want_parallel TRUE)
else()
  set(_b2_want_parallel FALSE)
endif()
# Take the headers _b2_hdf5_inspect just looked at as the candidate, with its
# libraries, definitions and where it came from.
macro(_b2_hdf5_take inc libs defs from)
  set(_b2_cand_inc "${inc}")
  set(_b2_cand_libs "${libs}")
  set(_b2_cand_defs ${defs})
  set(_b2_cand_par ${B2_HDF5_CAND_PARALLEL})
  set(_b2_cand_ver "${B2_HDF5_CAND_VERSION}")
  set(_b2_cand_hdr "${B2_HDF5_CAND_HEADER}")
  set(_b2_cand_from "${from}")
endmacro()

set(_b2_chosen "")        # set when the _b2_cand_* variables hold the kind asked for
set(_b2_other "")         # set when they hold the other kind (a fallback)

# 1. find_package(HDF5)
set(HDF5_PREFER_PARALLEL ${B2_HDF5_PARALLEL})
find_package(HDF5 QUIET COMPONENTS C)
if(HDF5_FOUND)
  set(_b2_inc ${HDF5_C_INCLUDE_DIRS} ${HDF5_INCLUDE_DIRS})
  list(REMOVE_DUPLICATES _b2_inc)
  set(_b2_libs ${HDF5_C_LIBRARIES})
  if(NOT _b2_libs)
    set(_b2_libs ${HDF5_LIBRARIES})
  endif()
  _b2_hdf5_inspect(${_b2_inc})
  if(B2_HDF5_CAND_HEADER)
    _b2_hdf5_take("${_b2_inc}" "${_b2_libs}" "${HDF5_C_DEFINITIONS};${HDF5_DEFINITIONS}"
                  "find_package(HDF5)")
    if(_b2_cand_par STREQUAL _b2_want_parallel)
      set(_b2_chosen cand)
    else()
      set(_b2_other cand)
    endif()
  endif()
endif()

# 2. pkg-config, with the module names of the wanted kind first
if(NOT _b2_chosen)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    if(_b2_want_parallel)
      set(_b2_modules hdf5-openmpi hdf5-mpich hdf5)
    else()
      set(_b2_modules hdf5-serial hdf5)
    endif()
    foreach(mod IN LISTS _b2_modules)
      string(MAKE_C_IDENTIFIER "B2PC_${mod}" pfx)
      pkg_check_modules(${pfx} QUIET ${mod})
      if(NOT ${pfx}_FOUND)
        continue()
      endif()
      _b2_hdf5_inspect(${${pfx}_INCLUDE_DIRS})
      if(NOT B2_HDF5_CAND_HEADER)
        continue()
      endif()
      if(B2_HDF5_CAND_PARALLEL STREQUAL _b2_want_parallel OR NOT _b2_other)
        _b2_hdf5_take("${${pfx}_INCLUDE_DIRS}" "${${pfx}_LINK_LIBRARIES}" "${${pfx}_CFLAGS_OTHER}"
                      "pkg-config ${mod}")
        if(B2_HDF5_CAND_PARALLEL STREQUAL _b2_want_parallel)
          set(_b2_chosen cand)
          break()
        endif()
        set(_b2_other cand)
      endif()
    endforeach()
  endif()
endif()

set(B2_HDF5_FOUND FALSE)
set(B2_HDF5_IS_PARALLEL FALSE)
set(B2_HDF5_VERSION "")
if(NOT _b2_chosen AND _b2_other)
  if(_b2_want_parallel)
    message(FATAL_ERROR "B2_HDF5_PARALLEL=ON but only a serial HDF5 was found (${_b2_cand_from}, "
      "${_b2_cand_hdr}); install a parallel HDF5 (Debian: libhdf5-openmpi-dev), point "
      "HDF5_C_COMPILER_EXECUTABLE at its h5pcc or HDF5_ROOT at it, or drop B2_HDF5_PARALLEL")
  endif()
  message(STATUS "HDF5: no serial HDF5 found, using the parallel one")
  set(_b2_chosen cand)
endif()

if(_b2_chosen)
  _b2_hdf5_inspect(${_b2_cand_inc})
  set(_b2_inc ${_b2_cand_inc})
  set(_b2_mpi "")
  set(_b2_usable TRUE)
  if(_b2_cand_par)
    # H5public.h includes <mpi.h>
    find_package(MPI QUIET COMPONENTS C)
    if(MPI_C_FOUND)
      list(APPEND _b2_inc ${MPI_C_INCLUDE_DIRS})
      set(_b2_mpi MPI::MPI_C)
    elseif(_b2_want_parallel)
      message(FATAL_ERROR "B2_HDF5_PARALLEL=ON: the parallel HDF5 (${B2_HDF5_CAND_HEADER}) needs "
        "MPI's C headers, and find_package(MPI COMPONENTS C) found none (Debian: libopenmpi-dev)")
    else()
      message(WARNING "HDF5: only a parallel HDF5 was found (${B2_HDF5_CAND_HEADER}) and no MPI "
        "for its <mpi.h>: building without HDF5")
      set(_b2_usable FALSE)
    endif()
  endif()
  if(_b2_usable)
    set(B2_HDF5_FOUND TRUE)
    set(B2_HDF5_IS_PARALLEL ${_b2_cand_par})
    set(B2_HDF5_VERSION "${_b2_cand_ver}")
    # -D flags of FindHDF5 / other pkg-config cflags (rarely any)
    set(_b2_defs "")
    set(_b2_opts "")
    foreach(f IN LISTS _b2_cand_defs)
      if(f MATCHES "^-D")
        list(APPEND _b2_defs "${f}")
      elseif(NOT f STREQUAL "")
        list(APPEND _b2_opts "${f}")
      endif()
    endforeach()
    add_library(b2_hdf5_headers INTERFACE)
    target_include_directories(b2_hdf5_headers SYSTEM INTERFACE ${_b2_inc})
    target_compile_definitions(b2_hdf5_headers INTERFACE ${_b2_defs})
    target_compile_options(b2_hdf5_headers INTERFACE ${_b2_opts})
    add_library(b2_hdf5 INTERFACE)
    target_link_libraries(b2_hdf5 INTERFACE b2_hdf5_headers ${_b2_cand_libs} ${_b2_mpi})
    if(_b2_cand_par)
      set(_b2_kind parallel)
    else()
      set(_b2_kind serial)
    endif()
    message(STATUS "HDF5: ${B2_HDF5_VERSION} ${_b2_kind}, ${B2_HDF5_CAND_HEADER} (${_b2_cand_from})")
  endif()
else()
  if(_b2_want_parallel)
    message(FATAL_ERROR "B2_HDF5_PARALLEL=ON but no HDF5 was found")
  endif()
  message(STATUS "HDF5: not found")
endif()
