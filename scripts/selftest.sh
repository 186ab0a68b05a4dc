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
echo "counts $p $f 0"
