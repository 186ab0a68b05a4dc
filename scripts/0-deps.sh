#!/bin/bash
# Step 0: install the Debian packages the harness needs (idempotent).
. "$(dirname "$0")/lib.sh"

pkgs=(
	build-essential bc bison flex libelf-dev libssl-dev cpio gzip xz-utils
	kmod rsync python3 python3-ply python3-git git ccache perl
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	qemu-system-x86 qemu-system-arm
	curl dpkg-dev gnuplot-nox
	shellcheck pyflakes3 mypy
)
apt_install deps "${pkgs[@]}"
log "deps: ok"
