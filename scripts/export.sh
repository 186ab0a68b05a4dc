#!/bin/bash
# Regenerate patches/ (base..series, with cover letter), testonly/
# (series..emu) and mutants/ (emu..mutants) from the tree, and split/
# (the series each tree takes: export-split.sh). With --check, write
# nothing and exit non-zero when the tree and the checked-in patches differ.
. "$(dirname "$0")/lib.sh"

check=0
[ "${1:-}" = --check ] && check=1

fmt() { format_mails "$TREE" "$@"; } # fmt RANGE OUTDIR [format-patch args]

# The test-only branches sit on the series (emu on series, mutants on
# emu). Once the series is rewritten (rebase -i, a reworded message) they
# follow it, from where they forked off the old one (the branch reflogs).
if [ $check = 0 ]; then
	for pair in series:emu emu:mutants; do
		up=${pair%:*} b=${pair#*:}
		git -C "$TREE" rev-parse -q --verify "$b" >/dev/null || continue
		git -C "$TREE" merge-base --is-ancestor "$up" "$b" && continue
		log "export: $b follows the rewritten $up"
		git -C "$TREE" rebase -q --fork-point "$up" "$b" ||
			die "rebasing $b onto $up failed: finish it in $TREE, then export again"
		git -C "$TREE" checkout -q series
	done
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The series' revision: the mails say [PATCH vN M/T] (file names keep
# their plain numbers, which 2-tree.sh applies in order).
REROLL=${REROLL:-3}
fmt base..series "$tmp/patches" --cover-letter --base=base \
	--cover-from-description=subject --subject-prefix="PATCH v$REROLL"
# The cover letter is addressed (To: people, Cc: lists) to everyone that
# get_maintainer.pl names for the series as a whole; each patch carries
# Cc: trailers for its own people (see cc.sh). Only the cover letter gets
# the mail headers: checkpatch cannot parse folded To:/Cc: lines.
addrs() { # addrs --people|--lists: for all the patches at once
	# shellcheck disable=SC2046,SC2010 # format-patch names: no white space, one word each
	"$TOP"/scripts/cc.sh "$1" $(ls "$tmp"/patches/[0-9]*.patch | grep -v '/0000-')
}
if ls "$tmp"/patches/0001-*.patch >/dev/null 2>&1; then
	to=() cc=()
	while IFS= read -r a; do to+=("--to=$a"); done < <(addrs --people)
	while IFS= read -r a; do cc+=("--cc=$a"); done < <(addrs --lists)
	fmt base..series "$tmp/addressed" --cover-letter --base=base \
		--cover-from-description=subject --subject-prefix="PATCH v$REROLL" \
		"${to[@]}" "${cc[@]}"
	cp "$tmp"/addressed/0000-*.patch "$tmp/patches/"
fi
fmt series..emu "$tmp/testonly"
fmt base..base-count "$tmp/testonly-base"
fmt emu..mutants "$tmp/mutants"

if [ $check = 1 ]; then
	same() { # same GENERATED CHECKED-IN: the patch files of both (a missing dir counts as empty)
		mkdir -p "$tmp/x/a" "$tmp/x/b"
		rm -f "$tmp"/x/[ab]/*
		cp "$1"/*.patch "$tmp/x/a/" 2>/dev/null || true
		[ ! -d "$2" ] || cp "$2"/*.patch "$tmp/x/b/" 2>/dev/null || true
		diff -r -q "$tmp/x/a" "$tmp/x/b" >/dev/null
	}
	same "$tmp/patches" "${PATCHES_DIR:-$TOP/patches}" &&
		same "$tmp/testonly" "$TOP/testonly" &&
		same "$tmp/testonly-base" "$TOP/testonly-base" &&
		same "$tmp/mutants" "$TOP/mutants" &&
		"$TOP"/scripts/export-split.sh --check
	exit
fi
# Only the patch files are generated: other files in these directories
# (mutants/matrix) are the harness's own.
for d in patches testonly testonly-base mutants; do
	mkdir -p "$TOP/$d"
	rm -f "${TOP:?}/$d"/*.patch
	cp "$tmp/$d"/*.patch "$TOP/$d/" 2>/dev/null || true
done
# shellcheck disable=SC2010 # format-patch names: no white space
np() { ls "$TOP/$1"/[0-9]*.patch 2>/dev/null | grep -vc '/0000-' || true; }
log "export: $(np patches) series, $(np testonly) test-only, $(np mutants) mutant patches"
"$TOP"/scripts/export-split.sh
