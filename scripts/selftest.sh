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

# 3. A missing base package gives an error naming the version needed.
sed 's/^BASE_VERSION=.*/BASE_VERSION=7.3.4-1~bpo13+99/' "$TOP/base.conf" > "$tmp/base.conf"
if BASE_CONF=$tmp/base.conf CACHE=$tmp/cache "$TOP"/scripts/1-base.sh >/dev/null 2>"$tmp/err"; then
	bad "missing base package is reported (the fetch succeeded)"
elif grep -q 'linux-source-7.3 version 7.3.4-1~bpo13+99' "$tmp/err"; then
	ok "missing base package is reported with the version needed"
else
	bad "missing base package is reported with the version needed: $(tail -n 1 "$tmp/err")"
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
echo "counts $p $f 0"
