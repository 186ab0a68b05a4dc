#!/bin/bash
# Harness self-tests: each check runs on a good input and on a broken one,
# and passes only if the harness tells them apart.
. "$(dirname "$0")/lib.sh"
# The stand-in runs of make check below must not publish into their
# results/ because the make check that runs these self-tests does.
unset PUBLISH NESTED

# The recorded-log tests parse their TAP with the kernel tree's own
# kunit.py, and others work on its git branches: without the tree made
# by make tree (which downloads the base), skip with that reason rather
# than fail each of them.
if [ ! -f "$TREE/tools/testing/kunit/kunit.py" ] || [ ! -d "$TREE/.git" ]; then
	echo "SKIP selftest all: no kernel tree at $TREE (make tree makes it; it needs the network once)"
	echo "counts 0 0 1"
	exit 0
fi

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
	if (
		# shellcheck disable=SC2012 # export's names; the first in ls's order
		first=$(ls "$tmp/patches" | head -n 1)
		if [ -n "$first" ]; then
			sed -i '$ s/$/ /' "$tmp/patches/$first"
		else
			echo x > "$tmp/patches/0001-stray.patch"
		fi
		! PATCHES_DIR=$tmp/patches "$TOP"/scripts/export.sh --check
	); then
		ok "export check notices a changed patch"
	else
		bad "export check notices a changed patch"
	fi
else
	bad "export round trip: no tree (run make tree)"
fi
# 4a. Each series of split/ applies alone (split-check.sh, make check's
#     step), and one of them with a mail that no longer applies fails by
#     name, as does the series that needs it, the others still passing.
if [ -d "$TREE/.git" ] && [ -d "$TOP/split" ]; then
	r=$("$TOP"/scripts/split-check.sh 2>&1 || true)
	if grep -q '^counts [1-9][0-9]* 0 0$' <<<"$r"; then
		ok "split series apply alone"
	else
		bad "split series apply alone: $(grep -v '^PASS' <<<"$r" | head -n 3 | tr '\n' ';')"
	fi
	cp -r "$TOP/split" "$tmp/split"
	# The first context line of the first hunk of 02's first mail.
	m=$(find "$tmp"/split/02-*/ -name '0001-*.patch')
	awk '/^@@/ { h = 1 } h == 1 && /^ / { $0 = $0 " changed"; h = 2 } { print }' "$m" >"$m.new"
	mv "$m.new" "$m"
	r=$(SPLIT_DIR=$tmp/split "$TOP"/scripts/split-check.sh 2>&1 || true)
	if grep -q '^FAIL harness split 02-kvm-hyperv -- 0001-.* does not apply' <<<"$r" &&
		grep -q '^FAIL harness split 06-kvm-nsvm ' <<<"$r" &&
		grep -q '^PASS harness split 01-clocksource ' <<<"$r" && grep -q '^counts ' <<<"$r"; then
		ok "split check fails a series that does not apply, and the one that needs it"
	else
		bad "split check fails a series that does not apply: $(tr '\n' ';' <<<"$r")"
	fi
fi
# 4b. results/split.md comes from each series' logs (split-check.sh
#     --report, which make split-check runs after each series): a series
#     with a run stamp gets its row from its logs (an arch left out, a
#     build step that failed and no boot), one without keeps its row of
#     the file as it was, one in neither is "not run".
sc=$tmp/sc
mkdir -p "$sc/logs/split" "$sc/res"
printf '%s\n' '# name|pre|nums|arches|kunit|tests|append' 'A|-|1 2|x86_64 arm64|-|-|' \
	'B|A|3|x86_64|-|-|' 'C|-|4|x86_64|-|-|' 'D|-|5|x86_64|-|-|' >"$sc/spec"
echo "2026-01-01T00:00Z, harness 0123456789ab" >"$sc/logs/split/A.run"
printf 'PASS split A build x86_64 [1] a\nPASS split A build x86_64 [2] b\n' >"$sc/logs/split/A-x86_64-bisect.out"
printf 'PASS split A x86_64 t\ncounts 3 0 1\n' >"$sc/logs/split/A-x86_64-boot.out"
echo "not run (SPLIT_ARCHES)" >"$sc/logs/split/A-arm64.skipped"
echo "2026-01-01T00:00Z, harness 0123456789ab+" >"$sc/logs/split/B.run"
printf 'FAIL split B build x86_64 [1] c\n' >"$sc/logs/split/B-x86_64-bisect.out"
printf '%s\n' '| series | prerequisite | patches (of patches/) | result | run |' \
	'| C | - | 4 | x86_64 boot: 1 passed. | 2025-12-31T00:00Z, harness 0123456789ab |' '' \
	'### C (2025-12-31T00:00Z, harness 0123456789ab)' '' '    PASS old step' >"$sc/res/split.md"
rc=0
OUT=$sc RESULTS=$sc/res SPLIT_SPEC=$sc/spec "$TOP"/scripts/split-check.sh --report >/dev/null 2>&1 || rc=$?
md=$(cat "$sc/res/split.md")
if [ "$rc" = 0 ] &&
	grep -qxF '| A | - | 1 2 | x86_64 build at each patch: 2 passed, 0 failed. x86_64 boot: 3 passed, 0 failed, 1 skipped. arm64: not run (SPLIT_ARCHES). | 2026-01-01T00:00Z, harness 0123456789ab |' <<<"$md" &&
	grep -qxF '| B | A | 3 | x86_64 build at each patch: 0 passed, 1 failed. x86_64 boot: build or boot failed. | 2026-01-01T00:00Z, harness 0123456789ab+ |' <<<"$md" &&
	grep -qxF '| C | - | 4 | x86_64 boot: 1 passed. | 2025-12-31T00:00Z, harness 0123456789ab |' <<<"$md" &&
	grep -qxF '| D | - | 5 | not run | - |' <<<"$md" && grep -qxF '    PASS old step' <<<"$md" &&
	grep -qxF '    FAIL split B build x86_64 [1] c' <<<"$md"; then
	ok "split-check --report: each series' row from its logs, a series not run keeps its row"
else
	bad "split-check --report: rc=$rc [$(tr '\n' ';' <<<"$md" | cut -c1-900)]"
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
# 4b. make tree (and so make check) refuses a tree with uncommitted
#     changes or an untracked file, naming them, instead of checking out
#     over them or cleaning them away; an ignored file ("x", in the
#     stand-in's .gitignore) neither stops it nor goes. On 4c's scratch
#     tree, never the developer's.
t1=$bt/o1/linux
echo "selftest: uncommitted" >>"$t1/README"
echo "new work" >"$t1/new-test.c"
echo "ignored" >"$t1/x"
rc1=0 rc2=0 rc3=0
btree o1 || rc1=$?
cp "$bt/o1.err" "$bt/o1.err1"
git -C "$t1" checkout -q -- README
btree o1 || rc2=$?
cp "$bt/o1.err" "$bt/o1.err2"
keep=$(cat "$t1/new-test.c" 2>/dev/null || true)
rm -f "$t1/new-test.c"
btree o1 || rc3=$?
if [ "$rc1" != 0 ] && grep -q 'uncommitted changes or untracked files' "$bt/o1.err1" &&
	grep -q '^ M README$' "$bt/o1.err1" && grep -q '^?? new-test.c$' "$bt/o1.err1" &&
	[ "$rc2" != 0 ] && grep -q '^?? new-test.c$' "$bt/o1.err2" && [ "$keep" = "new work" ] &&
	[ "$rc3" = 0 ] && [ "$(cat "$t1/x" 2>/dev/null)" = ignored ]; then
	ok "make tree refuses uncommitted changes and untracked files, naming them, and keeps them and ignored files"
else
	bad "make tree refuses uncommitted changes and untracked files (rc $rc1 $rc2 $rc3): $(cat "$bt/o1.err1" "$bt/o1.err2" "$bt/o1.err" | tr '\n' ';')"
fi
# 4b2. make clean: refuses an out/ whose tree has an untracked file (it
#      survives); without it, deletes out/ and leaves the tracked results/.
mkdir -p "$bt/h/results"
cp "$TOP/Makefile" "$bt/h/"
echo tracked >"$bt/h/results/mutants.md"
env -u T0 CACHE="$bt/cache" OUT="$bt/h/out" "$bt/h/scripts/2-tree.sh" >/dev/null 2>&1 || true
echo "new work" >"$bt/h/out/linux/new-test.c"
rc1=0 rc2=0
make -s -C "$bt/h" clean >"$bt/clean1.out" 2>&1 || rc1=$?
keep=$(cat "$bt/h/out/linux/new-test.c" 2>/dev/null || true)
rm -f "$bt/h/out/linux/new-test.c"
make -s -C "$bt/h" clean >"$bt/clean2.out" 2>&1 || rc2=$?
if [ "$rc1" != 0 ] && grep -q 'new-test.c' "$bt/clean1.out" && [ "$keep" = "new work" ] &&
	[ "$rc2" = 0 ] && [ ! -e "$bt/h/out" ] && [ "$(cat "$bt/h/results/mutants.md")" = tracked ]; then
	ok "make clean keeps untracked work in out/linux and the tracked results/"
else
	bad "make clean keeps untracked work and results/ (rc $rc1 $rc2): $(cat "$bt/clean1.out" "$bt/clean2.out" | tr '\n' ';')"
fi
rm -rf "$bt/h/results" "$bt/h/Makefile" "$bt/h/out"
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
# shellcheck disable=SC2012 # the entries that make tree made, counted
if btree o5 && [ "$(ls "$bt/cache/base-git" | wc -l)" = 3 ] &&
	[ -d "$bt/cache/base-git/recent13" ] && [ -d "$bt/cache/base-git/busy.Qm2v7R" ] &&
	rm -rf "$bt/cache/base-git/recent13" "$bt/cache/base-git/busy.Qm2v7R" &&
	touch -d '15 days ago' "$bt"/cache/base-git/* && btree o6 &&
	grep -q 'base from the download cache' "$bt/o6.err" &&
	[ -n "$(find "$bt/cache/base-git" -mindepth 1 -maxdepth 1 -mtime -1)" ]; then
	ok "make tree prunes unused base cache entries and marks the one it uses"
else
	# shellcheck disable=SC2012 # the entries, listed for the message
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
	if [ "$g" = 0 ] && [ "$b" = 1 ]; then
		ok "lint fails a patch with a checkpatch warning"
	else
		bad "lint fails a patch with a checkpatch warning (good=$g bad=$b failures)"
	fi
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
	if [ "$g" = 0 ] && [ "$b" = 1 ]; then
		ok "lint fails a patch without its maintainers' Cc: lines"
	else
		bad "lint fails a patch without its maintainers' Cc: lines (good=$g bad=$b failures)"
	fi
fi

# 5c. make lint's checks of the harness's own code: a shell script with
#     a finding of shellcheck's (an unquoted $1) fails the shell check,
#     quoting the finding, and a Python file with an unused import
#     (pyflakes3) or with a type error (mypy) fails the python check; the
#     same files mended pass. The lists of files are the stand-ins'
#     (LINT_SHELL_FILES, LINT_PYTHON_FILES), not the tree's.
mkdir -p "$tmp/lint-code"
# shellcheck disable=SC2016 # the stand-in's own $1
printf '#!/bin/bash\necho $1\n' >"$tmp/lint-code/bad.sh"
# shellcheck disable=SC2016 # the stand-in's own $1
printf '#!/bin/bash\necho "$1"\n' >"$tmp/lint-code/good.sh"
printf 'import os\n' >"$tmp/lint-code/bad.py"
printf 'import os\nprint(os.sep)\n' >"$tmp/lint-code/good.py"
printf 'n = len("a")\nn = "b"\nprint(n)\n' >"$tmp/lint-code/typed.py"
lint_code() { # lint_code NAME [PY]: lint.sh's shell and python checks on NAME.sh, PY.py (NAME.py)
	LINT_SHELL_FILES=$tmp/lint-code/$1.sh LINT_PYTHON_FILES=$tmp/lint-code/${2:-$1}.py \
		OUT=$tmp/lint-code/out "$TOP"/scripts/lint.sh --only "shell python" 2>&1
}
g=$(lint_code good) b=$(lint_code bad) ty=$(lint_code good typed)
if grep -qx 'counts 2 0 0' <<<"$g" && grep -qx 'counts 0 2 0' <<<"$b" &&
	grep -q '^FAIL lint shell: .*bad\.sh:2:6: .*\[SC2086\]' <<<"$b" &&
	grep -q "^FAIL lint python: .*bad\.py:1:1: 'os' imported but unused" <<<"$b" &&
	grep -qx 'counts 1 1 0' <<<"$ty" &&
	grep -q '^FAIL lint python: mypy, .*typed\.py:2: error: Incompatible types in assignment' <<<"$ty"; then
	ok "lint fails a shell script with a shellcheck finding, an unused Python import and a Python type error"
else
	bad "lint fails a shell script with a shellcheck finding, an unused Python import and a Python type error (good: $(paste -sd'|' <<<"$g"); bad: $(paste -sd'|' <<<"$b"); typed: $(paste -sd'|' <<<"$ty"))"
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
#    do not); a row only the tagged-TLB rig can catch, judged both ways:
#    on the rig it must fail with its evidence, on stock TCG pass with
#    its mutant on (each log also judged as if from the other QEMU, and
#    a row that stock TCG catches too); a rig boot that must have used
#    global ASIDs (--global-asids: some INVLPGB named a PCID), judged on
#    a log where INVLPGBs did, one where none did, one without the
#    rig's counters, and one from a rig without the by-PCID counts;
#    nested Hyper-V boots: one whose L1 crashed (a FAIL, and --l1-crash
#    names its crash), the same with its L2's first result edited to
#    "not ok" (no L1 crash to boot again after: L2 had failed), one whose
#    L2 crashed and was booted again, before and in its tests (L2's
#    splats, "# L2: [ t] Oops", are not L1's: a PASS that quotes the
#    in-test reset; no L1 crash), and a second boot after an L1 crash
#    (boot-row.sh's last line: said on the console item); --l1-crash on
#    a panic before any TAP (a crash), an RCU stall and a hang (none).
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
# 7a2. --global-asids judges the rig's counters: without --qemu rig it is
#      a usage error (exit status 2, and the reason), not a verdict.
if "$TOP"/scripts/5-results.py "$td/results/rig-global-asids.log" --tree "$TREE" \
	--global-asids >"$tmp/ga.out" 2>"$tmp/ga.err"; then
	bad "5-results.py --global-asids without --qemu rig is refused"
elif [ $? = 2 ] && grep -q 'needs --qemu rig' "$tmp/ga.err" && [ ! -s "$tmp/ga.out" ]; then
	ok "5-results.py --global-asids without --qemu rig is refused"
else
	bad "5-results.py --global-asids without --qemu rig is refused: $(tr '\n' ';' <"$tmp/ga.err")"
fi
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

# 7c2. The committed KCIDB file: KCIDB v4.5's required fields, types and
#      patterns, ids unique and resolved, and each row of results/bench.json
#      a test of its own run on the build of the kernel it booted (base-emu,
#      emu, the floor, the counting kernel: their own builds, on their own
#      patch stacks' checkouts), each build with its valid.
if out=$("$TOP"/scripts/5-kcidb.py validate "$TOP/results/bench.kcidb.json" \
	--bench "$TOP/results/bench.json" 2>&1); then
	ok "results/bench.kcidb.json is KCIDB v4.5 with each bench row on the kernel it booted"
else
	bad "results/bench.kcidb.json: $(tr '\n' ';' <<<"$out" | cut -c1-400)"
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
# shellcheck disable=SC2012 # the test's own file names
srcls() { ls "$sc/src" | paste -sd,; } # the files of $sc/src, on one line
# (set -e, as in the build scripts: a step that fails ends the list.)
r=$( (
	set -e
	# shellcheck disable=SC2030 # for this subshell only
	OUT=$sc TREE=$sc/linux
	src_checkout A "$sc/d"; echo "fresh:$(newer)"; src_built "$sc/d"
	src_checkout A "$sc/d"; echo "same:$(newer)"
	src_checkout B "$sc/d"; echo "B-failed:$(newer);$(cat "$sc/src/b.h")$(srcls)"
	src_checkout A "$sc/d"; echo "back:$(newer);$(cat "$sc/src/b.h")$(srcls)"; src_built "$sc/d"
	src_checkout A "$sc/d"; echo "built:$(newer)"
	src_checkout B "$sc/d"; src_checkout C "$sc/d"; echo "deleted only:$(srcls)"
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
# shellcheck disable=SC2016 # a literal $(...) that words must not run
lit='a$(false)b'
if words w "--a 'b c' d\ e \"f\"" && [ "${#w[@]}" = 4 ] && [ "${w[1]}" = "b c" ] &&
	[ "${w[2]}" = "d e" ] && [ "${w[3]}" = f ] && words w "" && [ "${#w[@]}" = 0 ] &&
	words w "--x 'a\$(false)b' --append ''" && [ "${#w[@]}" = 4 ] &&
	[ "${w[1]}" = "$lit" ] && [ -z "${w[3]}" ] &&
	words w "a\\'\$(touch\${IFS}$tmp/words-ran)\\'b" && [ "${#w[@]}" = 1 ] &&
	[ "${w[0]}" = "a'\$(touch\${IFS}$tmp/words-ran)'b" ] && [ ! -e "$tmp/words-ran" ] &&
	! words w "--a 'b c" 2>/dev/null; then
	ok "words splits options as a shell does and refuses a bad quote"
else
	bad "words splits options as a shell does and refuses a bad quote"
fi

# 7f1. logs_rotate / logs_succeeded (lib.sh): a run that succeeds removes
#      the logs kept from before it, a run that fails or is stopped
#      removes nothing: the last run that succeeded stays in DIR.prev, the
#      last that did not in DIR.failed.
lr=$tmp/lr/check
run_logs() { # run_logs NAME ok|fail: a run writes NAME into its log dir
	logs_rotate "$lr" && echo "$1" >"$lr/run"
	[ "$2" != ok ] || logs_succeeded "$lr"
}
state() { # which run's logs each dir holds
	local d out=''
	for d in "$lr" "$lr.prev" "$lr.failed"; do
		out+="$(cat "$d/run" 2>/dev/null || echo -)/"
	done
	echo "$out"
}
r=$(
	run_logs r1 ok; state
	run_logs r2 fail; state
	run_logs r3 fail; state
	run_logs r4 fail; state
	run_logs r5 ok; state
)
want='r1/-/-/ r2/r1/-/ r3/r1/r2/ r4/r1/r3/ r5/-/-/'
if [ "$(paste -sd' ' <<<"$r")" = "$want" ]; then
	ok "logs_rotate keeps the last run's logs, and the last that succeeded, until a run succeeds"
else
	bad "logs_rotate: got '$(paste -sd' ' <<<"$r")', want '$want'"
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

# 7g2. The matrix's qemu column: a rig row is booted on the rig (where
#      its check must fail) and in the stock boot of its arch and append
#      (where it must pass), grouped by arch, append and QEMU; a boot of
#      guest/boots with --rig takes the rig rows of its append; a qemu
#      that is neither tcg nor rig, and a rig row whose check is no test,
#      are reported. And results/mutants.md renders a rig row from both
#      verdicts (the recorded ones of 7: caught on the rig and passing on
#      stock TCG, or caught on stock TCG too).
mq=$tmp/matrix-qemu
mkdir -p "$mq/guest" "$mq/mutants" "$mq/logs"
cat >"$mq/mutants/matrix" <<'EOM'
# row|mutant|part|arch|append|check|evidence|why|qemu
a|a|p|x86_64||mm.tlb_coherency_short|stale=[1-9]|tcg row|tcg
pcid-stale|pcid-stale|p|x86_64||mm.tlb_coherency_short|stale=[1-9]|rig row|rig
pcid-caught|pcid-caught|p|x86_64|x=1|mm.tlb_coherency_short|stale=[1-9]|rig row, stock catches it too|rig
b|b|p|arm64||kunit.s.c|-|empty qemu column|
bad|bad|p|arm64||mm.x|y|typo|rgi
nocheck|nocheck|p|arm64||-||not observable|rig
bar|bar|p|arm64||barrier.switch-sb|-|barrier row|tcg
bar2|bar2|p|arm64||barrier.switch-rwc|-|barrier row, wrong barrier failed|tcg
EOM
printf '%s\n' 'x86_64/rig/mutants/x|x86_64|mutants|||x=1||--pin --rig' >"$mq/guest/boots"
got=$(TOP=$mq matrix_rows | paste -sd' ')
want='arm64||tcg|0|b|kunit.s.c|-|fail x86_64||rig|3|pcid-stale|mm.tlb_coherency_short|stale=[1-9]|fail x86_64||tcg|3|a|mm.tlb_coherency_short|stale=[1-9]|fail x86_64||tcg|3|pcid-stale|mm.tlb_coherency_short|stale=[1-9]|pass x86_64|x=1|rig|3|pcid-caught|mm.tlb_coherency_short|stale=[1-9]|fail x86_64|x=1|tcg|3|pcid-caught|mm.tlb_coherency_short|stale=[1-9]|pass'
got2=$(TOP=$mq matrix_boots | paste -sd' ')
want2='arm64/mutants|arm64|mutants|||| x86_64/rig/mutants|x86_64|mutants|||||--rig x86_64/mutants|x86_64|mutants|||| x86_64/mutants/x=1|x86_64|mutants|||x=1|'
got3=$(TOP=$mq bad_matrix_rows | cut -d'|' -f1 | paste -sd' ')
got4=$( (TOP=$mq rows_of x86_64 x=1 "$(boot_qemu '--pin --rig')"; echo "${m_rows[*]}:${m_wants[*]}") )
if [ "$got" = "$want" ] && [ "$got2" = "$want2" ] && [ "$got3" = "arm64/mutant/bad arm64/mutant/nocheck" ] &&
	[ "$got4" = "pcid-caught:fail" ]; then
	ok "a rig row of the matrix is booted on the rig and on stock TCG; a bad qemu column is reported"
else
	bad "matrix qemu column: rows [$got] boots [$got2] bad [$got3] rig boot's rows [$got4]"
fi
rr=$td/results
cp "$rr/rig-rows.expect" "$mq/logs/x86_64_rig_mutant_pcid-stale.log.verdict"
cp "$rr/rig-rows-tcg.expect" "$mq/logs/x86_64_mutant_pcid-stale.log.verdict"
cp "$rr/rig-rows-tcg@caught.expect" "$mq/logs/x86_64_mutant_pcid-caught.log.verdict"
# A barrier row (barrier-stage.py's verdicts) is caught only by its own
# line, which names the barrier that failed; it is no boot row.
cat >"$mq/logs/barrier.verdict" <<'EOM'
PASS mutant.bar barrier.switch-sb -- caught: FAIL barrier.switch-sb -- x
FAIL mutant.bar2 barrier.switch-rwc -- not caught: barrier.switch-rwc passed
EOM
md=$("$TOP"/scripts/5-mutants.py "$mq/mutants/matrix" "$mq/logs" 2>&1 || true)
# shellcheck disable=SC2016 # literal backquotes of the markdown table
if grep -qF '| bar | p | barrier row | arm64, compiled with -DTLB_MUTANT_..., no boot | `barrier.switch-sb` of scripts/barrier-check.py on the disassembly | caught (caught: FAIL barrier.switch-sb -- x) |' <<<"$md" &&
	grep -qF '| bar2 | p | barrier row, wrong barrier failed | arm64, compiled with -DTLB_MUTANT_..., no boot | `barrier.switch-rwc` of scripts/barrier-check.py on the disassembly | NOT CAUGHT (not caught: barrier.switch-rwc passed) |' <<<"$md"; then
	ok "results/mutants.md: a barrier row is caught only by its own barrier's FAIL"
else
	bad "results/mutants.md for barrier rows: $(grep bar <<<"$md" | tr '\n' ' ')"
fi
# shellcheck disable=SC2016 # markdown's backquotes
if grep -qF '| pcid-stale | p | rig row | x86_64, rig and stock TCG | `mm.tlb_coherency_short` /stale=[1-9]/ on the rig | passes on stock TCG (evidence: `mm.tlb_coherency_short` passed with its mutant on: "# tlb_coherency: reads=4200000 faults=5000 stale=0"), caught on the rig (caught, as it must be: "# tlb_coherency: mode=default reads=4200000 faults=5000 stale=17") |' <<<"$md" &&
	grep -qF '| pcid-caught | p | rig row, stock catches it too | x86_64 x=1, rig and stock TCG | `mm.tlb_coherency_short` /stale=[1-9]/ on the rig | DOES NOT PASS on stock TCG, so not a rig-only row (failed (FAIL) with its mutant on, where it must pass (stock TCG): not a row only the rig can catch: "stale=3"), not run on the rig |' <<<"$md" &&
	grep -qF '| a | p | tcg row | x86_64 | `mm.tlb_coherency_short` /stale=[1-9]/ | not run |' <<<"$md"; then
	ok "results/mutants.md: a rig row passes on stock TCG and is caught on the rig, with both evidences"
else
	bad "results/mutants.md for rig rows: $(grep pcid <<<"$md" | tr '\n' ' ')"
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

# 7i. scripts/rig.sh, offline: a stand-in for Debian's qemu source
#     package (its "configure" writes a build.ninja that copies two
#     scripts to the two binaries) in a file:// mirror. Its patches apply
#     in order; the entry is printed, and a second run only prints it;
#     a changed patch is a new entry, whose build recompiles only what
#     that patch changed, and entries of other keys unused for 14 days go
#     unless one is in use (locked); a patch that does not apply fails,
#     naming it, and builds no entry; a .dsc that differs from its pinned
#     sha256 is refused.
rt=$tmp/rig
mkdir -p "$rt/pkg/fakeqemu-1.0/debian/source" "$rt/mirror/pool/main/f/fakeqemu" "$rt/p"
(
	cd "$rt/pkg"
	echo 'echo v1' >fakeqemu-1.0/x86.sh
	echo 'echo arm' >fakeqemu-1.0/arm.sh
	# shellcheck disable=SC2016 # ninja's variables
	printf '%s\n' '#!/bin/sh' 'printf "rule cp\n  command = cat \$in >\$out && chmod +x \$out && echo \$out >>ninja-runs.log\nbuild qemu-system-x86_64: cp ../src/x86.sh\nbuild qemu-system-aarch64: cp ../src/arm.sh\n" >build.ninja' \
		>fakeqemu-1.0/configure
	chmod +x fakeqemu-1.0/configure
	tar -cJf fakeqemu_1.0.orig.tar.xz fakeqemu-1.0
	echo '3.0 (quilt)' >fakeqemu-1.0/debian/source/format
	printf 'fakeqemu (1:1.0-1) unstable; urgency=medium\n\n  * Self-test.\n\n -- T <t@invalid>  Sun, 15 Nov 2026 22:30:00 +0000\n' >fakeqemu-1.0/debian/changelog
	printf 'Source: fakeqemu\nMaintainer: T <t@invalid>\n\nPackage: fakeqemu\nArchitecture: all\nDescription: self-test\n self-test\n' >fakeqemu-1.0/debian/control
	dpkg-source -q -b fakeqemu-1.0 >/dev/null 2>&1
	mv fakeqemu_1.0* "$rt/mirror/pool/main/f/fakeqemu/"
)
printf '#!/bin/sh\necho file://%s\n' "$rt/mirror" >"$rt/apt.sh"
chmod +x "$rt/apt.sh"
cat >"$rt/rig.conf" <<EOC
RIG_VERSION=1:1.0-1
RIG_DSC=pool/main/f/fakeqemu/fakeqemu_1.0-1.dsc
RIG_DSC_SHA256=$(sha256sum <"$rt/mirror/pool/main/f/fakeqemu/fakeqemu_1.0-1.dsc" | cut -d' ' -f1)
RIG_CONFIGURE=(--self-test "--a b")
RIG_TARGETS="qemu-system-x86_64 qemu-system-aarch64"
RIG_BUILD_DEPS="ninja-build rsync dpkg-dev"
EOC
rpatch() { # rpatch FILE OLD NEW: a patch of x86.sh's line "echo OLD" into "echo NEW"
	printf -- '--- a/x86.sh\n+++ b/x86.sh\n@@ -1 +1 @@\n-echo %s\n+echo %s\n' "$2" "$3" >"$rt/p/$1"
}
rig() { env -u T0 CACHE="$rt/cache" APT_PRIVATE="$rt/apt.sh" RIG_CONF="$rt/rig.conf" RIG_PATCHES="$rt/p" "$TOP"/scripts/rig.sh "$@"; }
runs() { paste -sd' ' "$rt/cache/rig-build/build/ninja-runs.log" 2>/dev/null || true; }
rpatch 0001-v2.patch v1 v2
rpatch 0002-v3.patch v2 v3
d1=$(rig 2>"$rt/1.err") || true
d2=$(rig 2>"$rt/2.err") || true
r1=$(runs)
mkdir -p "$rt/cache/rig/old1" "$rt/cache/rig/old2"
touch -d '15 days ago' "$rt/cache/rig/old1" "$rt/cache/rig/old2"
exec 5>"$rt/cache/rig/old2.lock"
flock -s 5
rpatch 0002-v3.patch v2 v4
d3=$(rig 2>"$rt/3.err") || true
exec 5>&-
r3=$(runs)
rpatch 0003-bad.patch v9 v10
rc=0
rig >/dev/null 2>"$rt/4.err" || rc=$?
rc2=0
rig --cached >/dev/null 2>&1 || rc2=$?
rm "$rt/p/0003-bad.patch"
sed -i "s/^RIG_DSC_SHA256=.*/RIG_DSC_SHA256=$(printf '0%.0s' $(seq 64))/" "$rt/rig.conf"
rc3=0
rig >/dev/null 2>"$rt/5.err" || rc3=$?
if [ -n "$d1" ] && [ "$(sh "$d1/bin/qemu-system-x86_64")" = v3 ] && [ "$(sh "$d1/bin/qemu-system-aarch64")" = arm ] &&
	[ "$d2" = "$d1" ] && [ ! -s "$rt/2.err" ] &&
	[ "$r1" = "qemu-system-x86_64 qemu-system-aarch64" ] || [ "$r1" = "qemu-system-aarch64 qemu-system-x86_64" ]; then
	if [ -n "$d3" ] && [ "$d3" != "$d1" ] && [ "$(sh "$d3/bin/qemu-system-x86_64")" = v4 ] &&
		[ "$r3" = "$r1 qemu-system-x86_64" ] && [ -d "$d1" ] &&
		[ ! -e "$rt/cache/rig/old1" ] && [ -d "$rt/cache/rig/old2" ] &&
		[ "$rc" != 0 ] && grep -q 'rig: 0003-bad.patch does not apply' "$rt/4.err" && [ "$rc2" != 0 ] &&
		[ "$rc3" != 0 ] && grep -q 'does not match the pinned sha256' "$rt/5.err"; then
		ok "rig.sh: patches in order, a cache entry per key, only what changed rebuilt, bad patch and sha256 refused"
	else
		bad "rig.sh: d1=$d1 d3=$d3 runs [$r1] [$r3] rc=$rc,$rc2,$rc3: $(tail -n 2 "$rt/3.err" "$rt/4.err" "$rt/5.err" | tr '\n' ';')"
	fi
else
	bad "rig.sh builds from a stand-in source package: d1=$d1 d2=$d2 runs [$r1]: $(tail -n 3 "$rt/1.err" "$rt/2.err" | tr '\n' ';')"
fi

# 7j. 5-nested-rounds.py on a recorded run of nested.hv_rounds (the lines
#     results/nested-rounds.log keeps): the per-round ratios' median and
#     range; a run cut off in its last round is incomplete (status 1).
nr=$("$TOP"/scripts/5-nested-rounds.py "$td/nested-rounds.log" 2>&1) && rc=0 || rc=$?
head -n -8 "$td/nested-rounds.log" >"$tmp/nested-cut.log"
nc=$("$TOP"/scripts/5-nested-rounds.py "$tmp/nested-cut.log" 2>&1) && rc2=0 || rc2=$?
if [ "$rc" = 0 ] && grep -qxF '| history | 0.150 (0.121-0.287) | 5 |' <<<"$nr" &&
	grep -qxF '| none | 1.019 (0.433-1.131), within noise | 5 |' <<<"$nr" &&
	[ "$rc2" = 1 ] && grep -q '^Incomplete: round 5 series' <<<"$nc"; then
	ok "5-nested-rounds.py: series/base per round, and an incomplete run fails"
else
	bad "5-nested-rounds.py: series/base per round, and an incomplete run fails (rc=$rc rc2=$rc2)"
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
# shellcheck disable=SC2031 # the top level's TREE: 7d set its own in a subshell
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
# 8b0. A QEMU that ignores TERM past --timeout: timeout(1) KILLs it 10 s
#      later (status 137), which is still the time limit: status 124 and
#      the timed-out marker, no QEMU left. The fake ignores TERM from its
#      exec on (a shell's ignored signal stays ignored across exec): on a
#      loaded machine Python may not have run a line of it by the TERM,
#      which then ended it before it wrote its pid file (CI, 2026-12-07).
printf '#!/bin/bash\ntrap "" TERM\nexec %q "$@"\n' "$td/fake-qemu.py" >"$tmp/deaf-qemu"
chmod +x "$tmp/deaf-qemu"
rc=0
"${fake[@]}" QEMU_CMD="$tmp/deaf-qemu" FAKE_QEMU_MODE=deaf FAKE_QEMU_PIDFILE="$tmp/deaf.pid" \
	"${boot[@]}" "$tmp/deaf.log" --silence 0 --timeout 3 2>"$tmp/deaf.err" || rc=$?
if [ "$rc" = 124 ] && grep -q '^### tlb-series: boot timed out after 3s' "$tmp/deaf.log" &&
	grep -q 'deaf to TERM' "$tmp/deaf.log" && gone "$tmp/deaf.pid"; then
	ok "a QEMU killed by timeout's KILL is a timeout"
else
	bad "a QEMU killed by timeout's KILL is a timeout (rc=$rc; pid file: $(tr '\n' ' ' 2>/dev/null <"$tmp/deaf.pid"); $(tail -n 2 "$tmp/deaf.log" | tr '\n' ';'))"
fi
# 8b1. A full disk is no hang: the console stops growing (the fake QEMU
#      goes silent) while the free space (BOOT_FREE_KB_CMD's stand-in
#      for df) is 0: status 122 in seconds, the disk-full line in the log
#      and no hang marker or register dump, no QEMU left, a FAIL verdict
#      that says "host disk full". And with less than BOOT_MIN_FREE_MB
#      free, no boot at all.
echo 10000000 >"$tmp/free"
rc=0
"${fake[@]}" FAKE_QEMU_MODE=hang FAKE_QEMU_PIDFILE="$tmp/full.pid" BOOT_FREE_KB_CMD="cat $tmp/free" \
	"${boot[@]}" "$tmp/full.log" --silence 60 --timeout 120 2>"$tmp/full.err" &
b=$!
wait_for 20 test -s "$tmp/full.pid" && wait_for 10 grep -q clocksource "$tmp/full.log"
echo 0 >"$tmp/free"
wait "$b" || rc=$?
echo 1000 >"$tmp/free"
rc2=0
"${fake[@]}" FAKE_QEMU_MODE=hang FAKE_QEMU_PIDFILE="$tmp/full2.pid" BOOT_FREE_KB_CMD="cat $tmp/free" \
	"${boot[@]}" "$tmp/full2.log" --silence 60 --timeout 120 2>/dev/null || rc2=$?
# shellcheck disable=SC2031 # the top level's TREE: 7d set its own in a subshell
v=$("$TOP"/scripts/5-results.py "$tmp/full.log" --tree "$TREE" 2>&1 || true)
if [ "$rc" = 122 ] && gone "$tmp/full.pid" && grep -q '^### tlb-series: disk full: 0 KiB free' "$tmp/full.log" &&
	! grep -q -e 'tlb-series: hang' -e 'info registers' "$tmp/full.log" && [ ! -e "$tmp/full.log.reserve" ] &&
	grep -q '^FAIL run console -- host disk full: 0 KiB free' <<<"$v" &&
	[ "$rc2" = 122 ] && [ ! -e "$tmp/full2.pid" ] && grep -q 'before the boot' "$tmp/full2.log"; then
	ok "a full disk during a boot is reported as a full disk, not a hang, and none starts on one"
else
	bad "a full disk during a boot (rc=$rc, $rc2: $(tail -n 2 "$tmp/full.err" "$tmp/full.log" | tr '\n' ';') [$v])"
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
# 8b3. --rig: QEMU is the binary of the rig's cache entry for this
#      rig.conf and rig/patches (here a stand-in that records its
#      arguments and QEMU_RIG_TLB), with QEMU_RIG_TLB=1 and, on x86_64,
#      Debian's firmware directories; the log's first line names the
#      rig's key. Without a built entry, no boot; a boot without --rig
#      gets no QEMU_RIG_TLB, even from the environment.
rc_=$tmp/rigcache
key=$(CACHE=$rc_ "$TOP"/scripts/rig.sh --key)
mkdir -p "$rc_/rig/$key/bin"
cat >"$rc_/rig/$key/bin/qemu-system-x86_64" <<'EOS'
#!/bin/sh
echo "QEMU_RIG_TLB=${QEMU_RIG_TLB:-unset}" >"$ARGS_OUT"
printf '%s\n' "$@" >>"$ARGS_OUT"
echo "reboot: Power down"
EOS
cp "$rc_/rig/$key/bin/qemu-system-x86_64" "$rc_/rig/$key/bin/qemu-system-aarch64"
chmod +x "$rc_/rig/$key/bin/"*
rc=0 rc2=0
env OUT="$tmp/out" CACHE="$rc_" ARGS_OUT="$tmp/rig.args" \
	"${boot[@]}" "$tmp/rig.log" --rig --timeout 60 2>"$tmp/rig.err" || rc=$?
env OUT="$tmp/out" CACHE="$tmp/no-rig-cache" ARGS_OUT="$tmp/norig.args" \
	"${boot[@]}" "$tmp/norig.log" --rig --timeout 60 2>"$tmp/norig.err" || rc2=$?
env OUT="$tmp/out" QEMU_CMD="$rc_/rig/$key/bin/qemu-system-x86_64" QEMU_RIG_TLB=1 \
	ARGS_OUT="$tmp/stock.args" "${boot[@]}" "$tmp/stock.log" --timeout 60 2>/dev/null || true
if [ "$rc" = 0 ] && [ "$(head -n 1 "$tmp/rig.log")" = "### tlb-series: qemu rig $key" ] &&
	grep -qx 'QEMU_RIG_TLB=1' "$tmp/rig.args" &&
	[ "$(grep -A1 -x -- -L "$tmp/rig.args" | grep -v -e -L -e -- | paste -sd' ')" = "/usr/share/seabios /usr/share/qemu /usr/lib/ipxe/qemu" ] &&
	[ -n "$(find "$rc_/rig/$key" -maxdepth 0 -newer "$rc_/rig/$key/bin/qemu-system-x86_64")" ] &&
	[ "$rc2" != 0 ] && [ ! -e "$tmp/norig.args" ] && grep -q "no rig built for this rig.conf and rig/patches (key $key)" "$tmp/norig.err" &&
	grep -qx 'QEMU_RIG_TLB=unset' "$tmp/stock.args" && ! grep -q 'qemu rig' "$tmp/stock.log"; then
	ok "4-boot.sh --rig boots the rig's binary with QEMU_RIG_TLB=1 and says so in the log"
else
	bad "4-boot.sh --rig (rc=$rc, $rc2: $(tail -n 2 "$tmp/rig.err" "$tmp/norig.err" | tr '\n' ';'))"
fi
# 8b4. The QEMU command line of each kind of boot, argument by argument
#      (testdata/boot-args.expect: recorded before the per-arch settings
#      moved to scripts/qemu/ARCH.conf): both arches, as they are and
#      with --nodes 2, --cpu, --initrd, --rig, --tsc-watchdog and the
#      guest's own options. Stand-ins for qemu-system-x86_64 and
#      qemu-system-aarch64 on PATH (and in the rig's entry) record their
#      path, QEMU_RIG_TLB and their arguments; paths of this run are
#      written @TMP@, the monitor's directory @RUN@, the rig's key @KEY@.
qb=$tmp/qbin
mkdir -p "$qb" "$tmp/out/build/arm64-fake/arch/arm64/boot"
: >"$tmp/out/build/arm64-fake/arch/arm64/boot/Image"
: >"$tmp/out/initramfs-arm64.cpio.gz"
: >"$tmp/out/initramfs-x86_64-nested.cpio.gz"
cat >"$qb/qemu-system-x86_64" <<'EOS'
#!/bin/sh
{ echo "$0 QEMU_RIG_TLB=${QEMU_RIG_TLB:-unset}"; printf '%s\n' "$@"; } >>"$ARGS_OUT"
echo "reboot: Power down"
EOS
chmod +x "$qb/qemu-system-x86_64"
cp "$qb/qemu-system-x86_64" "$qb/qemu-system-aarch64"
cp "$qb/qemu-system-x86_64" "$qb/qemu-system-aarch64" "$rc_/rig/$key/bin/"
: >"$tmp/all.args"
while IFS='|' read -r what opts; do
	o=()
	words o "$opts"
	echo "## $what${opts:+: $opts}" >>"$tmp/all.args"
	env -u MEM -u QEMU_CMD -u QEMU_RIG_TLB PATH="$qb:$PATH" OUT="$tmp/out" CACHE="$rc_" ARGS_OUT="$tmp/all.args" \
		"$TOP"/scripts/4-boot.sh "${what%% *}" "${what%% *}-fake" "$tmp/args-${what// /-}.log" --timeout 60 "${o[@]}" \
		</dev/null 2>>"$tmp/all.err" || echo "status $?" >>"$tmp/all.args"
done <<'EOL'
x86_64|
arm64|
x86_64 nodes|--nodes 2
arm64 nodes|--nodes 2 --smp 2
x86_64 cpu|--cpu max,-pcid,-invpcid,-flushbyasid
arm64 cpu|--cpu cortex-a57
x86_64 initrd|--initrd nested --nodes 1 --timeout 2700
x86_64 rig|--rig --nodes 2
arm64 rig|--rig
x86_64 watchdog|--tsc-watchdog --silence 30 --nodes 1 --append 'stop_machine_test_hold_ms=2000 tlb_mutant=x'
arm64 watchdog|--tsc-watchdog
x86_64 guest|--tests mm.a,kvm.b --rows r1,r2 --kunit '*' --append 'kvm_amd.npt=0 kunit.autorun=0' --smp 2
arm64 guest|--tests mm.a --kunit 'tlb*' --append kpti=1
EOL
sed -i -e "s|$tmp|@TMP@|g" -e 's|/tmp/tlb-boot\.[^/]*/|@RUN@/|g' -e "s|/$key/|/@KEY@/|g" "$tmp/all.args"
if diff -u "$td/boot-args.expect" "$tmp/all.args" >"$tmp/all.diff"; then
	ok "4-boot.sh gives QEMU the recorded argument list on both arches, with --nodes, --cpu, --initrd, --rig and the guest's options"
else
	head -n 40 "$tmp/all.diff" >&2
	bad "4-boot.sh's QEMU argument lists differ from testdata/boot-args.expect ($(grep -c '^[-+][^-+]' "$tmp/all.diff") lines; $(tail -n 2 "$tmp/all.err" | tr '\n' ';'))"
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
echo 'x86_64/series|x86_64|series|||||' >"$h/guest/boots"
: >"$h/mutants/matrix"
: >"$h/mutants/decisions"
for st in 2-tree.sh 3-build-kernel.sh 3-build-tests.sh 3-build-nested.sh herd.sh sparse.sh; do
	printf '#!/bin/sh\nexit 0\n' >"$h/scripts/$st"
done
for st in selftest.sh lint.sh herd-check.sh kunit.sh barrier-stage.py; do
	printf '#!/bin/sh\necho "PASS stand-in %s"\necho "counts 1 0 0"\n' "$st" >"$h/scripts/$st"
done
# The rig: "built" at once (an entry with no binaries: QEMU_CMD is the
# fake QEMU), its own tests a stand-in that records its arguments.
# shellcheck disable=SC2016 # the stand-in's own $1
printf '#!/bin/sh\n[ "$1" = --deps ] || echo %s\n' "$tmp/fakerig" >"$h/scripts/rig.sh"
mkdir -p "$h/rig/tests"
printf '#!/bin/sh\necho "$@" >%s\n' "$tmp/rigtests.args" >"$h/rig/tests/run.sh"
chmod +x "$h/rig/tests/run.sh"
mkdir -p "$tmp/hout/build/x86_64-series/arch/x86/boot"
: >"$tmp/hout/build/x86_64-series/arch/x86/boot/bzImage"
: >"$tmp/hout/initramfs-x86_64.cpio.gz"
# The previous run's logs, and a tracked result that only PUBLISH=1
# may rewrite.
mkdir -p "$tmp/hout/logs/check"
echo previous >"$tmp/hout/logs/check/x86_64_series.log"
echo tracked >"$h/results/mutants.md"
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
	tail -n 1 "$tmp/check.out" | grep -qE '^[0-9]+ passed, [1-9][0-9]* failed' &&
	[ "$(cat "$tmp/hout/logs/check.prev/x86_64_series.log" 2>/dev/null)" = previous ] &&
	[ -s "$tmp/hout/logs/check/x86_64_series.log.verdict" ]; then
	ok "make check stopped mid-boot stops QEMU, fails the boot, prints its summary and keeps the previous run's logs"
else
	bad "make check stopped mid-boot stops QEMU, fails the boot and prints its summary (rc=$rc: $(tail -n 3 "$tmp/check.out" | tr '\n' ';'))"
fi
# 8f. The same stand-in harness run to its end (fake boots that power
#     off at once): the stages that run in the background (lint's early
#     checks, the self-tests, herd7, the rig's build and its own tests on
#     its two binaries) and the late lint are each counted once, a boot
#     on the rig (listed first) boots after the other and is judged as
#     one (the fake boots end before any test: both fail as unfinished),
#     past NESTED_BY (as from a cold cache) a nested boot of the series
#     as L2 boots with the series as L1 and one of base-count as L2 is
#     not booted and reads SKIP with the reason, and make check ends with
#     its summary after all of them.
rm -rf "$tmp/hout/logs"
printf '%s\n' 'x86_64/rig/series|x86_64|series|||||--rig' 'x86_64/series|x86_64|series|||||' \
	'x86_64/nested/x|x86_64|nested||nested:nested.hv_series|||--nodes 1' \
	'x86_64/nested/b|x86_64|nested||nested:nested.hv_base|||--nodes 1' >"$h/guest/boots"
: >"$tmp/hout/initramfs-x86_64-nested.cpio.gz"
rc=0
env OUT="$tmp/hout" RESULTS="$h/results" QEMU_CMD="$td/fake-qemu.py" FAKE_QEMU_MODE=chatty \
	FAKE_QEMU_LINES=1 NESTED_BY=-1 "$h/scripts/check.sh" >"$tmp/check2.out" 2>&1 || rc=$?
n() { grep -c "^  PASS stand-in $1\$" "$tmp/check2.out" || true; }
nb() { grep -n "check: boot $1\$" "$tmp/check2.out" | cut -d: -f1; }
if [ "$(n selftest.sh)" = 1 ] && [ "$(n herd-check.sh)" = 1 ] && [ "$(n lint.sh)" = 2 ] &&
	[ "$(grep -c '^  PASS rig selftest$' "$tmp/check2.out")" = 1 ] &&
	[ "$(cat "$tmp/rigtests.args")" = "$tmp/fakerig/bin/qemu-system-x86_64 $tmp/fakerig/bin/qemu-system-aarch64" ] &&
	[ "$(grep -c '^  PASS harness rig build' "$tmp/check2.out")" = 1 ] &&
	grep -q '^  FAIL x86_64/rig/series console -- guest did not finish' "$tmp/check2.out" &&
	! grep -q '^  FAIL x86_64/rig/series qemu' "$tmp/check2.out" &&
	head -n 1 "$tmp/hout/logs/check/x86_64_rig_series.log" | grep -qx '### tlb-series: qemu rig fakerig' &&
	[ -n "$(nb x86_64/series)" ] && [ "$(nb x86_64/rig/series)" -gt "$(nb x86_64/series)" ] &&
	tail -n 1 "$tmp/check2.out" | grep -qE '^[0-9]+ passed, [0-9]+ failed' &&
	[ "$(grep -n 'check: done' "$tmp/check2.out" | cut -d: -f1)" -gt "$(grep -n 'PASS stand-in herd-check.sh' "$tmp/check2.out" | cut -d: -f1)" ] &&
	[ -s "$tmp/hout/logs/check/results/check.json" ] && [ ! -e "$h/results/check.json" ] &&
	[ "$(cat "$h/results/mutants.md")" = tracked ] &&
	grep -q '^  SKIP x86_64/nested/b boot -- base-count as L2: make check was [0-9]* s in at the nested build, past NESTED_BY=-1' "$tmp/check2.out" &&
	[ -z "$(nb x86_64/nested/b)" ] && [ -n "$(nb x86_64/nested/x)" ] &&
	grep -q 'boot x86_64-series .*tests=nested.hv_series' "$tmp/check2.out" &&
	grep -q '^  PASS harness nested x86_64' "$tmp/check2.out" && ! grep -q 'build x86_64-base-count' "$tmp/check2.out"; then
	ok "make check counts each background stage once, ends with its summary, and leaves results/ alone"
else
	bad "make check counts each background stage once (rc=$rc; selftest $(n selftest.sh), herd $(n herd-check.sh), lint $(n lint.sh): $(grep -e FAIL -e rig "$tmp/check2.out" | tail -n 5 | tr '\n' ';'))"
fi
# 8g. A lane boots the first boot of its list that can start: a boot on
#     the rig (the rig built at once) goes before a stock boot listed
#     first whose kernel (a stand-in build of 8 s) is not built yet.
rm -rf "$tmp/hout/logs"
printf '%s\n' 'x86_64/m|x86_64|mutants|||||' 'x86_64/r|x86_64|series|||||--rig' >"$h/guest/boots"
: >"$h/mutants/x.patch"
# shellcheck disable=SC2016 # the stand-in's own $2
printf '#!/bin/sh\n[ "$2" != mutants ] || sleep 8\n' >"$h/scripts/3-build-kernel.sh"
mkdir -p "$tmp/hout/build/x86_64-mutants/arch/x86/boot"
: >"$tmp/hout/build/x86_64-mutants/arch/x86/boot/bzImage"
env OUT="$tmp/hout" RESULTS="$h/results" QEMU_CMD="$td/fake-qemu.py" FAKE_QEMU_MODE=chatty \
	FAKE_QEMU_LINES=1 PUBLISH=1 "$h/scripts/check.sh" >"$tmp/check3.out" 2>&1 || true
nb() { grep -n "check: boot $1\$" "$tmp/check3.out" | cut -d: -f1; }
if [ -n "$(nb x86_64/r)" ] && [ -n "$(nb x86_64/m)" ] && [ "$(nb x86_64/r)" -lt "$(nb x86_64/m)" ]; then
	ok "a boot lane boots the first boot that can start, a rig boot before a stock boot that waits for its kernel"
else
	bad "a boot lane boots the first boot that can start: $(grep 'check: boot' "$tmp/check3.out" | tr '\n' ';')"
fi
# ... and PUBLISH=1 copies what it rendered to results/.
if grep -q '^# ' "$h/results/mutants.md" && cmp -s "$h/results/mutants.md" "$tmp/hout/logs/check/results/mutants.md" &&
	[ -s "$h/results/check.json" ]; then
	ok "make check PUBLISH=1 copies its mutants.md and check.json to results/"
else
	bad "make check PUBLISH=1 copies its results: $(find "$h/results" "$tmp/hout/logs/check/results" -type f | tr '\n' ' ')"
fi
# 8h. boot_row (scripts/boot-row.sh), which make check and make
#     repro-watchdog boot and judge through: a row of the mutants kernel
#     whose arch and append two matrix rows have (a KUnit case, a test)
#     boots once with its tests, the rows in order and KUnit's options
#     (8b4's stand-in QEMU), then gets its log, a JSON file (LOG.json,
#     LOG.ROW.json) and a verdict file for the boot, each row
#     (ARCH/mutant/ROW) and each control (TAG/control/CHECK: the KUnit
#     case's suite), each passed to the caller's row_judged in that order; judge_row --ahead writes a
#     missing verdict file again and passes none; a row whose
#     5-results.py options do not split is judged not at all (status 2).
br=$tmp/br
mkdir -p "$br/guest" "$br/mutants" "$br/logs" "$tmp/out/build/x86_64-mutants/arch/x86/boot"
cp -a "$TOP/scripts" "$TOP/base.conf" "$br/"
cp "$TOP/guest/tests.list" "$TOP/guest/known-failures.txt" "$br/guest/"
: >"$tmp/out/build/x86_64-mutants/arch/x86/boot/bzImage"
printf '%s\n' 'rb|rb|p|x86_64|x=1|mm.tlb_coherency_short|stale=[1-9]|a test row|' \
	'ra|ra|p|x86_64|x=1|kunit.tlb_x.case_a|-|a KUnit row|tcg' \
	'rc|rc|p|x86_64||mm.tlb_coherency_short|stale=[1-9]|another append|' >"$br/mutants/matrix"
r=$( (
	# shellcheck disable=SC2030 # for this subshell only
	TOP=$br LOGS=$br/logs OUT=$tmp/out PATH="$qb:$PATH" ARGS_OUT=$br/args
	export OUT PATH ARGS_OUT
	# shellcheck source=boot-row.sh
	. "$br/scripts/boot-row.sh"
	# shellcheck disable=SC2317 # called by row_verdict
	row_judged() { echo "judged $1 $(basename "$2") $(basename "$3")"; }
	row='x86_64/m|x86_64|mutants||caught:mm.tlb_coherency_short|x=1||--nodes 1'
	boot_row "$row" 2>"$br/err"
	echo "status $?"
	rm "$br/logs/x86_64_mutant_rb.log.verdict"
	judge_row --ahead "$row"
	# shellcheck disable=SC2012 # the test's own file names
	echo "ahead $? $(LC_ALL=C ls "$br/logs" | paste -sd' ')"
	st=0
	judge_row "x86_64/q|x86_64|series|||| --x 'a|" || st=$?
	echo "bad quote $st"
) 2>&1)
want="judged x86_64/m x86_64_m.log.verdict x86_64_m.log
judged x86_64/mutant/ra x86_64_mutant_ra.log.verdict x86_64_m.log
judged x86_64/mutant/rb x86_64_mutant_rb.log.verdict x86_64_m.log
judged x86_64/m/control/kunit.tlb_x x86_64_m_control_kunit.tlb_x.log.verdict x86_64_m.log
judged x86_64/m/control/mm.tlb_coherency_short x86_64_m_control_mm.tlb_coherency_short.log.verdict x86_64_m.log
status 0
ahead 0 x86_64_m.log x86_64_m.log.control:kunit.tlb_x.json x86_64_m.log.control:mm.tlb_coherency_short.json x86_64_m.log.json x86_64_m.log.ra.json x86_64_m.log.rb.json x86_64_m.log.verdict x86_64_m_control_kunit.tlb_x.log.verdict x86_64_m_control_mm.tlb_coherency_short.log.verdict x86_64_mutant_ra.log.verdict x86_64_mutant_rb.log.verdict"
if [ "$(head -n 7 <<<"$r")" = "$want" ] && grep -qx 'bad quote 2' <<<"$r" &&
	grep -qx 'console=ttyS0 tsc=reliable panic=-1 oops=panic rdinit=/init kunit.enable=1 kunit.filter_glob=\* tlbtests=mm.tlb_coherency_short tlbrows=ra,rb x=1 kunit.autorun=0' "$br/args" &&
	[ "$(grep -c -x -- -kernel "$br/args")" = 1 ] && grep -qx 4 "$br/args" &&
	grep -q '^counts ' "$br/logs/x86_64_mutant_rb.log.verdict" && [ ! -e "$br/logs/x86_64_q.log.verdict" ]; then
	ok "boot_row boots a row once and judges it, its matrix rows and controls, as make check does"
else
	bad "boot_row: [$(tr '\n' ';' <<<"$r")] $(grep -A1 -x -- -append "$br/args" | tail -n 1)"
fi
# 8h2. A nested boot (boot-row.sh row_boot) whose L1 crashed before any
#      result is booted once more, the first log kept as LOG.first, the
#      crash named on the second log's last line and the verdict's
#      console item; a second crash is not retried, nor a crash after
#      L2 had failed, and a boot with a result is never retried; a
#      LOG.first of an earlier run is removed. 4-boot.sh a stand-in that
#      writes recorded logs in turn.
nr=$tmp/nr
mkdir -p "$nr/guest" "$nr/logs"
# shellcheck disable=SC2031 # the top level's TOP: 8h set its own in a subshell
{
	cp -a "$TOP/scripts" "$TOP/base.conf" "$nr/"
	cp "$TOP/guest/tests.list" "$TOP/guest/known-failures.txt" "$nr/guest/"
}
# shellcheck disable=SC2016 # the stand-in's own variables
printf '#!/bin/sh
n=$(($(cat %s/calls 2>/dev/null || echo 0) + 1))
echo $n >%s/calls
set -- $(cat %s/logs.list) -- "$3"
shift $((n - 1))
cp "$1" "$(eval echo \\${$#})"
' \
	"$nr" "$nr" "$nr" >"$nr/scripts/4-boot.sh"
nested_try() { # nested_try LOG...: row_boot and judge_row of a nested row
	printf '%s\n' "$@" >"$nr/logs.list"
	rm -f "$nr/calls" "$nr"/logs/*
	echo stale >"$nr/logs/x86_64_nested_hv-base.log.first"
	(
		# shellcheck disable=SC2030,SC2031 # for this subshell only
		TOP=$nr LOGS=$nr/logs
		# shellcheck source=boot-row.sh
		. "$nr/scripts/boot-row.sh"
		row='x86_64/nested/hv-base|x86_64|nested||nested:nested.hv_base||--expect-fail nested.hv_base|--nodes 1'
		boot_row "$row" 2>"$nr/err"
		echo "calls $(cat "$nr/calls")"
		grep '^[PF]' "$nr/logs/x86_64_nested_hv-base.log.verdict"
	)
}
# The second boot's log: a clean one (hv-base's, without the line
# boot-row.sh adds).
grep -v '^### tlb-series: second boot: ' "$td/results/nested-retried.log" >"$nr/clean.log"
r1=$(nested_try "$td/results/nested-l1-crash.log" "$nr/clean.log" 2>&1)
f1=$(tail -n 1 "$nr/logs/x86_64_nested_hv-base.log")
c1=$(cmp -s "$nr/logs/x86_64_nested_hv-base.log.first" "$td/results/nested-l1-crash.log" && echo same)
r2=$(nested_try "$td/results/nested-l1-crash.log" "$td/results/nested-l1-crash.log" "$nr/clean.log" 2>&1)
r3=$(nested_try "$nr/clean.log" "$nr/clean.log" 2>&1)
c3=$([ -e "$nr/logs/x86_64_nested_hv-base.log.first" ] || echo gone)
r4=$(nested_try "$td/results/nested-l1-crash-l2-failed.log" "$nr/clean.log" 2>&1)
if grep -qx 'calls 2' <<<"$r1" && [ "$c1" = same ] &&
	[ "$f1" = "### tlb-series: second boot: the first one's L1 crashed before any result (x86_64_nested_hv-base.log.first): BUG: unable to handle page fault for address: ff110001ba500020" ] &&
	grep -q '^PASS x86_64/nested/hv-base console -- a second boot: the first one.s L1 crashed' <<<"$r1" &&
	grep -q '^PASS x86_64/nested/hv-base nested.hv_base -- caught' <<<"$r1" &&
	grep -qx 'calls 2' <<<"$r2" && grep -q '^FAIL x86_64/nested/hv-base nested.hv_base -- no result' <<<"$r2" &&
	grep -q '^FAIL x86_64/nested/hv-base console -- .*a second boot' <<<"$r2" &&
	grep -qx 'calls 1' <<<"$r3" && grep -qx 'PASS x86_64/nested/hv-base console' <<<"$r3" && [ "$c3" = gone ] &&
	grep -qx 'calls 1' <<<"$r4" && grep -q '^FAIL x86_64/nested/hv-base nested.hv_base -- no result' <<<"$r4"; then
	ok "a nested boot whose L1 crashed before any result is booted once more, and says so"
else
	bad "nested L1 retry: [$(tr '\n' ';' <<<"$r1")] [$(tr '\n' ';' <<<"$r2")] [$(tr '\n' ';' <<<"$r3")] [$(tr '\n' ';' <<<"$r4")] first=$c1/$c3 last=$f1"
fi
# 8i. make repro-*: each row of its view (guest/views) booted ROUNDS
#     times through boot_row and judged by 5-results.py, with 4-boot.sh a
#     stand-in that writes a recorded log: round 1 clean, round 2 with
#     every test passed and a kernel splat. The splat fails its round;
#     a series row with a failed round fails the repro, a base row's
#     rounds are only printed.
rp=$tmp/rp
mkdir -p "$rp/guest" "$tmp/rpout"
# shellcheck disable=SC2031 # the top level's TOP and TREE: 8h set its own in a subshell
{
	cp -a "$TOP/scripts" "$TOP/base.conf" "$rp/"
	cp "$TOP/guest/tests.list" "$TOP/guest/known-failures.txt" "$TOP/guest/boots" "$rp/guest/"
	ln -s "$TREE" "$tmp/rpout/linux"
}
printf '%s\n' '# a comment' \
	'v/x86_64-base|x86_64|base||repeat:kvm.hyperv_tlb_flush_10x|||--nodes 1|2|repro:hv-shadow' \
	'v/x86_64-series|x86_64|series||repeat:kvm.hyperv_tlb_flush_10x|||--nodes 1|2|bench:x repro:hv-shadow' \
	'v/other|x86_64|series||repeat:kvm.hyperv_tlb_flush_10x|||--nodes 1|2|repro:mremap' >"$rp/guest/views"
for st in 2-tree.sh 3-build-kernel.sh 3-build-tests.sh; do
	printf '#!/bin/sh\nexit 0\n' >"$rp/scripts/$st"
done
# shellcheck disable=SC2016 # the stand-in's own $3
printf '#!/bin/sh\ncase $3 in *-r2.log) cp %s "$3" ;; *) cp %s "$3" ;; esac\n' \
	"$td/results/splat.log" "$td/results/clean.log" >"$rp/scripts/4-boot.sh"
rc=0
env OUT="$tmp/rpout" "$rp/scripts/repro.sh" hv-shadow >"$tmp/rp.out" 2>"$tmp/rp.err" || rc=$?
if [ "$rc" = 1 ] && [ "$(cat "$tmp/rp.out")" = "v/x86_64-base: passed 1 of 2 rounds
v/x86_64-series: passed 1 of 2 rounds" ] &&
	grep -q 'repro: FAIL v/x86_64-series-r2 console -- kernel splat: WARNING' "$tmp/rp.err" &&
	grep -q '^counts 6 0 ' "$tmp/rpout/logs/repro-hv-shadow/v_x86_64-series-r1.log.verdict"; then
	ok "make repro: each row's rounds through boot_row and 5-results.py, a round with a splat failed"
else
	bad "make repro: rc=$rc [$(tr '\n' ';' <"$tmp/rp.out")] $(tail -n 3 "$tmp/rp.err" | tr '\n' ';')"
fi
# 8i2. make repro-watchdog and the boot table's references: a field
#     "=TAG" of guest/views is that field of make check's row TAG; the
#     held group's rows booted in turn through boot_row (4-boot.sh a
#     stand-in that records its options and writes a clean boot's log):
#     the hold's command line reaches each boot, base judged as the
#     mutant that must hang, so a boot that did not hang fails the repro;
#     "=TAG WORDS" adds WORDS; an unknown TAG fails table_rows and the
#     repro.
printf '%s\n' \
	'v/held/x86_64-base|x86_64|base-emu|||=x86_64/mutants/watchdog-held|=x86_64/mutants/cs-tick-clock|=x86_64/mutants/watchdog-held --timeout 300|1|repro:watchdog:held' \
	'v/held/x86_64-emu|x86_64|emu|||=x86_64/mutants/watchdog-held|=x86_64/mutants/watchdog-held|--nodes 1|1|repro:watchdog:held' >"$rp/guest/views"
# shellcheck disable=SC2016 # the stand-in's own $3 and $*
printf '#!/bin/sh\necho "$*" >>%s\ncp %s "$3"\n' "$tmp/wd.args" "$td/results/clean.log" >"$rp/scripts/4-boot.sh"
rc=0
env OUT="$tmp/rpout" WATCHDOG_BOOTS=0 "$rp/scripts/repro.sh" watchdog >"$tmp/wd.out" 2>"$tmp/wd.err" || rc=$?
printf '%s\n' 'v/x|x86_64|base|||=no/such/row|||1|repro:x' >"$rp/guest/views"
# shellcheck disable=SC2016 # for the inner shell
bad_ref=$(cd "$rp" && { TOP=$rp bash -c '. scripts/lib.sh; . scripts/boot-row.sh; table_rows repro:x' 2>&1 || true; })
printf '%s\n' 'v/held/x86_64-base|x86_64|base-emu|||=no/such/row||--nodes 1|1|repro:watchdog:held' >"$rp/guest/views"
rc2=0
env OUT="$tmp/rpout" "$rp/scripts/repro.sh" watchdog >/dev/null 2>"$tmp/wd2.err" || rc2=$?
if [ "$rc" = 1 ] && grep -qx 'v/held/x86_64-base: passed 0 of 1, hung 0 (base-emu)' "$tmp/wd.out" &&
	grep -qx 'v/held/x86_64-emu: passed 0 of 1, hung 0 (emu)' "$tmp/wd.out" &&
	[ "$rc2" != 0 ] && grep -q 'no row no/such/row in guest/boots' "$tmp/wd2.err" &&
	grep -q -- '--nodes 1 --timeout 300' "$tmp/wd.args" &&
	[ "$(grep -c 'stop_machine_test_hold_ms=2000' "$tmp/wd.args")" = 2 ] &&
	grep -q 'FAIL v/held/x86_64-base-r1 .*watchdog_check_skew' "$tmp/wd.err" &&
	grep -q 'no row no/such/row in guest/boots' <<<"$bad_ref" && ! grep -q '^v/x|' <<<"$bad_ref"; then
	ok "make repro-watchdog: rows of the boot table, fields taken from make check's rows, each judged as make check judges it"
else
	bad "make repro-watchdog: rc=$rc [$(tr '\n' ';' <"$tmp/wd.out")] $(tail -n 3 "$tmp/wd.err" | tr '\n' ';') [$bad_ref]"
fi
# 8i3. make backport-test's boots and results/backports.md: the rows of
#     view backport:A booted in turn through boot_each (boot-row.sh;
#     4-boot.sh the stand-in that writes a clean boot's log): the base
#     row, whose test must fail with its evidence, passed, so it fails
#     and the run with it; 5-backports.py writes A's rows with their
#     verdicts and each test's last line, keeps series B's section of
#     the file as it was, and exits non-zero. A "|" inside a field's
#     quotes (a regex) breaks the table, not only that row.
bpt=$tmp/bpt
mkdir -p "$bpt/backports" "$bpt/results" "$tmp/rpout/logs/backport-A"
printf '%s\n' '# name|conf|what' 'A|base-a.conf|Base A: fix one' 'B|base-b.conf|Base B: fix two' \
	>"$bpt/backports/series"
printf 'BASE_PKG=linux-source-a\nBASE_VERSION=1.2-3\n' >"$bpt/base-a.conf"
printf '# make backport-test\n\nold text\n\n## B\n\nB as it was.\n' >"$bpt/results/backports.md"
printf '%s\n' \
	"b/base|x86_64|bp-A-base||series:mm.tlb_coherency||--expect-fail mm.tlb_coherency --evidence 'stale=[1-9]'|--nodes 1|1|backport:A" \
	'b/backport|x86_64|bp-A||series:mm.tlb_coherency|||--nodes 1|1|backport:A' >"$rp/guest/views"
# shellcheck disable=SC2016 # the stand-in's own $3
printf '#!/bin/sh\ncp %s "$3"\n' "$td/results/clean.log" >"$rp/scripts/4-boot.sh"
r=$( (
	# shellcheck disable=SC2030 # for this subshell only
	TOP=$rp OUT=$tmp/rpout LOGS=$tmp/rpout/logs/backport-A
	export OUT
	# shellcheck source=boot-row.sh
	. "$rp/scripts/boot-row.sh"
	rows=()
	table_read rows backport:A
	printf '%s\n' "${rows[@]}" >"$LOGS/rows"
	st=0
	boot_each "${rows[@]}" || st=$?
	echo "boot_each $st"
	st=0
	TOP=$bpt OUT=$tmp/rpout python3 "$rp/scripts/5-backports.py" A || st=$?
	echo "md $st"
) 2>&1)
md=$(cat "$bpt/results/backports.md")
# A "|" inside a quoted regex splits the row: the table is broken.
printf '%s\n' "b/x|x86_64|bp-A||t|a|--evidence '(a|b)'|--nodes 1|1|backport:A" >"$rp/guest/views"
# shellcheck disable=SC2016 # for the inner shell
split_re=$(cd "$rp" && { TOP=$rp bash -c '. scripts/lib.sh; . scripts/boot-row.sh; table_rows backport:A' 2>&1 || echo "status $?"; })
# shellcheck disable=SC2016 # backquotes of markdown
if grep -qx 'b/base: 5 passed, 1 failed, 1 skipped, [0-9]* s' <<<"$r" &&
	grep -qx 'b/backport: 6 passed, 0 failed, 1 skipped, [0-9]* s' <<<"$r" &&
	grep -q '^FAIL b/base mm.tlb_coherency -- expected to fail on this kernel but passed' <<<"$r" &&
	grep -qx 'boot_each 1' <<<"$r" && grep -qx 'md 1' <<<"$r" &&
	grep -q '^| b/base | bp-A-base | fail, with the bug.s evidence | 5 passed, 1 failed, 1 skipped | `mm.tlb_coherency`: ok 2 munmap: 0 stale reads' <<<"$md" &&
	grep -q '^| b/backport | bp-A | pass | 6 passed, 0 failed, 1 skipped |' <<<"$md" &&
	grep -q '`linux-source-a` 1.2-3 (`base-a.conf`)' <<<"$md" &&
	[ "$(sed -n '/^## B$/,$p' <<<"$md")" = "## B

B as it was." ] &&
	[ "$split_re" = "table_rows: $rp/guest/views: b/x: 11 fields
status 1" ]; then
	ok "make backport-test: each row booted and judged as make check judges its rows, a base row that passes fails the run; results/backports.md keeps series not run"
else
	bad "make backport-test: [$(tr '\n' ';' <<<"$r")] [$(tr '\n' ';' <<<"$md" | cut -c1-600)] [$split_re]"
fi
# 8j. make bench: a section's rows (guest/views) booted through
#     boot_row, in the same stand-in harness, BENCH_REUSE_LOGS=1 (no
#     build) and STRESS_ROUNDS=2, 4-boot.sh a stand-in that writes a log
#     of the stress test: round 2 of each row with a kernel splat. Round
#     2 is dropped and said, not measured: the sums over the rounds have
#     a round missing (no value), the samples keep round 1's count.
# shellcheck disable=SC2016 # the stand-in's own $3
printf '#!/bin/bash\n{ echo "[    1.000000] Run /init as init process"
[[ $3 != *-r2.log ]] || echo "[    2.000000] WARNING: CPU: 1 PID: 42 at mm/memory.c:1 foo+0x1/0x2"
printf "%%s\\n" "### tlb-series: userspace tests begin" "TAP version 13" 1..1 \\
	"# selftests: mm.tlb_coherency_bench: ./tlb_coherency -b 8" \\
	"# tlb_coherency: reads=100 faults=2 stale=0" "ok 1 mm.tlb_coherency_bench" \\
	"### tlb-series: userspace tests end" "[    9.000000] reboot: Power down"; } >"$3"\n' >"$rp/scripts/4-boot.sh"
# shellcheck disable=SC2031 # the top level's TOP: 8h set its own in a subshell
cp "$TOP/guest/views" "$rp/guest/"
mkdir -p "$tmp/bres"
rc=0
env OUT="$tmp/rpout" RESULTS="$tmp/bres" BENCH_SECTIONS=stress STRESS_ROUNDS=2 BENCH_REUSE_LOGS=1 \
	"$rp/scripts/bench.sh" >"$tmp/bench.out" 2>"$tmp/bench.err" || rc=$?
s=$(python3 -c 'import json, sys
for m in json.load(open(sys.argv[1])):
    if m["metric"] == "stress_reads":
        print(m["arch"], m["path"], m["samples"], m["value"])' "$tmp/bres/bench.json" 2>&1 || true)
if [ "$rc" = 0 ] && [ "$s" = "x86_64 native [100.0, None] None
x86_64 hv-emul [100.0, None] None
arm64 native [100.0, None] None" ] &&
	[ "$(grep -c 'bench: [a-z0-9_-]*-r2: round dropped: FAIL [^ ]* console -- kernel splat' "$tmp/bench.err")" = 3 ] &&
	! grep -q 'r1: round dropped' "$tmp/bench.err"; then
	ok "make bench: each section's rows booted through boot_row, a round with a splat dropped and said"
else
	bad "make bench drops a round with a splat: rc=$rc [$(tr '\n' ';' <<<"$s")] $(grep -e dropped -e error "$tmp/bench.err" | tail -n 3 | tr '\n' ';')"
fi
echo "counts $p $f 0"
