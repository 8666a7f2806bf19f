#!/usr/bin/env bash
# Compiles every C and C++ code block of the manuals (README.md and
# docs/INSTALL.md, or the files given) as a user who pastes it would:
# a ```c block as C11 with $CC, a ```cpp or ```c++ block as C++17 with
# $CXX, both with -Wall -Wextra -Werror against include/. A block that
# defines `main` is a whole program: linked against the static library,
# run, and it must exit 0. Any other block must be a whole translation
# unit (declarations included) and is compiled with -c. Shell blocks are
# left to the install tests, which run them. Ends with `N passed, M failed`.
# Usage: check-doc-blocks.sh [FILE.md...]
set -u
files=()
for md in "$@"; do files+=("$(realpath -m "$md")"); done
cd "$(dirname "$0")/.."
CC=${CC:-gcc} CXX=${CXX:-g++}
out=build/doc-blocks
rm -rf "$out" && mkdir -p "$out"
lib=target/release/libslate.a
libs="$lib -lpthread -ldl -lm"
warn="-Wall -Wextra -Werror"
[ "${#files[@]}" -gt 0 ] || files=(README.md docs/INSTALL.md)
passed=0 failed=0
fail() { echo "FAILED: $*"; failed=$((failed + 1)); }

# Writes each block of $1 to $out/<file>-<line>.<c|cpp> (line: the opening
# fence's), one path a line; an unclosed block is named with `.open`.
extract() { # FILE PREFIX
  awk -v out="$out" -v prefix="$2" '
    !inside && /^ *```/ {
      lang = $0; sub(/^ *```/, "", lang); sub(/[ \t].*$/, "", lang)   # the first word of the info string
      indent = match($0, /[^ ]/) - 1
      inside = 1
      ext = (lang == "c") ? "c" : (lang == "cpp" || lang == "c++") ? "cpp" : ""
      if (ext != "") { file = out "/" prefix "-" NR "." ext; printf "" > file }
      else file = ""
      next
    }
    inside && /^ *```[ \t]*$/ {
      if (file != "") { close(file); print file }
      inside = 0; file = ""; next
    }
    inside && file != "" { line = $0; for (i = 0; i < indent && substr(line, 1, 1) == " "; i++) line = substr(line, 2); print line >> file }
    END { if (inside && file != "") { close(file); print file ".open" } }
  ' "$1"
}

if [ ! -f "$lib" ]; then
  echo "FAILED: $lib is missing (make lib)"
  echo "0 passed, 1 failed"
  exit 1
fi

blocks=0
for md in "${files[@]}"; do
  if [ ! -f "$md" ]; then fail "$md: no such file"; continue; fi
  prefix=$(echo "$md" | tr '/.' '__')
  before=$blocks
  while IFS= read -r src; do
    case "$src" in *.open) src=${src%.*.open}; fail "$md: the block at line ${src##*-} is not closed"; continue ;; esac
    blocks=$((blocks + 1))
    base=${src%.*} line=${base##*-}
    case "$src" in
      *.cpp) lang="C++17"; compile=("$CXX" -std=c++17 $warn -Iinclude "$src") ;;
      *)     lang="C11";   compile=("$CC" -std=c11 $warn -Iinclude "$src") ;;
    esac
    where="$md:$line ($lang)"
    if grep -Eq '(^|[^A-Za-z0-9_])main[[:space:]]*\(' "$src"; then
      if ! "${compile[@]}" $libs -o "$base" >"$base.log" 2>&1; then
        fail "$where, a program, does not build:"; sed 's/^/  | /' "$base.log"; continue
      fi
      timeout 60 env -u LD_LIBRARY_PATH "$base" >"$base.out" 2>&1
      status=$?
      if [ "$status" -ne 0 ]; then
        fail "$where, a program, exits $status:"; sed 's/^/  | /' "$base.out"; continue
      fi
      echo "$where: a program; builds and runs"
    else
      if ! "${compile[@]}" -c -o "$base.o" >"$base.log" 2>&1; then
        fail "$where does not compile as a translation unit:"; sed 's/^/  | /' "$base.log"; continue
      fi
      echo "$where: compiles"
    fi
    passed=$((passed + 1))
  done < <(extract "$md" "$prefix")
  echo "$md: $((blocks - before)) C/C++ blocks"
done
[ "$blocks" -gt 0 ] || fail "no C or C++ block found in ${files[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
