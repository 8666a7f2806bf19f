#!/usr/bin/env bash
# Installs slate into a temporary prefix the way a user would and builds
# programs against it: a plain Makefile through pkg-config, a CMake project
# through find_package, and a CMake project that vendors the source tree
# with add_subdirectory; each static and shared. Then checks the SONAME,
# the versions, a staged (DESTDIR) install, and that `make uninstall`
# leaves the prefix empty. Ends with `N passed, M failed`.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/c-tests/install
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
mkdir -p "$prefix"
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAILED: $*" >&2; }
check() { # DESCRIPTION COMMAND...
  local what=$1; shift
  if "$@" >"$work/last.log" 2>&1; then ok; else bad "$what"; sed 's/^/  | /' "$work/last.log" | tail -n 30 >&2; fi
}
same() { # DESCRIPTION GOT WANT
  if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', want '$3'"; fi
}
# NEEDED entries of an ELF file.
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' '; }
links_shared() { case "$(needed "$1")" in *libslate.so.*) return 0 ;; *) return 1 ;; esac; }

version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n 1)
IFS=. read -r major minor _ <<<"$version"
if [ "$major" = 0 ]; then soname=libslate.so.0.$minor; else soname=libslate.so.$major; fi
quickstart=${QUICKSTART:-$root/examples/quickstart.c}

echo "-- make install PREFIX=$prefix"
check "make install" make -C "$root" --no-print-directory install PREFIX="$prefix"
want="include/slate/slate-generic.h include/slate/slate.h include/slate/slate.hpp lib/cmake/slate/slateConfig.cmake lib/cmake/slate/slateConfigVersion.cmake lib/libslate.a lib/libslate.so lib/libslate.so.0.1 lib/libslate.so.$version lib/pkgconfig/slate.pc"
want=${want//libslate.so.0.1 /$soname }
same "installed files" "$(cd "$prefix" && find . -type f -o -type l | sed 's|^\./||' | sort | tr '\n' ' ' | sed 's/ $//')" "$want"
same "SONAME" "$(readelf -d "$prefix/lib/libslate.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" "$soname"
same "$soname ->" "$(readlink "$prefix/lib/$soname")" "libslate.so.$version"
same "libslate.so ->" "$(readlink "$prefix/lib/libslate.so")" "$soname"
check "installed libslate.a defines only slate*/slotmap*" \
  "$root/scripts/check-symbols.sh" "$prefix/lib/libslate.a" "$prefix/lib/libslate.so"

echo "-- pkg-config"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
same "pkg-config --modversion" "$(pkg-config --modversion slate)" "$version"
same "pkg-config --cflags" "$(pkg-config --cflags slate | sed 's/ *$//')" "-I$prefix/include/slate"
same "Libs.private is rustc's report" "$(pkg-config --variable=prefix slate) $(sed -n 's/^Libs.private: //p' "$prefix/lib/pkgconfig/slate.pc")" \
  "$prefix $(cat "$root/target/release/native-static-libs")"
for src in "$quickstart" "$here/version.c"; do
  name=$(basename "$src" .c)
  check "pkg-config build of $name" make -C "$work" --no-print-directory -f "$here/Makefile" SRC="$src"
  check "$name-shared links libslate.so" links_shared "$work/$name-shared"
  check "$name-static does not" bash -c "! readelf -d '$work/$name-static' | grep -q libslate"
  check "$name-shared runs" "$work/$name-shared"
  check "$name-static runs" "$work/$name-static"
done
same "version (shared)" "$("$work/version-shared")" "$version"
same "version (static)" "$("$work/version-static")" "$version"

echo "-- CMake find_package"
if command -v cmake >/dev/null; then
  for src in "$quickstart" "$here/version.c"; do
    name=$(basename "$src" .c)
    b=$work/find-$name
    check "cmake configure ($name)" cmake -S "$here/find" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" -DSRC="$src"
    check "cmake build ($name)" cmake --build "$b"
    check "slate::slate links libslate.so ($name)" links_shared "$b/app-shared"
    check "slate::slate_static does not ($name)" bash -c "! readelf -d '$b/app-static' | grep -q libslate"
    check "app-shared runs ($name)" "$b/app-shared"
    check "app-static runs ($name)" "$b/app-static"
  done
  same "find_package's slate_VERSION" "$(cat "$work/find-version/found-version")" "$version"
  same "version through slate::slate" "$("$work/find-version/app-shared")" "$version"
  # Which requests the installed version satisfies (0.x: same minor only).
  for request in "$major.$minor" "$version" "$major.$minor...$major.$((minor + 1))"; do
    check "find_package(slate $request) succeeds" cmake -S "$here/find" -B "$work/want" -DCMAKE_PREFIX_PATH="$prefix" -DSRC="$here/version.c" -DSLATE_WANT="$request"
    rm -rf "$work/want"
  done
  for request in "$major.$((minor + 1))" "$((major + 1)).0" "$major.$minor.$((${version##*.} + 1))"; do
    check "find_package(slate $request) fails" bash -c "! cmake -S '$here/find' -B '$work/want' -DCMAKE_PREFIX_PATH='$prefix' -DSRC='$here/version.c' -DSLATE_WANT='$request'"
    rm -rf "$work/want"
  done

  echo "-- CMake add_subdirectory"
  b=$work/subdir
  check "cmake configure (subdirectory)" cmake -S "$here/subdir" -B "$b" -DSLATE_SOURCE_DIR="$root" -DSRC="$quickstart"
  check "cmake build (subdirectory, runs cargo)" cmake --build "$b"
  check "vendored libslate.a defines only slate*/slotmap*" \
    "$root/scripts/check-symbols.sh" "$b/slate/cargo/release/libslate.a" "$b/slate/cargo/release/libslate.so"
  check "slate::slate links libslate.so (subdirectory)" links_shared "$b/app-shared"
  check "slate::slate_static does not (subdirectory)" bash -c "! readelf -d '$b/app-static' | grep -q libslate"
  check "app-shared runs (subdirectory)" "$b/app-shared"
  check "app-static runs (subdirectory)" "$b/app-static"
else
  bad "cmake is not installed (scripts/setup.sh installs it)"
fi

echo "-- make uninstall"
check "make uninstall" make -C "$root" --no-print-directory uninstall PREFIX="$prefix"
same "prefix left empty" "$(find "$prefix" -mindepth 1 | head -n 5)" ""

echo "-- staged install: DESTDIR, LIBDIR, INCLUDEDIR"
stage=$work/stage
check "make install DESTDIR" make -C "$root" --no-print-directory install DESTDIR="$stage" PREFIX=/opt/slate \
  LIBDIR=/opt/slate/lib64 INCLUDEDIR=/opt/slate/inc
check "library under DESTDIR/LIBDIR" test -f "$stage/opt/slate/lib64/libslate.so.$version"
check "headers under DESTDIR/INCLUDEDIR" test -f "$stage/opt/slate/inc/slate/slate.h"
same "slate.pc names the final paths" "$(grep -E '^(prefix|libdir|includedir)=' "$stage/opt/slate/lib64/pkgconfig/slate.pc" | tr '\n' ' ')" \
  'prefix=/opt/slate libdir=${prefix}/lib64 includedir=${prefix}/inc '
check "make uninstall DESTDIR" make -C "$root" --no-print-directory uninstall DESTDIR="$stage" PREFIX=/opt/slate \
  LIBDIR=/opt/slate/lib64 INCLUDEDIR=/opt/slate/inc
same "stage left with only the prefix directory" "$(cd "$stage" && find . -mindepth 1 | sort | tr '\n' ' ')" "./opt ./opt/slate "

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
