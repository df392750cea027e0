#!/usr/bin/env python3
"""Paired, interleaved timing of commands: after WARMUP rounds, RUNS rounds
in which every command runs once, in turn (A B A B ...), so that a change of
the machine's load falls on all of them alike. For each command: the median
wall time, CPU time (user + system) and minor page faults (os.wait4's
rusage of the child), and, against the first command, the medians of the
ratios of wall time and of CPU time round by round (with --differences,
for each pair of commands in order, 1 and 2, 3 and 4..., the medians of the
second's wall and CPU time less the first's, round by round; with --means,
each command's mean wall and CPU time too: a cost that falls on some rounds
only, such as a checkpoint of the session database every few runs, moves
the mean and not the median). --prepare, once per
command and in their order, is run before each run of that command, and
not timed (a reset of what the run changed); --name, likewise, labels the
commands in the report.

Usage: bench/paired.py [-r RUNS] [-w WARMUP] [-d DIR] [-D] [-m] [-p PREP -p PREP ...] [-n NAME -n NAME ...] 'CMD A' 'CMD B' ...
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
    p.add_argument("-p", "--prepare", action="append", default=[])
    p.add_argument("-n", "--name", action="append", default=[])
    p.add_argument("-D", "--differences", action="store_true")
    p.add_argument("-m", "--means", action="store_true")
    p.add_argument("commands", nargs="+")
    a = p.parse_args()
    for opt in (a.prepare, a.name):
        if opt and len(opt) != len(a.commands):
            p.error("give --prepare and --name once per command, or not at all")
    if a.differences and len(a.commands) % 2:
        p.error("--differences takes the commands in pairs")
    argvs = [shlex.split(c) for c in a.commands]
    argvs = [[os.path.abspath(v[0]) if os.sep in v[0] else v[0]] + v[1:] for v in argvs]
    preps = [shlex.split(c) for c in a.prepare]
    os.chdir(a.dir)

    def once(i):
        if preps:
            run(preps[i])
        return run(argvs[i])
    for _ in range(a.warmup):
        for i in range(len(argvs)):
            once(i)
    res = [[] for _ in argvs]
    for _ in range(a.runs):
        for i in range(len(argvs)):
            res[i].append(once(i))
    med = statistics.median
    for i, c in enumerate(a.name or a.commands):
        wall = [r[0] for r in res[i]]
        line = (f"{c[:70]:70s} wall {med(wall):6.2f} ms  cpu {med(r[1] for r in res[i]):6.2f} ms"
                f"  minor faults {med(r[2] for r in res[i]):7.0f}")
        if a.means:
            line += f"  mean wall {statistics.fmean(wall):6.2f} ms  cpu {statistics.fmean(r[1] for r in res[i]):6.2f} ms"
        if i > 0:
            line += (f"  ratio to the first: wall {med(w / r[0] for w, r in zip(wall, res[0])):.2f},"
                     f" cpu {med(r[1] / f[1] for r, f in zip(res[i], res[0])):.2f}")
        print(line)
    if a.differences:
        names = a.name or a.commands
        for i in range(0, len(argvs) - 1, 2):
            wall = med(r[0] - f[0] for r, f in zip(res[i + 1], res[i]))
            cpu = med(r[1] - f[1] for r, f in zip(res[i + 1], res[i]))
            print(f"{names[i + 1][:40]} less {names[i][:40]}: wall {wall:+6.2f} ms, cpu {cpu:+6.2f} ms (medians of the rounds' differences)")


if __name__ == "__main__":
    main()
