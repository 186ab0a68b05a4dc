#!/bin/bash
# Run herd7 on every litmus test in litmus/ with the AArch64 model that
# herdtools7 ships (aarch64.cat, with translation and TLBI events: -variant
# vmsa) and compare each verdict with litmus/expected. Prints one line per
# test, "PASS litmus.NAME -- forbidden, as expected" or FAIL with the
# reason, then "counts P F S"; non-zero exit on any mismatch.
#   usage: herd-check.sh [herd7]   (default: the one scripts/herd.sh gives)
# LITMUS_DIR names another directory of tests with its own expected file
# (research/arm64-takeover/litmus).
. "$(dirname "$0")/lib.sh"

DIR=${LITMUS_DIR:-$TOP/litmus}
HERD_FLAGS=(-model aarch64.cat -variant vmsa)
P=0 F=0
verdict() { # verdict STATUS NAME DETAIL
	printf '%s litmus.%s -- %s\n' "$1" "$2" "$3"
	if [ "$1" = PASS ]; then P=$((P + 1)); else F=$((F + 1)); fi
}
word() { case $1 in Never) echo forbidden ;; Sometimes) echo allowed ;; *) echo "$1" ;; esac; }

herd=${1:-}
if [ -z "$herd" ] && ! herd=$("$TOP"/scripts/herd.sh); then
	verdict FAIL herd7 "scripts/herd.sh could not provide herd7"
	echo "counts $P $F 0"
	exit 1
fi

declare -A want
while IFS='|' read -r f v; do
	case $f in ''|'#'*) continue ;; esac
	want[$f]=$v
done <"$DIR/expected"

# The tests run $JOBS at a time (the rollover ones take about 10 s each),
# their verdicts are then read in order. timeout stays in the caller's
# process group (--foreground), so that stopping make check stops herd7.
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
# shellcheck disable=SC2016 # expanded by the sh -c
(cd "$DIR" && printf '%s\0' *.litmus |
	xargs -0 -P "$JOBS" -I{} sh -c 'o=$1; shift; timeout --foreground 600 "$@" >"$o" 2>&1 || true' \
		sh "$w/{}.out" "$herd" "${HERD_FLAGS[@]}" {})
for t in "$DIR"/*.litmus; do
	f=$(basename "$t")
	name=${f%.litmus}
	if [ -z "${want[$f]:-}" ]; then
		verdict FAIL "$name" "no expected verdict in litmus/expected"
		continue
	fi
	exp=${want[$f]}
	unset "want[$f]"
	out=$(cat "$w/$f.out" 2>/dev/null || true)
	obs=$(awk -v n="$name" '$1 == "Observation" && $2 == n { print $3, $4, $5 }' <<<"$out")
	if [ -z "$obs" ]; then
		verdict FAIL "$name" "herd7 gave no verdict: $(head -n 1 <<<"$out")"
		continue
	fi
	read -r got pos neg <<<"$obs"
	if [ "$got" = "$exp" ]; then
		verdict PASS "$name" "$(word "$got"), as expected"
	else
		verdict FAIL "$name" "$(word "$got") ($pos of $((pos + neg)) executions show the outcome), expected $(word "$exp")"
	fi
done
for f in "${!want[@]}"; do
	verdict FAIL "${f%.litmus}" "listed in litmus/expected, no such test"
done
echo "counts $P $F 0"
[ "$F" -eq 0 ]
