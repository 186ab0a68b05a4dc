#!/bin/bash
# Self-test of scripts/5-kcidb.py: convert the sample verdicts in logs/ and
# the sample bench.json here, with --fixed, and compare with expected.json
# and expected-bench.json.  Exit 0 iff both are identical.
#   usage: run.sh [--update]   (--update rewrites the expected files)
set -euo pipefail
D=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A tree whose commits, and so the hashes in the output, are the same on
# every machine: base, series and mutants branches with pinned identities.
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@invalid GIT_COMMITTER_NAME=t \
	GIT_COMMITTER_EMAIL=t@invalid GIT_AUTHOR_DATE=2026-11-15T22:30:00Z \
	GIT_COMMITTER_DATE=2026-11-15T22:30:00Z GIT_CONFIG_GLOBAL=/dev/null \
	GIT_CONFIG_NOSYSTEM=1
git init -q -b base "$tmp/tree"
for b in base series mutants; do
	[ $b = base ] || git -C "$tmp/tree" checkout -q -b $b
	git -C "$tmp/tree" commit -q --allow-empty -m $b
done

run() { # run MODE INPUT EXPECTED
	BASE_CONF=$D/base.conf "$D"/../../5-kcidb.py "$1" "$2" --tree "$tmp/tree" \
		--patches "$D/patches" --testonly "$D/testonly" --mutants "$D/mutants" \
		--boots "$D/boots" --build-dir "$D/build" --fixed --out "$tmp/out.json"
	# The file validates (with bench.json: each row on its kernel's build).
	"$D"/../../5-kcidb.py validate "$tmp/out.json" ${4:+--bench "$4"} >/dev/null || return 1
	if [ "${UPDATE:-}" = 1 ]; then
		cp "$tmp/out.json" "$3"
	elif ! diff -u "$3" "$tmp/out.json"; then
		echo "FAIL 5-kcidb.py $1: output differs from $(basename "$3")" >&2
		return 1
	fi
}
[ "${1:-}" = --update ] && UPDATE=1
rc=0
run check "$D/logs" "$D/expected.json" || rc=1
run bench "$D/bench.json" "$D/expected-bench.json" "$D/bench.json" || rc=1
# A file that puts a test-only kernel's build on the series' checkout, or
# a row under another run's id, or a build without valid, is refused.
python3 - "$tmp/out.json" "$tmp/bad1.json" "$tmp/bad2.json" "$tmp/bad3.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def put(n, f):
    x = json.loads(json.dumps(d))
    f(x)
    json.dump(x, open(sys.argv[n], 'w'))
series = next(c['id'] for c in d['checkouts'] if c['misc']['stack'] == ['patches'])
def onto_series(x):
    for b in x['builds']:
        if b.get('misc', {}).get('ref') in ('mutants', 'nsvm-stats'):
            b['checkout_id'] = series
def rerun(x):
    x['tests'][0]['misc']['run_id'] = 'another'
def novalid(x):
    del x['builds'][0]['valid']
put(2, onto_series)
put(3, rerun)
put(4, novalid)
PY
for b in bad1 bad2 bad3; do
	if "$D"/../../5-kcidb.py validate "$tmp/$b.json" --bench "$D/bench.json" >/dev/null 2>&1; then
		echo "FAIL 5-kcidb.py validate: $b.json passed" >&2
		rc=1
	fi
done
exit $rc
