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
	out=$(mktemp)
	if ! $go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -parallel 1 "$pkg" 2>&1 | tee "$out"; then
		# Go's fuzz coordinator sometimes loses its worker (seen here on
		# FuzzFSMDecode, also at earlier commits: the worker sits in the
		# engine's coverage snapshot, not in the target) and fails with
		# "context deadline exceeded" and no failing input. That, and only
		# that, is run once more; a crash (an input written) fails at once.
		if grep -q "context deadline exceeded" "$out" && ! grep -q "Failing input written" "$out"; then
			echo "==> fuzz $pkg $name: the fuzzing engine timed out without a failing input; running it once more" >&2
			$go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -parallel 1 "$pkg" || { rm -f "$out"; echo "fuzz target $name in $pkg failed" >&2; exit 1; }
		else
			rm -f "$out"
			echo "fuzz target $name in $pkg failed" >&2
			exit 1
		fi
	fi
	rm -f "$out"
done
