#!/bin/bash
# Cc: trailers from the tree's scripts/get_maintainer.pl.
#   cc.sh            give every commit base..series the Cc: lines that
#                    get_maintainer.pl names for its diff (people and
#                    role addresses, not lists; Cc: stable stays), then
#                    run make export
#   cc.sh --check P  exit 1 if patch file P's Cc: lines differ from that
#   cc.sh --people P... / --lists P...   print the addresses for patch files
# The lists (and everyone, for the cover letter) go to the mail headers:
# see export.sh.
. "$(dirname "$0")/lib.sh"

gm() { # gm OPTS... PATCHFILE: addresses, one per line, without the author
	(cd "$TREE" && scripts/get_maintainer.pl --no-git --no-git-fallback \
		--nofixes --no-rolestats "$@" 2>/dev/null) |
		grep -v -F "$SERIES_EMAIL" || true
}
people() { local files; mapfile -t files < <(realpath "$@"); gm --nol "${files[@]}"; }
lists() { local files; mapfile -t files < <(realpath "$@"); gm --nom --nor --l "${files[@]}"; }
have() { # the Cc: trailers in the message body (not the mail headers)
	awk '!body { if ($0 == "") body = 1; next } /^---$/ { exit } sub(/^Cc: /, "")' "$1" |
		grep -v 'stable@vger.kernel.org' || true
}

case ${1:-} in
--people) shift; people "$@" ;;
--lists) shift; lists "$@" ;;
--check)
	[ "$(people "$2" | sort)" = "$(have "$2" | sort)" ]
	;;
--amend) # in the tree, on HEAD (run by the rebase below)
	p=$(mktemp)
	git -C "$TREE" format-patch -1 --stdout HEAD >"$p"
	people "$p" >"$p.cc"
	git -C "$TREE" log -1 --format=%B HEAD | python3 -c '
import sys
msg = sys.stdin.read().rstrip("\n").split("\n")
cc = [l.strip() for l in open(sys.argv[1]) if l.strip()]
msg = [l for l in msg if not (l.startswith("Cc: ") and "stable@" not in l)]
at = next((i for i, l in enumerate(msg) if l.startswith("Signed-off-by: ")), len(msg))
msg[at:at] = ["Cc: " + c for c in cc]
print("\n".join(msg))' "$p.cc" >"$p.msg"
	git -C "$TREE" commit -q --amend -F "$p.msg"
	rm -f "$p" "$p.cc" "$p.msg"
	;;
"")
	git -C "$TREE" diff --quiet || die "$TREE has uncommitted changes"
	git -C "$TREE" checkout -q series
	GIT_SEQUENCE_EDITOR=true git -C "$TREE" rebase -q -i \
		--exec "$TOP/scripts/cc.sh --amend" base
	# export.sh moves the test-only branches onto the rewritten series.
	"$TOP"/scripts/export.sh
	;;
*) die "usage: $0 [--check|--people|--lists PATCH]" ;;
esac
