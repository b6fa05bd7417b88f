#!/usr/bin/env bash
# tools/deps.sh: install the Debian packages rcukern needs, when missing.
# Used by run.sh, `make test` and .ci/run; safe to run again (quick when
# everything is there).  Needs root or sudo for apt-get.
#   tools/deps.sh --peer   also what `make peer` needs to build Linux 6.1
#                          (Debian's linux-source-6.1 and the kernel build's tools)
set -euo pipefail

# package:command-or-file that shows it is installed
NEEDS=(
	"gcc:gcc"
	"make:make"
	"binutils:ld"
	"nasm:nasm"
	"qemu-system-x86:qemu-system-x86_64"
	"grub-common:grub-mkrescue"
	"grub-pc-bin:/usr/lib/grub/i386-pc/modinfo.sh"
	"grub-efi-amd64-bin:/usr/lib/grub/x86_64-efi/modinfo.sh"
	"xorriso:xorriso"
	"mtools:mformat"
	"ovmf:/usr/share/ovmf/OVMF.fd"
	"python3:python3"
	"gnuplot-nox:gnuplot"
	"spin:spin"
	"clang:clang"
)
if [[ ${1:-} == --peer ]]; then
	NEEDS+=(
		"linux-source-6.1:/usr/src/linux-source-6.1.tar.xz"
		"flex:flex"
		"bison:bison"
		"bc:bc"
		"libelf-dev:/usr/include/libelf.h"
		"xz-utils:xz"
		"cpio:cpio"
	)
fi

missing=()
for entry in "${NEEDS[@]}"; do
	pkg=${entry%%:*}
	probe=${entry#*:}
	if [[ $probe == /* ]]; then
		[[ -e $probe ]] || missing+=("$pkg")
	else
		command -v "$probe" >/dev/null 2>&1 || missing+=("$pkg")
	fi
done

[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "deps: installing ${missing[*]}" >&2
SUDO=
[[ $(id -u) -ne 0 ]] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
