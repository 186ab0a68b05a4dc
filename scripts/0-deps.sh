#!/bin/bash
# Step 0: install the Debian packages the harness needs (idempotent).
. "$(dirname "$0")/lib.sh"

pkgs=(
	build-essential bc bison flex libelf-dev libssl-dev cpio gzip xz-utils
	kmod rsync python3 python3-ply python3-git git ccache perl
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	qemu-system-x86 qemu-system-arm
	curl dpkg-dev gnuplot-nox
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "need root to install: ${missing[*]}"
	log "deps: installing ${missing[*]}"
	apt-get -q update >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends \
		"${missing[@]}" >/dev/null
fi
log "deps: ok"
