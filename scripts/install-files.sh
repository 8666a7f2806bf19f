#!/usr/bin/env bash
# Writes slate.pc, slateConfig.cmake and slateConfigVersion.cmake for an
# install with the given directories, from the templates in pkg/.
# Usage: install-files.sh OUTDIR PREFIX LIBDIR INCLUDEDIR CMAKEDIR VERSION NATIVE_LIBS_FILE
#
# Paths under PREFIX are written relative to it (${prefix} in slate.pc,
# the config file's own location in the CMake package), so an installed
# tree can be moved; paths outside it are written as given.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1 prefix=$2 libdir=$3 includedir=$4 cmakedir=$5 version=$6 native=$7
IFS=. read -r major minor patch <<<"${version%%-*}"
if [ "$major" = 0 ]; then soname=libslate.so.0.$minor; else soname=libslate.so.$major; fi
libs=$(cat "$native")
description=$(sed -n 's/^description = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n 1)
pointer_bytes=$(( $(rustc --print cfg | sed -n 's/^target_pointer_width="\(.*\)"/\1/p') / 8 ))

# Under PREFIX: "${prefix}/rest" for pkg-config, "${_slate_prefix}/rest"
# for CMake.
under() { # PATH VAR
  case "$1" in
    "$prefix") printf '%s' "\${$2}" ;;
    "$prefix"/*) printf '%s' "\${$2}/${1#"$prefix"/}" ;;
    *) printf '%s' "$1" ;;
  esac
}
case "$cmakedir" in
  "$prefix"/*) config_to_prefix=$(realpath -m --relative-to="$cmakedir" "$prefix") ;;
  *) config_to_prefix=$prefix ;;
esac
cmake_libs=$(for l in $libs; do case "$l" in -l*) printf '%s;' "${l#-l}" ;; *) printf '%s;' "$l" ;; esac; done)
cmake_libs=${cmake_libs%;}

mkdir -p "$out"
subst() {
  sed -e "s|@PREFIX@|$prefix|g" \
      -e "s|@LIBDIR@|$(under "$libdir" prefix)|g" \
      -e "s|@INCLUDEDIR@|$(under "$includedir" prefix)|g" \
      -e "s|@CMAKE_LIBDIR@|$(under "$libdir" _slate_prefix)|g" \
      -e "s|@CMAKE_INCLUDEDIR@|$(under "$includedir" _slate_prefix)|g" \
      -e "s|@CONFIG_TO_PREFIX@|$config_to_prefix|g" \
      -e "s|@VERSION@|$version|g" \
      -e "s|@VERSION_MAJOR@|$major|g" \
      -e "s|@VERSION_MINOR@|$minor|g" \
      -e "s|@SONAME@|$soname|g" \
      -e "s|@NATIVE_LIBS@|$libs|g" \
      -e "s|@CMAKE_NATIVE_LIBS@|$cmake_libs|g" \
      -e "s|@DESCRIPTION@|$description|g" \
      -e "s|@POINTER_BYTES@|$pointer_bytes|g" \
      "$root/pkg/$1.in" > "$out/$1"
}
subst slate.pc
subst slateConfig.cmake
subst slateConfigVersion.cmake
