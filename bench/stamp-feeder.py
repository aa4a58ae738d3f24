#!/usr/bin/env python3
"""The "adapter" of serial-timestamp-accuracy.sh: a pty pair held open for
the whole bench, its slave end linked at LINK for the readers (orch,
grabserial). For each path read from CMD_FIFO it writes LINES lines
("FEED n") to the master end at INTERVAL_MS intervals, noting
CLOCK_REALTIME just before each write in that path (with how late the
feeder woke for it, in microseconds: the machine's own stalls, as the
feeder runs SCHED_FIFO 30 as root), then "FEED-END", and answers "done" on
DONE_FIFO. Writing the master end is one kernel tty hop,
the same a USB-serial adapter's driver takes (the tty flip buffer), with
no relay process between the writer and the reader.

    stamp-feeder.py LINK CMD_FIFO DONE_FIFO LINES INTERVAL_MS
"""
import os
import sys
import time
import tty


def feed(master, path, lines, interval):
    with open(path, "w") as log:
        start = time.monotonic()
        for i in range(lines):
            # an absolute schedule: a late write does not shift the rest
            due = start + i * interval
            before = time.monotonic()
            if due > before:
                time.sleep(due - before)
            late = time.monotonic() - max(due, before)
            t = time.time_ns()
            os.write(master, b"FEED %d\r\n" % i)
            log.write("%d %d %d\n" % (i, t // 1000, max(0, late * 1e6)))
        os.write(master, b"FEED-END\r\n")


def main():
    link, cmd, done, lines, interval = sys.argv[1:6]
    lines, interval = int(lines), int(interval) / 1000.0
    master, slave = os.openpty()
    tty.setraw(slave)
    name = os.ttyname(slave)
    os.chmod(name, 0o666)
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(name, link)
    while True:
        with open(cmd) as f:
            path = f.readline().strip()
        if not path or path == "quit":
            return
        feed(master, path, lines, interval)
        with open(done, "w") as f:
            f.write("done\n")


if __name__ == "__main__":
    main()
