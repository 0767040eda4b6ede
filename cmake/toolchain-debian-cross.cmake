# SPDX-License-Identifier: BSD-3-Clause
# Shared by cmake/toolchain-{aarch64,s390x}.cmake (scripts/cross.sh): Debian's cross gcc
# against a sysroot of unpacked foreign-architecture .debs, tests under qemu-user.
#
# The sysroot (B2_CROSS_SYSROOT, or the environment variable of that name) holds the
# target's libc6, libc6-dev, loader and every library the build links, unpacked with
# dpkg-deb -x and never installed: Multi-Arch: same packages cannot be installed beside
# native ones of another version (Debian's security suite updates zlib1g and libzstd1
# for amd64 but not for s390x), so the host's own packages never constrain it. Compiler,
# linker and pkg-config see only the sysroot, and qemu loads the sysroot's own loader and
# libc, so link-time and run-time libc are one consistent pair.
if(NOT B2_CROSS_SYSROOT AND DEFINED ENV{B2_CROSS_SYSROOT})
  set(B2_CROSS_SYSROOT "$ENV{B2_CROSS_SYSROOT}")
endif()
if(NOT B2_CROSS_SYSROOT OR NOT EXISTS "${B2_CROSS_SYSROOT}/usr/include/stdio.h")
  message(FATAL_ERROR "B2_CROSS_SYSROOT (${B2_CROSS_SYSROOT}) is not a ${B2_CROSS_TRIPLET} sysroot: "
          "scripts/cross.sh makes one")
endif()
# try_compile projects read this file again: hand them the sysroot too
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES B2_CROSS_SYSROOT B2_CROSS_TRIPLET B2_CROSS_QEMU)

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${B2_CROSS_TRIPLET}-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE ${B2_CROSS_TRIPLET})
set(CMAKE_SYSROOT "${B2_CROSS_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH "${B2_CROSS_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Debian 12 names the static qemu binaries qemu-ARCH-static; later releases may ship
# only qemu-ARCH. -L makes the sysroot the target's root for the loader and libraries.
if(NOT B2_CROSS_QEMU)
  find_program(B2_CROSS_QEMU NAMES qemu-${B2_CROSS_QEMU_ARCH}-static qemu-${B2_CROSS_QEMU_ARCH}
               NO_CMAKE_FIND_ROOT_PATH REQUIRED)
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR "${B2_CROSS_QEMU};-L;${B2_CROSS_SYSROOT}")

# pkg-config sees the sysroot's .pc files only, and prefixes their paths with it.
set(ENV{PKG_CONFIG_LIBDIR}
    "${B2_CROSS_SYSROOT}/usr/lib/${B2_CROSS_TRIPLET}/pkgconfig:${B2_CROSS_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${B2_CROSS_SYSROOT}")
set(ENV{PKG_CONFIG_PATH} "")
