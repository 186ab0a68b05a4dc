#!/bin/bash
# Step 3a: build one guest kernel.
#   3-build-kernel.sh ARCH REF [VARIANT]
# REF is a branch or tag of the tree (base, series, emu, mutant, ...).
# VARIANT names an extra fragment configs/variant-VARIANT.config (compile
# checks such as nosmp, 16k). The kernel is built from a detached worktree
# at $OUT/src; the build dir is $OUT/build/ARCH-REF[-VARIANT]. A new build
# dir is seeded from an existing one of the same arch so only what differs
# is rebuilt (git checkout gives changed files a new mtime, so make sees
# them). BUILD_NAME overrides the build dir's name (make lint builds every
# step of the series in one dir). TARGET overrides the make target(s).
# Prints the build dir.
. "$(dirname "$0")/lib.sh"

arch=$1 ref=$2 variant=${3:-}
name=${BUILD_NAME:-$arch-$ref${variant:+-$variant}}
bdir=$OUT/build/$name
src=$OUT/src
cc=$(cross_compile "$arch")

[ -d "$TREE/.git" ] || die "no tree at $TREE: run 'make tree' first"
git -C "$TREE" rev-parse -q --verify "$ref^{commit}" >/dev/null || die "no ref '$ref' in $TREE"

if [ ! -d "$src" ]; then
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$src" "$ref"
fi
exec 9>"$OUT/src.lock"
flock 9
git -C "$src" checkout -q --detach -f "$ref"

if [ ! -d "$bdir" ]; then
	seed=$(ls -td "$OUT"/build/"$arch"-* 2>/dev/null | head -n 1 || true)
	if [ -n "$seed" ] && [ -f "$seed/.config" ]; then
		log "build $name: seeding from $(basename "$seed")"
		cp -a "$seed" "$bdir.tmp" && mv "$bdir.tmp" "$bdir"
	fi
fi
mkdir -p "$bdir"

frags=("$TOP/configs/common.config" "$TOP/configs/$arch.config")
[ -n "$variant" ] && frags+=("$TOP/configs/variant-$variant.config")
# Every option of these must take; the series' own KUnit suites are added
# after them: their options do not exist on base, nor part-way through
# the series (make lint's bisect builds), where they are merged unchecked.
must=("${frags[@]}")
# A variant overrides the guest fragments (SMP=n makes NR_CPUS 1): only
# its own options are checked then.
[ -n "$variant" ] && must=("$TOP/configs/variant-$variant.config")
case $ref in
base*) ;;
*) for f in "$TOP/configs/kunit.config" "$TOP/configs/kunit-$arch.config"; do
	[ -f "$f" ] && frags+=("$f") && [ -z "${BUILD_NAME:-}" ] && must+=("$f")
   done ;;
esac
case $ref in
mutants*) frags+=("$TOP/configs/mutants.config") must+=("$TOP/configs/mutants.config") ;;
esac
# Rebuild .config only when a fragment changed, or (lint's bisect dir) at
# a step whose Kconfig files differ from the last configured step's, so
# that options the series adds are taken once they exist.
want=$({ cat "${frags[@]}"; [ -z "${BUILD_NAME:-}" ] ||
	git -C "$src" log -1 --format=%H HEAD -- '*Kconfig*'; } | sha256sum | cut -c1-16)
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
	missing=$(cat "${must[@]}" | grep -E '^CONFIG_' | while IFS= read -r l; do
		opt=${l%%=*} val=${l#*=}
		if [ "$val" = n ]; then
			! grep -q "^$opt=" "$bdir/.config" || echo "$l"
		else
			grep -qx "$l" "$bdir/.config" || echo "$l"
		fi
	done)
	[ -z "$missing" ] || die "build $name: config options not honoured: $(echo $missing)"
	echo "$want" > "$bdir/.frags"
fi

log "build $name: $(git -C "$src" log -1 --format='%h %s' | cut -c1-60)"
# TARGET may name several objects.
# shellcheck disable=SC2086
kmake "$bdir" "$arch" ${TARGET:-$(basename "$(kimage "$arch")")} >"$bdir/build.log" 2>&1 ||
	{ tail -n 40 "$bdir/build.log" >&2; die "build $name failed"; }
git -C "$src" rev-parse HEAD > "$bdir/.built-from"
log "build $name: done"
echo "$bdir"
