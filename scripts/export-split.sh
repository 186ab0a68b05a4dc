#!/bin/bash
# Write split/NAME/ for each series of split-covers/series: the series one
# tree takes, as format-patch mails with their own cover letter
# (split-covers/NAME.txt) and To:/Cc: from get_maintainer.pl for those
# patches alone. Each series is built in the tree as branch split-NAME:
# its commits of base..series, cherry-picked in the order given onto base
# or onto its prerequisite's branch (in a scratch index: no checkout), so
# that writing it proves it applies there; --base lists the prerequisite's
# patches as prerequisite-patch-id. export.sh runs it; with --check it
# writes nothing under split/ and exits non-zero when split/ differs.
. "$(dirname "$0")/lib.sh"

check=0
[ "${1:-}" = --check ] && check=1
SPEC=${SPLIT_SPEC:-$TOP/split-covers/series}
REROLL=${REROLL:-3}
g() { git -C "$TREE" "$@"; }

mapfile -t all < <(g rev-list --reverse base..series)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GIT_INDEX_FILE=$tmp/index

pick() { # pick ONTO COMMIT: COMMIT's change as a commit on ONTO; prints it
	local c=$2 t
	g read-tree "$1"
	g diff --binary "$c~1" "$c" | g apply --cached ||
		die "split: $(g log -1 --format=%s "$c") does not apply (see split-covers/series)"
	t=$(g write-tree)
	# Author as in the series, committer and dates pinned as git_am does:
	# the same commits on every run.
	g log -1 --format=%B "$c" >"$tmp/msg"
	GIT_AUTHOR_NAME=$(g log -1 --format=%an "$c") GIT_AUTHOR_EMAIL=$(g log -1 --format=%ae "$c") \
	GIT_AUTHOR_DATE=$(g log -1 --format=%aI "$c") GIT_COMMITTER_DATE=$(g log -1 --format=%aI "$c") \
	GIT_COMMITTER_NAME=$SERIES_NAME GIT_COMMITTER_EMAIL=$SERIES_EMAIL \
		g commit-tree "$t" -p "$1" -F "$tmp/msg"
}

declare -A seen=()
out=$tmp/split
mkdir -p "$out"
while IFS='|' read -r name pre nums _; do
	case $name in '#'* | '') continue ;; esac
	cover=$TOP/split-covers/$name.txt
	[ -f "$cover" ] || die "split: no cover letter $cover"
	onto=base
	[ "$pre" = - ] || onto=split-$pre
	tip=$(g rev-parse "$onto")
	for n in $nums; do
		if [ "$n" -lt 1 ] || [ -z "${all[n - 1]:-}" ]; then
			die "split: $name: no patch $n in base..series"
		fi
		[ -z "${seen[$n]:-}" ] || die "split: patch $n is in ${seen[$n]} and $name"
		seen[$n]=$name
		tip=$(pick "$tip" "${all[n - 1]}")
	done
	g update-ref "refs/heads/split-$name" "$tip"
	# The cover letter's subject and text: format-patch takes them from
	# the branch description.
	g config "branch.split-$name.description" "$(cat "$cover")"
	fmt() { # fmt DIR [format-patch args]: this series, with its cover letter
		local dir=$1
		shift
		format_mails "$TREE" "$onto..split-$name" "$dir" --cover-letter --base=base \
			--cover-from-description=subject --subject-prefix="PATCH v$REROLL" "$@"
	}
	fmt "$tmp/plain/$name"
	# To: the people, Cc: the lists that get_maintainer.pl names for
	# these patches alone (cc.sh), on the cover letter only.
	to=() cc=() mails=()
	for m in "$tmp/plain/$name"/[0-9]*.patch; do
		[[ $m == */0000-* ]] || mails+=("$m")
	done
	while IFS= read -r a; do to+=("--to=$a"); done < <("$TOP"/scripts/cc.sh --people "${mails[@]}")
	while IFS= read -r a; do cc+=("--cc=$a"); done < <("$TOP"/scripts/cc.sh --lists "${mails[@]}")
	fmt "$tmp/addr/$name" "${to[@]}" "${cc[@]}"
	mkdir -p "$out/$name"
	cp "$tmp/plain/$name"/*.patch "$out/$name/"
	cp "$tmp/addr/$name"/0000-*.patch "$out/$name/"
done <"$SPEC"
[ ${#seen[@]} = ${#all[@]} ] ||
	die "split: ${#all[@]} patches in base..series, ${#seen[@]} in split-covers/series"

if [ $check = 1 ]; then
	diff -r -q "$out" "${SPLIT_DIR:-$TOP/split}" >/dev/null
	exit
fi
rm -rf "${TOP:?}/split"
cp -r "$out" "$TOP/split"
log "export: $(find "$TOP/split" -mindepth 1 -maxdepth 1 -type d | wc -l) split series in split/"
