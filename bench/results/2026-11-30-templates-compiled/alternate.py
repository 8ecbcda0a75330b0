#!/usr/bin/env python3
"""Alternating rounds of NAME=COMMAND pairs: wall time (fork/exec/wait) and child CPU (rusage).

    alternate.py ROUNDS WARMUP NAME='cmd args' NAME='cmd args' ...   > raw.csv   (summary on stderr)
Commands are split on spaces (no shell); stdout/stderr go to /dev/null; a non-zero exit aborts.
"""
import os, statistics, sys, time

rounds, warmup = int(sys.argv[1]), int(sys.argv[2])
cmds = [(a.split("=", 1)[0], a.split("=", 1)[1].split()) for a in sys.argv[3:]]
rows = {n: [] for n, _ in cmds}
print("round,name,wall_s,cpu_s")
for r in range(warmup + rounds):
    for name, argv in cmds:
        t0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.execv(argv[0], argv)
        _, status, ru = os.wait4(pid, 0)
        wall = time.perf_counter() - t0
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"{name} exited {os.waitstatus_to_exitcode(status)}")
        if r >= warmup:
            cpu = ru.ru_utime + ru.ru_stime
            rows[name].append((wall, cpu))
            print(f"{r - warmup},{name},{wall:.4f},{cpu:.4f}")
base = cmds[0][0]
for name, _ in cmds:
    w = statistics.median(x[0] for x in rows[name])
    c = statistics.median(x[1] for x in rows[name])
    ratios_w = [a[0] / b[0] for a, b in zip(rows[name], rows[base])]
    ratios_c = [a[1] / b[1] for a, b in zip(rows[name], rows[base])]
    print(f"{name}: median wall {w*1000:.1f} ms, CPU {c*1000:.1f} ms; per-round ratio to {base}: "
          f"wall {statistics.median(ratios_w):.3f}, CPU {statistics.median(ratios_c):.3f}", file=sys.stderr)
