#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel.sh NAME - configure (merge_config.sh onto allnoconfig) and build the
# kernel NAME (vanilla, patched or debug) in build/out/NAME. A requested
# option missing from the final .config is an error; rebuilds are incremental.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=${1:?usage: kernel.sh vanilla|patched|debug}
src=$(kernel_src "$name")
# Debian's config is fetched (once) before its fragments are read.
case "$name" in distro|distro-*|vanilla-distro*) bash "$TOP/scripts/distro-config.sh" ;; esac
read -r -a frags <<<"$(kernel_fragments "$name") ${EXTRA_CONFIG:-}"
out=$OUT/$name
mkdir -p "$out" "$LOGS"

for f in "${frags[@]}"; do [ -r "$f" ] || die "config fragment $f not found"; done

# One build per output directory at a time: a second caller waits.
exec 9>"$out.lock"
flock -n 9 || { info WAIT "another build of $name is running"; flock 9; }

# 1. Configure into a scratch dir; only replace .config when it changes so
#    that an unchanged configuration never triggers a rebuild.
cfgdir=$out/.cfg
rm -rf "$cfgdir"; mkdir -p "$cfgdir"
(cd "$src" && scripts/kconfig/merge_config.sh -n -O "$cfgdir" "${frags[@]}") \
	>"$LOGS/config-$name.log" 2>&1 ||
	die "merge_config.sh failed for $name; see $LOGS/config-$name.log"

# Every requested value must have survived (a dependency may have dropped it).
# A later fragment overrides an earlier one, as in merge_config.sh. Only the
# repository's fragments (configs/) are requests: Debian's config is a base,
# whose values the dropped modules and our fragments may change.
declare -A want from
order=()
for f in "${frags[@]}"; do
	case "$f" in "$TOP"/configs/*) ;; *) continue ;; esac
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) opt=${line%%=*} ;;
		"# CONFIG_"*" is not set") opt=${line#\# }; opt=${opt%% *} ;;
		*) continue ;;
		esac
		[ -n "${want[$opt]+set}" ] || order+=("$opt")
		want[$opt]=$line
		from[$opt]=$(basename "$f")
	done <"$f"
done
bad=0
for opt in "${order[@]}"; do
	line=${want[$opt]}
	got=$(grep -E "^($opt=|# $opt is not set)" "$cfgdir/.config" || true)
	if [ "$line" = "# $opt is not set" ]; then
		[ -z "$got" ] || [ "$got" = "$line" ] && continue
	elif [ "$got" = "$line" ]; then
		continue
	fi
	echo "error: ${from[$opt]}: requested '$line', final .config has '${got:-nothing}'" >&2
	bad=1
done
[ "$bad" = 0 ] || die "kernel $name: requested options missing from .config (dependencies unmet?)"

if ! cmp -s "$cfgdir/.config" "$out/.config"; then
	cp "$cfgdir/.config" "$out/.config"
	info CONFIG "$name: new configuration"
fi
rm -rf "$cfgdir"

# 2. Build.
cc=${CROSS_COMPILE}gcc
command -v ccache >/dev/null && cc="ccache $cc"
export CCACHE_BASEDIR=$BUILD KBUILD_BUILD_TIMESTAMP='1970-01-01' \
	KBUILD_BUILD_USER=harness KBUILD_BUILD_HOST=harness
info BUILD "$name ($out)"
start=$(date +%s)
# KERNEL_TARGETS: what to build (bench/preempt_models.sh asks for
# modules_prepare only: it compiles one module against the tree)
read -r -a targets <<<"${KERNEL_TARGETS:-Image modules}"
if ! make -C "$src" O="$out" CC="$cc" -j"$(nproc_build)" olddefconfig "${targets[@]}" \
	>"$LOGS/build-$name.log" 2>&1; then
	grep -E 'error|Error' "$LOGS/build-$name.log" | head -20 >&2
	die "build of $name failed; see $LOGS/build-$name.log"
fi
if [ -n "${KERNEL_TARGETS:-}" ]; then
	info BUILT "$name in $(($(date +%s) - start)) s: $out ($KERNEL_TARGETS)"
	exit 0
fi

# 3. Test modules that are not part of the series (tests/modules/NAME/,
#    e.g. make soak's percpu_soak, and the this_cpu op microbenchmark
#    bench/this_cpu_ops), built against this kernel in $out/extmod/NAME/;
#    the harness ships them to the guest.
for m in "$TOP"/tests/modules/*/ "$TOP"/bench/this_cpu_ops/; do
	[ -f "$m/Kbuild" ] || continue
	mod=$(basename "$m")
	ext=$out/extmod/$mod
	mkdir -p "$ext"
	# copy only what changed, so that make sees unchanged sources as such
	for f in "$m"/*; do cmp -s "$f" "$ext/${f##*/}" || cp "$f" "$ext/"; done
	if ! make -C "$src" O="$out" CC="$cc" M="$ext" modules >"$LOGS/build-$name-$mod.log" 2>&1; then
		grep -E 'error|warning' "$LOGS/build-$name-$mod.log" | head -20 >&2
		die "test module $mod failed to build against $name; see $LOGS/build-$name-$mod.log"
	fi
	if grep -q 'warning:' "$LOGS/build-$name-$mod.log"; then
		grep 'warning:' "$LOGS/build-$name-$mod.log" | head -5 >&2
		die "test module $mod builds with warnings against $name; see $LOGS/build-$name-$mod.log"
	fi
done
info BUILT "$name in $(($(date +%s) - start)) s: $out/arch/arm64/boot/Image"
