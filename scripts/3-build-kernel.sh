#!/bin/bash
# Step 3a: build one guest kernel.
#   3-build-kernel.sh ARCH REF [VARIANT]
# REF is a branch or tag of the tree (base, series, emu, mutant, ...).
# VARIANT names an extra fragment configs/variant-VARIANT.config (compile
# checks such as nosmp, 16k). The kernel is built from REF's files in
# $OUT/src (src_checkout), in $OUT/build/ARCH-REF[-VARIANT] (a link to $OUT/src/
# .build-NAME: in a direct subdirectory of the source, kbuild names every
# source file relative to it, so a build dir is valid at any path). A new
# build dir is restored from the build cache ($CACHE/kbuild, the last
# full build of that name by any clone) or else seeded from an existing
# one of the same arch; either way only what differs in content is
# rebuilt (src_checkout in lib.sh). BUILD_NAME overrides the build dir's
# name (make lint builds every step of the series in one dir) and keeps
# it out of the build cache. TARGET overrides the make target(s).
# KBUILD_CACHE=0 neither reads nor writes the build cache.
# Prints the build dir.
. "$(dirname "$0")/lib.sh"

arch=$1 ref=$2 variant=${3:-}
name=${BUILD_NAME:-$arch-$ref${variant:+-$variant}}
src=$OUT/src
bdir=$OUT/build/$name
kdir=$src/.build-$name
kcache=$CACHE/kbuild/$name
cc=$(cross_compile "$arch")

[ -d "$TREE/.git" ] || die "no tree at $TREE: run 'make tree' first"
git -C "$TREE" rev-parse -q --verify "$ref^{commit}" >/dev/null || die "no ref '$ref' in $TREE"

# $OUT/src was a git worktree before: its files go, its build dirs stay.
if [ -e "$src/.git" ]; then
	rm -f "$src/.git" "$src/.src-tree"
	git -C "$TREE" worktree prune
fi
mkdir -p "$src"
use_cache=0
[ "${KBUILD_CACHE:-1}" = 1 ] && [ -z "${BUILD_NAME:-}" ] && use_cache=1
if [ ! -d "$kdir" ]; then
	# shellcheck disable=SC2010 # ls -t: the newest first; the harness's names
	seed=$(ls -td "$src"/.build-"$arch"-* 2>/dev/null | grep -v '\.tmp$' | head -n 1 || true)
	if [ $use_cache = 1 ] && cache_get "$kdir" "$kcache"; then
		log "build $name: from the build cache"
	elif [ -n "$seed" ] && [ -f "$seed/.config" ]; then
		log "build $name: seeding from ${seed##*/.build-}"
		rm -rf "$kdir.tmp"
		cp -a "$seed" "$kdir.tmp" && mv "$kdir.tmp" "$kdir"
	fi
fi
mkdir -p "$kdir" "$OUT/build"
[ -L "$bdir" ] || rm -rf "$bdir" # a build dir of the layout before links
ln -sfn "../src/.build-$name" "$bdir"
src_checkout "$ref" "$kdir"
bdir=$kdir

frags=("$TOP/configs/common.config" "$TOP/configs/$arch.config")
[ -n "$variant" ] && frags+=("$TOP/configs/variant-$variant.config")
# Every option of these must take; the series' own KUnit suites are added
# after them: their options do not exist on base (nor on a base of a
# stable backport, bp-*: scripts/backport.sh), nor part-way through
# the series (make lint's bisect builds), nor in a series of split/ that
# lacks the suite's patch (make split-check), where they are merged
# unchecked.
must=("${frags[@]}")
# A variant overrides the guest fragments (SMP=n makes NR_CPUS 1): only
# its own options are checked then.
[ -n "$variant" ] && must=("$TOP/configs/variant-$variant.config")
case $ref in
base* | bp-*) ;;
*) for f in "$TOP/configs/kunit.config" "$TOP/configs/kunit-$arch.config"; do
	[ -f "$f" ] && frags+=("$f") && [ -z "${BUILD_NAME:-}" ] &&
		[ "${ref#split-}" = "$ref" ] && must+=("$f")
   done ;;
esac
case $ref in
mutants*) frags+=("$TOP/configs/mutants.config") must+=("$TOP/configs/mutants.config") ;;
esac
# Rebuild .config only when a fragment changed, or (lint's bisect dir) at
# a step whose Kconfig files differ from the last configured step's, so
# that options the series adds are taken once they exist.
# Only the option lines count: a fragment of comments (configs/mutants.config
# today) leaves a dir seeded from the series build configured as it is.
# A base of a stable backport (bp-*) shares base's fragments but not its
# Kconfig files: its dir, seeded from another base's, is configured anew.
kconfig=0
[ -z "${BUILD_NAME:-}" ] || kconfig=1
case $ref in bp-*) kconfig=1 ;; esac
want=$({ grep -h -E '^(CONFIG_|# CONFIG_)' "${frags[@]}"; [ $kconfig = 0 ] ||
	git -C "$TREE" log -1 --format=%H "$ref" -- '*Kconfig*'; } | sha256sum | cut -c1-16)
# KEEP_CONFIG=1 keeps whatever .config the dir has (make lint compiles
# single objects at older steps in a variant dir configured at the tip).
if [ "${KEEP_CONFIG:-0}" = 1 ] && [ -f "$bdir/.frags" ]; then
	:
elif [ "$(cat "$bdir/.frags" 2>/dev/null)" != "$want" ]; then
	log "build $name: configuring"
	kmake "$bdir" "$arch" tinyconfig >/dev/null
	"$src"/scripts/kconfig/merge_config.sh -m -O "$bdir" "$bdir/.config" "${frags[@]}" >/dev/null
	kmake "$bdir" "$arch" olddefconfig >/dev/null
	# Every option a fragment names must have the value it asks for.
	wrong=$(cat "${must[@]}" | grep -E '^CONFIG_' | while IFS= read -r l; do
		opt=${l%%=*} val=${l#*=}
		if [ "$val" = n ]; then
			! grep -q "^$opt=" "$bdir/.config" || echo "$l"
		else
			grep -qx "$l" "$bdir/.config" || echo "$l"
		fi
	done)
	[ -z "$wrong" ] || die "build $name: config options not honoured: ${wrong//$'\n'/ }"
	echo "$want" > "$bdir/.frags"
fi

log "build $name: $(git -C "$TREE" log -1 --format='%h %s' "$ref" | cut -c1-60)"
# objtool (x86) is built by tools/'s own make, with absolute paths: in a
# build dir restored from another clone it is rebuilt, and every object,
# which depends on its mtime, would be recompiled. Rebuilt from the same
# sources (nothing under tools/ changed) it does the same work: it and
# everything its build made keep objtool's old mtime (all alike, so that
# tools/'s make finds nothing to relink either).
ot=$bdir/tools/objtool/objtool
if [ -x "$ot" ] && ! grep -q '^tools/' "$bdir/.changed"; then
	ot_mtime=$(stat -c %Y "$ot")
	kmake "$bdir" "$arch" tools/objtool >"$bdir/build.log" 2>&1 ||
		{ tail -n 40 "$bdir/build.log" >&2; die "build $name: objtool failed"; }
	find "$bdir/tools/objtool" -newermt "@$ot_mtime" -exec touch -h -m -d "@$ot_mtime" {} +
fi
# TARGET may name several objects. A full build also makes the uapi
# headers (usr/include), which the kselftests are built against
# (3-build-tests.sh), so that a build dir from the build cache has them.
# shellcheck disable=SC2086 # TARGET: words, one target each
kmake "$bdir" "$arch" ${TARGET:-$(basename "$(kimage "$arch")") headers} >"$bdir/build.log" 2>&1 ||
	{ tail -n 40 "$bdir/build.log" >&2; die "build $name failed"; }
# x86's bzImage carries vmlinux compressed, pulled into
# arch/x86/boot/compressed/piggy.o by an .incbin that neither the
# compiler's dependency list nor ccache sees: when piggy.S comes out the
# same (a compressed kernel of the same size), ccache hands back the
# object of an earlier kernel, and the bzImage boots that kernel (seen
# here: a mutants kernel without its newest mutant). Compile piggy.o
# again past the cache and relink.
if [ "$arch" = x86_64 ] && [ -z "${TARGET:-}" ]; then
	rm -f "$bdir/arch/x86/boot/compressed/piggy.o"
	(export CCACHE_RECACHE=1; kmake "$bdir" "$arch" bzImage) >>"$bdir/build.log" 2>&1 ||
		{ tail -n 40 "$bdir/build.log" >&2; die "build $name: bzImage failed"; }
fi
git -C "$TREE" rev-parse "$ref^{commit}" > "$bdir/.built-from"
case ${TARGET:-vmlinux} in
vmlinux) src_built "$bdir" ;;
esac
# Keep the full build for the next clone (unless the cache has it).
if [ $use_cache = 1 ] && [ -z "${TARGET:-}" ] && [ -f "$bdir/.tree" ] &&
	! { cmp -s "$bdir/.tree" "$kcache/.tree" && cmp -s "$bdir/.frags" "$kcache/.frags" &&
		cmp -s "$bdir/$(kimage "$arch")" "$kcache/$(kimage "$arch")"; }; then
	cache_put "$bdir" "$kcache"
fi
log "build $name: done"
echo "$bdir"
