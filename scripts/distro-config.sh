#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# distro-config.sh - Debian's own arm64 kernel config for the installed
# linux-source-6.12, as build/distro/debian.config: the package
# linux-config-6.12 (arm64) is unpacked with mmdebstrap --variant=extract
# (nothing is installed on the host), config.arm64_none_arm64 taken from it,
# and its modules (=m) dropped, as the guest loads none of them: what the
# guest needs is built in by configs/distro.config. Idempotent.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DISTRO=$BUILD/distro
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SECURITY=${SECURITY_MIRROR:-http://deb.debian.org/debian-security}
out=$DISTRO/debian.config
src_version=$(dpkg-query -W -f='${Version}' "$SRCPKG" 2>/dev/null) ||
	die "$SRCPKG is not installed (make deps)"
key="$src_version $MIRROR $SECURITY $(sha1sum <"$0" | cut -c1-12)"
if [ -f "$out" ] && [ "$(cat "$DISTRO/debian.key" 2>/dev/null)" = "$key" ]; then
	exit 0
fi
mkdir -p "$DISTRO" "$LOGS"

root=$DISTRO/root
info DISTRO "linux-config-6.12 (arm64) for $SRCPKG $src_version"
rm -rf "$root"
mmdebstrap --variant=extract --architectures=arm64 --include=linux-config-6.12 \
	--mode=root bookworm "$root" \
	"deb $MIRROR bookworm main" "deb $SECURITY bookworm-security main" \
	>"$LOGS/mmdebstrap-distro.log" 2>&1 ||
	die "mmdebstrap of linux-config-6.12 failed; see $LOGS/mmdebstrap-distro.log"
xz=$root/usr/src/linux-config-6.12/config.arm64_none_arm64.xz
[ -r "$xz" ] || die "linux-config-6.12 has no config.arm64_none_arm64.xz (looked in $xz)"
cfg_version=$(zcat -f "$root/usr/share/doc/linux-config-6.12/changelog.Debian.gz" 2>/dev/null |
	sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p')
if [ "$cfg_version" != "$src_version" ]; then
	echo "warning: Debian's archive has linux-config-6.12 $cfg_version, the source is $src_version;" \
		"using its config anyway" >&2
fi

xz -dc "$xz" >"$DISTRO/config.arm64"
grep -q '^CONFIG_ARM64=y' "$DISTRO/config.arm64" || die "$xz is not an arm64 config"
# Modules off: "CONFIG_FOO=m" becomes "# CONFIG_FOO is not set".
sed -E 's/^(CONFIG_[A-Za-z0-9_]+)=m$/# \1 is not set/' "$DISTRO/config.arm64" >"$out.tmp"
{
	echo "# Debian linux-config-6.12 $cfg_version config.arm64_none_arm64, modules dropped"
	cat "$out.tmp"
} >"$out"
rm -f "$out.tmp"
echo "$key" >"$DISTRO/debian.key"
info DISTRO "$out: $(grep -c '=y$' "$out") built in, $(grep -c '=m$' "$DISTRO/config.arm64") modules dropped"
