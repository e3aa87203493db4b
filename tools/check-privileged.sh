#!/usr/bin/env bash
# tools/check-privileged.sh OBJDUMP OBJECT... -- fail when a kernel object
# outside the pv_ops backends contains a privileged instruction.
#
# "No privileged instruction outside arch/x86_64/ backends" (docs/pv-ops.md):
# in a PARAVIRT=1 build every cli/sti/hlt, CR access, TLB flush, MSR access
# and descriptor-table load goes through a pv_* wrapper, i.e. a patchable
# call site. Allowed: the backends (pv_native.o, pv_checked.o) and the
# assembly entry code (*.asm.o: boot, syscall/interrupt entry and exit).
# Prints each offending instruction with its function; exit 1 if any.
set -u
objdump=$1
shift
insns='cli|sti|hlt|lgdt|lidt|lldt|ltr|invlpg|invpcid|wrmsr|rdmsr|clts|wbinvd|lmsw'
cr='mov[lq]? +(%cr[0-9]+,|[^,]+,%cr[0-9]+)'
bad=0
for obj in "$@"; do
	case "$obj" in
	*.asm.o | */arch/x86_64/pv_native.o | */arch/x86_64/pv_checked.o) continue ;;
	esac
	hits=$("$objdump" -d --no-show-raw-insn "$obj" | awk -v re="^($insns)\$|^$cr" '
		/^[0-9a-f]+ <.*>:$/ { fn = $2 }
		/^ +[0-9a-f]+:\t/ {
			split($0, f, "\t"); insn = f[2]; sub(/ +$/, "", insn)
			split(insn, w, " ")
			if (w[1] ~ re || insn ~ re) print "  " fn " " insn
		}')
	if [ -n "$hits" ]; then
		echo "check-privileged: $obj has privileged instructions outside the pv_ops backends:"
		echo "$hits"
		bad=1
	fi
done
exit $bad
