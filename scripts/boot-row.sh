# shellcheck shell=bash
# One boot of a row in guest/boots' format, and its verdicts; sourced
# after lib.sh (check.sh, bench.sh, repro.sh, rig-base.sh). A row:
#   tag|arch|kernel|kunit|tests|append|5-results.py options|4-boot.sh options
# (guest/boots' header; the boot table: below). Its console goes to
# row_log TAG ($LOGS/TAG.log, each / of TAG a _), each of its verdicts
# to a file beside it
# ($LOGS/VTAG.log.verdict; 5-results.py writes LOG.json too).
#   boot_row ROW            boot it, then judge it; the boot's status
#   row_boot ROW            boot it (4-boot.sh): its log, no verdict
#   judge_row [--ahead] ROW its verdicts (below); 2 if its 5-results.py
#                           options do not split (nothing judged)
# ROW_LOCK=FILE: one boot at a time, under a lock on FILE; once it holds
# the lock, row_boot says "[Ns] ROW_WHO: boot TAG" on stderr. A caller
# that defines row_judged TAG VERDICT_FILE LOG has it called after each
# verdict (not with --ahead): make check counts them there.
#
# The boot table: guest/boots (make check's rows) and guest/views (the
# rows of make bench, make repro and make rig-base), read by table_rows.
# Every row of guest/boots has 8 fields, of guest/views 10 (a wrong
# count fails table_rows). In guest/views a field (2-8) "=TAG" is that field of make check's row
# TAG (guest/boots), so that a repro boots and judges as make check
# does; "=TAG WORDS" is that field and then WORDS. A line there may have
# two more columns after the 4-boot.sh options:
#   ...|4-boot.sh options|rounds|views
# rounds: how many times a view boots the row (1 if empty); views: the
# views that boot it, separated by spaces ("check" if empty), each
# VIEW[:NAME[:GROUP]]: check, bench:SECTION:GROUP, repro:NAME. The
# rows of a bench section's GROUP take turns in each round (in_turn).
#   table_rows VIEW     the rows VIEW (or VIEW:...) names, in the
#                       files' order, as rows of the format above; fails
#                       (and prints why) if a "=TAG" names no row or a
#                       tag of guest/boots is not unique: read it with
#                       table_read, not in a process substitution
#   table_rows -l VIEW  each as "ROUNDS<tab>GROUP<tab>ROW" (GROUP: what
#                       follows VIEW: in the views column, or -)
#   row_round ROW R     ROW as round R: its tag TAG-rR (its log too)
table_rows() {
	local long=0 files=("$TOP/guest/boots")
	[ "$1" != -l ] || { long=1; shift; }
	[ ! -f "$TOP/guest/views" ] || files+=("$TOP/guest/views")
	awk -F'|' -v OFS='|' -v view="$1" -v long="$long" -v boots="${files[0]}" '
		/^#/ || /^[ \t]*$/ { next }
		# A "|" inside a field (a regex) splits it: the row would
		# lose its views and never boot, so a wrong count is fatal.
		(FILENAME == boots && NF != 8) || (FILENAME != boots && NF != 10) {
			print "table_rows: " FILENAME ": " $1 ": " NF " fields" > "/dev/stderr"
			bad = 1
			next
		}
		FILENAME == boots {
			if ($1 in known) {
				print "table_rows: tag " $1 " twice in guest/boots" > "/dev/stderr"
				bad = 1
			}
			for (j = 2; j <= 8; j++) ref[$1, j] = $j
			known[$1] = 1
		}
		FILENAME != boots {
			for (j = 2; j <= 8; j++) {
				if (substr($j, 1, 1) != "=") continue
				t = substr($j, 2)
				rest = ""
				if (index(t, " ")) {
					rest = substr(t, index(t, " "))
					t = substr(t, 1, index(t, " ") - 1)
				}
				if (!(t in known)) {
					print "table_rows: " $1 ": no row " t " in guest/boots" > "/dev/stderr"
					bad = 1
					next
				}
				$j = ref[t, j] rest
			}
		}
		{
			rounds = (NF >= 9 && $9 != "") ? $9 : 1
			views = (NF >= 10 && $10 != "") ? $10 : "check"
			row = $0
			if (NF > 8) {
				row = $1
				for (j = 2; j <= 8; j++) row = row "|" $j
			}
			n = split(views, vs, " ")
			for (i = 1; i <= n; i++) {
				if (vs[i] != view && index(vs[i], view ":") != 1) continue
				g = substr(vs[i], length(view) + 2)
				if (long) print rounds "\t" (g == "" ? "-" : g) "\t" row
				else print row
				break
			}
		}
		END { exit bad }' "${files[@]}"
}
# table_read NAME [-l] VIEW: table_rows' rows into the array NAME; dies
# if the table is broken (a process substitution would lose that).
table_read() {
	local -n _rows=$1
	local _out
	_out=$(table_rows "${@:2}") || die "the boot table (guest/boots, guest/views) is broken: see above"
	_rows=()
	[ -z "$_out" ] || mapfile -t _rows <<<"$_out"
}
row_round() { echo "${1%%|*}-r$2|${1#*|}"; }
# build_rows ROW...: the kernel each row boots (3-build-kernel.sh ARCH
# REF [VARIANT]) and the tests of each arch (3-build-tests.sh ARCH
# series, whose uapi headers come from the series build: built too),
# each once.
build_rows() {
	local row arch kernel var built=' ' arches=' '
	for row; do
		IFS='|' read -r _ arch kernel _ <<<"$row"
		[[ $built != *" $arch-$kernel "* ]] || continue
		built+="$arch-$kernel "
		var=
		case $kernel in *:*) var=${kernel#*:} ;; esac
		"$TOP"/scripts/3-build-kernel.sh "$arch" "${kernel%%:*}" ${var:+"$var"} >/dev/null
		[[ $arches == *" $arch "* ]] || arches+="$arch "
	done
	for arch in $arches; do
		[[ $built == *" $arch-series "* ]] ||
			"$TOP"/scripts/3-build-kernel.sh "$arch" series >/dev/null
		"$TOP"/scripts/3-build-tests.sh "$arch" series >/dev/null
	done
}
row_log() { echo "$LOGS/${1//\//_}.log"; }
# boot_each ROW...: boot and judge each row in turn (make rig-base, make
# backport-test); print each verdict that is not a PASS, then per row
# "TAG: P passed, F failed, S skipped, N s". Non-zero if a row failed
# anything (a verdict file with no counts line is a failure).
boot_each() {
	local b tag vopts bopts opts logf t np nf ns rc=0 sum=
	for b; do
		IFS='|' read -r tag _ _ _ _ _ vopts bopts <<<"$b"
		if ! words opts "$bopts" || ! words opts "$vopts"; then
			die "bad options in row $tag"
		fi
		logf=$(row_log "$tag")
		t=$(date +%s)
		row_boot "$b" >/dev/null 2>"$logf.err" || true
		t=$(($(date +%s) - t))
		judge_row "$b" || true
		grep -v -e '^PASS ' -e '^counts ' "$logf.verdict" || true
		read -r _ np nf ns < <(grep '^counts ' "$logf.verdict" || echo "counts 0 1 0")
		[ "$nf" = 0 ] || rc=1
		sum+="$tag: $np passed, $nf failed, $ns skipped, $t s"$'\n'
	done
	printf '%s' "$sum"
	return $rc
}
# row_build ARCH KERNEL: the kernel build a row boots: ARCH-REF, or
# ARCH-REF-VARIANT for a kernel REF:VARIANT (3-build-kernel.sh ARCH REF
# VARIANT). The kernel "nested" is base-count as L1 (base's KVM, so that
# a verdict on the L2 guests does not also rest on the series' KVM
# patches: README "The nested Hyper-V run"), or the series where make
# check built no base-count (a cold cache: $LOGS/.nested-cold, check.sh
# nested_go), with the initramfs of 3-build-nested.sh (QEMU and the L2
# kernels).
row_build() {
	if [ "$2" != nested ]; then
		echo "$1-${2/:/-}"
	elif [ -e "${LOGS:-/nonexistent}/.nested-cold" ]; then
		echo "$1-series"
	else
		echo "$1-base-count"
	fi
}
boot_row() {
	local st=0
	row_boot "$1" || st=$?
	judge_row "$1" || true
	return "$st"
}
# row_boot ROW: a boot of the mutants kernel runs, after the row's tests,
# the mutation-matrix rows of its arch, append and QEMU, each with its
# mutant turned on in turn (guest/init run_row): KUnit rows first, then
# KVM selftests, then other tests, then the stress tests, whose mutants
# leave stale translations behind. A hang (4-boot.sh --silence), a
# timeout or a panic is in the log: 5-results.py reports it.
row_boot() {
	local tag arch kernel suites tests append vopts bopts bo opts ib kunit m_rows m_checks m_evs m_wants m_kunit
	IFS='|' read -r tag arch kernel suites tests append vopts bopts <<<"$1"
	words bo "$bopts" || { log "boot $tag: bad 4-boot.sh options in guest/boots"; return 1; }
	# Two memory nodes: tlb_coherency -m migrate moves pages between them.
	# The row's own 4-boot.sh options (bo) come last and override these.
	opts=(--nodes 2 --tests "$(tests_of "$tests")")
	ib=()
	[ "$kernel" != nested ] || ib=(--initrd nested)
	m_rows=() m_kunit=()
	[ "$kernel" != mutants ] || rows_of "$arch" "$append" "$(boot_qemu "$bopts")"
	kunit=("${m_kunit[@]}")
	[ -z "$suites" ] || kunit=(--kunit "$suites")
	if [ ${#m_rows[@]} -gt 0 ]; then
		opts+=("${kunit[@]}" --rows "$(IFS=,; echo "${m_rows[*]}")"
			--append "$append${kunit:+ kunit.autorun=0}")
	else
		opts+=("${kunit[@]}" --append "$append")
	fi
	local logf st=0 crash
	logf=$(row_log "$tag")
	rm -f "$logf.first"
	set -- "$TOP"/scripts/4-boot.sh "$arch" "$(row_build "$arch" "$kernel")" "$logf" \
		"${opts[@]}" "${ib[@]}" "${bo[@]}"
	row_run "$tag" "$@" || st=$?
	[ "$kernel" = nested ] || return "$st"
	# A nested boot's L1 is base's kernel (the series' from a cold
	# cache: row_build), under TCG's nested SVM, where L1 crashed in
	# about one boot in seven on Dec 6-7, with base's own KVM as with
	# the series' (README, "The nested Hyper-V run"). A boot whose L1 died of an oops or a panic before
	# any result, with nothing its L2 had said failed (5-results.py
	# --l1-crash), is booted once more; the first log is kept as
	# LOG.first, and a line at the end of the second log names it and
	# its crash, which 5-results.py quotes on the console item. A
	# result, a hang, a timeout or a stall is never booted again, nor a
	# second crash.
	crash=$(nice -n 10 "$TOP"/scripts/5-results.py "$logf" --tree "$TREE" --l1-crash 2>/dev/null) || crash=
	case $crash in 'l1-crash: none'*) return "$st" ;; 'l1-crash: '*) ;; *) return "$st" ;; esac
	crash=${crash#l1-crash: }
	log "boot $tag: L1 crashed before any result ($crash): booted again, once"
	mv -f "$logf" "$logf.first"
	st=0
	row_run "$tag" "$@" || st=$?
	printf '### tlb-series: second boot: the first one'"'"'s L1 crashed before any result (%s): %s\n' \
		"${logf##*/}.first" "$crash" >>"$logf"
	return "$st"
}
# row_run TAG 4-BOOT.SH...: one boot, under ROW_LOCK if that is set.
row_run() {
	local tag=$1
	shift
	if [ -z "${ROW_LOCK:-}" ]; then
		"$@"
	else
		# The line is written once the lock is held, so that the times
		# in the caller's log are the boot's own, not its wait for the
		# lock.
		# shellcheck disable=SC2016 # expanded by the bash -c
		flock "$ROW_LOCK" bash -c 'printf "[%4ds] %s: boot %s\n" "$(( $(date +%s) - T0 ))" "$1" "$2" >&2; shift 2; exec "$@"' \
			boot "${ROW_WHO:-boot}" "$tag" "$@"
	fi
}
# row_verdict TAG LOG [5-results.py options]: judge one boot's log (or,
# with --row, one mutation-matrix row of it) into TAG's verdict file,
# unless that file is complete and newer than the log (judged ahead).
row_verdict() {
	local tag=$1 logf=$2 vf
	shift 2
	vf=$LOGS/${tag//\//_}.log.verdict
	if ! [ "$vf" -nt "$logf" ] || ! grep -q '^counts ' "$vf" 2>/dev/null; then
		"$TOP"/scripts/5-results.py "$logf" --tree "$TREE" --tag "$tag" \
			--known "$TOP/guest/known-failures.txt" "$@" >"$vf" || true
	fi
	[ "${ahead:-0}" = 0 ] || return 0
	! declare -F row_judged >/dev/null || row_judged "$tag" "$vf" "$logf"
}
# judge_row [--ahead] ROW: the verdicts of one boot's log (which must say
# that it ran on the QEMU its row names: 5-results.py --qemu), with the
# row's 5-results.py options. A mutants boot has one more per matrix
# row: its check must fail with its own evidence (a KUnit case: its
# failed expectation), or, for a rig row on stock TCG, pass with its
# mutant on. A row's verdict is tagged ARCH/mutant/ROW on stock TCG,
# ARCH/rig/mutant/ROW on the rig. And one per check of its rows, run
# with every mutant off, which must pass: TAG/control/CHECK. --ahead:
# the verdict files only (no row_judged), the matrix rows two at a time.
judge_row() {
	local ahead=0
	[ "$1" != --ahead ] || { ahead=1; shift; }
	local tag arch kernel kunit tests append vopts bopts vo logf m_rows m_checks m_evs m_wants m_kunit i evo q rtag c
	local -A ctl=()
	IFS='|' read -r tag arch kernel kunit tests append vopts bopts <<<"$1"
	logf=$(row_log "$tag")
	words vo "$vopts" || return 2
	q=$(boot_qemu "$bopts")
	row_verdict "$tag" "$logf" --qemu "$q" "${vo[@]}"
	[ "$kernel" = mutants ] || return 0
	rows_of "$arch" "$append" "$q"
	rtag=$arch/mutant
	[ "$q" = tcg ] || rtag=$arch/$q/mutant
	for i in "${!m_rows[@]}"; do
		evo=(--expect-fail "${m_checks[$i]}" --evidence "${m_evs[$i]}")
		case ${m_checks[$i]} in kunit.*) evo=(--expect-fail "${m_checks[$i]}") ;; esac
		# A rig row on stock TCG: its check must pass (the evidence
		# regex, if it fails, is quoted).
		[ "${m_wants[$i]}" = fail ] || evo=(--expect-pass "${evo[@]:1}")
		# Judging ahead (verdict files only), the rows of a boot
		# are judged two at a time: a python start-up each, a
		# second or more under load, 15 rows for x86_64's mutants
		# boot.
		if [ "$ahead" = 1 ]; then
			[ "$(jobs -pr | wc -l)" -lt 2 ] || wait -n || true
			row_verdict "$rtag/${m_rows[$i]}" "$logf" --row "${m_rows[$i]}" --qemu "$q" \
				"${evo[@]}" --allow-splat &
		else
			row_verdict "$rtag/${m_rows[$i]}" "$logf" --row "${m_rows[$i]}" --qemu "$q" \
				"${evo[@]}" --allow-splat
		fi
	done
	[ "$ahead" = 0 ] || wait
	# The controls (guest/init run_control): each check of the boot's
	# rows (a KUnit case's suite), every mutant off, before any row ran;
	# each must pass.
	for c in "${m_checks[@]}"; do
		case $c in kunit.*.*) c=${c%.*} ;; esac
		[ -z "${ctl[$c]:-}" ] || continue
		ctl[$c]=1
		row_verdict "$tag/control/$c" "$logf" --row "control:$c" --qemu "$q"
	done
}
