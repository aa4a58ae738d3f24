"""The feed and stamp files of the console-timing benches
(serial-timestamp-accuracy.sh, kworker-priority-cost.sh), read in one
place: bench/stamp-feeder.py's feed file ("n write-instant-us [late-us]"
per line) and the stamp error of each "FEED n" line in orch's boot.log
or grabserial's log."""
import datetime
import re


def sent(tsv):
    """line number -> the instant it was written (wall clock, us)"""
    return {int(l.split()[0]): int(l.split()[1]) for l in open(tsv)}


def lateness(tsv):
    """line number -> how late the feeder itself woke to write it (us)"""
    return {int(l.split()[0]): int(l.split()[2]) for l in open(tsv) if len(l.split()) > 2}


def orch_errors(tsv, log):
    """line number -> stamp - write instant (us), from orch's boot.log"""
    feed, errs = sent(tsv), {}
    for l in open(log):
        m = re.match(r"\[(\d+-\d+-\d+ \d+:\d+:\d+)\.(\d{6}) \S+\] FEED (\d+)$", l.rstrip("\n"))
        if m:
            t = datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S").timestamp()
            n = int(m.group(3))
            errs[n] = int(t) * 1000000 + int(m.group(2)) - feed[n]
    return errs


def grabserial_errors(tsv, log):
    """line number -> stamp - write instant (us), from `grabserial -T`'s log"""
    feed, errs = sent(tsv), {}
    for l in open(log, errors="replace"):
        m = re.match(r"\[(\d+)\.(\d{6})(?: [\d.]+)?\] FEED (\d+)\s*$", l)
        if m:
            n = int(m.group(3))
            errs[n] = int(m.group(1)) * 1000000 + int(m.group(2)) - feed[n]
    return errs
