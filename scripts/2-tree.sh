#!/bin/bash
# Step 2: make the development tree in $OUT/linux:
#   tag  base      the pinned Debian source, one commit
#   branch series    base + patches/ (git am)
#   branch emu       series + testonly/   (in-guest Hyper-V emulation)
#   branch base-emu  base + testonly/     (the same, for base)
#   branch base-count base + testonly-base/ (a count of the CPUs base's
#                    Hyper-V flush hypercalls name: the nested boot)
#   branch mutants   emu + mutants/       (kernels that break one flush)
# testonly/ and mutants/ are harness-only kernel patches, never merged.
# 2-tree.sh --base-only: the tag base alone, in a tree of its own (the
# stable backports' trees: scripts/backport.sh, with BASE_CONF and
# OUT of their base); no branch is touched, nothing is guarded.
# Refuses to throw away commits that were never exported (FORCE=1 overrides).
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2010 # format-patch names: no white space; ls sorts them
patches_in() { ls "$TOP/$1"/[0-9]*.patch 2>/dev/null | grep -v '/0000-' || true; }
on_top() { # on_top BRANCH FROM DIR: BRANCH = FROM + the patches in DIR
	local ps
	git checkout -q -f -B "$1" "$2"
	mapfile -t ps < <(patches_in "$3")
	if [ ${#ps[@]} -gt 0 ]; then
		git_am "${ps[@]}" || { git am --abort; die "$3/ does not apply on top of $2"; }
	fi
	log "tree: $1 = $2 + ${#ps[@]} patches"
}

# Refuses, too, to throw away uncommitted changes in the tree, tracked or
# untracked (not ignored): the branches below are checked out with -f. A
# new file not yet added is work too; the ignored ones (build output,
# editor files) are left where they are. 2-tree.sh --guard: only this
# check (make clean runs it before it deletes out/).
guard() {
	local dirty n made
	[ -d "$TREE/.git" ] && [ "${FORCE:-0}" != 1 ] || return 0
	dirty=$(git -C "$TREE" status --porcelain --untracked-files=all)
	if [ -n "$dirty" ]; then
		n=$(wc -l <<<"$dirty")
		die "$TREE has uncommitted changes or untracked files ($n; commit them, then 'make export'; or FORCE=1 to throw them away):
$(head -n 20 <<<"$dirty")$([ "$n" -le 20 ] || echo "
... and $((n - 20)) more")"
	fi
	# Branches as the last make tree left them (tree.made) hold nothing
	# new, even if patches/ moved on since (git pull): only commits made
	# in the tree must be exported first.
	made=$(git -C "$TREE" rev-parse series emu base-emu base-count mutants 2>/dev/null || true)
	if [ "$made" != "$(cat "$OUT/tree.made" 2>/dev/null)" ] &&
		! "$TOP"/scripts/export.sh --check; then
		die "$TREE has commits that differ from patches/; run 'make export' first or FORCE=1"
	fi
}
[ "${1:-}" = --base-only ] || guard
[ "${1:-}" != --guard ] || exit 0

# A base made from another base.conf (its commit message names the
# tarball's sha256) is made again.
if git -C "$TREE" rev-parse -q --verify refs/tags/base >/dev/null 2>&1 &&
	! git -C "$TREE" log -1 --format=%B base | grep -q "sha256 $BASE_TARBALL_SHA256"; then
	log "tree: base.conf names another base; making the tree again"
	rm -rf "$TREE" "$OUT/src"
fi

# make_base DIR: the base commit, from the verified tarball, as a new
# repository in DIR (tag base).
make_base() {
	local tarball
	tarball=$("$TOP"/scripts/1-base.sh)
	log "tree: extracting $(basename "$tarball")"
	mkdir -p "$1"
	tar -xf "$tarball" -C "$1" --strip-components=1
	cd "$1"
	# The user's git configuration (excludes, hooks, signing) must not
	# change the commit.
	export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
	# Debian's packaging repository ignores every top-level path ("/*"),
	# which would hide the whole source from git add: drop that block.
	sed -i '/^# Debian packaging/,$d' .gitignore
	sed -i -e :a -e '/^\n*$/{$d;N;ba' -e '}' .gitignore
	sed -i '${/^#$/d}' .gitignore
	git init -q -b series
	git config gc.auto 0
	git add -A
	git_fixed git commit -q -F - <<EOM
Linux $(make -s kernelversion) from Debian $BASE_PKG $BASE_VERSION

Unpacked from the $BASE_PKG binary package, version $BASE_VERSION,
suite $BASE_SUITE; tarball sha256 $BASE_TARBALL_SHA256.

The only change to the tarball: the Debian packaging block at the end
of the top-level .gitignore is dropped. It ignores every top-level path
("/*"), so git add would see nothing.
EOM
	git tag base
	unset GIT_CONFIG_GLOBAL GIT_CONFIG_NOSYSTEM
	cd "$TOP"
}

# The base commit is made once per tarball and kept in the download cache
# as a bare repository, its objects in one pack (the key: the tarball and
# the code that makes the commit). A tree with no base is a local clone of
# it: the pack is hard-linked, only the checkout writes the files (a
# minute less than unpacking and hashing the tarball; 15 s here).
if ! git -C "$TREE" rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
	# Everything the commit is made of: the tarball, base.conf's names
	# and the fixed date in its message and identities, and the code.
	key=$({ declare -p BASE_TARBALL_SHA256 BASE_PKG BASE_VERSION BASE_SUITE BASE_DATE
		declare -f make_base git_fixed; } | sha256sum | cut -c1-16)
	bgit=$CACHE/base-git/$key
	rm -rf "$TREE" "$TREE.tmp"
	if git -C "$bgit" rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
		log "tree: base from the download cache"
		touch "$bgit" 2>/dev/null || true # in use: see the pruning below
		git clone -q --no-checkout "$bgit" "$TREE.tmp"
		git -C "$TREE.tmp" remote remove origin
	else
		make_base "$TREE.tmp"
		# Kept for the next tree (best effort; another clone may have
		# kept the same entry meanwhile).
		mkdir -p "$CACHE/base-git"
		w=$(mktemp -d "$bgit.XXXXXX")
		trap 'rm -rf "$w"' EXIT
		# One pack, no deltas, light compression: 25 s to write here,
		# and a checkout from it reads no loose objects (15 s, not 40).
		if git clone -q --bare "$TREE.tmp" "$w/bare" &&
			git -C "$w/bare" -c pack.window=0 -c pack.compression=1 repack -q -a -d; then
			mv -T "$w/bare" "$bgit" 2>/dev/null || true
			# Entries of other keys (an older base.conf or make_base)
			# that no tree was made from for 14 days go, and what a
			# killed run left half-written a day ago.
			find "$CACHE/base-git" -mindepth 1 -maxdepth 1 -type d \
				! -name "$key" \( -mtime +14 -o -name '*.*' -mtime +1 \) \
				-exec rm -rf {} + 2>/dev/null || true
		else
			log "tree: the base was not kept in the download cache"
		fi
		rm -rf "$w"
		trap - EXIT
	fi
	# No automatic gc: it would repack all of the base's objects in the
	# background, minutes of CPU beside the first kernel build.
	git -C "$TREE.tmp" config gc.auto 0
	git -C "$TREE.tmp" config user.name "$SERIES_NAME"
	git -C "$TREE.tmp" config user.email "$SERIES_EMAIL"
	git -C "$TREE.tmp" config core.abbrev 12
	mv "$TREE.tmp" "$TREE"
	log "tree: base $(git -C "$TREE" rev-parse --short base)"
fi

# The kernel's .gitattributes (diff=cpp for C: format-patch's hunk
# headers name the function, not a label) is not in the base commit:
# Debian's .gitignore ignores dot files. A tree made from the tarball has
# it as an ignored file, one cloned from the download cache has not: the
# same attributes for every tree, so that make export writes the same
# patches from either.
info=$(git -C "$TREE" rev-parse --absolute-git-dir)/info
mkdir -p "$info"
printf '%s\n' '*.[ch] diff=cpp' '*.dts diff=dts' '*.dts[io] diff=dts' '*.rs diff=rust' >"$info/attributes"

[ "${1:-}" != --base-only ] || exit 0
cd "$TREE"
on_top series base patches
# No git clean: the guard above refused untracked files, and ignored ones
# are no one's business here (builds read git archive's copy, $OUT/src).
# FORCE=1 asked for the untracked ones to go.
[ "${FORCE:-0}" != 1 ] || git clean -q -fd
# The cover letter's own text (subject and body, without the generated
# shortlog and diffstat) lives in the branch description.
"$TOP"/scripts/cover.sh --to-tree
on_top emu series testonly
on_top base-emu base testonly
on_top base-count base testonly-base
on_top mutants emu mutants
git checkout -q series
git rev-parse series emu base-emu base-count mutants >"$OUT/tree.made"
