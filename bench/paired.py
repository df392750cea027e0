#!/usr/bin/env python3
"""Paired, interleaved timing of commands: after WARMUP rounds, RUNS rounds
in which every command runs once, in turn (A B A B ...), so that a change of
the machine's load falls on all of them alike. For each command: the median
wall time, CPU time (user + system) and minor page faults (os.wait4's
rusage of the child), and, against the first command, the median of the
ratios of wall time round by round.

Usage: bench/paired.py [-r RUNS] [-w WARMUP] [-d DIR] 'CMD A' 'CMD B' ...
Each command is split like a shell would split it (shlex) and started with
posix_spawn in DIR (the current directory unless given; a program named by
a relative path is found from the current directory), with stdin, stdout
and stderr on /dev/null.
"""
import argparse
import os
import shlex
import statistics
import time


def run(argv):
    # posix_spawn, not fork: this interpreter's fork would be timed too.
    null = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    start = time.perf_counter_ns()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=null)
    _, status, ru = os.wait4(pid, 0)
    wall = (time.perf_counter_ns() - start) / 1e6
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{shlex.join(argv)} exited with {os.waitstatus_to_exitcode(status)}")
    return wall, (ru.ru_utime + ru.ru_stime) * 1000, ru.ru_minflt


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-r", "--runs", type=int, default=40)
    p.add_argument("-w", "--warmup", type=int, default=5)
    p.add_argument("-d", "--dir", default=".")
    p.add_argument("commands", nargs="+")
    a = p.parse_args()
    argvs = [shlex.split(c) for c in a.commands]
    argvs = [[os.path.abspath(v[0]) if os.sep in v[0] else v[0]] + v[1:] for v in argvs]
    os.chdir(a.dir)
    for _ in range(a.warmup):
        for argv in argvs:
            run(argv)
    res = [[] for _ in argvs]
    for _ in range(a.runs):
        for i, argv in enumerate(argvs):
            res[i].append(run(argv))
    med = statistics.median
    for i, c in enumerate(a.commands):
        wall = [r[0] for r in res[i]]
        line = (f"{c[:70]:70s} wall {med(wall):6.2f} ms  cpu {med(r[1] for r in res[i]):6.2f} ms"
                f"  minor faults {med(r[2] for r in res[i]):7.0f}")
        if i > 0:
            line += f"  ratio to the first {med(w / r[0] for w, r in zip(wall, res[0])):.2f}"
        print(line)


if __name__ == "__main__":
    main()
