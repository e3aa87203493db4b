#!/usr/bin/env bash
# tools/mkiso.sh KERNEL.elf INITRD.tar "CMDLINE" OUT.iso
# Build a GRUB (BIOS) ISO that boots the kernel at once with CMDLINE and the
# initrd as a multiboot2 module. Output on the serial port and the screen.
set -eu
kernel=$1 initrd=$2 cmdline=$3 out=$4
stage=$(mktemp -d) log=$(mktemp)   # the log must not sit inside the ISO tree
trap 'rm -rf "$stage" "$log"' EXIT
mkdir -p "$stage/boot/grub"
cp "$kernel" "$stage/boot/kernel.elf"
cp "$initrd" "$stage/boot/initrd.tar"
cat > "$stage/boot/grub/grub.cfg" <<CFG
set timeout=0
set default=0
serial --unit=0 --speed=115200
terminal_input serial console
terminal_output serial console
menuentry "Pagoda" {
	multiboot2 /boot/kernel.elf $cmdline
	module2 /boot/initrd.tar initrd
	boot
}
CFG
mkdir -p "$(dirname "$out")"
grub-mkrescue -o "$out.tmp" "$stage" >/dev/null 2>"$log" ||
	{ cat "$log" >&2; exit 1; }
mv "$out.tmp" "$out"
