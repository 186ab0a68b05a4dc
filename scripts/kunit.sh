#!/bin/bash
# make kunit: each .kunitconfig the series adds or changes (git diff
# base..series), run as its users would run it, with the kernel's own
# wrapper: tools/testing/kunit/kunit.py run --kunitconfig=FILE, a kernel
# of kunit.py's own minimal configuration booted under QEMU. The boots of
# make check run the same suites in the harness's kernels; this shows
# that the .kunitconfig files are enough on their own.
#
# The arch and the QEMU options come from the file's comment, where it
# says how to run it (--arch=ARCH, --qemu_args='...'); without them, the
# arch of the file's arch/ directory (x86_64 elsewhere) and -smp 4. Every
# case must run: a skipped case is a FAIL, as a failed one is.
#
# The source is a git worktree of the tree at series ($OUT/kunit/src,
# only what changed is rewritten), each kernel built in
# $OUT/build/ARCH-series-kunit-DIR (DIR: the file's, / as _) with ccache
# as lib.sh's kmake builds. Prints "PASS|FAIL ARCH/series:kunit-DIR
# kunit.SUITE.CASE [-- WHY]" per case,
# then "counts P F S"; full logs in $OUT/logs/kunit/, the summary in
# $RESULTS/kunit.md (make kunit: results/; make check: its own log dir's
# results/, copied to results/ only with PUBLISH=1). Non-zero exit on any
# failure or skip.
#   usage: kunit.sh [FILE...]   (default: every .kunitconfig of the series)
. "$(dirname "$0")/lib.sh"
lock_out

REF=series
SRC=$OUT/kunit/src
LOGS=$OUT/logs/kunit
logs_rotate "$LOGS"
mkdir -p "$RESULTS"

git -C "$TREE" rev-parse -q --verify "$REF^{commit}" >/dev/null ||
	die "no $REF branch in $TREE (make tree)"
commit=$(git -C "$TREE" rev-parse "$REF")
if [ $# -gt 0 ]; then
	files=("$@")
else
	mapfile -t files < <(git -C "$TREE" diff --name-only --diff-filter=d \
		base "$REF" -- '*.kunitconfig')
fi

# The worktree: made again when it is not one of this tree's (make tree
# made the tree again); kbuild sees the files a checkout rewrote as new.
common=$(git -C "$SRC" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
if [ "$common" != "$(cd "$TREE/.git" && pwd -P)" ]; then
	rm -rf "$SRC"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$SRC" "$REF"
fi
git -C "$SRC" checkout -q -f --detach "$REF"
git -C "$SRC" clean -q -f -d -x

# kunit.py asks QEMU for KVM first (-accel kvm -accel hvf -accel tcg).
# Here, as in make check's boots, the guests run under TCG: a qemu-system-*
# first in PATH drops the other -accel options (KUNIT_ACCEL=any: not).
# On this machine KVM (nested) is there, and its guest did not get past the kernel's
# decompression in 8 min.
if [ "${KUNIT_ACCEL:-tcg}" = tcg ]; then
	mkdir -p "$OUT/kunit/bin"
	for q in qemu-system-x86_64 qemu-system-aarch64; do
		real=$(command -v "$q") || continue
		cat >"$OUT/kunit/bin/$q" <<-EOF
		#!/bin/bash
		# made by scripts/kunit.sh: $q under TCG only
		a=()
		while [ \$# -gt 0 ]; do
			case \$1 in -accel) [ "\${2:-}" = tcg ] || { shift 2; continue; } ;; esac
			a+=("\$1")
			shift
		done
		exec $real "\${a[@]}"
		EOF
		chmod +x "$OUT/kunit/bin/$q"
	done
	export PATH=$OUT/kunit/bin:$PATH
fi

P=0 F=0
rows=() cmds=()
for f in "${files[@]}"; do
	[ -f "$SRC/$f" ] || die "$f: not in $REF"
	# What the file says to run it with.
	arch=$(grep -o -m1 -e '--arch=[a-z0-9_]*' "$SRC/$f" | cut -d= -f2 || true)
	qargs=$(sed -n "s/.*--qemu_args='\([^']*\)'.*/\1/p" "$SRC/$f" | head -n 1)
	if [ -z "$arch" ]; then
		case $f in arch/arm64/*) arch=arm64 ;; *) arch=x86_64 ;; esac
	fi
	qargs=${qargs:--smp 4}
	cc=$(cross_compile "$arch")
	dir=$(dirname "$f" | tr / _)
	name=$dir-$arch
	# A build dir per file, named as 5-kcidb.py names REF:VARIANT's.
	tag=$arch/$REF:kunit-$dir
	bdir=$OUT/build/$arch-$REF-kunit-$dir
	# Paths relative to $SRC, where it runs: the command as
	# results/kunit.md shows it.
	cmd=(tools/testing/kunit/kunit.py run --kunitconfig="$f" --arch="$arch"
		--build_dir="$(realpath -m --relative-to="$SRC" "$bdir")"
		--jobs="$JOBS" --timeout=900 --qemu_args="$qargs"
		--json="$(realpath -m --relative-to="$SRC" "$LOGS/$name.json")")
	[ -z "$cc" ] || cmd+=(--cross_compile="$cc")
	cmd+=(--make_options "CC=ccache ${cc}gcc" --make_options "HOSTCC=ccache gcc")
	log "kunit: $f on $arch ($qargs)"
	t=$(date +%s)
	rc=0
	(cd "$SRC" && with_ccache python3 "${cmd[@]}") >"$LOGS/$name.log" 2>&1 || rc=$?
	secs=$(($(date +%s) - t))
	cp "$bdir/test.log" "$LOGS/$name.console.log" 2>/dev/null || true
	# One verdict per case from kunit.py's JSON; a skip's reason from
	# the console's KTAP line.
	python3 - "$LOGS/$name.json" "$LOGS/$name.console.log" "$tag" "$rc" \
		>"$LOGS/$name.verdict" <<-'EOF' || true
		import json, re, sys
		jf, con, tag, rc = sys.argv[1:]
		try:
		    doc = json.load(open(jf))
		except (OSError, ValueError):
		    doc = {}
		try:
		    text = open(con, errors='replace').read()
		except OSError:
		    text = ''
		why = dict(re.findall(r'^\s*ok \d+ (\S+) # SKIP ?(.*)$', text, re.M))
		n = 0
		def walk(g, path):
		    global n
		    for c in g.get('test_cases', []):
		        st, name = c['status'], '.'.join(path + [c['name']])
		        n += 1
		        if st == 'PASS':
		            print(f'PASS {tag} kunit.{name}')
		        elif st == 'SKIP':
		            print(f'FAIL {tag} kunit.{name} -- skipped: '
		                  f'{why.get(c["name"], "")}')
		        else:
		            print(f'FAIL {tag} kunit.{name} -- {st}')
		    for s in g.get('sub_groups', []):
		        walk(s, path + [s['name']])
		for s in doc.get('sub_groups', []):
		    walk(s, [s['name']])
		if rc != '0' or not n:
		    print(f'FAIL {tag} kunit.py -- exit {rc}, {n} cases')
		EOF
	p=$(grep -c '^PASS' "$LOGS/$name.verdict" || true)
	fl=$(grep -c '^FAIL' "$LOGS/$name.verdict" || true)
	sk=$(grep -c '^FAIL.* -- skipped: ' "$LOGS/$name.verdict" || true)
	cat "$LOGS/$name.verdict"
	P=$((P + p)) F=$((F + fl))
	# Per suite: passed, failed (not skipped), skipped.
	while read -r suite sp sf ss; do
		rows+=("| \`$f\` | $arch | $suite | $sp | $sf | $ss | ${secs} s |")
	done < <(awk '$1 == "PASS" || $1 == "FAIL" {
			split($3, a, "."); s = a[2]; if (!(s in seen)) { seen[s] = 1; order[++n] = s }
			if ($1 == "PASS") p[s]++; else if ($0 ~ / -- skipped: /) k[s]++; else f[s]++ }
		END { for (i = 1; i <= n; i++) print order[i], p[order[i]] + 0, f[order[i]] + 0, k[order[i]] + 0 }' \
		"$LOGS/$name.verdict")
	log "kunit: $f: $p passed, $((fl - sk)) failed, $sk skipped, exit $rc, ${secs} s (log $LOGS/$name.log)"
	cmds+=("$(for a in "${cmd[@]}"; do
		case $a in *' '*) printf "%s='%s' " "${a%%=*}" "${a#*=}" ;; *) printf '%s ' "$a" ;; esac
	done | sed 's/ $//')")
done
echo "counts $P $F 0"

{
	echo "# make kunit"
	echo
	echo "scripts/kunit.sh, $(date -u '+%Y-%m-%d %H:%M UTC'); tree commit"
	echo "\`$REF\` = $commit (project $(git -C "$TOP" rev-parse --short HEAD))."
	echo "Each \`.kunitconfig\` that the series adds or changes, run with"
	echo "kunit.py in a kernel of its own configuration under QEMU TCG (the"
	echo "script drops the -accel kvm and hvf that kunit.py gives QEMU); a"
	echo "skipped case counts as a failure. \`make check\` runs it too, beside"
	echo "its builds."
	echo
	echo "| .kunitconfig | arch | suite | passed | failed | skipped | time |"
	echo "|---|---|---|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
	echo
	echo "$P cases passed, $F failed or skipped."
	echo
	echo "Commands, in \`out/kunit/src\` (a worktree of \`out/linux\` at"
	echo "\`$REF\`), with ccache set up as \`scripts/lib.sh\` kmake does:"
	echo
	printf '    %s\n' "${cmds[@]}"
} >"$RESULTS/kunit.md"
log "kunit: $P passed, $F failed or skipped ($RESULTS/kunit.md)"
[ "$F" -eq 0 ] || exit 1
logs_succeeded "$LOGS"
