#!/usr/bin/env bash
# tools/debug.sh [--batch SCRIPT] [--console] [--name NAME] [--build DIR] [--timeout SECS]
#                 [--disk IMG] ISO MEM [PROG]
#
# Boot ISO in QEMU, stopped at the first instruction with its gdbstub on a
# Unix socket of its own, and attach gdb with the kernel's symbols
# (DIR/kernel.elf) and the Pagoda helpers (tools/gdb/gdbinit). With PROG, also
# load the symbols of the user program DIR/rootfs/bin/PROG at its link address.
#
#   interactive (make debug):  gdb runs in this terminal; the kernel's serial
#                              console is on the Unix socket
#                              DIR/debug-console.sock: `make console`
#                              (tools/console.py) in a second terminal types
#                              into it; everything the kernel prints is also
#                              kept in DIR/debug-serial.log (pg-log shows it)
#   --batch SCRIPT:            gdb -batch -x SCRIPT (the gdb tests); gdb's
#                              exit status is ours; SECS bounds the whole run;
#                              logs DIR/test/NAME-serial.log and -qemu.log
#                              (NAME: default gdb-SCRIPT's base name);
#                              --console puts the console on a socket as in
#                              the interactive mode (DIR/test/NAME-console.sock,
#                              in $PAGODA_CONSOLE for the script)
#
# --disk IMG attaches the raw image IMG as the first virtio disk (vda).
#
# The gdbstub listens on a Unix socket in a fresh private directory (mktemp),
# never on a TCP port: runs started at the same time (make test in several
# worktrees) cannot pick the same port and attach to each other's QEMU.
# QEMU runs in its own session, so Ctrl-C in gdb interrupts the guest instead
# of killing QEMU; it is killed when gdb exits, however gdb exits.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
batch="" name="" build=build timeout_s=600 console="" disk_args=()
while [ $# -gt 0 ]; do
	case $1 in
	--batch) batch=$2; shift 2 ;;
	--console) console=yes; shift ;;
	--name) name=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--disk) disk_args=(-drive "file=$2,if=none,format=raw,id=vda" -device "virtio-blk-pci,drive=vda"); shift 2 ;;
	-*) echo "debug.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || { sed -n '2,4p' "$0" >&2; exit 2; }
iso=$1 mem=$2 prog=${3:-}
kernel=$build/kernel.elf
for f in "$iso" "$kernel"; do
	[ -f "$f" ] || { echo "debug.sh: $f not found (run make first)" >&2; exit 1; }
done
iso=$(realpath "$iso") kernel=$(realpath "$kernel") build=$(realpath "$build")

gdb_args=(-q -nx -x "$root/tools/gdb/gdbinit" -ex "file $kernel")
if [ -n "$prog" ]; then
	user_elf=$build/rootfs/bin/$prog
	[ -f "$user_elf" ] || { echo "debug.sh: no user program $user_elf" >&2; exit 1; }
	# With no address, gdb places each section at its ELF link address.
	# (confirm off: add-symbol-file would ask "(y or n)" first.)
	gdb_args+=(-ex "set confirm off" -ex "add-symbol-file $user_elf" -ex "set confirm on")
fi

logs=$build/debug          # serial console and QEMU messages
[ -z "$batch" ] || logs=$build/test/${name:-gdb-$(basename "$batch" .py)}
serial=$logs-serial.log
mkdir -p "$(dirname "$serial")"
: > "$serial"
# The console: a socket that make console attaches to (QEMU listens, does not
# wait for it, and keeps logging to the file); in batch mode a plain file.
serial_args=(-serial "file:$serial")
if [ -z "$batch" ] || [ -n "$console" ]; then
	console=$logs-console.sock
	rm -f "$console"
	serial_args=(-chardev "socket,id=console,path=$console,server=on,wait=off,logfile=$serial"
		-serial chardev:console)
fi
sockdir=$(mktemp -d "${TMPDIR:-/tmp}/pagoda-debug.XXXXXX")
sock=$sockdir/gdb.sock
setsid "$root/tools/qemu.sh" -m "$mem" -cdrom "$iso" -display none -monitor none \
	"${disk_args[@]}" "${serial_args[@]}" -S -gdb "unix:$sock,server=on,wait=off" </dev/null 2>"$logs-qemu.log" &
qemu_pid=$!
stop_qemu() {
	if kill "$qemu_pid" 2>/dev/null; then
		wait "$qemu_pid" 2>/dev/null || true
	elif [ -s "$logs-qemu.log" ]; then   # QEMU died on its own: say why
		echo "debug.sh: QEMU exited:" >&2
		cat "$logs-qemu.log" >&2
	fi
	rm -rf "$sockdir"
	[ -z "$console" ] || rm -f "$console"
}
trap stop_qemu EXIT

# gdb does not retry a Unix socket: wait (10 s at most) until QEMU listens.
for _ in $(seq 100); do
	[ -S "$sock" ] || ! kill -0 "$qemu_pid" 2>/dev/null && break
	sleep 0.1
done
[ -S "$sock" ] || { echo "debug.sh: QEMU's gdbstub socket $sock did not appear" >&2; exit 1; }

export PAGODA_SERIAL_LOG=$serial PAGODA_CONSOLE=$console
gdb_args+=(-ex "target remote $sock")
cd "$root"
if [ -n "$batch" ]; then
	timeout -k 5 "$timeout_s" gdb -batch "${gdb_args[@]}" -x "$batch"
else
	echo "debug.sh: QEMU pid $qemu_pid, gdbstub $sock"
	echo "debug.sh: serial console on $console: \`make console\` in another terminal types into it (log $serial)"
	gdb "${gdb_args[@]}" -ex "pg-hello"
fi
