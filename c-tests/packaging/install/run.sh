#!/usr/bin/env bash
# Installs slate into a temporary prefix the way a user would and builds
# programs against it: a plain Makefile through pkg-config; the README's
# "Link it" lines as written (pkg-config, by hand with the prefix's paths,
# find_package), with HOME set so that its $HOME/.local is the prefix;
# the build line in examples/wordcount.c's comment, as written; a
# CMake project through find_package, a CMake project that vendors the
# source tree with add_subdirectory, one that fetches a clone with
# docs/INSTALL.md's FetchContent lines, and a Meson project through
# slate.pc and through the subproject, made with docs/INSTALL.md's clone
# command and with its wrap file; each static and shared.
# Then checks the SONAME, the versions, a staged (DESTDIR) install, and
# that `make uninstall` removes what the install created (files and
# directories) and nothing that was there before. Ends with
# `N passed, M failed`.
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
here=$root/c-tests/packaging/install
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
links_static() { readelf -d "$1" >/dev/null && ! links_shared "$1"; }
# A build's two programs: the first links libslate.so, the second the
# static library; both run (without LD_LIBRARY_PATH).
programs() { # WHAT SHARED_PROGRAM STATIC_PROGRAM
  check "$(basename "$2") links libslate.so ($1)" links_shared "$2"
  check "$(basename "$3") links the static library ($1)" links_static "$3"
  check "$(basename "$2") runs ($1)" env -u LD_LIBRARY_PATH "$2"
  check "$(basename "$3") runs ($1)" env -u LD_LIBRARY_PATH "$3"
}

version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n 1)
IFS=. read -r major minor _ <<<"$version"
if [ "$major" = 0 ]; then soname=libslate.so.0.$minor; else soname=libslate.so.$major; fi
quickstart=${QUICKSTART:-$root/examples/quickstart.c}

echo "-- make install PREFIX=$prefix"
check "make install" make -C "$root" --no-print-directory install PREFIX="$prefix"
want="include/slate/slate-generic.h include/slate/slate-introspect.h include/slate/slate.h include/slate/slate.hpp lib/cmake/slate/slateConfig.cmake lib/cmake/slate/slateConfigVersion.cmake lib/libslate.a lib/libslate.so lib/libslate.so.0.1 lib/libslate.so.$version lib/pkgconfig/slate.pc"
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
  programs "pkg-config" "$work/$name-shared" "$work/$name-static"
done
same "version (shared)" "$("$work/version-shared")" "$version"
same "version (static)" "$("$work/version-static")" "$version"

# The README's "Link it" lines name the prefix $HOME/.local: they run with
# HOME set to a directory whose .local is the prefix, and with no
# PKG_CONFIG_PATH or LD_LIBRARY_PATH of this script's.
home=$work/home
mkdir -p "$home" && ln -s "$prefix" "$home/.local"
readme_env=(env -u PKG_CONFIG_PATH -u LD_LIBRARY_PATH HOME="$home")

echo "-- the README's pkg-config commands, as written"
# The block's first line sets PKG_CONFIG_PATH; each of the others builds
# main.c (the quick start) into a.out in a directory of its own after it.
# The program must start with nothing but the prefix's slate.pc to go on.
i=0 pc_path=
while IFS= read -r cmd; do
  case "$cmd" in export\ PKG_CONFIG_PATH=*) pc_path=$cmd; continue ;; esac
  i=$((i + 1)) d=$work/readme-pc-$i
  mkdir -p "$d" && cp "$quickstart" "$d/main.c"
  check "README pkg-config command $i builds: $pc_path; $cmd" \
    "${readme_env[@]}" bash -euo pipefail -c 'cd "$1" && eval "$2" && eval "$3"' _ "$d" "$pc_path" "$cmd"
  case "$cmd" in *"# shared"*) check "README command $i links libslate.so" links_shared "$d/a.out" ;;
                 *"# static"*) check "README command $i links the static library" links_static "$d/a.out" ;; esac
  check "README command $i: the program starts without LD_LIBRARY_PATH" env -u LD_LIBRARY_PATH "$d/a.out"
done < <("$root/scripts/readme-block.sh" -j '**pkg-config:**')
same "README pkg-config commands" "$i" 2
same "the README's PKG_CONFIG_PATH line" "$pc_path" 'export PKG_CONFIG_PATH=$HOME/.local/lib/pkgconfig'

echo "-- the README's lines without pkg-config, as written"
i=0
while IFS= read -r cmd; do
  i=$((i + 1)) d=$work/readme-hand-$i
  mkdir -p "$d" && cp "$quickstart" "$d/main.c"
  check "README line $i without pkg-config builds: $cmd" \
    "${readme_env[@]}" bash -euo pipefail -c 'cd "$1" && eval "$2"' _ "$d" "$cmd"
  case "$cmd" in *"# shared"*) check "README line $i links libslate.so" links_shared "$d/a.out" ;;
                 *"# static"*) check "README line $i links the static library" links_static "$d/a.out" ;; esac
  check "README line $i: the program starts without LD_LIBRARY_PATH" env -u LD_LIBRARY_PATH "$d/a.out"
done < <("$root/scripts/readme-block.sh" -j '**Without pkg-config**')
same "README lines without pkg-config" "$i" 2

echo "-- examples/wordcount.c's build line, as written"
# The comment's two lines (PKG_CONFIG_PATH from PREFIX, the prefix given
# to make install; then the cc line), run in a directory holding
# wordcount.c, with no PKG_CONFIG_PATH or LD_LIBRARY_PATH of this
# script's. The program must start without LD_LIBRARY_PATH and count
# examples/wordcount.txt as examples/expected/ says.
wc_lines=$(sed -n 's/^ \*   //p' "$root/examples/wordcount.c")
wc_pc=$(grep '^export PKG_CONFIG_PATH=' <<<"$wc_lines")
wc_cmd=$(grep '^cc wordcount\.c ' <<<"$wc_lines")
same "wordcount.c's PKG_CONFIG_PATH line" "$wc_pc" 'export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig'
same "wordcount.c's build lines" "$(grep -c '^cc wordcount\.c ' <<<"$wc_lines")" 1
d=$work/wordcount
mkdir -p "$d" && cp "$root/examples/wordcount.c" "$d/"
check "wordcount.c's build line builds: $wc_pc; $wc_cmd" \
  env -u PKG_CONFIG_PATH -u LD_LIBRARY_PATH PREFIX="$prefix" \
  bash -euo pipefail -c 'cd "$1" && eval "$2" && eval "$3"' _ "$d" "$wc_pc" "$wc_cmd"
check "wordcount links libslate.so" links_shared "$d/wordcount"
check "wordcount runs without LD_LIBRARY_PATH and counts as expected" \
  bash -o pipefail -c 'env -u LD_LIBRARY_PATH "$1" "$2" | diff -u "$3" -' _ \
  "$d/wordcount" "$root/examples/wordcount.txt" "$root/examples/expected/wordcount.txt"

# A clone of this repository whose main branch is this commit (what the
# repository holds once this is merged), for docs/INSTALL.md's commands
# that fetch slate: they name it /path/to/slate-rs. A clone holds the
# committed tree, not uncommitted changes.
echo "-- a clone of the repository"
commit=$(git -C "$root" rev-parse HEAD)
clone=file://$work/slate-rs.git
check "git clone of the repository" git clone --quiet --bare "$root" "$work/slate-rs.git"
check "its main branch at $commit" git -C "$work/slate-rs.git" update-ref refs/heads/main "$commit"
install_block() { # MARKER [N]: docs/INSTALL.md's block, with the clone for /path/to/slate-rs
  README=$root/docs/INSTALL.md "$root/scripts/readme-block.sh" "$@" | sed "s|/path/to/slate-rs|$clone|g"
}

echo "-- CMake find_package"
if command -v cmake >/dev/null; then
  for src in "$quickstart" "$here/version.c"; do
    name=$(basename "$src" .c)
    b=$work/find-$name
    check "cmake configure ($name)" cmake -S "$here/find" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" -DSRC="$src"
    check "cmake build ($name)" cmake --build "$b"
    programs "find_package, $name" "$b/app-shared" "$b/app-static"
  done
  same "find_package's slate_VERSION" "$(cat "$work/find-version/found-version")" "$version"
  # The README's two find_package lines, as written, in a project of
  # their own.
  b=$work/readme-cmake
  mkdir -p "$b/src" && cp "$quickstart" "$b/src/main.c"
  { printf 'cmake_minimum_required(VERSION 3.16)\nproject(readme_find LANGUAGES C)\nadd_executable(app main.c)\n'
    "$root/scripts/readme-block.sh" '**CMake**'; } >"$b/src/CMakeLists.txt"
  check "the README's find_package lines" grep -q '^find_package(slate ' "$b/src/CMakeLists.txt"
  check "cmake configure (the README's find_package lines)" cmake -S "$b/src" -B "$b/build" -DCMAKE_PREFIX_PATH="$prefix"
  check "cmake build (the README's find_package lines)" cmake --build "$b/build"
  check "its program links libslate.so" links_shared "$b/build/app"
  check "its program runs" env -u LD_LIBRARY_PATH "$b/build/app"
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
  programs "add_subdirectory" "$b/app-shared" "$b/app-static"

  # docs/INSTALL.md's FetchContent lines with the clone's URL: as written
  # (GIT_TAG main), and pinned to the commit's hash.
  echo "-- CMake FetchContent"
  install_block '**CMake**' | sed -n '/^include(FetchContent)/,/^FetchContent_MakeAvailable(slate)/p' >"$work/fetch-main.cmake"
  check "docs/INSTALL.md's FetchContent lines name the clone" grep -q "GIT_REPOSITORY *$clone " "$work/fetch-main.cmake"
  sed -E "s|GIT_TAG( +)[^ )]+|GIT_TAG\1$commit|" "$work/fetch-main.cmake" >"$work/fetch-commit.cmake"
  check "the pinned form names the commit" grep -q "GIT_TAG *$commit" "$work/fetch-commit.cmake"
  for form in main commit; do
    b=$work/fetch-$form
    check "cmake configure (FetchContent, GIT_TAG $form)" cmake -S "$here/fetch" -B "$b" -DFETCH="$work/fetch-$form.cmake" -DSRC="$quickstart"
    same "the fetched tree (GIT_TAG $form)" "$(git -C "$b/_deps/slate-src" rev-parse HEAD 2>&1)" "$commit"
    check "cmake build (FetchContent, GIT_TAG $form; runs cargo)" cmake --build "$b"
    programs "FetchContent, GIT_TAG $form" "$b/app-shared" "$b/app-static"
  done
else
  bad "cmake is not installed (scripts/setup.sh installs it)"
fi

echo "-- Meson"
if command -v meson >/dev/null; then
  meson_project() { # DIR: the test project, main.c the quick start
    mkdir -p "$1/subprojects" && cp "$here/meson/meson.build" "$1/" && cp "$quickstart" "$1/main.c"
  }
  check "docs/INSTALL.md's Meson line is the test project's" \
    grep -qxF "$(install_block '**Meson**' 1 | head -n 1)" "$here/meson/meson.build"
  # Installed: slate.pc from the prefix (PKG_CONFIG_PATH above).
  m=$work/meson-pc
  meson_project "$m"
  check "meson setup (slate.pc)" meson setup "$m/build" "$m"
  check "meson compile (slate.pc)" meson compile -C "$m/build"
  programs "Meson, slate.pc" "$m/build/app" "$m/build/app-static"
  check "app's rpath is the prefix's" bash -c "readelf -d '$m/build/app' | grep -q 'R.*PATH.*\[$prefix/lib\]'"
  # The subproject, as docs/INSTALL.md makes it: the clone command (set up with
  # -Dforce_fallback_for=slate), and the wrap file (where pkg-config finds
  # no slate.pc at all).
  mkdir -p "$work/no-pc"
  for form in clone wrap; do
    m=$work/meson-$form
    meson_project "$m"
    if [ "$form" = clone ]; then
      check "docs/INSTALL.md's clone command (Meson)" bash -euo pipefail -c 'cd "$1" && eval "$2"' _ "$m" "$(install_block '**Meson**' 2)"
      check "meson setup (subproject, $form)" meson setup "$m/build" "$m" -Dforce_fallback_for=slate
    else
      install_block '**Meson**' 3 >"$m/subprojects/slate.wrap"
      check "docs/INSTALL.md's wrap file names the clone" grep -qx "url = $clone" "$m/subprojects/slate.wrap"
      check "meson setup (subproject, $form)" env PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR="$work/no-pc" meson setup "$m/build" "$m"
    fi
    same "the subproject's tree ($form)" "$(git -C "$m/subprojects/slate" rev-parse HEAD 2>&1)" "$commit"
    check "meson compile (subproject, $form; runs cargo)" meson compile -C "$m/build"
    check "the subproject built libslate.a ($form)" test -f "$m/build/subprojects/slate/libslate.a"
    for app in app app-static; do
      check "$app links the static library (Meson, $form)" links_static "$m/build/$app"
      check "$app runs (Meson, $form)" "$m/build/$app"
    done
  done
else
  bad "meson is not installed (scripts/setup.sh installs it)"
fi

echo "-- make uninstall"
check "make uninstall" make -C "$root" --no-print-directory uninstall PREFIX="$prefix"
same "prefix left empty" "$(find "$prefix" -mindepth 1 | head -n 5)" ""

echo "-- make uninstall keeps the directories that were there before"
prefix2=$work/prefix2
mkdir -p "$prefix2/lib/cmake" "$prefix2/include"
check "make install (prefix with lib/cmake and include)" make -C "$root" --no-print-directory install PREFIX="$prefix2"
check "make uninstall (prefix with lib/cmake and include)" make -C "$root" --no-print-directory uninstall PREFIX="$prefix2"
same "the directories that were there are left" "$(cd "$prefix2" && find . -mindepth 1 | sort | tr '\n' ' ')" "./include ./lib ./lib/cmake "

echo "-- staged install: DESTDIR, LIBDIR, INCLUDEDIR"
stage=$work/stage
mkdir -p "$stage"
check "make install DESTDIR" make -C "$root" --no-print-directory install DESTDIR="$stage" PREFIX=/opt/slate \
  LIBDIR=/opt/slate/lib64 INCLUDEDIR=/opt/slate/inc
check "library under DESTDIR/LIBDIR" test -f "$stage/opt/slate/lib64/libslate.so.$version"
check "headers under DESTDIR/INCLUDEDIR" test -f "$stage/opt/slate/inc/slate/slate.h"
same "slate.pc names the final paths" "$(grep -E '^(prefix|libdir|includedir)=' "$stage/opt/slate/lib64/pkgconfig/slate.pc" | tr '\n' ' ')" \
  'prefix=/opt/slate libdir=${prefix}/lib64 includedir=${prefix}/inc '
check "make uninstall DESTDIR" make -C "$root" --no-print-directory uninstall DESTDIR="$stage" PREFIX=/opt/slate \
  LIBDIR=/opt/slate/lib64 INCLUDEDIR=/opt/slate/inc
same "DESTDIR left empty, as it was" "$(cd "$stage" && find . -mindepth 1 | sort | tr '\n' ' ')" ""

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
