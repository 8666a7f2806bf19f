#!/usr/bin/env bash
# Prints a fenced code block of the README (or of docs/INSTALL.md), so that
# tests run the commands a user copies, exactly as written.
# Usage: readme-block.sh [-j] MARKER [N]
#   the Nth (default: first) block after the first line that contains
#   MARKER (a fixed string); -j joins continued lines (ending in `\`), so
#   that each line printed is one command. Fails when there is no such
#   block. README (environment) names another file than the repository's
#   README.md: README=docs/INSTALL.md for the install routes kept there.
set -euo pipefail
join=0
[ "${1:-}" = -j ] && { join=1; shift; }
marker=$1 n=${2:-1}
readme=${README:-$(cd "$(dirname "$0")/.." && pwd)/README.md}
awk -v marker="$marker" -v n="$n" -v join="$join" '
  !seen && index($0, marker) { seen = 1; next }
  seen && /^```/ { if (inside) { inside = 0; if (++count == n) { found = 1; exit } } else inside = 1; next }
  seen && inside && count == n - 1 {
    if (join && sub(/\\$/, "")) { held = held $0; next }
    print held $0; held = ""
  }
  END { exit found ? 0 : 1 }
' "$readme" || { echo "readme-block.sh: no block $n after '$marker' in $readme" >&2; exit 1; }
