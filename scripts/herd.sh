#!/bin/bash
# Print the path of a herd7 (herdtools7, with its AArch64 cat models) for
# scripts/herd-check.sh: the system's if it is the pinned upstream version,
# otherwise Debian's source package pinned in herd.conf, built once into the
# download cache (the tarballs are checked against their pinned sha256s,
# then by dpkg-source against the .dsc written from them, sizes too). Only herd7
# and herd/libdir are built and kept.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../herd.conf
. "$TOP/herd.conf"

# herd.sh --deps: only install what building it needs (if it must be
# built), so that the build itself can run in the background and be
# stopped without stopping apt half-way.
deps_only=0
[ "${1:-}" = --deps ] && deps_only=1
upstream=${HERD_VERSION%-*}
if command -v herd7 >/dev/null &&
	herd7 -version 2>/dev/null | grep -q "^$upstream,"; then
	[ $deps_only = 1 ] || command -v herd7
	exit 0
fi
dest=$CACHE/herdtools7-$HERD_VERSION
if [ ! -x "$dest/bin/herd7" ]; then
	# shellcheck disable=SC2086 # a list of package names
	apt_install herd $HERD_BUILD_DEPS
	[ $deps_only = 0 ] || exit 0
	m=$("$TOP"/scripts/apt-private.sh mirror)
	[ -n "$m" ] || die "no Debian mirror in the machine's apt configuration"
	w=$(mktemp -d)
	trap 'rm -rf "$w"' EXIT
	log "herd: building herd7 from Debian's herdtools7 $HERD_VERSION"
	for f in "$HERD_ORIG:$HERD_ORIG_SHA256" "$HERD_DEBIAN:$HERD_DEBIAN_SHA256"; do
		curl -fsS -o "$w/${f%%:*}" "${m%/}/$HERD_POOL/${f%%:*}"
		echo "${f#*:}  $w/${f%%:*}" | sha256sum -c --quiet ||
			die "herd: ${f%%:*} does not match the pinned sha256"
	done
	dsc=herdtools7_$HERD_VERSION.dsc
	cat >"$w/$dsc" <<EOD
Format: 3.0 (quilt)
Source: herdtools7
Version: $HERD_VERSION
Checksums-Sha256:
 $HERD_ORIG_SHA256 $HERD_ORIG_SIZE $HERD_ORIG
 $HERD_DEBIAN_SHA256 $HERD_DEBIAN_SIZE $HERD_DEBIAN
Files:
 $(md5sum <"$w/$HERD_ORIG" | cut -d' ' -f1) $HERD_ORIG_SIZE $HERD_ORIG
 $(md5sum <"$w/$HERD_DEBIAN" | cut -d' ' -f1) $HERD_DEBIAN_SIZE $HERD_DEBIAN
EOD
	(cd "$w" && dpkg-source -q -x "$dsc" src >"$w/x.log" 2>&1) ||
		{ cat "$w/x.log" >&2; die "herd: cannot unpack $dsc"; }
	# herdtools7 wants zarith >= 1.13; Debian 12 has 1.12, which lacks
	# the unsigned 64-bit conversions that lib/SVEScalar.ml (SVE
	# arithmetic, not used by our tests) calls. Supply them there.
	if ! grep -q of_int64_unsigned "$(ocamlc -where)/zarith/z.mli"; then
		sed -i '/^module BV = struct/i\
module Z = struct\
  include Z\
  let two64 = shift_left one 64\
  let of_int64_unsigned x =\
    if Int64.compare x 0L >= 0 then of_int64 x else add (of_int64 x) two64\
  let to_int64_unsigned z =\
    if sign z < 0 || numbits z > 64 then raise Overflow\
    else if numbits z < 64 then to_int64 z\
    else to_int64 (sub z two64)\
end\
' "$w/src/lib/SVEScalar.ml"
		grep -q 'let of_int64_unsigned' "$w/src/lib/SVEScalar.ml" ||
			die "herd: cannot add the zarith 1.12 compatibility shim"
	fi
	# herd7 looks for its models in <libdir>/herd, libdir compiled in.
	(cd "$w/src" && sh ./version-gen.sh "$dest" &&
		dune build -j "$JOBS" --profile release herd/herd.exe) >"$w/build.log" 2>&1 ||
		{ tail -n 20 "$w/build.log" >&2; die "herd: build failed"; }
	rm -rf "$dest.tmp"
	mkdir -p "$dest.tmp/bin" "$dest.tmp/share/herdtools7"
	cp "$w/src/_build/default/herd/herd.exe" "$dest.tmp/bin/herd7"
	cp -a "$w/src/herd/libdir" "$dest.tmp/share/herdtools7/herd"
	rm -rf "$dest" && mv "$dest.tmp" "$dest"
	log "herd: built $dest/bin/herd7"
fi
[ $deps_only = 0 ] || exit 0
"$dest/bin/herd7" -version >/dev/null 2>&1 || die "herd: $dest/bin/herd7 does not run"
echo "$dest/bin/herd7"
