# SPDX-License-Identifier: BSD-3-Clause
# Cross build for s390x Linux with Debian's gcc-s390x-linux-gnu (tools/cross.sh).
# The foreign-architecture libraries come from Debian's multiarch :s390x packages
# in /usr/lib/s390x-linux-gnu; tests run under qemu-user (no binfmt needed).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(CMAKE_C_COMPILER s390x-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE s390x-linux-gnu)
# No -L /usr/s390x-linux-gnu: that cross libc is older than the multiarch libc6
# the :s390x libraries pull into /lib/s390x-linux-gnu, and a loader from one with
# the libc of the other hangs or smashes the stack. The host's / holds a
# consistent loader + libc pair for the target.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-s390x-static)
# pkg-config sees the foreign .pc files (plus any directory the caller puts in
# PKG_CONFIG_PATH), not the host's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/s390x-linux-gnu/pkgconfig:/usr/share/pkgconfig)
