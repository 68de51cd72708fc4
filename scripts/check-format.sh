#!/bin/sh
# check-format.sh — checks that the project's C, CUDA and header sources are
# formatted as the committed .clang-format says (clang-format --dry-run
# -Werror).  Run from anywhere inside a git checkout; prints the files that
# would change and their count, and exits 1 if there are any, 77 if
# clang-format or git is missing.  To fix: the same file list through
# `clang-format -i`.
#   sh scripts/check-format.sh            (CLANG_FORMAT=clang-format-14 ...)
cf=${CLANG_FORMAT:-clang-format}
command -v "$cf" >/dev/null 2>&1 || {
  echo "check-format: $cf is not installed (apt-get install clang-format)"
  exit 77
}
top=$(git rev-parse --show-toplevel 2>/dev/null) || {
  echo "check-format: not inside a git checkout"
  exit 77
}
cd "$top" || exit 1
# The sources git tracks, but not the recorded benchmark output under doc/.
files=$(git ls-files '*.c' '*.h' '*.cu' | grep -v '^doc/')
n=$(printf '%s\n' "$files" | grep -c .)
bad=$(printf '%s\n' "$files" | while read -r f; do
  "$cf" --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"
done)
nbad=$(printf '%s' "$bad" | grep -c .)
echo "check-format: $n files, $nbad not formatted ($("$cf" --version | head -n 1))"
test "$nbad" -eq 0 && exit 0
printf '  %s\n' $bad
echo "fix with: git ls-files '*.c' '*.h' '*.cu' | grep -v '^doc/' | xargs $cf -i"
exit 1
