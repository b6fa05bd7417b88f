#!/bin/sh
# tools/mkiso.sh ISODIR OUT.iso: the hybrid boot image, built the way
# distribution ISOs are.  grub-mkrescue makes GRUB's BIOS El Torito image
# and UEFI FAT image; the ISO is then mastered again with xorriso so that
#   - the MBR holds an ACTIVE partition 1 (type 0xcd) covering the ISO
#     filesystem, for legacy BIOSes and CSMs that boot a USB disk only
#     from an active partition (grub-mkrescue leaves a single, inactive
#     0xee protective entry), with GRUB's boot_hybrid.img as boot code;
#   - the EFI system partition is appended as MBR partition 2 (type 0xef),
#     which UEFI firmware boots from a stick, and is also the El Torito
#     UEFI image for a CD.
# tests/host/test_mkiso.sh checks the result with xorriso's report.
set -eu
dir=$1 out=$2
tmp=$out.tmp.d
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
grub-mkrescue -o "$tmp/rescue.iso" "$dir" 2> "$tmp/log" || { cat "$tmp/log" >&2; exit 1; }
xorriso -osirrox on -indev "$tmp/rescue.iso" -extract / "$tmp/tree" 2> "$tmp/log" ||
	{ cat "$tmp/log" >&2; exit 1; }
chmod -R u+w "$tmp/tree"
mv "$tmp/tree/efi.img" "$tmp/efi.img"
mbr=/usr/lib/grub/i386-pc/boot_hybrid.img
xorriso -as mkisofs -r -V RCUKERN \
	--grub2-mbr "$mbr" -partition_offset 16 --mbr-force-bootable \
	-append_partition 2 0xef "$tmp/efi.img" \
	-c boot.catalog \
	-b boot/grub/i386-pc/eltorito.img -no-emul-boot -boot-load-size 4 \
	-boot-info-table --grub2-boot-info \
	-eltorito-alt-boot -e --interval:appended_partition_2:all:: -no-emul-boot \
	-o "$out" "$tmp/tree" 2> "$tmp/log" || { cat "$tmp/log" >&2; exit 1; }
