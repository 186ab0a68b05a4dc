#!/bin/bash
# The stable backports (backports/NAME/, one series per base kernel that
# has the bugs; research/backports.md says which patch needs what where).
# backports/series names each series' base: a base-*.conf beside
# base.conf, with the same fields (Debian source package, version, suite,
# tarball sha256). Each base has a tree of its own, $OUT/bp-VER/linux
# (VER from base-VER.conf), made by 2-tree.sh --base-only: tag base is
# the verified tarball, one commit, like out/linux's.
#
#   backport.sh tree [NAME...]    branch backport-NAME = base + backports/NAME/
#                                 (git am; refuses to throw away commits that
#                                 were never exported, FORCE=1 overrides)
#   backport.sh export [NAME...]  backports/NAME/ = git format-patch of
#                                 base..backport-NAME (never hand-edit them)
#   backport.sh export --check [NAME...]  writes nothing; non-zero when
#                                 backports/NAME/ differs from the branch
#   backport.sh check [NAME...]   git am of backports/NAME/ onto the pinned
#                                 base, in a scratch worktree of the base's
#                                 tree holding only the files the patches
#                                 touch; prints git am's output; non-zero
#                                 when a series does not apply
#   backport.sh test [NAME...]    make backport-test: each series' reproducers
#                                 on its base, before and after: the rows of
#                                 view backport:NAME (guest/views), built and
#                                 booted as make check boots its rows; writes
#                                 results/backports.md. Non-zero if a row's
#                                 verdict failed.
# No NAME: every series of backports/series. Only test builds or boots.
#
# make backport-test: the kernels of a row are refs of the series' tree
# ($OUT/linux), fetched from the base's tree, so that they build, boot
# and are judged as every other row (3-build-kernel.sh, boot-row.sh):
#   bp-NAME-base      tag base of the base's tree: the base as Debian ships it
#   bp-NAME           branch backport-NAME: the base with backports/NAME/
#   bp-NAME-base-emu, bp-NAME-emu   the same with testonly/ on top (the
#                     in-guest Hyper-V stand-in, the hold of the boot CPU),
#                     made in the base's tree (backport-NAME-base-emu,
#                     backport-NAME-emu) when a row boots one
# The tests are the series' build (3-build-tests.sh x86_64 series): the
# series' own tests exist in no base.
. "$(dirname "$0")/lib.sh"

SPEC=${BACKPORT_SPEC:-$TOP/backports/series}
names() { awk -F'|' '!/^#/ && NF { print $1 }' "$SPEC"; }
conf_of() { awk -F'|' -v n="$1" '!/^#/ && $1 == n { print $2 }' "$SPEC"; }

mode=${1:-}
shift || true
check=0
if [ "$mode" = export ] && [ "${1:-}" = --check ]; then
	check=1
	shift
fi

# One series, in a process of its own: lib.sh read base.conf (or
# BASE_CONF) when this script started, so each base gets a fresh one.
if [ "$mode" = --one ]; then
	mode=$1 check=$2 name=$3
else
	case $mode in tree | export | check | test) ;; *)
		die "usage: $0 tree|export [--check]|check|test [NAME...]" ;;
	esac
	[ $# -gt 0 ] || mapfile -t names_ < <(names)
	[ $# -eq 0 ] || names_=("$@")
	ver_of() { # ver_of NAME: VER of series NAME's base-VER.conf
		local conf
		conf=$(conf_of "$1")
		if [ -z "$conf" ] || [ ! -f "$TOP/$conf" ]; then
			die "backport: no series $1 in $SPEC, or no $conf"
		fi
		conf=${conf#base-}
		echo "${conf%.conf}"
	}
	one() { # one MODE NAME: MODE for series NAME, in its base's process
		local ver
		ver=$(ver_of "$2")
		# The base's own apt state: its update must not rewrite the
		# lists of the series' base (scripts/apt-private.sh).
		BASE_CONF=$TOP/base-$ver.conf OUT=$OUT/bp-$ver \
			APT_PRIVATE_DIR=${APT_PRIVATE_DIR_BP:-$CACHE/apt-bp-$ver} \
			"$0" --one "$1" "$check" "$2"
	}
	if [ "$mode" != test ]; then
		rc=0
		for n in "${names_[@]}"; do
			one "$mode" "$n" || rc=1
		done
		exit $rc
	fi
	. "$TOP/scripts/boot-row.sh"
	lock_out
	"$TOP"/scripts/2-tree.sh
	all=()
	for n in "${names_[@]}"; do
		ver=$(ver_of "$n")
		rows=()
		table_read rows "backport:$n"
		[ ${#rows[@]} -gt 0 ] || die "backport: no row of view backport:$n in guest/views"
		LOGS=$OUT/logs/backport-$n
		rm -rf "$LOGS"
		mkdir -p "$LOGS"
		printf '%s\n' "${rows[@]}" >"$LOGS/rows"
		one tree "$n" || die "backport: no branch backport-$n"
		refs=("+refs/tags/base:refs/heads/bp-$n-base" "+refs/heads/backport-$n:refs/heads/bp-$n")
		if printf '%s\n' "${rows[@]}" | cut -d'|' -f3 | grep -q -- '-emu$'; then
			one emu "$n" || die "backport: testonly/ does not apply to backport-$n or its base"
			refs+=("+refs/heads/backport-$n-base-emu:refs/heads/bp-$n-base-emu"
				"+refs/heads/backport-$n-emu:refs/heads/bp-$n-emu")
		fi
		git -C "$TREE" fetch -q --no-tags "$OUT/bp-$ver/linux" "${refs[@]}"
		all+=("${rows[@]}")
	done
	build_rows "${all[@]}"
	rc=0
	for n in "${names_[@]}"; do
		LOGS=$OUT/logs/backport-$n
		mapfile -t rows <"$LOGS/rows"
		echo "== backport $n"
		boot_each "${rows[@]}" | tee "$LOGS/summary" || rc=1
	done
	(export TOP OUT; "$TOP"/scripts/5-backports.py "${names_[@]}") || rc=1
	exit $rc
fi

dir=$TOP/backports/$name
branch=backport-$name
g() { git -C "$TREE" "$@"; }
# shellcheck disable=SC2010 # format-patch names: no white space; ls sorts them
patches() { ls "$dir"/[0-9]*.patch 2>/dev/null | grep -v '/0000-' || true; }

fmt() { # fmt OUTDIR: the series as format-patch mails in OUTDIR
	local prefix
	# [PATCH 6.12.y], the stable branch the series is for.
	prefix="PATCH $(g show base:Makefile | awk '$1 == "VERSION" { v = $3 }
		$1 == "PATCHLEVEL" { p = $3 } END { print v "." p ".y" }')"
	format_mails "$TREE" "base..$branch" "$1" --subject-prefix="$prefix"
}
same() { # same DIR: DIR holds the patch files of backports/NAME, no more
	diff -r -q "$1" "$dir" >/dev/null 2>&1
}

case $mode in
tree)
	if g rev-parse -q --verify "refs/heads/$branch" >/dev/null 2>&1 &&
		[ "${FORCE:-0}" != 1 ]; then
		[ -z "$(g status --porcelain --untracked-files=all)" ] ||
			die "backport: $TREE has uncommitted changes (commit, then export; or FORCE=1)"
		tmp=$(mktemp -d)
		trap 'rm -rf "$tmp"' EXIT
		fmt "$tmp/p"
		same "$tmp/p" ||
			die "backport: $branch differs from backports/$name; run '$0 export $name' first, or FORCE=1"
	fi
	"$TOP"/scripts/2-tree.sh --base-only
	cd "$TREE" || exit
	git checkout -q -f -B "$branch" base
	mapfile -t ps < <(patches)
	if [ ${#ps[@]} -gt 0 ]; then
		git_am "${ps[@]}" || { git am --abort; die "backports/$name does not apply to base"; }
	fi
	log "backport: $branch = base ($BASE_PKG $BASE_VERSION) + ${#ps[@]} patches, in $TREE"
	;;
export)
	g rev-parse -q --verify "refs/heads/$branch" >/dev/null ||
		die "backport: no branch $branch in $TREE ('$0 tree $name' makes it)"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	fmt "$tmp/p"
	if [ "$check" = 1 ]; then
		same "$tmp/p" || { log "backport: backports/$name differs from $branch"; exit 1; }
		exit 0
	fi
	mkdir -p "$dir"
	rm -f "$dir"/*.patch
	cp "$tmp"/p/*.patch "$dir/" 2>/dev/null || true
	log "backport: backports/$name: $(patches | wc -l) patches from $branch"
	;;
emu)
	# testonly/ on base and on the backports: branches
	# backport-NAME-base-emu and backport-NAME-emu.
	g rev-parse -q --verify "refs/heads/$branch" >/dev/null ||
		die "backport: no branch $branch in $TREE ('$0 tree $name' makes it)"
	mapfile -t ts < <(find "$TOP/testonly" -maxdepth 1 -name '[0-9]*.patch' | LC_ALL=C sort)
	cd "$TREE" || exit
	for from in base "$branch"; do
		to=$branch-emu
		[ "$from" != base ] || to=$branch-base-emu
		git checkout -q -f -B "$to" "$from"
		# testonly/ is made on the series: a context line of its
		# Makefile hunk is the series' KUnit object, which no base has
		# (and no blob of the series is here for -3). One line of
		# context at each end of a hunk, as patch(1)'s fuzz would.
		git_am -C1 "${ts[@]}" || { git am --abort; die "backport: testonly/ does not apply to $from"; }
	done
	git checkout -q -f "$branch"
	log "backport: $branch-base-emu, $branch-emu = base, $branch + testonly/ (${#ts[@]} patches)"
	;;
check)
	mapfile -t ps < <(patches)
	[ ${#ps[@]} -gt 0 ] || die "backport: backports/$name holds no patch"
	# The pinned base: the tarball checked against base-VER.conf's
	# sha256 (1-base.sh), its commit made once (2-tree.sh --base-only,
	# which makes it again when the conf names another tarball).
	"$TOP"/scripts/2-tree.sh --base-only
	g log -1 --format=%B base | grep -q "sha256 $BASE_TARBALL_SHA256" ||
		die "backport: tag base of $TREE is not $BASE_PKG $BASE_VERSION"
	wt=$(mktemp -d "$OUT/am.XXXXXX")
	trap 'g worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"; g worktree prune' EXIT
	g worktree add -q --detach --no-checkout "$wt" base
	# Only the files the patches touch are checked out: git am needs
	# them, and the other 90000 would take a minute to write.
	sed -n 's|^diff --git a/\([^ ]*\) b/\([^ ]*\)$|/\1\n/\2|p' "${ps[@]}" | sort -u >"$wt.paths"
	git -C "$wt" sparse-checkout set --no-cone --stdin <"$wt.paths"
	rm -f "$wt.paths"
	git -C "$wt" checkout -q --detach base
	echo "== backports/$name on $BASE_PKG $BASE_VERSION (tag base $(g rev-parse --short base))"
	if GIT_COMMITTER_NAME=$SERIES_NAME GIT_COMMITTER_EMAIL=$SERIES_EMAIL \
		git -C "$wt" am "${ps[@]}"; then
		echo "== backports/$name: ${#ps[@]} of ${#ps[@]} patches apply"
	else
		git -C "$wt" am --abort 2>/dev/null || true
		echo "== backports/$name: DOES NOT APPLY"
		exit 1
	fi
	;;
esac
