#!/bin/bash
# Step 2: make the development tree in $OUT/linux:
#   tag  base      the pinned Debian source, one commit
#   branch series  base + patches/ (git am)
#   branch testonly  series + testonly/ (harness-only kernel changes)
# Refuses to throw away commits that were never exported (FORCE=1 overrides).
. "$(dirname "$0")/lib.sh"

series_patches() { ls "$TOP"/patches/[0-9]*.patch 2>/dev/null | grep -v '/0000-' || true; }
testonly_patches() { ls "$TOP"/testonly/[0-9]*.patch 2>/dev/null | grep -v '/0000-' || true; }

if [ -d "$TREE/.git" ] && [ "${FORCE:-0}" != 1 ]; then
	if ! "$TOP"/scripts/export.sh --check; then
		die "$TREE has commits that differ from patches/; run 'make export' first or FORCE=1"
	fi
fi

if ! git -C "$TREE" rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
	tarball=$("$TOP"/scripts/1-base.sh)
	log "tree: extracting $(basename "$tarball")"
	rm -rf "$TREE" "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	tar -xf "$tarball" -C "$TREE.tmp" --strip-components=1
	cd "$TREE.tmp"
	# Debian's packaging repository ignores every top-level path ("/*"),
	# which would hide the whole source from git add: drop that block.
	sed -i '/^# Debian packaging/,$d' .gitignore
	sed -i -e :a -e '/^\n*$/{$d;N;ba' -e '}' .gitignore
	sed -i '${/^#$/d}' .gitignore
	git init -q -b series
	git config user.name "$SERIES_NAME"
	git config user.email "$SERIES_EMAIL"
	git config core.abbrev 12
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
	cd "$TOP"
	mv "$TREE.tmp" "$TREE"
	log "tree: base $(git -C "$TREE" rev-parse --short base)"
fi

cd "$TREE"
git checkout -q -f -B series base
git clean -q -fdx -e /.cover
mapfile -t ps < <(series_patches)
if [ ${#ps[@]} -gt 0 ]; then
	git_am "${ps[@]}" ||
		die "patches/ does not apply to base (git am left the tree mid-series)"
fi
# The cover letter's own text (subject and body, without the generated
# shortlog and diffstat) lives in the branch description.
"$TOP"/scripts/cover.sh --to-tree
log "tree: series = base + ${#ps[@]} patches"

git checkout -q -B testonly series
mapfile -t ts < <(testonly_patches)
if [ ${#ts[@]} -gt 0 ]; then
	git_am "${ts[@]}" ||
		die "testonly/ does not apply on top of the series"
fi
git checkout -q series
log "tree: testonly = series + ${#ts[@]} patches"
