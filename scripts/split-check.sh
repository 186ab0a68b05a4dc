#!/bin/bash
# The series of split/ (split-covers/series, written by export-split.sh).
#   split-check.sh    each series applies alone to the pinned base, atop
#                     the series its cover letter names as prerequisites
#                     (base-commit: and prerequisite-patch-id: as
#                     format-patch --base writes them), and together they
#                     hold each patch of patches/ once. git apply --cached
#                     into a scratch index, as git am applies a mail, with
#                     no checkout: make check runs it. Prints PASS/FAIL
#                     lines and a "counts P F S" line.
#   split-check.sh --build [--no-boot] [NAME...]   make split-check: for
#                     each series (all, or those named), rebuild its
#                     branch split-NAME (export-split.sh --check, which
#                     fails if split/ is stale), build it at every patch
#                     for each of its arches (lint.sh's bisect build),
#                     then build its tip, boot it and run its KUnit suites
#                     and tests (split-covers/series). Writes
#                     results/split.md after each series (from its logs,
#                     so a run cut short keeps what it finished), naming
#                     the series not run.
#                     SPLIT_ARCHES="x86_64" (or arm64) leaves the other
#                     arch out.
#   split-check.sh --report   results/split.md from the logs alone (a
#                     series whose logs have no NAME.run stamp keeps its
#                     row); no build, no boot.
# SPLIT_DIR replaces split/ (self-tests).
. "$(dirname "$0")/lib.sh"

SPEC=${SPLIT_SPEC:-$TOP/split-covers/series}
SDIR=${SPLIT_DIR:-$TOP/split}
p=0 f=0 s=0
ok() { echo "PASS harness split $*"; p=$((p + 1)); }
bad() { echo "FAIL harness split $*"; f=$((f + 1)); }
g() { git -C "$TREE" "$@"; }
declare -A pre=() nums=() arches=() kunit=() tests=() append=()
names=()
while IFS='|' read -r n pr ns ar ku te ap; do
	case $n in '#'* | '') continue ;; esac
	names+=("$n") pre[$n]=$pr nums[$n]=$ns arches[$n]=$ar kunit[$n]=$ku tests[$n]=$te append[$n]=$ap
done <"$SPEC"
mails() { # mails NAME: the patch mails of split/NAME, in order, no cover letter
	find "$SDIR/$1" -maxdepth 1 -name '[0-9]*.patch' ! -name '0000-*' | LC_ALL=C sort
}
chain() { # chain NAME: NAME's prerequisites, the first one first, then NAME
	[ "${pre[$1]:--}" = - ] || chain "${pre[$1]}"
	echo "$1"
}
pids() { xargs -r cat | g patch-id --stable | cut -d' ' -f1; }

if [ "${1:-}" != --build ] && [ "${1:-}" != --report ]; then
	[ -d "$TREE/.git" ] || die "no tree at $TREE: run 'make tree' first"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	all=()
	for n in "${names[@]}"; do
		cover=$SDIR/$n/0000-cover-letter.patch
		if [ ! -f "$cover" ]; then
			bad "$n -- no $cover (make export)"
			continue
		fi
		mapfile -t own < <(mails "$n")
		all+=("${own[@]}")
		want=$(sed -n 's/^base-commit: //p' "$cover")
		have=$(g rev-parse base)
		if [ "$want" != "$have" ]; then
			bad "$n -- its base-commit is ${want:-missing}, the pinned base $have"
			continue
		fi
		# The prerequisites the cover letter names are those of the chain.
		deps=$(chain "$n" | grep -v -x -F "$n" || true)
		want=$(sed -n 's/^prerequisite-patch-id: //p' "$cover")
		have=$(for d in $deps; do mails "$d"; done | while read -r m; do pids <<<"$m"; done)
		if [ "$want" != "$have" ]; then
			bad "$n -- its prerequisite-patch-id lines are not the patches of ${deps:-no series}"
			continue
		fi
		export GIT_INDEX_FILE=$tmp/index
		g read-tree base
		why=
		for d in $deps $n; do
			while read -r m; do
				if ! g apply --cached <"$m" 2>"$tmp/err"; then
					why="$(basename "$m") of $d does not apply: $(head -n 1 "$tmp/err")"
					break 2
				fi
			done < <(mails "$d")
		done
		unset GIT_INDEX_FILE
		if [ -n "$why" ]; then
			bad "$n -- $why"
		else
			ok "$n -- ${#own[@]} patches apply to base$(for d in $deps; do printf ' + %s' "$d"; done)"
		fi
	done
	# Each patch of patches/ in one series, once (by patch id).
	# shellcheck disable=SC2010 # format-patch names: no white space
	want=$(ls "$TOP"/patches/[0-9]*.patch | grep -v '/0000-' | while read -r m; do pids <<<"$m"; done | sort)
	have=$(printf '%s\n' "${all[@]}" | while read -r m; do [ -z "$m" ] || pids <<<"$m"; done | sort)
	if [ "$want" = "$have" ]; then
		ok "patches -- the $(wc -l <<<"$want") patches of patches/ are each in one series"
	else
		bad "patches -- patches/ and split/ differ: $(diff <(echo "$want") <(echo "$have") | grep -c '^[<>]') patch ids in one only"
	fi
	echo "counts $p $f $s"
	[ $f = 0 ]
	exit
fi

# make split-check (or --report: results/split.md from the logs alone)
report=0
[ "$1" != --report ] || report=1
shift
boot=1
[ "${1:-}" = --no-boot ] && boot=0 && shift
run=("$@")
[ ${#run[@]} -gt 0 ] || run=("${names[@]}")
[ $report = 0 ] || run=()
if [ $report = 0 ]; then
	lock_out
	log "split: export-split.sh --check (split/ as the tree makes it; the branches split-*)"
	"$TOP"/scripts/export-split.sh --check || die "split/ differs from the tree: make export"
fi
logs=$OUT/logs/split
mkdir -p "$logs"
out=$RESULTS/split.md
nlines() { grep -c "$1" "$2" || true; }
# A series not run this time keeps its row and its steps from the last
# run that ran it (make split-check SPLIT=NAME runs one).
declare -A oldrow=() oldsteps=()
if [ -f "$out" ]; then
	for n in "${names[@]}"; do
		oldrow[$n]=$(grep "^| $n | .* | [0-9-]*T[0-9:]*Z, harness [0-9a-f]*+* |$" "$out" || true)
		oldsteps[$n]=$(awk -v h="### $n" '$0 ~ /^### / { on = index($0, h " ") == 1 } on' "$out")
	done
fi
# series_res NAME: what NAME's logs in $logs say, per arch (its run's
# stamp is $logs/NAME.run): the file is written from the logs after each
# series, so that a run cut short keeps the series it finished.
series_res() {
	local n=$1 arch b r=""
	for arch in ${arches[$n]}; do
		b=$logs/$n-$arch
		if [ -f "$b.skipped" ]; then
			r+="$arch: $(cat "$b.skipped"). "
			continue
		fi
		[ -f "$b-bisect.out" ] || { r+="$arch: not run. "; continue; }
		r+="$arch build at each patch: $(nlines '^PASS' "$b-bisect.out") passed, $(nlines '^FAIL' "$b-bisect.out") failed. "
		if [ -f "$b.noboot" ]; then
			r+="$arch boot: not run (--no-boot). "
		elif grep -q '^counts ' "$b-boot.out" 2>/dev/null; then
			r+="$arch boot: $(awk '$1 == "counts" { print $2 " passed, " $3 " failed, " $4 " skipped" }' "$b-boot.out"). "
		else
			r+="$arch boot: build or boot failed. "
		fi
	done
	echo "$r"
}
write_md() {
	{
		echo "# make split-check"
		echo
		echo "The series of split/ (split-covers/series), each built at every patch"
		echo "(lint.sh's bisect build, vmlinux) on top of base or its prerequisite, then"
		echo "booted with its own tests (only those binaries built: TEST_IDS). A patch"
		echo "that touches only tools/, Documentation/ or MAINTAINERS is no build step"
		echo "there (as in make lint); its selftests are built for the boot. Each row"
		echo "names the run that ran it (a harness commit with + had uncommitted"
		echo "changes); logs: out/logs/split/."
		echo
		echo "| series | prerequisite | patches (of patches/) | result | run |"
		echo "|---|---|---|---|---|"
		for n in "${names[@]}"; do
			if [ -f "$logs/$n.run" ]; then
				echo "| $n | ${pre[$n]} | ${nums[$n]} | $(series_res "$n")| $(cat "$logs/$n.run") |"
			elif [ -n "${oldrow[$n]:-}" ]; then
				echo "${oldrow[$n]}"
			else
				echo "| $n | ${pre[$n]} | ${nums[$n]} | not run | - |"
			fi
		done
		echo
		echo "Each step, as lint.sh and 5-results.py printed it:"
		for n in "${names[@]}"; do
			if [ -f "$logs/$n.run" ]; then
				echo
				echo "### $n ($(cat "$logs/$n.run"))"
				echo
				for arch in ${arches[$n]}; do
					[ -f "$logs/$n-$arch-bisect.out" ] || continue
					grep -h -E '^(PASS|FAIL) ' "$logs/$n-$arch-bisect.out" "$logs/$n-$arch-boot.out" 2>/dev/null |
						sed 's/^/    /' || true
				done
			elif [ -n "${oldsteps[$n]:-}" ]; then
				echo
				printf '%s\n' "${oldsteps[$n]}"
			fi
		done
	} >"$out.tmp"
	mv "$out.tmp" "$out"
}
stamp="$(date -u +%Y-%m-%dT%H:%MZ), harness $(git -C "$TOP" rev-parse --short=12 HEAD)$(git -C "$TOP" diff --quiet HEAD -- scripts split-covers split || echo '+')"
failed=0
for n in "${run[@]}"; do
	[ -n "${nums[$n]:-}" ] || die "no series $n in $SPEC"
	onto=base
	[ "${pre[$n]}" = - ] || onto=split-${pre[$n]}
	rm -f "$logs/$n"-* "$logs/$n.run"
	for arch in ${arches[$n]}; do
		case " ${SPLIT_ARCHES:-$arch} " in
		*" $arch "*) ;;
		*) echo "not run (SPLIT_ARCHES)" >"$logs/$n-$arch.skipped"; continue ;;
		esac
		log "split: $n: $arch build at each patch"
		LINT_ARCHES=$arch nice -n 19 "$TOP"/scripts/lint.sh --only bisect --range "$onto..split-$n" |
			sed "s/^\(PASS\|FAIL\) lint bisect /\1 split $n build /" | tee "$logs/$n-$arch-bisect.out"
		grep -q '^PASS' "$logs/$n-$arch-bisect.out" && ! grep -q '^FAIL' "$logs/$n-$arch-bisect.out" || failed=1
		[ $boot = 1 ] || { : >"$logs/$n-$arch.noboot"; continue; }
		log "split: $n: $arch boot"
		opts=()
		[ "${kunit[$n]}" = - ] || opts+=(--kunit "${kunit[$n]}")
		[ "${tests[$n]}" = - ] || opts+=(--tests "${tests[$n]}")
		[ -z "${append[$n]}" ] || opts+=(--append "${append[$n]}")
		blog=$logs/$n-$arch.log
		if nice -n 10 "$TOP"/scripts/3-build-kernel.sh "$arch" "split-$n" >/dev/null &&
			TEST_IDS=${tests[$n]} nice -n 10 "$TOP"/scripts/3-build-tests.sh "$arch" "split-$n" >/dev/null &&
			"$TOP"/scripts/4-boot.sh "$arch" "$arch-split-$n" "$blog" "${opts[@]}"; then
			"$TOP"/scripts/5-results.py "$blog" --tag "$arch/split/$n" --tree "$TREE" \
				--known "$TOP/guest/known-failures.txt" |
				sed "s/^\(PASS\|FAIL\|SKIP\) /\1 split $n $arch /" | tee "$logs/$n-$arch-boot.out"
			grep -q '^counts [0-9]* 0 ' "$logs/$n-$arch-boot.out" || failed=1
		else
			echo "FAIL split $n $arch boot -- build or boot failed"
			failed=1
		fi
	done
	echo "$stamp" >"$logs/$n.run"
	write_md
done
write_md
log "split: $out"
[ $failed = 0 ]
