# shellcheck shell=bash
# Shared settings for the harness scripts. Source it, do not run it.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Downloads live outside the checkout so a fresh clone reuses them.
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tlb-series}
# Kernel tree, build dirs, initramfs images and run logs (git-ignored).
OUT=${OUT:-$TOP/out}
TREE=$OUT/linux
RESULTS=${RESULTS:-$TOP/results}
JOBS=${JOBS:-$(nproc)}

# shellcheck source=../base.conf
. "${BASE_CONF:-$TOP/base.conf}"

T0=${T0:-$(date +%s)}
export T0

log() { printf '[%4ds] %s\n' "$(( $(date +%s) - T0 ))" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

cross_compile() {
	case $1 in
	x86_64) echo "" ;;
	arm64) echo aarch64-linux-gnu- ;;
	*) die "unknown arch $1" ;;
	esac
}

kimage() { # kimage ARCH: the kernel image in a build dir (scripts/qemu/ARCH.conf)
	# shellcheck source=qemu/x86_64.conf
	(. "$TOP/scripts/qemu/$1.conf" && echo "$KERNEL_IMAGE")
}

# Fixed identities and dates make the base commit, and every commit that
# git am makes from patches/, the same on every machine, so that the
# export round trip is byte-exact.
BASE_DATE="2026-11-15T22:30:00Z"
SERIES_NAME="Kernel TLB Team"
SERIES_EMAIL="tlb-team@example.org"
git_fixed() { # for the base commit
	GIT_AUTHOR_NAME="Debian kernel source" GIT_AUTHOR_EMAIL="base@invalid" \
	GIT_COMMITTER_NAME="tlb-series harness" GIT_COMMITTER_EMAIL="harness@invalid" \
	GIT_AUTHOR_DATE=$BASE_DATE GIT_COMMITTER_DATE=$BASE_DATE "$@"
}
# format_mails TREE RANGE DIR [format-patch args]: RANGE of TREE as
# format-patch mails in DIR (emptied first), as every export writes them
# (patches/, split/, backports/): no signature, a zero From line, 12-digit
# hashes, and a cover letter's Date: and From: pinned to the tip's author
# date and the series' identity, so that the same commits give the same
# files.
format_mails() {
	local tree=$1 range=$2 dir=$3
	shift 3
	rm -rf "$dir"
	mkdir -p "$dir"
	[ "$(git -C "$tree" rev-list --count "$range")" -gt 0 ] || return 0
	GIT_COMMITTER_DATE=$(git -C "$tree" log -1 --format=%aI "${range#*..}") \
	GIT_COMMITTER_NAME=$SERIES_NAME GIT_COMMITTER_EMAIL=$SERIES_EMAIL \
		git -C "$tree" format-patch -q --no-signature --zero-commit \
		--abbrev=12 -o "$dir" "$@" "$range" >/dev/null
}
git_am() { # git am with the committer pinned (date = author date)
	GIT_COMMITTER_NAME=$SERIES_NAME GIT_COMMITTER_EMAIL=$SERIES_EMAIL \
		git am -q -3 --committer-date-is-author-date "$@"
}

# The build source $OUT/src is shared by every kernel and test build,
# each at its own ref. It is a plain directory that src_checkout fills
# from the tree ($TREE) with git archive, writing only the files that
# differ from the ref it last held (no git index: one would rehash every
# file after the mtime changes below). Whether something must be rebuilt
# is decided by content, not by when a file was written: src_checkout REF
# DIR gives every source file an old mtime, and the current time to the
# files whose content differs from what DIR was last fully built from
# (DIR/.tree, recorded by src_built) or that a build since may have
# compiled (DIR/.dirty: a failed or partial build). A build dir seeded
# from another ref's, or restored from the build cache by another clone,
# then recompiles what differs and nothing else, whichever refs were
# checked out in between. Holds the source lock (fd 9) until the caller
# exits. Edit the tree, never $OUT/src.
SRC_OLD_MTIME=@978307200 # 2001-01-01, older than any build output
src_fill() { # src_fill REF: $OUT/src holds REF's files
	local src=$OUT/src want have list
	want=$(git -C "$TREE" rev-parse "$1^{tree}")
	have=$(cat "$src/.src-tree" 2>/dev/null || true)
	[ "$have" = "$want" ] && return 0
	mkdir -p "$src"
	# Cut off half-way, the directory holds neither ref: say so first.
	rm -f "$src/.src-tree"
	if [ -n "$have" ] && git -C "$TREE" cat-file -e "$have^{tree}" 2>/dev/null; then
		# Only what differs: deleted files go, the others are written.
		list=$src/.src-list
		git -C "$TREE" -c core.quotePath=false diff --name-only --no-renames \
			--diff-filter=D "$have" "$want" >"$list"
		(cd "$src" && xargs -d '\n' -r rm -f <"$list")
		git -C "$TREE" -c core.quotePath=false diff --name-only --no-renames \
			--diff-filter=d "$have" "$want" >"$list"
		if [ -s "$list" ]; then
			xargs -d '\n' git -C "$TREE" --literal-pathspecs archive --format=tar "$want" -- <"$list" |
				tar -x -i -C "$src"
		fi
		rm -f "$list"
	else
		# New, or from a tree that is gone: all of it, build dirs kept.
		find "$src" -mindepth 1 -maxdepth 1 ! -name '.build-*' -exec rm -rf {} +
		git -C "$TREE" archive --format=tar "$want" | tar -x -C "$src"
	fi
	echo "$want" >"$src/.src-tree"
}
src_checkout() {
	local ref=$1 dir=$2
	if [ "${SRC_LOCKED:-}" != "$BASHPID" ]; then
		exec 9>"$OUT/src.lock"
		flock 9
		SRC_LOCKED=$BASHPID
	fi
	src_fill "$ref"
	mkdir -p "$dir"
	git -C "$TREE" -c core.quotePath=false ls-tree -r "$ref" >"$dir/.tree.new"
	{
		if [ -f "$dir/.tree" ]; then
			# diff: 1 when the trees differ, 2 on an error.
			diff "$dir/.tree" "$dir/.tree.new" >"$dir/.tree.diff" || [ $? = 1 ]
			sed -n 's/^[<>] [^\t]*\t//p' "$dir/.tree.diff"
			rm -f "$dir/.tree.diff"
		else
			cut -f2- "$dir/.tree.new"
		fi
		cat "$dir/.dirty" 2>/dev/null || true
	} | sort -u >"$dir/.changed"
	# Until a full build succeeds, what changed stays changed.
	cp "$dir/.changed" "$dir/.dirty"
	(cd "$OUT/src" &&
		cut -f2- "$dir/.tree.new" | xargs -d '\n' touch -h -m -c -d "$SRC_OLD_MTIME" &&
		xargs -d '\n' -r touch -h -m -c <"$dir/.changed")
}
# The build cache ($CACHE/kbuild, $CACHE/ktests): cache_get DIR ENTRY
# copies ENTRY to DIR (false if there is none), cache_put DIR ENTRY keeps
# a copy of DIR as ENTRY; best effort (a full disk only logs). A lock per
# entry (shared to read, exclusive to write) and a private tmp dir keep
# two clones from seeing or publishing half a copy.
cache_get() {
	local dir=$1 entry=$2 tmp
	[ -f "$entry/.tree" ] || return 1
	mkdir -p "$(dirname "$dir")"
	tmp=$(mktemp -d "$dir.XXXXXX")
	if flock -s "$entry.lock" cp -a "$entry/." "$tmp/"; then
		cache_relocate "$tmp"
		mv "$tmp" "$dir"
	else
		rm -rf "$tmp"
		return 1
	fi
}
# A few kbuild makefiles put absolute source paths into command lines
# (lib/vdso/Makefile.include's abspath: arm64's vDSO), which kbuild
# keeps in each target's .cmd file: taken from another clone as they are,
# those differ from this clone's, and the vDSO, with vmlinux after it,
# would be rebuilt from the same sources. cache_relocate DIR rewrites the
# entry's $OUT (.out-path) to this one's in them.
# Paths as make sees them (symlinks resolved, as abspath does), matched
# as plain strings.
cache_relocate() {
	local old new
	old=$(cat "$1/.out-path" 2>/dev/null) || return 0
	new=$(cd "$OUT" && pwd -P)
	[ -n "$old" ] && [ "$old" != "$new" ] || return 0
	# shellcheck disable=SC2016 # perl's own $ENV, not the shell's
	grep -rlF --include='.*.cmd' -e "$old/" "$1" |
		O="$old/" N="$new/" xargs -r -d '\n' perl -pi -e 's/\Q$ENV{O}\E/$ENV{N}/g' || true
}
cache_put() {
	local dir=$1 entry=$2 tmp
	mkdir -p "$(dirname "$entry")"
	tmp=$(mktemp -d "$entry.XXXXXX") || return 0
	if cp -a "$dir/." "$tmp/" 2>/dev/null && (cd "$OUT" && pwd -P) >"$tmp/.out-path"; then
		# shellcheck disable=SC2016 # expanded by the sh -c
		flock "$entry.lock" sh -c 'rm -rf "$1.old"; [ ! -d "$1" ] || mv "$1" "$1.old"; mv "$2" "$1"; rm -rf "$1.old"' _ "$entry" "$tmp" ||
			log "cache: could not keep $(basename "$entry")"
	else
		log "cache: could not keep $(basename "$entry") (disk full?)"
	fi
	rm -rf "$tmp"
}

src_built() { # src_built DIR: DIR now holds what the checked-out ref builds
	mv "$1/.tree.new" "$1/.tree"
	rm -f "$1/.dirty" "$1/.changed"
}

# make in the kernel source worktree for build dir $1 and arch $2, with the
# same compiler settings everywhere: a different HOSTCC would rebuild fixdep
# and with it every object.
kmake() {
	local bdir=$1 arch=$2 cc
	cc=$(cross_compile "$arch")
	shift 2
	# Depend mode: the cache key is the source, the headers the compiler
	# read (kbuild's -MMD list) and the flags, so a miss runs the compiler
	# once, not the preprocessor and then the compiler (README: 0.83-0.89
	# of the time on a 12-object sample). A header change misses even where preprocessing
	# would show it irrelevant: no kernel built here relies on that.
	with_ccache make -s -C "$OUT/src" O="$bdir" ARCH="$arch" CROSS_COMPILE="$cc" \
		CC="ccache ${cc}gcc" HOSTCC="ccache gcc" -j"$JOBS" "$@"
}
# with_ccache CMD...: CMD with the harness's ccache settings (kmake's, and
# kunit.sh's kunit.py builds).
with_ccache() {
	CCACHE_DEPEND=${CCACHE_DEPEND:-1} \
	CCACHE_BASEDIR=$OUT CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G} \
		"$@"
}

lock_out() { # one make check, bench, repro or lint at a time per $OUT
	# (a step that make check runs, lint, holds its lock already)
	[ "${HARNESS_LOCKED:-}" = "$OUT" ] && return 0
	mkdir -p "$OUT"
	exec 8>"$OUT/harness.lock"
	flock -n 8 || die "another make check, bench, repro or lint is using $OUT (lock $OUT/harness.lock)"
	export HARNESS_LOCKED=$OUT
}

# A run's logs in DIR are kept until a later run succeeds: logs_rotate
# DIR, as a run starts, moves the last run's logs to DIR.prev (or, when
# DIR.prev is still there, i.e. the last run did not succeed, to
# DIR.failed: DIR.prev stays the last run that did) and makes DIR;
# logs_succeeded DIR, once the new run succeeded, removes DIR.prev and
# DIR.failed. Nothing is deleted before a run succeeded but an older
# failed run's logs.
logs_rotate() {
	local d=$1
	if [ -d "$d" ]; then
		if [ -d "$d.prev" ]; then
			rm -rf "$d.failed"
			mv "$d" "$d.failed"
		else
			mv "$d" "$d.prev"
		fi
	fi
	mkdir -p "$d"
}
logs_succeeded() { rm -rf "$1.prev" "$1.failed"; }

words() { # words NAME STRING: the array NAME gets STRING's words, split as
	# a shell splits them (quotes keep a regex with spaces whole); an
	# unmatched quote is an error, not a word lost. The options of
	# guest/boots and of the self-tests' recorded logs go through here.
	# An empty word ('') stays a word: Python quotes each word again
	# for the shell, and only such quoted words reach the eval.
	local -n _w=$1
	local _s
	_s=$(python3 -c 'import shlex, sys
try:
    print(" ".join(shlex.quote(w) for w in shlex.split(sys.argv[1])))
except ValueError as e:
    sys.exit(f"words: {e} in: {sys.argv[1]}")' "$2") || return 1
	eval "_w=($_s)"
}

# The mutation matrix (mutants/matrix) in boots. Its column qemu says
# where a row's mutant must be caught: "tcg" (or empty), under stock QEMU
# TCG; "rig", only on the tagged-TLB rig (scripts/rig.sh), and such a row
# is also run on stock TCG, where its check must pass with its mutant on
# (or the row is one that stock TCG catches too). A boot runs on the rig
# when its 4-boot.sh options (guest/boots) have --rig: boot_qemu BOPTS
# prints rig or tcg.
boot_qemu() {
	case " $1 " in
	*" --rig "*) echo rig ;;
	*) echo tcg ;;
	esac
}
# matrix_rows: the rows to boot, as "ARCH|APPEND|QEMU|ORDER|ROW|CHECK|
# EVIDENCE|WANT" lines, sorted: WANT is "fail" (the check must catch the
# mutant, with its evidence) or "pass" (a rig row on stock TCG). Rows that
# share an arch, a command line and a QEMU share a boot, which turns each
# row's mutant on in turn (guest/init run_row): KUnit rows first, then KVM
# selftests, then other tests, then the stress tests, whose mutants leave
# stale translations behind.
matrix_rows() {
	local row arch append check evidence qemu order
	while IFS='|' read -r row _ _ arch append check evidence _ qemu _; do
		case $row in '' | '#'*) continue ;; esac
		# "-": not observable here; barrier rows: compiled and checked
		# by barrier-stage.py; boot rows: a boot of their own in
		# guest/boots.
		case $check in - | barrier.* | boot) continue ;; esac
		case $check in
		kunit.*) order=0 ;;
		kvm.*) order=1 ;;
		mm.tlb_coherency*) order=3 ;;
		*) order=2 ;;
		esac
		case ${qemu:-tcg} in
		tcg | rig) printf '%s|%s|%s|%s|%s|%s|%s|fail\n' "$arch" "$append" "${qemu:-tcg}" "$order" "$row" "$check" "$evidence" ;;
		*) continue ;; # bad_matrix_rows says why
		esac
		[ "$qemu" != rig ] ||
			printf '%s|%s|tcg|%s|%s|%s|%s|pass\n' "$arch" "$append" "$order" "$row" "$check" "$evidence"
	done <"$TOP/mutants/matrix" | sort -t'|' -s -k1,1 -k2,2 -k3,3 -k4,4n
}
# rows_of ARCH APPEND QEMU: the rows of one boot, their checks, evidence
# and WANT (arrays m_rows, m_checks, m_evs, m_wants), and m_kunit=(--kunit
# '*') when one of them is a KUnit check (KUnit's debugfs run files, no
# suite run at boot).
# shellcheck disable=SC2034 # the m_ arrays are for the caller
rows_of() {
	local a ap q row check ev want
	m_rows=() m_checks=() m_evs=() m_wants=() m_kunit=()
	while IFS='|' read -r a ap q _ row check ev want; do
		[ "$a|$ap|$q" = "$1|$2|$3" ] || continue
		m_rows+=("$row") m_checks+=("$check") m_evs+=("$ev") m_wants+=("$want")
		case $check in kunit.*) m_kunit=(--kunit '*') ;; esac
	done < <(matrix_rows)
}
# matrix_boots: a line in guest/boots' format for each arch, append and
# QEMU of matrix_rows that no mutants-kernel line of guest/boots boots:
# tag ARCH/mutants[/APPEND] on stock TCG, ARCH/rig/mutants[/APPEND] on the
# rig (4-boot.sh --rig).
matrix_boots() {
	local arch append qemu a k ap bo found
	while IFS='|' read -r arch append qemu; do
		found=0
		while IFS='|' read -r _ a k _ _ ap _ bo; do
			[ "$a|$k|$ap|$(boot_qemu "$bo")" != "$arch|mutants|$append|$qemu" ] || found=1
		done < <(grep -v -e '^#' -e '^$' "$TOP/guest/boots")
		[ "$found" = 0 ] || continue
		if [ "$qemu" = rig ]; then
			echo "$arch/rig/mutants${append:+/${append// /_}}|$arch|mutants|||$append||--rig"
		else
			echo "$arch/mutants${append:+/${append// /_}}|$arch|mutants|||$append|"
		fi
	done < <(matrix_rows | cut -d'|' -f1-3 | uniq)
}
# bad_matrix_rows: rows whose qemu column make check cannot run as it
# says, one line each, "ARCH/mutant/ROW|why".
bad_matrix_rows() {
	local row arch check qemu
	while IFS='|' read -r row _ _ arch _ check _ _ qemu _; do
		case ${qemu:-tcg} in
		tcg) ;;
		rig)
			case $check in - | barrier.* | boot)
				echo "$arch/mutant/$row|qemu rig, but its check \"$check\" is no test a rig boot runs" ;;
			esac
			;;
		*) echo "$arch/mutant/$row|qemu \"$qemu\": neither tcg (stock QEMU TCG) nor rig (the tagged-TLB rig)" ;;
		esac
	done < <(grep -v -e '^#' -e '^$' "$TOP/mutants/matrix")
}

# unjudged_boot_rows: the mutants/matrix rows whose check is "boot" that
# guest/boots does not judge as the row says, one line each,
# "ARCH/mutant/ROW|why". Such a row needs a boot of tag ARCH/mutants/ROW
# (kernel mutants, the row's append, --expect-hang FUNC for the evidence
# "CPU 0 at FUNC") and a control: a boot of the mutants kernel with the
# same append but tlb_mutant=ROW and the same 4-boot.sh options, judged
# by at least one --expect-message (the window the mutant hangs in must
# pass without it, or the hang proves nothing).
unjudged_boot_rows() {
	local row arch append check ev line a k ap vopts bopts vo i ok ctl
	while IFS='|' read -r row _ _ arch append check ev _; do
		[ "$check" = boot ] || continue
		ok=0
		line=$(grep "^$arch/mutants/$row|" "$TOP/guest/boots" || true)
		IFS='|' read -r _ a k _ _ ap vopts bopts <<<"$line"
		if [ "$a|$k|$ap" = "$arch|mutants|$append" ] && [ "${ev#CPU 0 at }" != "$ev" ] &&
			words vo "$vopts" 2>/dev/null; then
			for ((i = 0; i + 1 < ${#vo[@]}; i++)); do
				[ "${vo[$i]}|${vo[$((i + 1))]}" != "--expect-hang|${ev#CPU 0 at }" ] || ok=1
			done
		fi
		if [ "$ok" = 0 ]; then
			echo "$arch/mutant/$row|no boot $arch/mutants/$row in guest/boots with its append and --expect-hang ${ev#CPU 0 at }"
			continue
		fi
		ctl=
		words vo "$append" || vo=()
		for i in "${vo[@]}"; do
			[ "$i" = "tlb_mutant=$row" ] || ctl+=${ctl:+ }$i
		done
		ok=0
		while IFS='|' read -r _ a k _ _ ap vopts line; do
			[ "$a|$k|$ap|$line" = "$arch|mutants|$ctl|$bopts" ] || continue
			case " $vopts" in *" --expect-message "*) ok=1 ;; esac
		done < <(grep -v '^#' "$TOP/guest/boots")
		[ "$ok" = 1 ] ||
			echo "$arch/mutant/$row|no control boot in guest/boots: mutants kernel, append \"$ctl\", the same 4-boot.sh options, --expect-message"
	done < <(grep -v '^#' "$TOP/mutants/matrix")
}

# in_turn ROUND K1 K2...: the kernels in the order round ROUND boots them,
# rotated by one each round: K1 K2 K3, K2 K3 K1, ... (two kernels: K1
# first in odd rounds, K2 first in even ones). What is left of an order
# effect, e.g. a page cache warmed by the first boot, then falls on all
# alike.
in_turn() {
	local r=$1 ks=("${@:2}")
	local i=$(((r - 1) % ${#ks[@]}))
	echo "${ks[@]:i}" "${ks[@]:0:i}"
}
ids() { # ids GROUP [PREFIX]: comma-separated test ids from guest/tests.list
	awk -F'|' -v g="$1" -v p="${2:-}" '!/^#/ && $2 == g && index($1, p) == 1 { print $1 }' \
		"$TOP/guest/tests.list" | paste -sd, -
}
# tests_of "GROUP[:PREFIX],...,-ID": the test ids these items of
# guest/boots name, less each -ID (an -ID that leaves out nothing is
# likely a typo that keeps the test it meant: said on stderr)
tests_of() {
	local item list='' drop=,
	for item in ${1//,/ }; do
		case $item in
		-*) drop+=${item#-}, ;;
		*) list+=,$(ids "${item%%:*}" "$(sed -n 's/^[^:]*://p' <<<"$item")") ;;
		esac
	done
	for item in ${drop//,/ }; do
		[[ ,$list, == *,$item,* ]] ||
			log "guest/boots: -$item leaves out no test of \"$1\""
	done
	tr , '\n' <<<"$list" | awk -v d="$drop" 'NF && !index(d, "," $0 ",")' | paste -sd, -
}

apt_install() { # apt_install WHAT PKG...: install the Debian packages missing
	local what=$1 p missing=()
	shift
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	[ "$(id -u)" = 0 ] || die "$what: need root to install: ${missing[*]}"
	log "$what: installing ${missing[*]}"
	apt-get -q update >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends \
		"${missing[@]}" >/dev/null
}
