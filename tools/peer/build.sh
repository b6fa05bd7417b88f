#!/usr/bin/env bash
# tools/peer/build.sh: `make peer`, the Linux 6.1 peer that `make bench` runs
# beside rcukern in the same QEMU.  Debian's linux-source-6.1 is unpacked
# into build/peer/src and built twice, out of tree: tinyconfig plus
# tools/peer/peer.config, once with PREEMPT_NONE (build/peer/bzImage-none)
# and once with PREEMPT (build/peer/bzImage-preempt), each with a built-in
# initramfs whose /init only sleeps (refscale and rcuscale are built in and
# power off when done).  Builds with `nice -n 10 make -j2` (JOBS=N to change).
#
# MODELS="none preempt" by default.  MODELS=none-slub builds a third image,
# build/peer/bzImage-none-slub: PREEMPT_NONE with SLUB instead of
# tinyconfig's SLOB, whose one global lock dominates the peer's per-object
# kfree_rcu() figure (rcuscale.kfree_rcu_test); the other images are left
# alone.  A model's "-slub" suffix selects SLUB, the rest is the preemption.
set -euo pipefail

cd "$(dirname "$0")/../.."
out=build/peer
tarball=/usr/src/linux-source-6.1.tar.xz
jobs=${JOBS:-2}
if [[ ! -f $tarball ]]; then
	echo "peer: $tarball missing; install it with: tools/deps.sh --peer" >&2
	exit 1
fi
mkdir -p "$out"
src=$out/src
if [[ ! -f $src/.unpacked ]]; then
	echo "peer: unpacking $tarball"
	rm -rf "$src"
	mkdir -p "$src"
	nice -n 10 tar xJf "$tarball" -C "$src" --strip-components=1
	touch "$src/.unpacked"
fi

# /init and the initramfs list (the kernel's own gen_init_cpio packs it).
gcc -nostdlib -static -Wl,--build-id=none -o "$out/init" tools/peer/init.S
cat > "$out/initramfs.list" <<LIST
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
file /init $(realpath "$out/init") 0755 0 0
LIST

for model in ${MODELS:-none preempt}; do
	preempt=${model%-slub}
	extra=()
	[[ $model == *-slub ]] && extra=(CONFIG_SLUB=y)
	obj=$(realpath -m "$out/obj-$model")
	mkdir -p "$obj"
	kmake=(nice -n 10 make -s -C "$src" O="$obj" ARCH=x86_64 -j"$jobs")
	if [[ ! -f $obj/.config.peer ]] || ! cmp -s "$obj/.config.peer" \
		<(cat tools/peer/peer.config; echo "model=$model"); then
		echo "peer: configuring $model"
		"${kmake[@]}" tinyconfig >/dev/null
		cfg=(--file "$obj/.config")
		while IFS='=' read -r key val; do
			[[ $key == CONFIG_* ]] || continue
			case $val in
			y)
				"$src/scripts/config" "${cfg[@]}" --enable "${key#CONFIG_}" ;;
			*) "$src/scripts/config" "${cfg[@]}" --set-val "${key#CONFIG_}" "$val" ;;
			esac
		done < tools/peer/peer.config
		for hz in 100 250 300; do
			"$src/scripts/config" "${cfg[@]}" --disable "HZ_$hz"
		done
		"$src/scripts/config" "${cfg[@]}" --disable PREEMPT_VOLUNTARY --disable PREEMPT_DYNAMIC
		if [[ $model == *-slub ]]; then
			"$src/scripts/config" "${cfg[@]}" --disable SLOB --disable SLAB --enable SLUB
		fi
		if [[ $preempt == none ]]; then
			"$src/scripts/config" "${cfg[@]}" --enable PREEMPT_NONE --disable PREEMPT
		else
			"$src/scripts/config" "${cfg[@]}" --disable PREEMPT_NONE --enable PREEMPT
		fi
		"$src/scripts/config" "${cfg[@]}" --set-str INITRAMFS_SOURCE \
			"$(realpath "$out/initramfs.list")"
		"${kmake[@]}" olddefconfig >/dev/null
		# Kconfig drops what it cannot satisfy: check everything asked for.
		bad=0
		while IFS= read -r line; do
			[[ $line == CONFIG_* ]] || continue
			grep -qx "$line" "$obj/.config" || { echo "peer: $model: $line did not stick" >&2; bad=1; }
		done < <(cat tools/peer/peer.config
			 printf '%s\n' "${extra[@]}"
			 [[ $preempt == none ]] && echo CONFIG_PREEMPT_NONE=y || echo CONFIG_PREEMPT=y)
		[[ $bad == 0 ]] || exit 1
		{ cat tools/peer/peer.config; echo "model=$model"; } > "$obj/.config.peer"
	fi
	echo "peer: building $model (nice -n 10 make -j$jobs)"
	"${kmake[@]}" bzImage
	cp "$obj/arch/x86/boot/bzImage" "$out/bzImage-$model"
	cp "$obj/.config" "$out/config-$model"
done
echo "peer: built" ${MODELS:-none preempt} "in $out/bzImage-*"
