# shellcheck shell=bash
# Shared settings for the harness scripts. Source it, do not run it.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Downloads live outside the checkout so a fresh clone reuses them.
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tlb-series}
# Kernel tree, build dirs, initramfs images and run logs (git-ignored).
OUT=${OUT:-$TOP/out}
TREE=$OUT/linux
RESULTS=${RESULTS:-$TOP/results}
JOBS=${JOBS:-$(nproc)}

# shellcheck source=../base.conf
. "${BASE_CONF:-$TOP/base.conf}"

T0=${T0:-$(date +%s)}
export T0

log() { printf '[%4ds] %s\n' "$(( $(date +%s) - T0 ))" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

cross_compile() {
	case $1 in
	x86_64) echo "" ;;
	arm64) echo aarch64-linux-gnu- ;;
	*) die "unknown arch $1" ;;
	esac
}

kimage() {
	case $1 in
	x86_64) echo arch/x86/boot/bzImage ;;
	arm64) echo arch/arm64/boot/Image ;;
	esac
}

# Fixed identities and dates make the base commit, and every commit that
# git am makes from patches/, the same on every machine, so that the
# export round trip is byte-exact.
BASE_DATE="2026-11-15T22:30:00Z"
SERIES_NAME="Kernel TLB Team"
SERIES_EMAIL="tlb-team@example.org"
git_fixed() { # for the base commit
	GIT_AUTHOR_NAME="Debian kernel source" GIT_AUTHOR_EMAIL="base@invalid" \
	GIT_COMMITTER_NAME="tlb-series harness" GIT_COMMITTER_EMAIL="harness@invalid" \
	GIT_AUTHOR_DATE=$BASE_DATE GIT_COMMITTER_DATE=$BASE_DATE "$@"
}
git_am() { # git am with the committer pinned (date = author date)
	GIT_COMMITTER_NAME=$SERIES_NAME GIT_COMMITTER_EMAIL=$SERIES_EMAIL \
		git am -q -3 --committer-date-is-author-date "$@"
}

# make in the kernel source worktree for build dir $1 and arch $2, with the
# same compiler settings everywhere: a different HOSTCC would rebuild fixdep
# and with it every object.
kmake() {
	local bdir=$1 arch=$2 cc
	cc=$(cross_compile "$arch")
	shift 2
	CCACHE_BASEDIR=$OUT CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G} \
		make -s -C "$OUT/src" O="$bdir" ARCH="$arch" CROSS_COMPILE="$cc" \
		CC="ccache ${cc}gcc" HOSTCC="ccache gcc" -j"$JOBS" "$@"
}

lock_out() { # one make check, bench or repro at a time per $OUT
	mkdir -p "$OUT"
	exec 8>"$OUT/harness.lock"
	flock -n 8 || die "another make check, bench or repro is using $OUT (lock $OUT/harness.lock)"
}

ids() { # ids GROUP [PREFIX]: comma-separated test ids from guest/tests.list
	awk -F'|' -v g="$1" -v p="${2:-}" '!/^#/ && $2 == g && index($1, p) == 1 { print $1 }' \
		"$TOP/guest/tests.list" | paste -sd, -
}

apt_install() { # apt_install WHAT PKG...: install the Debian packages missing
	local what=$1 p missing=()
	shift
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	[ "$(id -u)" = 0 ] || die "$what: need root to install: ${missing[*]}"
	log "$what: installing ${missing[*]}"
	apt-get -q update >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends \
		"${missing[@]}" >/dev/null
}
