# Helpers for scripts that build and run the suites on another target
# (cross.sh, wasm.sh); sourced, with `root` and `prefix` (the name every
# result line gets before the suite's) set. Failures set `status=1`.

# Runs COMMAND, recording its `N passed, M failed` line as PREFIX-NAME.
suite() { # NAME COMMAND...
  "$root/scripts/run-suite.sh" "$prefix-$1" "${@:2}" || status=1
}

# A suite that does not build counts as one failure in the summary.
unbuilt() { # NAME
  echo "$prefix-$1: does not build"
  echo "$prefix-$1 0 1" >> "$root/build/results.txt"
  status=1
}

# The C suites of c-tests/suites.list, one a line: the name, then its flags.
c_suites() {
  awk '!/^#/ && NF' "$root/c-tests/suites.list"
}

# The source files of suite NAME (a path, relative to c-tests/: map/api):
# c-tests/NAME.c, or every c-tests/NAME/*.c where that directory exists.
suite_units() { # NAME
  if [ -d "$root/c-tests/$1" ]; then
    (cd "$root" && printf '%s\n' "c-tests/$1"/*.c)
  else
    echo "c-tests/$1.c"
  fi
}
