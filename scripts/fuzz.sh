#!/usr/bin/env bash
# Runs every fuzz target of the module for FUZZTIME each (default 5s), one
# after the other (go test -fuzz takes one target at a time). `make test`
# calls it with a short time; `make fuzz FUZZTIME=60s` runs longer. Exits
# non-zero on the first crash: the failing input is left under the package's
# testdata/fuzz/<target>/ for `go test -run <target>` to replay.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-5s}
go=${GO:-go}
git grep -n '^func Fuzz[A-Za-z0-9_]*(' -- '*_test.go' | while IFS=: read -r file _ decl; do
	name=${decl#func }
	name=${name%%(*}
	pkg=./$(dirname "$file")
	echo "==> fuzz $pkg $name ($fuzztime)"
	$go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -parallel 1 "$pkg" || { echo "fuzz target $name in $pkg failed" >&2; exit 1; }
done
