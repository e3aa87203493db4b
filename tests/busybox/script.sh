# tests/busybox/script.sh -- run by Debian's busybox sh on Pagoda and on
# Linux (tests/busybox/compare.sh); the outputs must match line for line,
# except the lines marked "MASK" (pids, sizes, times, kernel names) whose
# values differ between kernels: only their shape is compared.
echo start
echo hello pagoda world | wc -w
printf 'b\na\nc\n' | sort
printf 'x1\ny2\nx3\n' | grep x | sed s/x/z/
seq 5 | tail -2
seq 5 | head -n 1
echo abcdef | cut -c 2-4
env -i FOO=bar env
sleep 0 && echo slept
true && echo true-ok || echo true-bad
false || echo false-ok
sh -c 'exit 3'; echo status=$?
# ash prints "Terminated" only if its wait builtin reaps the job, not when a
# SIGCHLD before it did (a scheduling race on either kernel): stderr muted
sleep 10 & kill $!; wait $! 2>/dev/null; echo killed=$?
echo MASK uname $(uname -s)
grep -c '^MemTotal:' /proc/meminfo
grep '^VmRSS:' /proc/self/status | wc -l
ls /proc/self | grep -c '^status$'
cat /proc/self/cmdline | tr '\0' ' '; echo
echo MASK pid $(cat /proc/self/stat | cut -d' ' -f1)
ps | head -1
free | head -1
top -n 1 -b | grep -c '^Load average'
cat /proc/loadavg | wc -w
cat /proc/uptime | wc -w
echo MASK self $(readlink /proc/self)
echo done
