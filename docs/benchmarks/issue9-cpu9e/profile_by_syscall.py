#!/usr/bin/env python3
"""profile_by_syscall.py PERF_DATA: a node's perf samples (bench/run.sh EFF_PROFILE=1) by where they were
spent: the system call on the stack (writev, recvfrom, write...), else the user-space library of the leaf
(BoringSSL in tcnative, libc, libjvm with its thread, JIT-compiled Java), else kernel work outside any call."""
import collections
import re
import subprocess
import sys

out = subprocess.run(["perf", "script", "-i", sys.argv[1]], capture_output=True, text=True).stdout
samples, cur = [], None
for line in out.split("\n"):
    if not line.strip():
        if cur is not None:
            samples.append(cur)
        cur = None
    elif not line[0].isspace():
        cur = [line.split()[0]]  # the thread's name
    elif cur is not None:
        m = re.match(r"\s*[0-9a-f]+ (.*?)(\+0x[0-9a-f]+)? \((.*)\)$", line)
        if m:
            cur.append((m.group(1), m.group(3).split("/")[-1]))
if cur is not None:
    samples.append(cur)
where = collections.Counter()
for s in samples:
    thread, frames = s[0], s[1:]
    key = next((sym for sym, _ in frames if "__x64_sys_" in sym or sym in ("do_writev", "ksys_write")), None)
    if key is None and any(sym == "do_syscall_64" for sym, _ in frames):
        key = "other syscall"
    if key is None:
        sym, dso = frames[0] if frames else ("?", "?")
        key = ("kernel (no syscall: irq/softirq)" if "kallsyms" in dso else "tcnative" if "tcnative" in dso
               else "libjvm (" + thread + ")" if "libjvm" in dso else "libc " + sym[:30] if "libc" in dso
               else "JIT java" if dso.startswith("perf-") else dso)
    where[key] += 1
for key, n in where.most_common(25):
    print("%5.1f%% %s" % (100 * n / len(samples), key))
