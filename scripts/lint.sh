#!/bin/bash
# make lint: the series' quality gate. Prints PASS/FAIL lines and a
# "counts P F S" line, like 5-results.py.
#   checkpatch --strict on every patch: no ERROR, no WARNING
#   Cc: every patch names the people get_maintainer.pl gives for it
#   MAINTAINERS: an entry covers every file the series adds
#   bisect build: base + first i patches builds for x86_64 and arm64
#     (LINT_ARCHES="x86_64" or "arm64": that arch only)
#     (built newest first, reported oldest first)
#   variants: SMP=n, HYPERV=n, CPU_SUP_AMD=n (x86), 16K/64K pages (arm64)
#   sparse (C=2) and kernel-doc on touched files: nothing base lacks
#   shell: shellcheck -x on every shell script of the project
#   python: pyflakes3, mypy (scripts/mypy.ini) and py_compile on every
#     Python file of the project
# Options: --patches DIR (default patches/), --range A..B (default
# base..series), --only "CHECK ..." and --skip "CHECK ...", CHECK one of
# checkpatch cc maintainers bisect variants sparse kdoc shell python
# (make check runs "checkpatch cc maintainers shell python" beside its
# builds, then the rest but "bisect variants"). shell and python need no
# kernel tree.
. "$(dirname "$0")/lib.sh"

lock_out
pdir=$TOP/patches only='' skip='' range=base..series
while [ $# -gt 0 ]; do
	case $1 in
	--patches) pdir=$2; shift ;;
	--only) only=$2; shift ;;
	--skip) skip=$2; shift ;;
	--range) range=$2; shift ;;
	*) die "unknown option $1" ;;
	esac
	shift
done
p=0 f=0 s=0
ok() { echo "PASS lint $*"; p=$((p + 1)); }
bad() { echo "FAIL lint $*"; f=$((f + 1)); }
want() { # want CHECK: named by --only (if given), and not by --skip
	case " $skip " in *" $1 "*) return 1 ;; esac
	[ -z "$only" ] && return 0
	case " $only " in *" $1 "*) return 0 ;; esac
	return 1
}
# shellcheck disable=SC2010 # format-patch names: no white space; ls sorts them
patches=$(ls "$pdir"/[0-9]*.patch 2>/dev/null | grep -v '/0000-' || true)

# The harness's own code. The lists are found afresh on each run, so that
# a new script is checked too: the files of the checkout but the generated
# ones (out/, results/) and the kernel patches; shell scripts are the *.sh
# files and those whose #! line names a shell (guest/init, .ci/run), but
# not the self-tests' fixtures in scripts/testdata/; Python files are the
# *.py files and those whose #! line names python3. LINT_SHELL_FILES and
# LINT_PYTHON_FILES (paths, one a line), for the self-tests only, replace
# the lists.
project_files() {
	(cd "$TOP" && find . \( -name .git -o -name __pycache__ -o -path ./out -o -path ./results \
		-o -path ./patches -o -path ./testonly -o -path ./mutants -o -path ./rig/tests/build \) \
		-prune -o -type f -print) | sed 's|^\./||' | LC_ALL=C sort
}
scripts_of() { # scripts_of EXT SHEBANG-REGEX: the project's files of a language
	local f l
	project_files | while IFS= read -r f; do
		case $f in
		*."$1") echo "$f"; continue ;;
		esac
		l=
		IFS= read -r l <"$TOP/$f" 2>/dev/null || true
		if [[ $l =~ $2 ]]; then echo "$f"; fi
	done
}
findings() { # findings TEXT: its first three lines, and how many there are
	local first
	first=$(head -n 3 <<<"$1")
	echo "first of $(grep -c . <<<"$1") lines: ${first//$'\n'/; }"
}

if want shell; then
	if [ -n "${LINT_SHELL_FILES:-}" ]; then
		mapfile -t srcs <<<"$LINT_SHELL_FILES"
	else
		mapfile -t srcs < <(scripts_of sh '^#!.*[/ ](ba|da)?sh([[:space:]]|$)' | grep -v '^scripts/testdata/')
	fi
	if ! command -v shellcheck >/dev/null; then
		bad "shell: no shellcheck (scripts/0-deps.sh installs it)"
	elif [ ${#srcs[@]} = 0 ]; then
		bad "shell: no shell scripts found"
	elif out=$(cd "$TOP" && shellcheck -x -f gcc "${srcs[@]}" 2>&1); then
		ok "shell (shellcheck -x: ${#srcs[@]} scripts)"
	else
		bad "shell: shellcheck -x, $(findings "$out")"
	fi
fi

if want python; then
	if [ -n "${LINT_PYTHON_FILES:-}" ]; then
		mapfile -t srcs <<<"$LINT_PYTHON_FILES"
	else
		mapfile -t srcs < <(scripts_of py '^#!.*[/ ]python3?([[:space:]]|$)')
	fi
	# py_compile's byte code goes to a directory of its own, not into
	# the checkout.
	pyc=$(mktemp -d)
	# mypy keeps its cache under $OUT: 3 s without it, 0.2 s with it here.
	if ! command -v pyflakes3 >/dev/null; then
		bad "python: no pyflakes3 (scripts/0-deps.sh installs it)"
	elif ! command -v mypy >/dev/null; then
		bad "python: no mypy (scripts/0-deps.sh installs it)"
	elif [ ${#srcs[@]} = 0 ]; then
		bad "python: no Python files found"
	elif ! out=$(cd "$TOP" && pyflakes3 "${srcs[@]}" 2>&1); then
		bad "python: pyflakes3, $(findings "$out")"
	elif ! out=$(cd "$TOP" && mypy --config-file scripts/mypy.ini --cache-dir "$OUT/mypy-cache" \
		--no-error-summary "${srcs[@]}" 2>&1); then
		bad "python: mypy, $(findings "$out")"
	elif ! out=$(cd "$TOP" && PYTHONPYCACHEPREFIX=$pyc python3 -m py_compile "${srcs[@]}" 2>&1); then
		bad "python: py_compile, $(findings "$out")"
	else
		ok "python (pyflakes3, mypy, py_compile: ${#srcs[@]} files)"
	fi
	rm -rf "$pyc"
fi

if want checkpatch; then
	for pt in $patches; do
		# The base is a tarball without upstream history, so checkpatch
		# cannot look up the commits that Fixes: tags and messages cite.
		# Its "does MAINTAINERS need updating?" guess on new files is
		# replaced by the real question, asked below of get_maintainer.pl.
		out=$(PATH=/usr/bin:$PATH "$TREE"/scripts/checkpatch.pl --strict -q \
			--ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES "$pt" 2>&1 || true)
		nerr=$(grep -c '^ERROR:' <<<"$out" || true)
		nwarn=$(grep -c '^WARNING:' <<<"$out" || true)
		nchk=$(grep -c '^CHECK:' <<<"$out" || true)
		if [ "$nerr" = 0 ] && [ "$nwarn" = 0 ]; then
			ok "checkpatch $(basename "$pt") (CHECK: $nchk)"
		else
			bad "checkpatch $(basename "$pt"): $(grep -m1 -E '^(ERROR|WARNING):' <<<"$out")"
		fi
	done
fi

# Every patch Cc:s the people get_maintainer.pl names for it (cc.sh).
if want cc; then
	for pt in $patches; do
		if "$TOP"/scripts/cc.sh --check "$pt"; then
			ok "cc $(basename "$pt")"
		else
			bad "cc $(basename "$pt"): Cc: lines differ from get_maintainer.pl (run scripts/cc.sh)"
		fi
	done
fi

# Every file the series adds is covered by a MAINTAINERS entry other than
# THE REST.
if want maintainers; then
	for nf in $(git -C "$TREE" diff --name-only --diff-filter=A "$range"); do
		secs=$({ cd "$TREE" && scripts/get_maintainer.pl --no-git --no-git-fallback --no-email \
			--no-l --subsystem --no-rolestats -f "$nf" 2>/dev/null | grep -v '^THE REST$'; } || true)
		if [ -n "$secs" ]; then
			ok "maintainers $nf ($(head -n 1 <<<"$secs"))"
		else
			bad "maintainers $nf: no MAINTAINERS entry covers it"
		fi
	done
fi

# Steps of the series, oldest first, and the files each one touches.
steps=
if want bisect || want variants || want sparse || want kdoc; then
	steps=$(git -C "$TREE" rev-list --reverse "$range")
fi
kernel_files() { git -C "$TREE" diff --name-only "$@" | grep -v -E '^(tools/|Documentation/|MAINTAINERS$)' || true; }
# Does a change to these files matter to ARCH's build?
affects() {
	local arch=$1 other
	other=$([ "$arch" = x86_64 ] && echo arm64 || echo x86)
	grep -q -v -E "^arch/$other/" <<<"$2"
}

# Newest step first: the bisect dir was last built at (or near) the tip,
# so each step only rebuilds what one patch changed. Reported oldest first.
if want bisect; then
	i=$(wc -w <<<"$steps") res=()
	for c in $(tac <<<"$steps"); do
		files=$(kernel_files "$c~1" "$c")
		subj=$(git -C "$TREE" log -1 --format=%s "$c")
		for arch in ${LINT_ARCHES:-x86_64 arm64}; do
			if [ -z "$files" ] || ! affects "$arch" "$files"; then
				continue
			fi
			t=$(date +%s) bdir=$OUT/build/$arch-bisect
			touch "$OUT/.bisect-step-start"
			if BUILD_NAME=$arch-bisect TARGET=vmlinux \
				"$TOP"/scripts/3-build-kernel.sh "$arch" "$c" >/dev/null 2>"$OUT/lint-bisect.err"; then
				# What this step compiled, and proof that it linked:
				# objects newer than the step's start need a newer
				# vmlinux.
				nobj=$(find "$bdir/" -name '*.o' -newer "$OUT/.bisect-step-start" | wc -l)
				if [ "$nobj" -gt 0 ] && ! [ "$bdir/vmlinux" -nt "$OUT/.bisect-step-start" ]; then
					res=("FAIL bisect $arch [$i] $subj: $nobj objects compiled, vmlinux not linked" "${res[@]}")
				else
					res=("PASS bisect $arch [$i] $subj ($(($(date +%s) - t))s, $nobj objects)" "${res[@]}")
				fi
			else
				res=("FAIL bisect $arch [$i] $subj: $(grep -m1 -E 'error|Error' "$OUT/lint-bisect.err")" "${res[@]}")
			fi
		done
		i=$((i - 1))
	done
	for r in "${res[@]}"; do
		case $r in
		PASS*) ok "${r#PASS }" ;;
		*) bad "${r#FAIL }" ;;
		esac
	done
fi

# Is object $2 part of the vmlinux last linked in build dir $1? (A build
# dir seeded from another configuration holds objects this one never
# builds.)
linked() { (cd "$1" && ar t vmlinux.a 2>/dev/null) | grep -xF "$2" >/dev/null; }

# Compile checks in other configurations (configs/variant-*.config): the
# whole kernel at the tip of the series, then at every earlier step that
# touches the arch, the objects of the C files it touches that this
# configuration builds. The dir keeps the tip's .config for those steps
# and is configured afresh on the next run.
variants() { # the variants of arch $1
	case $1 in
	x86_64) echo nosmp nohv noamd ;;
	arm64) echo 16k 64k ;;
	esac
}
if want variants && [ -n "$steps" ]; then
	tip=$(git -C "$TREE" rev-parse "${range#*..}")
	for arch in x86_64 arm64; do
		for v in $(variants "$arch"); do
			name=$arch-var-$v bdir=$OUT/build/$arch-var-$v t=$(date +%s)
			if ! BUILD_NAME=$name TARGET=vmlinux "$TOP"/scripts/3-build-kernel.sh \
				"$arch" "$tip" "$v" >/dev/null 2>"$OUT/lint-variant.err"; then
				bad "variant $arch $v: $(grep -m1 -E 'error|Error' "$OUT/lint-variant.err")"
				continue
			fi
			nok=0 i=0 nsteps=0
			for c in $steps; do
				i=$((i + 1))
				[ "$c" = "$tip" ] && continue
				files=$(kernel_files "$c~1" "$c")
				{ [ -n "$files" ] && affects "$arch" "$files"; } || continue
				objs=$(for f in $(grep '\.c$' <<<"$files" || true); do
					if linked "$bdir" "${f%.c}.o"; then echo "${f%.c}.o"; fi
				done | paste -sd' ')
				[ -n "$objs" ] || continue
				nsteps=$((nsteps + 1))
				if ! KEEP_CONFIG=1 BUILD_NAME=$name TARGET=$objs \
					"$TOP"/scripts/3-build-kernel.sh "$arch" "$c" "$v" \
					>/dev/null 2>"$OUT/lint-variant.err"; then
					bad "variant $arch $v [$i] $(git -C "$TREE" log -1 --format=%s "$c"): $(grep -m1 -E 'error|Error' "$OUT/lint-variant.err")"
					nok=1
				fi
			done
			rm -f "$bdir/.frags"
			[ $nok = 1 ] || ok "variant $arch $v (vmlinux at the tip; touched objects at $nsteps earlier steps; $(($(date +%s) - t))s)"
		done
	done
fi

# sparse and kernel-doc: warnings on the touched files at base and at the
# tip of the series, line numbers stripped; anything new fails.
warnset() { sed -E 's/:[0-9]+(:[0-9]+)?:/:/' | sort -u; }
# The build dir whose vmlinux says which touched files ARCH's config
# builds: the series build that make check has made, else the bisect dir.
cfgdir() {
	if [ -f "$OUT/build/$1-series/.tree" ]; then
		echo "$OUT/build/$1-series"
	else
		echo "$OUT/build/$1-bisect"
	fi
}
analyse() { # analyse REF OUTDIR: sparse + kernel-doc output per touched file
	local ref=$1 dir=$2 arch f obj adir
	mkdir -p "$dir"
	for arch in x86_64 arm64; do
		[ -n "$SPARSE" ] || continue
		adir=$OUT/build/$arch-bisect
		if [ "$ref" = series ] && [ "$(cfgdir "$arch")" != "$adir" ]; then
			# The series build serves as it is: its objects are up to
			# date (src_checkout finds nothing changed), so C=2 below
			# runs sparse and compiles nothing.
			adir=$(cd "$OUT/build/$arch-series" && pwd -P)
			(src_checkout series "$adir")
		else
			# Single objects only need the build dir prepared at REF.
			BUILD_NAME=$arch-bisect TARGET=prepare \
				"$TOP"/scripts/3-build-kernel.sh "$arch" "$ref" >/dev/null 2>&1 || true
		fi
		# shellcheck disable=SC2013 # kernel file names: words
		for f in $(grep '\.c$' <<<"$touched"); do
			obj=${f%.c}.o
			# Only what this arch's config builds.
			linked "$(cfgdir "$arch")" "$obj" || continue
			[ -f "$OUT/src/$f" ] || continue
			kmake "$adir" "$arch" C=2 CHECK="$SPARSE" "$obj" 2>&1 | grep -E 'warning|error' | grep -F "/$f:" | warnset >"$dir/sparse-$arch-${f//\//_}" || true
		done
	done
	(exec 9>"$OUT/src.lock" && flock 9 && src_fill "$ref")
	# shellcheck disable=SC2013 # kernel file names: words
	for f in $(grep -E '\.[ch]$' <<<"$touched"); do
		[ -f "$OUT/src/$f" ] || continue
		"$OUT"/src/scripts/kernel-doc -none "$OUT/src/$f" 2>&1 | warnset >"$dir/kdoc-${f//\//_}" || true
	done
}
if { want sparse || want kdoc; } && [ -n "$steps" ]; then
	# Debian 12's sparse is older than this kernel accepts: sparse.sh
	# builds the pinned newer Debian source package when needed.
	SPARSE=$("$TOP"/scripts/sparse.sh) || { bad "sparse: no usable sparse"; SPARSE=; }
	rm -rf "$OUT/lint"
	# The kernel files the series touches, analysed at both ends.
	touched=$(kernel_files base series)
	analyse series "$OUT/lint/series"
	# The base's warnings only excuse the tip's: the base is analysed
	# for the files with warnings at the tip and no others (none, most
	# of the time: a cold run then configures and prepares no base build
	# dir for either arch).
	touched=$(for tf in $touched; do
		for g in "$OUT"/lint/series/{sparse-x86_64,sparse-arm64,kdoc}-"${tf//\//_}"; do
			if [ -s "$g" ]; then echo "$tf"; break; fi
		done
	done)
	# The base's warnings depend only on what goes into this key: they
	# are kept in the download cache, so that a warm run analyses the
	# series alone (half of this step's time). Of the harness, only the
	# functions that make them and the script that configures the build
	# dir count: a change elsewhere in lint.sh or lib.sh keeps the entry.
	key=$({
		git -C "$TREE" rev-parse base
		sha256sum ${SPARSE:+"$SPARSE"} "$TOP"/configs/*.config "$TOP/scripts/3-build-kernel.sh" |
			cut -d' ' -f1
		declare -f analyse warnset cfgdir linked kernel_files kmake src_fill src_checkout cross_compile
		echo "$touched"
		for arch in x86_64 arm64; do
			# shellcheck disable=SC2013 # kernel file names: words
			for cf in $(grep '\.c$' <<<"$touched"); do
				! linked "$(cfgdir "$arch")" "${cf%.c}.o" || echo "$arch $cf"
			done
		done
	} | sha256sum | cut -c1-16)
	if [ -z "$touched" ]; then
		mkdir -p "$OUT/lint/base"
	elif [ -d "$CACHE/lint-base/$key" ]; then
		cp -a "$CACHE/lint-base/$key" "$OUT/lint/base"
	else
		analyse base "$OUT/lint/base"
		mkdir -p "$CACHE/lint-base"
		rm -rf "$CACHE/lint-base/$key.tmp"
		cp -a "$OUT/lint/base" "$CACHE/lint-base/$key.tmp"
		mv "$CACHE/lint-base/$key.tmp" "$CACHE/lint-base/$key"
	fi
	for kind in sparse kdoc; do
		want "$kind" || continue
		[ "$kind" = sparse ] && [ -z "$SPARSE" ] && continue
		for g in "$OUT"/lint/series/"$kind"-*; do
			[ -e "$g" ] || continue
			b=$OUT/lint/base/$(basename "$g")
			new=$(comm -13 <(sort -u "$b" 2>/dev/null) "$g")
			if [ -z "$new" ]; then
				ok "$kind $(basename "$g" | cut -d- -f2-)"
			else
				bad "$kind $(basename "$g" | cut -d- -f2-): $(head -n 1 <<<"$new")"
			fi
		done
	done
fi
echo "counts $p $f $s"
