#!/bin/bash
# Harness self-tests: each check runs on a good input and on a broken one,
# and passes only if the harness tells them apart.
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
p=0 f=0
ok() { echo "PASS selftest $1"; p=$((p + 1)); }
bad() { echo "FAIL selftest $1"; f=$((f + 1)); }
failed_count() { "$TOP"/scripts/5-results.py "$1" --tree "$TREE" | awk '$1 == "counts" { print $3 }'; }

ktap_log() { # ktap_log FILE CASE2_STATUS EXTRA_CONSOLE_LINE
	cat > "$1" <<EOL
[    1.000000] KTAP version 1
[    1.000001] 1..1
[    1.000002]     KTAP version 1
[    1.000003]     # Subtest: sample
[    1.000004]     # module: sample_kunit
[    1.000005]     1..2
[    1.000006]     ok 1 case_a
[    1.000007]     $2 2 case_b
[    1.000008] # sample: pass:1 fail:0 skip:0 total:2
[    1.000009] $([ "$2" = ok ] && echo ok || echo "not ok") 1 sample
$3
### tlb-series: userspace tests begin
TAP version 13
1..1
# selftests: mm.sample: ./sample
# hello
ok 1 mm.sample
### tlb-series: userspace tests end
EOL
}

# 1. A console WARNING: is a failure.
ktap_log "$tmp/clean.log" ok ""
ktap_log "$tmp/warn.log" ok "[    2.000000] WARNING: CPU: 1 PID: 42 at mm/memory.c:1 foo+0x1/0x2"
if [ "$(failed_count "$tmp/clean.log")" = 0 ] && [ "$(failed_count "$tmp/warn.log")" = 1 ]; then
	ok "console WARNING: line is a failure"
else
	bad "console WARNING: line is a failure"
fi

# 2. A failing KUnit case is counted (parsed by the tree's kunit.py).
ktap_log "$tmp/kfail.log" "not ok" ""
if [ "$(failed_count "$tmp/kfail.log")" = 1 ]; then
	ok "failing KTAP case is counted"
else
	bad "failing KTAP case is counted"
fi

# 3. A base version that neither the suite's index nor the archive pool
#    has gives an error naming the version needed and the one the suite
#    offers now.  Offline: a stand-in for apt-private.sh whose index lacks
#    the version, and a pool that is an empty local directory.
sed 's/^BASE_VERSION=.*/BASE_VERSION=7.3.4-1~bpo13+99/' "$TOP/base.conf" > "$tmp/base.conf"
mkdir -p "$tmp/pool"
cat > "$tmp/apt.sh" <<EOS
#!/bin/sh
case \$1 in
update) exit 0 ;;
download) echo "E: Version '7.3.4-1~bpo13+99' for 'linux-source-7.3' was not found" >&2; exit 100 ;;
policy) printf 'linux-source-7.3:\n  Installed: (none)\n  Candidate: 7.3.9-1~bpo13+1\n' ;;
path) echo "$tmp/debs" ;;
mirror) echo "file://$tmp/pool" ;;
esac
EOS
chmod +x "$tmp/apt.sh"
mkdir -p "$tmp/debs"
if APT_PRIVATE=$tmp/apt.sh BASE_CONF=$tmp/base.conf CACHE=$tmp/cache \
	"$TOP"/scripts/1-base.sh >/dev/null 2>"$tmp/err"; then
	bad "missing base package is reported (the fetch succeeded)"
elif grep -q 'linux-source-7.3 7.3.4-1~bpo13+99 is neither in' "$tmp/err" &&
	grep -q 'now offers 7.3.9-1~bpo13+1' "$tmp/err"; then
	ok "missing base package is reported with the version needed and the one offered"
else
	bad "missing base package is reported with the version needed: $(tail -n 3 "$tmp/err" | tr '\n' ' ')"
fi

# 4. The export round trip reproduces patches/ byte for byte, and a
#    patches/ that differs from the tree by one byte is noticed.
if [ -d "$TREE/.git" ]; then
	cp -r "$TOP/patches" "$tmp/patches" 2>/dev/null || mkdir -p "$tmp/patches"
	if "$TOP"/scripts/export.sh --check; then
		ok "export round trip reproduces patches/"
	else
		bad "export round trip reproduces patches/"
	fi
	(
		first=$(ls "$tmp/patches" | head -n 1)
		if [ -n "$first" ]; then
			sed -i '$ s/$/ /' "$tmp/patches/$first"
		else
			echo x > "$tmp/patches/0001-stray.patch"
		fi
		! PATCHES_DIR=$tmp/patches "$TOP"/scripts/export.sh --check
	) && ok "export check notices a changed patch" || bad "export check notices a changed patch"
else
	bad "export round trip: no tree (run make tree)"
fi
# 4b. make tree (and so make check) refuses a tree with uncommitted
#     changes instead of checking out over them.
if [ -d "$TREE/.git" ]; then
	echo "selftest: uncommitted" >> "$TREE/README"
	if "$TOP"/scripts/2-tree.sh >/dev/null 2>"$tmp/tree.err"; then
		bad "make tree refuses a tree with uncommitted changes (it went ahead)"
	elif grep -q 'uncommitted changes' "$tmp/tree.err" &&
		grep -q 'selftest: uncommitted' "$TREE/README"; then
		ok "make tree refuses a tree with uncommitted changes and keeps them"
	else
		bad "make tree refuses a tree with uncommitted changes: $(tail -n 1 "$tmp/tree.err")"
	fi
	git -C "$TREE" checkout -q -- README
fi

# 4c. make tree keeps the base commit in the download cache: a second
#     clone's tree starts from it (same commit, same files, no unpacking),
#     and a base.conf naming another tarball does not use it. Offline: a
#     small tarball, 2-tree.sh run from a copy of the harness with no
#     patches.
bt=$tmp/btree
mkdir -p "$bt/src/linux-source-7.3" "$bt/h/patches" "$bt/h/testonly" "$bt/h/mutants" "$bt/cache/base"
cp -a "$TOP/scripts" "$bt/h/"
printf '#!/bin/sh\nexit 0\n' >"$bt/h/scripts/cover.sh"
mkbase() { # mkbase TEXT: a base tarball holding TEXT, and a base.conf for it
	printf 'kernelversion:\n\t@echo 7.3.4\n' >"$bt/src/linux-source-7.3/Makefile"
	echo "$1" >"$bt/src/linux-source-7.3/README"
	printf 'x\n# Debian packaging\n/*\n' >"$bt/src/linux-source-7.3/.gitignore"
	tar -C "$bt/src" -cJf "$bt/cache/base/linux-source-7.3-7.3.4-1_bpo13+1.tar.xz" linux-source-7.3
	sed "s/^BASE_TARBALL_SHA256=.*/BASE_TARBALL_SHA256=$(sha256sum <"$bt/cache/base/linux-source-7.3-7.3.4-1_bpo13+1.tar.xz" | cut -d' ' -f1)/" \
		"$TOP/base.conf" >"$bt/h/base.conf"
}
btree() { # btree OUTNAME: make tree in a new out dir; its log in OUTNAME.err
	env -u T0 CACHE="$bt/cache" OUT="$bt/$1" "$bt/h/scripts/2-tree.sh" >/dev/null 2>"$bt/$1.err"
}
mkbase one
if btree o1 && btree o2 &&
	grep -q 'tree: extracting' "$bt/o1.err" && ! grep -q 'tree: extracting' "$bt/o2.err" &&
	grep -q 'base from the download cache' "$bt/o2.err" &&
	[ "$(git -C "$bt/o1/linux" rev-parse base)" = "$(git -C "$bt/o2/linux" rev-parse base)" ] &&
	[ "$(cat "$bt/o2/linux/README")" = one ] &&
	[ -z "$(git -C "$bt/o2/linux" status --porcelain)" ] &&
	[ "$(git -C "$bt/o2/linux" config gc.auto)" = 0 ]; then
	ok "make tree takes the base commit from the download cache"
else
	bad "make tree takes the base commit from the download cache: $(tail -n 2 "$bt"/o*.err | tr '\n' ' ')"
fi
mkbase two
if btree o3 && grep -q 'tree: extracting' "$bt/o3.err" &&
	[ "$(cat "$bt/o3/linux/README")" = two ]; then
	ok "make tree makes the base again for another tarball"
else
	bad "make tree makes the base again for another tarball: $(tail -n 2 "$bt/o3.err" | tr '\n' ' ')"
fi
# The same tarball from another suite: its commit message differs.
sed -i 's/^BASE_SUITE=.*/BASE_SUITE=selftest-suite/' "$bt/h/base.conf"
if btree o4 && grep -q 'tree: extracting' "$bt/o4.err" &&
	git -C "$bt/o4/linux" log -1 --format=%B base | grep -q 'suite selftest-suite'; then
	ok "make tree makes the base again when base.conf names another suite"
else
	bad "make tree makes the base again when base.conf names another suite: $(tail -n 2 "$bt/o4.err" | tr '\n' ' ')"
fi
# Pruning: entries of other keys unused for 14 days, and what a killed
# run left half-written, go when a new entry is made; a tree made from
# an entry marks it used.
mkdir "$bt/cache/base-git/dead.Xk3b9Q" "$bt/cache/base-git/recent13" "$bt/cache/base-git/busy.Qm2v7R"
touch -d '15 days ago' "$bt"/cache/base-git/*
touch -d '2 days ago' "$bt/cache/base-git/dead.Xk3b9Q"
touch -d '13 days ago' "$bt/cache/base-git/recent13"
touch "$bt/cache/base-git/busy.Qm2v7R"
mkbase three
if btree o5 && [ "$(ls "$bt/cache/base-git" | wc -l)" = 3 ] &&
	[ -d "$bt/cache/base-git/recent13" ] && [ -d "$bt/cache/base-git/busy.Qm2v7R" ] &&
	rm -rf "$bt/cache/base-git/recent13" "$bt/cache/base-git/busy.Qm2v7R" &&
	touch -d '15 days ago' "$bt"/cache/base-git/* && btree o6 &&
	grep -q 'base from the download cache' "$bt/o6.err" &&
	[ -n "$(find "$bt/cache/base-git" -mindepth 1 -maxdepth 1 -mtime -1)" ]; then
	ok "make tree prunes unused base cache entries and marks the one it uses"
else
	bad "make tree prunes unused base cache entries: $(ls "$bt/cache/base-git" | tr '\n' ' ')"
fi

# 5. make lint: a patch with a checkpatch warning fails, a clean one passes.
lintpatch() { # lintpatch FILE LINE: a patch that adds LINE to mm/mprotect.c
	cat > "$1" <<EOL
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Kernel TLB Team <tlb-team@example.org>
Date: Sun, 15 Nov 2026 22:30:00 +0000
Subject: [PATCH] mm: lint self-test

Self-test input for the harness's make lint.

Signed-off-by: Kernel TLB Team <tlb-team@example.org>
---
 mm/mprotect.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/mm/mprotect.c b/mm/mprotect.c
index 000000000000..111111111111 100644
--- a/mm/mprotect.c
+++ b/mm/mprotect.c
@@ -1,3 +1,4 @@
 // SPDX-License-Identifier: GPL-2.0
+$2
 /*
  *  mm/mprotect.c
--
EOL
}
if [ -d "$TREE/.git" ]; then
	mkdir -p "$tmp/lint-good" "$tmp/lint-bad"
	lintpatch "$tmp/lint-good/0001-good.patch" "/* a clean line */"
	lintpatch "$tmp/lint-bad/0001-bad.patch" "/* a line that ends in white space */  "
	g=$("$TOP"/scripts/lint.sh --only checkpatch --patches "$tmp/lint-good" | awk '$1 == "counts" { print $3 }')
	b=$("$TOP"/scripts/lint.sh --only checkpatch --patches "$tmp/lint-bad" | awk '$1 == "counts" { print $3 }')
	[ "$g" = 0 ] && [ "$b" = 1 ] && ok "lint fails a patch with a checkpatch warning" ||
		bad "lint fails a patch with a checkpatch warning (good=$g bad=$b failures)"
fi

# 5b. make lint: a patch without the Cc: lines get_maintainer.pl asks for
#     fails; the same patch with them passes.
if [ -d "$TREE/.git" ]; then
	mkdir -p "$tmp/cc-good"
	{
		sed '/^Signed-off-by:/Q' "$tmp/lint-good/0001-good.patch"
		"$TOP"/scripts/cc.sh --people "$tmp/lint-good/0001-good.patch" | sed 's/^/Cc: /'
		sed -n '/^Signed-off-by:/,$p' "$tmp/lint-good/0001-good.patch"
	} >"$tmp/cc-good/0001-good.patch"
	g=$("$TOP"/scripts/lint.sh --only cc --patches "$tmp/cc-good" | awk '$1 == "counts" { print $3 }')
	b=$("$TOP"/scripts/lint.sh --only cc --patches "$tmp/lint-good" | awk '$1 == "counts" { print $3 }')
	[ "$g" = 0 ] && [ "$b" = 1 ] && ok "lint fails a patch without its maintainers' Cc: lines" ||
		bad "lint fails a patch without its maintainers' Cc: lines (good=$g bad=$b failures)"
fi

# 6. make lint: a series that breaks the build mid-way and mends it in the
#    next patch fails the bisect build (only when kernels are built).
if [ "${SELFTEST_BISECT:-0}" = 1 ]; then
	# On top of the series, so that the bisect dir, last built there,
	# only rebuilds what the two commits touch.
	git -C "$TREE" branch -f lint-selftest series
	git -C "$TREE" worktree add -q --detach "$tmp/wt" lint-selftest
	(
		cd "$tmp/wt"
		echo '#error lint self-test: deliberate build break' >> arch/x86/mm/tlb.c
		git commit -qam "x86/mm: lint self-test: break the build"
		git revert --no-edit HEAD >/dev/null
		git branch -f lint-selftest HEAD
	)
	git -C "$TREE" worktree remove --force "$tmp/wt"
	r=$("$TOP"/scripts/lint.sh --only bisect --range series..lint-selftest)
	git -C "$TREE" branch -D -q lint-selftest
	if grep -q '^FAIL lint bisect x86_64 \[1\]' <<<"$r" && grep -q '^PASS lint bisect x86_64 \[2\]' <<<"$r"; then
		ok "lint bisect build catches a mid-series build break"
	else
		bad "lint bisect build catches a mid-series build break: $(tr '\n' ';' <<<"$r")"
	fi
fi

# 7. Recorded console logs (testdata/results/NAME.log, 5-results.py options
#    in NAME.args): each gives exactly the verdict in NAME.expect, never a
#    Python exception: clean, splats (one mid-line), cut off by a timeout
#    or mid-line, panics before any TAP and mid-KUnit, a mutant's panic and
#    catch (with and without its --evidence), a known failure that passes,
#    RCU stall, hung task, hang marker; a boot with mutation-matrix rows
#    judged as a whole and row by row (NAME@ROW.args judges NAME.log); a
#    mutant boot that must hang with CPU 0 in a named function (it does,
#    it hangs elsewhere, it hangs without a named CPU 0, it powers off)
#    and a boot whose kernel messages must show a line (they do, they
#    do not).
td=$TOP/scripts/testdata
for af in "$td"/results/*.args; do
	n=$(basename "$af" .args)
	cp "$td/results/${n%@*}.log" "$tmp/$n.log"
	words a "$(cat "$af")" || { bad "recorded log $n: its options split"; continue; }
	if "$TOP"/scripts/5-results.py "$tmp/$n.log" --tree "$TREE" \
		--known "$td/known-failures.txt" "${a[@]}" >"$tmp/$n.out" 2>"$tmp/$n.err" &&
		[ ! -s "$tmp/$n.err" ] && diff -u "$td/results/$n.expect" "$tmp/$n.out" >"$tmp/$n.diff"; then
		ok "recorded log $n gives its expected verdict"
	else
		cat "$tmp/$n.diff" "$tmp/$n.err" >&2 2>/dev/null || true
		bad "recorded log $n gives its expected verdict"
	fi
done
# 7b. No log, an empty log, a broken known-failures file: still a FAIL line
#     and the counts, exit status 0.
: >"$tmp/empty.log"
echo "a line without the two separators" >"$tmp/broken-known.txt"
for c in "none.log" "empty.log" "empty.log --known $tmp/broken-known.txt"; do
	# shellcheck disable=SC2086 # the options are words
	if out=$("$TOP"/scripts/5-results.py $tmp/$c --tree "$TREE" 2>/dev/null) &&
		grep -q '^FAIL run ' <<<"$out" && grep -qx 'counts 0 1 0' <<<"$out"; then
		ok "5-results.py on $c: one FAIL and the counts"
	else
		bad "5-results.py on $c: one FAIL and the counts: $(tr '\n' ';' <<<"$out")"
	fi
done

# 7c. make check's verdicts and make bench's rows as KCIDB data: recorded
#     inputs give exactly the recorded JSON, and it passes the schema check.
if "$TOP"/scripts/testdata/kcidb/run.sh >"$tmp/kcidb.out" 2>&1; then
	ok "5-kcidb.py turns recorded verdicts into the recorded KCIDB JSON"
else
	tail -n 20 "$tmp/kcidb.out" >&2
	bad "5-kcidb.py turns recorded verdicts into the recorded KCIDB JSON"
fi

# 7d. src_checkout (lib.sh) decides what a build dir must rebuild by
#     content: after a full build only the files that differ from it are
#     newer than its objects; a file changed for a build that failed stays
#     newer until a build succeeds, even when the next ref has it as the
#     built one had. And $OUT/src holds each ref's files, deletions too.
sc=$tmp/sc
mkdir -p "$sc/linux" "$sc/d"
(
	cd "$sc/linux" && git init -q && git config user.email t@t && git config user.name t
	printf 'a\n' >a.c && printf 'h1\n' >b.h && printf 'c\n' >c.c && git add . && git commit -qm A && git tag A
	printf 'h2\n' >b.h && git rm -q c.c && git commit -qam B && git tag B
	git rm -q a.c && git commit -qm C && git tag C
)
newer() { # the files of $sc/src newer than 2001, sorted, on one line
	(cd "$sc/src" && find . -type f ! -name .src-tree -newermt 2001-01-02 |
		sed 's|^\./||' | sort | paste -sd' ')
}
# (set -e, as in the build scripts: a step that fails ends the list.)
r=$( (
	set -e
	OUT=$sc TREE=$sc/linux
	src_checkout A "$sc/d"; echo "fresh:$(newer)"; src_built "$sc/d"
	src_checkout A "$sc/d"; echo "same:$(newer)"
	src_checkout B "$sc/d"; echo "B-failed:$(newer);$(cat "$sc/src/b.h")$(ls "$sc/src" | paste -sd,)"
	src_checkout A "$sc/d"; echo "back:$(newer);$(cat "$sc/src/b.h")$(ls "$sc/src" | paste -sd,)"; src_built "$sc/d"
	src_checkout A "$sc/d"; echo "built:$(newer)"
	src_checkout B "$sc/d"; src_checkout C "$sc/d"; echo "deleted only:$(ls "$sc/src" | paste -sd,)"
) 2>&1 | paste -sd'|' || true)
want='fresh:a.c b.h c.c|same:|B-failed:b.h;h2a.c,b.h|back:b.h c.c;h1a.c,b.h,c.c|built:|deleted only:b.h'
if [ "$r" = "$want" ]; then
	ok "src_checkout: REF's files; only what differs from the last full build, or from a failed one, is newer"
else
	bad "src_checkout: got '$r', want '$want'"
fi

# 7e. The build cache across clones: an entry kept by a clone at another
#     path has that path in kbuild's .cmd files (arm64's vDSO command
#     line, lib/vdso's abspath); restored here, they name this clone's
#     path, so that kbuild finds the command unchanged (and the vDSO and
#     vmlinux are not rebuilt from the same sources); other files, paths
#     that only begin with the same characters or match it as a pattern
#     (the '.'), are left alone, and an '&' in the new path is kept.
cr=$tmp/cr
mkdir -p "$cr/entry/arch/vdso" "$cr/R&D.new/out"
printf '%s\n' "$cr/o.d/out" >"$cr/entry/.out-path"
printf 'savedcmd_x := gcc -include %s/src/lib/vdso/gtod.c -o x.o\nsource_x := %s2/src/x.c\nsource_y := %s/src/y.c\n' "$cr/o.d/out" "$cr/o.d/out" "$cr/oxd/out" >"$cr/entry/arch/vdso/.x.o.cmd"
printf 'keep %s/src/a.c\n' "$cr/o.d/out" >"$cr/entry/arch/vdso/notes.txt"
printf 'savedcmd_y := gcc %s2/src/b.c\n' "$cr/o.d/out" >"$cr/entry/.y.o.cmd"
: >"$cr/entry/.tree"
r=$( (OUT=$cr/R\&D.new/out; cache_get "$OUT/build/d" "$cr/entry" &&
	cat "$OUT/build/d/arch/vdso/.x.o.cmd" "$OUT/build/d/arch/vdso/notes.txt" "$OUT/build/d/.y.o.cmd") 2>&1)
want="savedcmd_x := gcc -include $cr/R&D.new/out/src/lib/vdso/gtod.c -o x.o
source_x := $cr/o.d/out2/src/x.c
source_y := $cr/oxd/out/src/y.c
keep $cr/o.d/out/src/a.c
savedcmd_y := gcc $cr/o.d/out2/src/b.c"
if [ "$r" = "$want" ]; then
	ok "cache_get: an entry from another clone's path gets this clone's path in its .cmd files only"
else
	bad "cache_get: got '$r', want '$want'"
fi

# 7f. words (lib.sh) splits options as a shell does (an empty word, last
#     too, stays a word; nothing in a quote runs), and refuses an
#     unmatched quote instead of dropping it.
if words w "--a 'b c' d\ e \"f\"" && [ "${#w[@]}" = 4 ] && [ "${w[1]}" = "b c" ] &&
	[ "${w[2]}" = "d e" ] && [ "${w[3]}" = f ] && words w "" && [ "${#w[@]}" = 0 ] &&
	words w "--x 'a\$(false)b' --append ''" && [ "${#w[@]}" = 4 ] &&
	[ "${w[1]}" = 'a$(false)b' ] && [ -z "${w[3]}" ] &&
	words w "a\\'\$(touch\${IFS}$tmp/words-ran)\\'b" && [ "${#w[@]}" = 1 ] &&
	[ "${w[0]}" = "a'\$(touch\${IFS}$tmp/words-ran)'b" ] && [ ! -e "$tmp/words-ran" ] &&
	! words w "--a 'b c" 2>/dev/null; then
	ok "words splits options as a shell does and refuses a bad quote"
else
	bad "words splits options as a shell does and refuses a bad quote"
fi

# 7f2. tests_of (lib.sh) expands guest/boots' test items in order and
#      leaves out each -ID; an -ID that leaves out nothing is said.
got=$(tests_of "regress:kvm.hyperv_tlb,repeat:kvm.hyperv,-kvm.hyperv_tlb_flush" 2>"$tmp/tests_of.err")
got2=$(tests_of "regress:kvm.hyperv_tlb,-kvm.no_such_test" 2>"$tmp/tests_of2.err")
if [ "$got" = kvm.hyperv_tlb_flush_10x ] && [ ! -s "$tmp/tests_of.err" ] &&
	[ "$got2" = kvm.hyperv_tlb_flush ] && grep -q -- '-kvm.no_such_test leaves out no test' "$tmp/tests_of2.err"; then
	ok "tests_of leaves out each -ID and says when one leaves out nothing"
else
	bad "tests_of: [$got] [$got2] $(cat "$tmp/tests_of.err" "$tmp/tests_of2.err")"
fi

# 7g. A mutation-matrix row whose check is a boot of its own must have
#     that boot in guest/boots, judged by the row's evidence, and a
#     control boot (the same window without the mutant, judged by a
#     message): the real files agree; a boot that expects the hang
#     elsewhere, one with another append, a missing boot, a missing
#     control, a control without its messages and a control with other
#     4-boot.sh options are each reported.
mt=$tmp/matrix-top
mkdir -p "$mt/guest" "$mt/mutants"
cp "$TOP/mutants/matrix" "$mt/mutants/"
unjudged_after() { # unjudged_after SED: the rows left unjudged once guest/boots is edited by SED
	sed "$1" "$TOP/guest/boots" >"$mt/guest/boots"
	TOP=$mt unjudged_boot_rows | cut -d'|' -f1 | paste -sd, -
}
want=x86_64/mutant/cs-tick-clock got=$(unjudged_boot_rows)
for e in 's/--expect-hang watchdog_check_skew/--expect-hang watchdog_wait_seq/' \
	's/|tlb_mutant=cs-tick-clock stop_machine_test_hold_ms=2000|/|tlb_mutant=cs-tick-clock|/' \
	'/^x86_64\/mutants\/cs-tick-clock|/d' \
	'/^x86_64\/mutants\/watchdog-held|/d' \
	's/^\(x86_64\/mutants\/watchdog-held|[^|]*|[^|]*|[^|]*|[^|]*|[^|]*\)|[^|]*|/\1||/' \
	'/^x86_64\/mutants\/watchdog-held|/s/--silence 30/--silence 90/'; do
	got+=" $(unjudged_after "$e")"
done
if [ "$got" = "$(printf " $want%.0s" 1 2 3 4 5 6)" ]; then
	ok "a matrix row that is a boot must have its boot, judged by its evidence, and its control"
else
	bad "a matrix row that is a boot must have its boot, judged by its evidence, and its control: [$got]"
fi

# 7h. The cover letter's results section (5-cover.py) from rows that went
#     wrong: a stress round without a count is no "0 stale", a ratio
#     measured once says it has no spread, a regress check names what
#     the series lost and the tests that passed in some rounds only; and
#     it does not crash on a missing value.
if out=$("$TOP"/scripts/5-cover.py "$TOP/scripts/testdata/cover/bench.json" 2>&1) &&
	grep -q 'x86_64 native: - stale in - reads (3 boots, 1 of them without a count)' <<<"$out" &&
	grep -q '0.900 (rounds 0.889-0.909, n=3)' <<<"$out" &&
	grep -q 'arm64: 0.700 (one run, no spread)' <<<"$out" &&
	grep -q 'arm64, lost: mm.b' <<<"$out" &&
	grep -q 'a check, 3 rounds of each kernel' <<<"$out" &&
	grep -q 'arm64, series passed in some rounds only: mm.b mm.c' <<<"$out" &&
	awk 'length > 75 { exit 1 }' <<<"$out"; then
	ok "cover results section: missing rounds, no spread, lost and flaky tests, 75 columns"
else
	bad "cover results section: $(tail -n 3 <<<"$out" | tr '\n' ' ')"
fi

# 8. 4-boot.sh's silence watchdog, with no kernel: QEMU_CMD runs a fake
#    QEMU (testdata/fake-qemu.py) that serves the monitor socket.
mkdir -p "$tmp/out/build/x86_64-fake/arch/x86/boot"
: >"$tmp/out/build/x86_64-fake/arch/x86/boot/bzImage"
: >"$tmp/out/initramfs-x86_64.cpio.gz"
fake=(env OUT="$tmp/out" QEMU_CMD="$td/fake-qemu.py")
boot=("$TOP"/scripts/4-boot.sh x86_64 x86_64-fake)
gone() { # gone PIDFILE: the fake QEMU has exited, its monitor socket dir is removed
	local pid sock
	{ read -r pid; read -r sock; } <"$1" || return 1
	! kill -0 "$pid" 2>/dev/null && [ ! -e "$(dirname "$sock")" ]
}
wait_for() { # wait_for SECONDS CMD...: until CMD succeeds
	for _ in $(seq $(($1 * 10))); do
		"${@:2}" && return 0
		sleep 0.1
	done
	return 1
}
# 8a. It prints three lines and goes silent: with --silence 10 the boot
#     stops in seconds (well before --timeout; 3 s was too short when
#     make check ran the self-tests beside builds and boots: the fake
#     QEMU had printed nothing yet), status 123, with the hang marker
#     and QEMU's registers in the log, each CPU's RIP named from the
#     build's System.map (here a made-up one), no QEMU left, and a FAIL
#     verdict.
printf '%s\n' 'ffffffff81000000 T _stext' 'ffffffff8113c200 T watchdog_check_skew' \
	'ffffffff8113c300 t watchdog_check_skew_remote' 'ffffffff81187a00 T stop_machine_yield' \
	'ffffffff81187a10 d not_text' >"$tmp/out/build/x86_64-fake/System.map"
t=$SECONDS rc=0
"${fake[@]}" FAKE_QEMU_MODE=hang FAKE_QEMU_PIDFILE="$tmp/hang.pid" \
	"${boot[@]}" "$tmp/hang.log" --silence 10 --timeout 180 2>"$tmp/hang.err" || rc=$?
t=$((SECONDS - t))
v=$("$TOP"/scripts/5-results.py "$tmp/hang.log" --tree "$TREE" 2>&1 || true)
if [ "$rc" = 123 ] && [ "$t" -le 60 ] && gone "$tmp/hang.pid" &&
	grep -q '^### tlb-series: hang: console silent for [0-9]*s after: \[    1.612345\] clocksource' "$tmp/hang.log" &&
	grep -q '^RIP=ffffffff8113c2b4' "$tmp/hang.log" &&
	grep -qx '### tlb-series: CPU 0 at watchdog_check_skew+0xb4 (ffffffff8113c2b4)' "$tmp/hang.log" &&
	grep -qx '### tlb-series: CPU 1 at stop_machine_yield+0x10 (ffffffff81187a10)' "$tmp/hang.log" &&
	grep -q '^FAIL run console -- hang: console silent' <<<"$v" && grep -qx 'counts 0 1 0' <<<"$v"; then
	ok "a silent console is stopped as a hang, with the registers in the log"
else
	bad "a silent console is stopped as a hang, with the registers in the log (rc=$rc after ${t}s: $(tail -n 3 "$tmp/hang.err" | tr '\n' ';'))"
fi
# 8b. A line a second for 4 s, --silence 10 (the fake QEMU may take a few
#     seconds to start on a loaded machine): not a hang.
rc=0
"${fake[@]}" FAKE_QEMU_MODE=chatty FAKE_QEMU_LINES=4 FAKE_QEMU_PIDFILE="$tmp/chatty.pid" \
	"${boot[@]}" "$tmp/chatty.log" --silence 10 --timeout 120 2>"$tmp/chatty.err" || rc=$?
if [ "$rc" = 0 ] && ! grep -q 'tlb-series: hang' "$tmp/chatty.log" && gone "$tmp/chatty.pid"; then
	ok "a console that keeps printing is not a hang"
else
	bad "a console that keeps printing is not a hang (rc=$rc)"
fi
# 8b2. --nodes 2: memory split in two backends, vCPUs 0-1 and 2-3 on
#      nodes 0 and 1, one socket each, -m their sum; an uneven split is
#      refused.
cat >"$tmp/args-qemu" <<'EOS'
#!/bin/sh
printf '%s\n' "$@" >"$ARGS_OUT"
echo "reboot: Power down"
EOS
chmod +x "$tmp/args-qemu"
rc=0
env OUT="$tmp/out" QEMU_CMD="$tmp/args-qemu" ARGS_OUT="$tmp/numa.args" MEM=4G \
	"${boot[@]}" "$tmp/numa.log" --nodes 2 --smp 4 --timeout 60 2>"$tmp/numa.err" || rc=$?
rc2=0
env OUT="$tmp/out" QEMU_CMD="$tmp/args-qemu" ARGS_OUT="$tmp/numa3.args" \
	"${boot[@]}" "$tmp/numa3.log" --nodes 3 --smp 4 --timeout 60 2>/dev/null || rc2=$?
if [ "$rc" = 0 ] && [ "$rc2" != 0 ] && [ ! -e "$tmp/numa3.args" ] &&
	grep -qx 'memory-backend-ram,id=node0,size=2048M' "$tmp/numa.args" &&
	grep -qx 'memory-backend-ram,id=node1,size=2048M' "$tmp/numa.args" &&
	grep -qx 'node,nodeid=0,memdev=node0,cpus=0-1' "$tmp/numa.args" &&
	grep -qx 'node,nodeid=1,memdev=node1,cpus=2-3' "$tmp/numa.args" &&
	grep -A1 -x -- '-smp' "$tmp/numa.args" | grep -qx '4,sockets=2,cores=2,threads=1' &&
	grep -A1 -x -- '-m' "$tmp/numa.args" | grep -qx 4096M; then
	ok "4-boot.sh --nodes 2 gives QEMU two memory nodes of two vCPUs each"
else
	bad "4-boot.sh --nodes 2 gives QEMU two memory nodes of two vCPUs each (rc=$rc, $rc2: $(tail -n 2 "$tmp/numa.err" | tr '\n' ';'))"
fi
# 8c. 4-boot.sh killed (TERM): it stops QEMU and exits 143.
rc=0
"${fake[@]}" FAKE_QEMU_MODE=hang FAKE_QEMU_PIDFILE="$tmp/term.pid" \
	"${boot[@]}" "$tmp/term.log" --silence 60 --timeout 60 2>"$tmp/term.err" &
b=$!
wait_for 10 test -s "$tmp/term.pid" && sleep 1
kill -TERM "$b" || true
wait "$b" || rc=$?
if [ "$rc" = 143 ] && wait_for 5 gone "$tmp/term.pid"; then
	ok "4-boot.sh stopped by SIGTERM leaves no QEMU running"
else
	bad "4-boot.sh stopped by SIGTERM leaves no QEMU running (rc=$rc)"
fi
# 8d. Its parent killed (KILL, nothing passed on): it notices, stops QEMU.
bash -c '"$@" & wait' _ "${fake[@]}" FAKE_QEMU_MODE=hang FAKE_QEMU_PIDFILE="$tmp/orphan.pid" \
	"${boot[@]}" "$tmp/orphan.log" --silence 60 --timeout 60 2>"$tmp/orphan.err" &
b=$!
wait_for 10 test -s "$tmp/orphan.pid" && sleep 1
kill -KILL "$b"
wait "$b" 2>/dev/null || true
if wait_for 10 gone "$tmp/orphan.pid"; then
	ok "4-boot.sh whose parent was killed leaves no QEMU running"
else
	bad "4-boot.sh whose parent was killed leaves no QEMU running"
fi
# 8e. make check stopped (TERM) while its boot lane runs a boot: QEMU
#     stopped before make check returns, the boot judged (cut short: a
#     FAIL), the summary line, a non-zero status. (Started from this
#     script, make check ignores SIGINT, as any background job of a
#     non-interactive shell does: from a terminal, Ctrl-C takes the
#     same path as TERM.) A copy of the harness whose build, lint and check
#     stages are stand-ins; check.sh, lib.sh, 4-boot.sh and 5-results.py
#     are the real ones, with the fake QEMU that hangs.
h=$tmp/h
mkdir -p "$h/guest" "$h/mutants" "$h/results"
cp -a "$TOP/scripts" "$TOP/base.conf" "$h/"
cp "$TOP/guest/tests.list" "$TOP/guest/known-failures.txt" "$h/guest/"
echo 'x86_64/series|x86_64|series||||' >"$h/guest/boots"
: >"$h/mutants/matrix"
for st in 2-tree.sh 3-build-kernel.sh 3-build-tests.sh herd.sh sparse.sh; do
	printf '#!/bin/sh\nexit 0\n' >"$h/scripts/$st"
done
for st in selftest.sh lint.sh herd-check.sh; do
	printf '#!/bin/sh\necho "PASS stand-in %s"\necho "counts 1 0 0"\n' "$st" >"$h/scripts/$st"
done
mkdir -p "$tmp/hout/build/x86_64-series/arch/x86/boot"
: >"$tmp/hout/build/x86_64-series/arch/x86/boot/bzImage"
: >"$tmp/hout/initramfs-x86_64.cpio.gz"
rc=0
env OUT="$tmp/hout" RESULTS="$h/results" QEMU_CMD="$td/fake-qemu.py" FAKE_QEMU_MODE=hang \
	FAKE_QEMU_PIDFILE="$tmp/check.pid" "$h/scripts/check.sh" >"$tmp/check.out" 2>&1 &
b=$!
wait_for 30 test -s "$tmp/check.pid" && sleep 1
kill -TERM "$b" || true
wait "$b" || rc=$?
# QEMU must be gone when make check returns: its parent watchdog in
# 4-boot.sh would stop it a little later anyway, so no grace here.
# And 4-boot.sh stopped it on make check's TERM, before make check ended.
stop_line=$(grep -n 'boot x86_64-series: stopped by SIGTERM, stopping QEMU' "$tmp/check.out" | cut -d: -f1 | head -n 1 || true)
done_line=$(grep -n 'check: done' "$tmp/check.out" | cut -d: -f1 | head -n 1 || true)
if [ "$rc" = 1 ] && gone "$tmp/check.pid" &&
	[ -n "$stop_line" ] && [ -n "$done_line" ] && [ "$stop_line" -lt "$done_line" ] &&
	grep -q '^  FAIL x86_64/series console -- guest did not finish' "$tmp/check.out" &&
	grep -q '^  FAIL harness check -- stopped by SIGTERM' "$tmp/check.out" &&
	tail -n 1 "$tmp/check.out" | grep -qE '^[0-9]+ passed, [1-9][0-9]* failed'; then
	ok "make check stopped mid-boot stops QEMU, fails the boot and prints its summary"
else
	bad "make check stopped mid-boot stops QEMU, fails the boot and prints its summary (rc=$rc: $(tail -n 3 "$tmp/check.out" | tr '\n' ';'))"
fi
# 8f. The same stand-in harness run to its end (a fake boot that powers
#     off at once): the stages that run in the background (lint's early
#     checks, the self-tests, herd7) and the late lint are each counted
#     once, and make check ends with its summary after all of them.
rm -rf "$tmp/hout/logs"
rc=0
env OUT="$tmp/hout" RESULTS="$h/results" QEMU_CMD="$td/fake-qemu.py" FAKE_QEMU_MODE=chatty \
	FAKE_QEMU_LINES=1 "$h/scripts/check.sh" >"$tmp/check2.out" 2>&1 || rc=$?
n() { grep -c "^  PASS stand-in $1\$" "$tmp/check2.out" || true; }
if [ "$(n selftest.sh)" = 1 ] && [ "$(n herd-check.sh)" = 1 ] && [ "$(n lint.sh)" = 2 ] &&
	tail -n 1 "$tmp/check2.out" | grep -qE '^[0-9]+ passed, [0-9]+ failed' &&
	[ "$(grep -n 'check: done' "$tmp/check2.out" | cut -d: -f1)" -gt "$(grep -n 'PASS stand-in herd-check.sh' "$tmp/check2.out" | cut -d: -f1)" ]; then
	ok "make check counts each background stage once and ends with its summary"
else
	bad "make check counts each background stage once (rc=$rc; selftest $(n selftest.sh), herd $(n herd-check.sh), lint $(n lint.sh): $(tail -n 2 "$tmp/check2.out" | tr '\n' ';'))"
fi
echo "counts $p $f 0"
