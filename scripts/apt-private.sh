#!/bin/bash
# Run apt-get/apt-cache against a private state dir that knows the pinned
# base suite and the machine's own suite, both from the mirror the machine
# is already configured with. The system's package set never changes.
#   usage: apt-private.sh update | download PKG[:ARCH]=VER... | policy PKG... |
#          path | mirror
. "$(dirname "$0")/lib.sh"

# One state dir per pinned suite list: a backport base (another
# BASE_CONF, scripts/backport.sh) gets its own, so its update never
# rewrites the lists that the series' base and make check read.
APTDIR=${APT_PRIVATE_DIR:-$CACHE/apt}
mirror() {
	# First Debian archive URI in the machine's apt configuration (deb822
	# or one-line format), skipping the security archive.
	{
		cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
			awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' || true
		cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk '/^deb / { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) { print $i; break } }' || true
	} | grep -v -e security -e '^$' | grep '/debian/\?$' | head -n 1
}
own_suite() { . /etc/os-release; echo "$VERSION_CODENAME"; }

setup() {
	local m
	m=$(mirror)
	[ -n "$m" ] || die "no Debian mirror found in the machine's apt configuration"
	mkdir -p "$APTDIR"/state/lists/partial "$APTDIR"/cache/archives/partial "$APTDIR"/debs
	touch "$APTDIR"/status
	cat > "$APTDIR"/sources.list.new <<EOS
deb [signed-by=$BASE_SUITE_KEYRING] $m $BASE_SUITE main
deb [arch=amd64,arm64] $m $(own_suite) main
EOS
	mv "$APTDIR"/sources.list.new "$APTDIR"/sources.list
}

APT_OPTS=(
	-o "Dir::State=$APTDIR/state" -o "Dir::State::status=$APTDIR/status"
	-o "Dir::Cache=$APTDIR/cache" -o "Dir::Etc::SourceList=$APTDIR/sources.list"
	-o "Dir::Etc::SourceParts=/dev/null" -o "APT::Architecture=amd64"
	-o "APT::Architectures::=amd64" -o "APT::Architectures::=arm64"
	-o "APT::Sandbox::User=root" -o "Debug::NoLocking=1"
)

cmd=$1
shift
case $cmd in
update)
	setup
	apt-get -q "${APT_OPTS[@]}" update >&2
	;;
download)
	cd "$APTDIR"/debs
	apt-get -q "${APT_OPTS[@]}" download "$@" >&2
	;;
policy)
	apt-cache "${APT_OPTS[@]}" policy "$@"
	;;
path)
	echo "$APTDIR/debs"
	;;
mirror)
	mirror
	;;
*)
	die "usage: $0 update|download|policy|path|mirror"
	;;
esac
