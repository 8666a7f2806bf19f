# shellcheck shell=bash
# Sourced by the tests that follow the README's and docs/INSTALL.md's
# recipes: `check WHAT COMMAND...` counts COMMAND's success, or reports
# WHAT with the end of its output; `checks_done` prints the `N passed, M
# failed` line and fails when any check did. Needs $work, a scratch
# directory.
passed=0 failed=0
check() { # DESCRIPTION COMMAND...
  local what=$1; shift
  if "$@" >"${work:?}/last.log" 2>&1; then passed=$((passed + 1))
  else failed=$((failed + 1)); echo "FAILED: $what" >&2; sed 's/^/  | /' "$work/last.log" | tail -n 20 >&2; fi
}
checks_done() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
