#!/usr/bin/env python3
"""Time from starting a binary on a pseudo-terminal (100x30) to the prompt
text in its output, without tmux: the parent reads the terminal's output as
it comes (no polling), so the resolution is the scheduler's. Runs of the
binaries alternate; prints the median and quartiles of each, in ms.

Usage: bench/firstframe_pty.py RUNS URL BINARY...
  (URL: the scripted server's, as bench/firstframe.sh starts it)
"""
import fcntl, os, select, statistics, struct, subprocess, sys, tempfile, termios, time

PROMPT = b"sk about this repository"  # the "A" may stand apart, under a drawn cursor


def once(binary, url, work):
    master, slave = os.openpty()
    # The size is set before the program starts, as a terminal's is.
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    env = dict(os.environ, TERM="xterm-256color", XDG_DATA_HOME=work + "/data", XDG_CONFIG_HOME=work + "/config")
    start = time.perf_counter_ns()
    proc = subprocess.Popen([binary, "--base-url", url, "--model", "scripted"], cwd=work, env=env,
                            stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
    os.close(slave)
    fd = master
    seen, took = b"", None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 0.5)
        if not r:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        seen = seen[-64:] + chunk
        if PROMPT in seen:
            took = time.perf_counter_ns() - start
            break
    proc.kill()
    proc.wait()
    os.close(fd)
    if took is None:
        sys.exit("no prompt from %s after 10 s" % binary)
    return took / 1e6


def main():
    runs, url, bins = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    times = {b: [] for b in bins}
    with tempfile.TemporaryDirectory() as top:
        # A directory each: a newer binary's schema is refused by an older one.
        works = {b: os.path.join(top, str(i)) for i, b in enumerate(bins)}
        for b in bins:
            os.mkdir(works[b])
            once(b, url, works[b])  # warm the page cache
        for _ in range(runs):
            for b in bins:
                times[b].append(once(b, url, works[b]))
    for b in bins:
        q = statistics.quantiles(times[b], n=4)
        print("%s: first frame %.1f ms (median of %d; quartiles %.1f-%.1f)" % (b, q[1], runs, q[0], q[2]))


main()
