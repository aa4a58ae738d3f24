#!/usr/bin/env python3
"""remote-bench against the tools people trust, on this machine: an oracle.

  bench/remote-bench-vs-tools.sh [BIN_DIR] [--rounds N] [--quick]
        [--only mem,tmpfs,disk,seeks,net,crypto] [--disk-dir DIR]
        [--disk-repeats N] [--disk-sections char,block,files]
        [--busy-limit F] [--busy-retries N] [--warm-mib MIB] [--no-hold]

Every remote-bench metric that has a reference is measured by both at the
same sizes (buffer and file sizes, block sizes, counts, durations), in
--rounds rounds (default 7). Inside a round each section runs as adjacent
pairs, one tool run right next to one remote-bench run, the order
alternating from pair to pair and round to round (tool rb, rb tool: ABBA),
so that a load or a host that drifts favours neither side. The statistic:
each pair's ratio remote-bench/tool compares two runs that saw the same
machine; a round's ratio is the geometric mean of its pairs' ratios (with
an even number of pairs in ABBA order an effect of the position cancels);
the verdict is on the median of the rounds' ratios, printed with their
interquartile range, and the script exits 1 when a median ratio is outside
0.9-1.1 (crypto: 0.5-2.0, an implementation's speed against OpenSSL's
portable C). The side columns are the medians of each side's per-round
geometric means. -v prints every pair's ratios. Pairs per round: mem 4
(--mem-pairs), the 2 GiB disk block rows (the noisiest) --disk-repeats
(default 4), the per-char, file and seek sections half as many, net and
crypto one. The metrics without a reference are listed with the reason.
Exit 2: a tool is missing or failed.

References (see bench/RESULTS.md for what each measures and why it matches):
  mbw 1.2.2          mem.memcpy ("DUMB" line: Debian's 1.2.2 prints its memcpy
                     there), mem.word ("MEMCPY" line: its b[i]=a[i] loop),
                     mem.block (MCBLOCK: mempcpy of 256 KiB blocks, each from
                     the start of the source)
  dd                 mem.tmpfs_write (if=/dev/zero of=/dev/shm bs=64K),
                     disk.seq_write (conv=fdatasync: printed, not judged,
                     as dd reads /dev/zero inside its timing), disk.seq_read (after
                     iflag=nocache dropped the file's pages)
  bonnie++ 2.00a     disk.char_write/char_read (per-char: one write(2)/read(2)
                     per byte), seq_write (Block), rewrite, create, stat
                     (Read), delete, rand_create, rand_stat, rand_delete, and
                     each one's %CP against NAME_cpu
  fio                disk.seeks (psync randread 4k, direct=1, one job)
  iperf3             net.tcp_stream, net.udp_pps (64-byte datagrams), and the
                     client's CPU share, between two network namespaces
  openssl speed      crypto.* (-evp chacha20, aes-128-cbc; -aead -evp
                     aes-128-gcm: sealed per packet with 13 bytes of AAD, as
                     remote-bench; ecdhx25519), OPENSSL_ia32cap=0
  libcrypto          crypto.chacha20poly1305_*: bench/openssl-aead-loop.c,
                     speed.c's per-packet AEAD loop (OpenSSL 3.0.22's speed
                     -aead streams this cipher instead: one update per
                     operation, no IV, AAD or tag)

Disk target (the header line and the report say which one a run used):
--disk-dir DIR runs the disk tools and remote-bench-disk in DIR (a real
board's disk). Without it, as root, both run on a scratch ext4 of the
script's own: mkfs.ext4 on a loop device over a file in /dev/shm, unmounted,
detached and removed at the end, also on Ctrl-C. The question the oracle
asks is whether remote-bench does and times what the tool does; a shared VM
disk behind the host's cache does not repeat from one run to the next
(bonnie++'s own block write gave 949 then 174 MiB/s back to back), a RAM
backed ext4 does, so what differs there is the definitions. Not root and no
--disk-dir: $TMPDIR or /var/tmp, as it is. The scratch image is written in
full and made with mkfs -E nodiscard (mkfs's discard would punch its
pages out again, and the first write to each block would allocate them).

Every disk process, the tool's and remote-bench's alike, starts after a
sync and (as root) drop_caches; before the 2 GiB block runs --warm-mib
(default 2560) of anonymous memory is also touched and freed, so that
the page cache takes pages the host backs now. Disk pairs are gated on
the machine's CPU pressure (/proc/pressure/cpu "some": time during which
a runnable task waited for a CPU): before each pair the script waits (at
most 30 s) for a second under --busy-limit (default 10 %), and a pair
with more than that during it is run again, at most --busy-retries times
(default 2), then kept; the counts are printed at the end. The pressure
says nothing about which side was faster, so this favours neither.

The machine's memory (as root, not with --quick or --no-hold): a VM whose
balloon reports free pages to the host (virtio-balloon free page
reporting) faults each reported page in again on its next touch; 2 GiB
writes during which the kernel reported 500 MiB ran at 190-820 MiB/s
against 1700-2250 without. Where the kernel has them, the page_reporting
parameters min_free_ms and max_waiting_mib are raised for the run's length
(the first line of output says what was changed), and put back at the end,
also on Ctrl-C and SIGTERM (not on SIGKILL: then restore them by hand from
that line). The MiB reported during the run are printed at the end.

BIN_DIR holds remote-bench-* (default: BUILD/remote-bench/bin/ARCH of a
fresh build in a temporary directory). --quick: small sizes and one round,
a smoke test of the script itself (ratios are printed, never judged).
Needs root for the network namespaces (oracle-a, oracle-b) and the scratch
ext4.
"""
import argparse
import json
import math
import mmap
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIB = 1024 * 1024
NS_A, NS_B = "oracle-a", "oracle-b"
ADDR_A, ADDR_B = "10.173.0.1", "10.173.0.2"
PORT = 42510
BAND = (0.9, 1.1)
CRYPTO_BAND = (0.5, 2.0)


class ToolError(Exception):
    pass


def run(cmd, timeout=900, env=None, check=True):
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise ToolError("%s: no result in %d s" % (" ".join(cmd), timeout))
    if check and r.returncode != 0:
        raise ToolError("%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr.strip()[-400:]))
    return r


def rb_metrics(text):
    out = {}
    for line in text.splitlines():
        o = json.loads(line)
        out[o["metric"]] = float(o["value"])
    return out


class Oracle:
    def __init__(self, args):
        self.a = args
        self.bin = args.bin
        self.samples = {}   # metric -> {"rb": {round: value}, "tool": {round: value}}
        self.runs = {}      # (metric, "rb" or "tool") -> values of this round's runs
        self.refs = {}      # metric -> text naming the reference
        self.seen = set()   # every metric remote-bench printed
        self.procs = []
        self.tmpdirs = []
        self.netns = False
        self.scratch = None  # (image, loop device, mount point) of the scratch ext4
        self.work = None
        self.target = None
        self.busy_redone = 0  # pairs run again: CPU pressure over --busy-limit
        self.busy_kept = 0    # pairs kept over it after --busy-retries
        self.waited = 0.0     # seconds waited for a quiet CPU before disk pairs

    # ---- the disk target ----
    def disk_up(self):
        """The folder the disk tools and remote-bench-disk run in: --disk-dir,
        else (root) a scratch ext4 on a loop device over a file in /dev/shm,
        else $TMPDIR or /var/tmp. Sets self.target to a line saying which."""
        a = self.a
        if a.disk_dir or os.geteuid() != 0 or not ({"disk", "seeks"} & a.only):
            d = a.disk_dir or os.environ.get("TMPDIR", "/var/tmp")
            self.work = tempfile.mkdtemp(prefix="rb-oracle-", dir=d)
            self.target = "%s %s (%s)" % ("--disk-dir" if a.disk_dir else "default folder", d,
                                          fs_of(d))
            return
        try:
            self.scratch_up()
        except (ToolError, OSError) as e:
            # no loop devices (a container): the default folder, said so
            self.disk_down()
            d = os.environ.get("TMPDIR", "/var/tmp")
            self.work = tempfile.mkdtemp(prefix="rb-oracle-", dir=d)
            self.target = "default folder %s (%s; no scratch ext4: %s)" % (d, fs_of(d), e)

    def scratch_up(self):
        a = self.a
        img = tempfile.mkstemp(prefix="rb-oracle-", suffix=".ext4", dir="/dev/shm")
        os.close(img[0])
        self.scratch = [img[1], None, None]
        # every page of the image allocated and written now: a thin file
        # would make the first write to each block (whoever comes first) pay
        # for tmpfs's allocation, later writes not. posix_fallocate is not
        # enough: its pages are not touched (on a VM that hands free memory
        # back to the host, the first write to each then faults on the host)
        # and mkfs's discard punched them out again (du: 98 of 3072 MiB)
        zero = bytes(64 * MIB)
        with open(img[1], "r+b") as f:
            for _ in range((a.scratch_mib + 63) // 64):
                f.write(zero)
        dev = run(["losetup", "--find", "--show", "--direct-io=on", img[1]],
                  timeout=60).stdout.strip()
        self.scratch[1] = dev
        # inodes for the file tests' --files-k * 1024 files and more;
        # nodiscard keeps the image's pages (see above)
        run(["mkfs.ext4", "-q", "-F", "-N", str(max(65536, a.kfiles * 2048)), "-E",
             "lazy_itable_init=0,lazy_journal_init=0,nodiscard", dev], timeout=300)
        mnt = tempfile.mkdtemp(prefix="rb-oracle-mnt-")
        self.scratch[2] = mnt
        run(["mount", dev, mnt], timeout=60)
        self.work = tempfile.mkdtemp(prefix="rb-oracle-", dir=mnt)
        self.target = ("scratch ext4 on %s over a %d MiB file in /dev/shm (tmpfs), mounted "
                       "at %s" % (dev, a.scratch_mib, mnt))

    def disk_down(self):
        if self.work:
            shutil.rmtree(self.work, ignore_errors=True)
        if not self.scratch:
            return
        img, dev, mnt = self.scratch
        self.work = None
        if mnt:
            for lazy in ([], ["-l"]):
                if subprocess.run(["umount"] + lazy + [mnt], stderr=subprocess.DEVNULL).returncode == 0:
                    break
                time.sleep(1)
            os.rmdir(mnt) if not os.listdir(mnt) else None
        if dev:
            subprocess.run(["losetup", "-d", dev], stderr=subprocess.DEVNULL)
        os.unlink(img)
        self.scratch = None

    # ---- bookkeeping ----
    def rb(self, name, value):
        self.runs.setdefault((name, "rb"), []).append(value)

    def tool(self, name, value, ref):
        """value None: the tool gave no figure in this run (bonnie++'s +++),
        which keeps the k-th tool run beside the k-th remote-bench run."""
        self.runs.setdefault((name, "tool"), []).append(value)
        self.refs[name] = ref

    def end_round(self):
        """The round's ratio of each metric from its adjacent pairs: the k-th
        remote-bench run of the round was run right next to the k-th tool
        run (pair()), so each pair saw the same machine, and the round's
        ratio is the geometric mean of its pairs' ratios. With two pairs in
        ABBA order (tool rb rb tool) an effect of the position (the first
        run after a pause, a load that rises or falls) cancels. Each side's
        figure for the round (the columns of the report) is the geometric
        mean of its runs."""
        names = {n for n, _ in self.runs}
        for name in names:
            rb, tool = self.runs.get((name, "rb"), []), self.runs.get((name, "tool"), [])
            s = self.samples.setdefault(name, {"rb": {}, "tool": {}, "ratio": {}, "pairs": {}})
            ratios = [r / t for r, t in zip(rb, tool) if r is not None and t]
            for side, v in (("rb", rb), ("tool", tool)):
                v = [x for x in v if x is not None]
                if v:
                    s[side][self.rnd] = gmean(v)
            if ratios:
                s["ratio"][self.rnd] = gmean(ratios)
                s["pairs"][self.rnd] = ratios
        self.runs = {}

    def pair(self, tool_fn, rb_fn, j=0, gate=False):
        """One tool run and one remote-bench run right after each other, in
        the order that alternates from round to round and from pair to pair
        inside a round (tool rb, rb tool, ...): the pair's ratio compares two
        runs that saw the same machine. gate: a pair during which something
        else kept this machine's tasks waiting for a CPU (the kernel's CPU
        pressure, /proc/pressure/cpu "some") for more than --busy-limit of
        its time is run again, at most --busy-retries times; the pressure
        says nothing about which side was faster, so dropping such a pair
        favours neither. The runs of a pair run again are forgotten."""
        gate = gate and not self.a.quick
        for attempt in range(1 + (self.a.busy_retries if gate else 0)):
            if gate:
                self.wait_quiet()
            mark = {k: len(v) for k, v in self.runs.items()}
            p0, w0 = cpu_pressure(), time.time()
            t = []
            for fn in ((tool_fn, rb_fn) if (self.rnd + j) % 2 == 0 else (rb_fn, tool_fn)):
                t0 = time.time()
                fn()
                t.append("%s %.1f s" % ("tool" if fn is tool_fn else "remote-bench",
                                        time.time() - t0))
            busy = (cpu_pressure() - p0) / 1e6 / max(time.time() - w0, 1e-3) if p0 is not None \
                else 0.0
            again = gate and busy > self.a.busy_limit and attempt < self.a.busy_retries
            if self.a.verbose:
                got = ["%s %.2f" % (k[0].split(".", 1)[1], v[-1] / self.runs[(k[0], "tool")][-1])
                       for k, v in sorted(self.runs.items())
                       if k[1] == "rb" and len(v) > mark.get(k, 0) and not k[0].endswith("cpu")
                       and len(self.runs.get((k[0], "tool"), [])) > mark.get((k[0], "tool"), 0)
                       and v[-1] is not None and self.runs[(k[0], "tool")][-1]]
                print("  %s; cpu pressure %.0f%%%s%s" % (", ".join(t), 100 * busy,
                      " (over %.0f%%: run again)" % (100 * self.a.busy_limit) if again else "",
                      "; " + " ".join(got) if got else ""), file=sys.stderr, flush=True)
            if not again:
                if gate and busy > self.a.busy_limit:
                    self.busy_kept += 1
                return
            self.busy_redone += 1
            for k in list(self.runs):
                del self.runs[k][mark.get(k, 0):]

    def wait_quiet(self, most=30.0):
        """Waits (at most `most` seconds, the time waited counted) until
        one second passes with CPU pressure under --busy-limit."""
        t0 = time.time()
        while time.time() - t0 < most:
            p0 = cpu_pressure()
            if p0 is None:
                return
            time.sleep(1)
            if (cpu_pressure() - p0) / 1e6 < self.a.busy_limit:
                break
        self.waited += time.time() - t0

    def rb_run(self, prog, args, timeout=900, bindir=None):
        r = run([os.path.join(bindir or self.bin, "remote-bench-" + prog)] + args, timeout=timeout)
        m = rb_metrics(r.stdout)
        if not bindir or bindir == self.bin:
            self.seen.update(m)
        return m

    # ---- memory: mbw ----
    def mem(self, rnd):
        """--mem-pairs pairs of one mbw (and dd) run and one remote-bench-mem
        run inside the round, in alternating order; each pair's ratio
        compares the two runs next to each other (end_round)."""
        a = self.a
        refs = {"mem.memcpy": "mbw \"DUMB\" (its memcpy; Debian's 1.2.2 swaps the labels)",
                "mem.word": "mbw \"MEMCPY\" (its b[i]=a[i] loop)",
                "mem.block": "mbw MCBLOCK (mempcpy of 256 KiB blocks from the source's start)",
                "mem.tmpfs_write": "dd if=/dev/zero of=/dev/shm/x bs=64K count=%d" % (a.mem_mib * 16)}

        want = ({"mem.memcpy", "mem.word", "mem.block"} if "mem" in a.only else set()) | \
            ({"mem.tmpfs_write"} if "tmpfs" in a.only else set())

        def tool_fn():
            if "mem" in a.only:
                for k, v in self.mbw().items():
                    self.tool(k, v, refs[k])
                    if a.glibc_bin:
                        # the glibc build's rows against the same mbw run
                        self.tool(k + "@glibc", v, refs[k] + " vs the glibc build")
            if "tmpfs" in a.only:
                self.tool("mem.tmpfs_write", self.dd_tmpfs(), refs["mem.tmpfs_write"])

        def rb_fn():
            # remote-bench, then (when given) the same sources built with
            # glibc, whose figures are rows NAME@glibc against the same mbw run
            for b, suffix in [(self.bin, "")] + ([(a.glibc_bin, "@glibc")] if a.glibc_bin else []):
                m = self.rb_run("mem", ["--size", "%dM" % a.mem_mib, "--loops", str(a.mem_loops),
                                        "--max-time", "1000", "--block", "256K",
                                        "--tmpfs-dir", self.shm], bindir=b)
                for k, v in m.items():
                    if k in want and not (suffix and k == "mem.tmpfs_write"):
                        self.rb(k + suffix, v)

        for j in range(a.mem_pairs):
            self.pair(tool_fn, rb_fn, j)

    def mbw(self):
        """One mbw run (-n --mem-loops, 256 KiB blocks, --mem-mib arrays)."""
        a = self.a
        r = run(["mbw", "-q", "-n", str(a.mem_loops), "-b", str(256 * 1024), str(a.mem_mib)])
        avg = {}
        for line in r.stdout.splitlines():
            f = re.match(r"AVG\s+Method: (\w+)\s+Elapsed: [0-9.]+\s+MiB: [0-9.]+\s+Copy: ([0-9.]+) MiB/s",
                         line)
            if f:
                avg[f.group(1)] = float(f.group(2))
        if set(avg) != {"MEMCPY", "DUMB", "MCBLOCK"}:
            raise ToolError("mbw printed no AVG lines: %r" % r.stdout[-300:])
        # Debian's mbw 1.2.2 labels its memcpy "DUMB" and its loop "MEMCPY"
        # (checked in its machine code: the copy loop prints "MEMCPY").
        return {"mem.memcpy": avg["DUMB"], "mem.word": avg["MEMCPY"], "mem.block": avg["MCBLOCK"]}

    def dd_tmpfs(self):
        """MiB/s of --mem-loops dd runs to the tmpfs, as remote-bench's mean
        time per file over its loops (the file removed before each)."""
        a = self.a
        f = os.path.join(self.shm, "oracle-dd")
        secs = []
        for _ in range(a.mem_loops):
            if os.path.exists(f):
                os.unlink(f)
            r = run(["dd", "if=/dev/zero", "of=" + f, "bs=64K", "count=%d" % (a.mem_mib * 16)])
            secs.append(dd_seconds(r.stderr))
        os.unlink(f)
        return a.mem_mib / statistics.mean(secs)

    # ---- disk: bonnie++, dd, fio ----
    # bonnie++ runs one section at a time (per-char, block, files), each
    # right next to remote-bench-disk --tests with the same section, so that
    # both see the same machine. Every tool process and remote-bench-disk
    # starts from the same state: settle() first (dd's read: right after the
    # drop of the file's pages, as remote-bench's).
    def disk(self, rnd):
        a = self.a
        few = max(1, a.disk_repeats // 2)
        if "disk" in a.only:
            # --disk-repeats adjacent pairs of the 2 GiB block section per
            # round (the noisy rows), half as many of the per-char, file and
            # seek sections, the order alternating (ABBA)
            for j in range(few if "char" in a.disk_sections else 0):
                self.pair(lambda: self.bonnie("char", "-s", "16", "-n", "0", "-f%d" % a.char_mib),
                          lambda: self.disk_rb("char", "--char-size", "%dM" % a.char_mib), j,
                          gate=True)
            for j in range(a.disk_repeats if "block" in a.disk_sections else 0):
                self.pair(self.block_tools,
                          lambda: self.disk_rb("block", "--size", "%dM" % a.disk_mib,
                                               "--block", str(a.block), warm=True), j, gate=True)
            for j in range(few if "files" in a.disk_sections else 0):
                self.pair(lambda: self.bonnie("files", "-s", "0", "-n", "%d:0:0:1" % a.kfiles),
                          lambda: self.disk_rb("files,rand", "--files", str(a.kfiles * 1024),
                                               "--file-time", "0"), j, gate=True)
        if "seeks" in a.only:
            for j in range(few):
                self.pair(self.fio, lambda: self.disk_rb("seeks", "--size", "%dM" % a.disk_mib,
                                                         "--seek-time", str(a.seek_time)), j,
                          gate=True)

    def block_tools(self):
        """dd's write and read, then bonnie++'s block section: in a
        tool-first pair bonnie++ runs right next to remote-bench, in a
        remote-bench-first pair dd does, so in each ABBA round each
        reference is adjacent in one pair and one run away in the other."""
        a = self.a
        self.dd_disk()
        self.bonnie("block", "-s", "%d:%d" % (a.disk_mib, a.block), "-n", "0", "-f", warm=True)

    def settle(self, warm=False):
        """What every timed disk process starts from, the same for the tool
        and remote-bench: written data on the device (sync) and no cached
        pages, dentries or inodes (drop_caches, as root; elsewhere the
        tools' own drops only). warm (the 2 GiB block runs): then
        --warm-mib of anonymous memory touched and freed, so that the
        pages the run's page cache will take first (the kernel hands out
        the pages freed last first) are ones the host backs now: on a VM
        whose free pages were reported to the host (virtio-balloon free
        page reporting), the first touch of a reported page faults on the
        host, 3-10x slower (bench/RESULTS.md, helper diskvm)."""
        os.sync()
        if os.geteuid() == 0:
            with open("/proc/sys/vm/drop_caches", "w") as f:
                f.write("3\n")
        if warm and self.a.warm_mib:
            touch_memory(self.a.warm_mib)

    BONNIE_SECTION = {"char": ("disk.char_write", "disk.char_read"),
                      "block": ("disk.seq_write", "disk.rewrite"),
                      "files": ("disk.create", "disk.stat", "disk.delete", "disk.rand_create",
                                "disk.rand_stat", "disk.rand_delete")}

    def bonnie(self, section, *args, warm=False):
        """One bonnie++ run of one section (char, block, files); only that
        section's figures are taken (a per-char run's 16 MiB block figures
        are not the block section's), each run adding one value (None for
        +++) to each of them so that the k-th tool run stays paired with the
        k-th remote-bench run."""
        d = tempfile.mkdtemp(prefix="bonnie-", dir=self.work)
        cmd = ["bonnie++", "-d", d, "-r", "0", "-q", "-m", "oracle"] + list(args)
        if os.geteuid() == 0:
            cmd += ["-u", "root"]
        try:
            self.settle(warm)
            r = run(cmd, timeout=1800)
        finally:
            shutil.rmtree(d, ignore_errors=True)
        csv = [l for l in r.stdout.splitlines() if l.startswith("1.98,")]
        if not csv:
            raise ToolError("bonnie++ printed no CSV line: %r" % r.stdout[-300:])
        f = csv[-1].split(",")
        # bonnie++ 2.00a CSV (format 1.98): 9 per-char out, 10 %CP, 11 block
        # out, 12 %CP, 13 rewrite, 14 %CP, 15 per-char in, 16 %CP, 17 block
        # in, 18 %CP, 19 seeks, 20 %CP, 21 files/1024, 22-25 max, min, dirs,
        # chunk, 26 seq create, 27 %CP, 28 stat, 29 %CP, 30 delete, 31 %CP,
        # 32 random create, 33 %CP, 34 stat, 35 %CP, 36 delete, 37 %CP. Sizes
        # in K/sec; "+++++" where the step took under 0.5 s.
        opts = " ".join(args)
        fields = [
            ("disk.char_write", 9, 1024.0, "bonnie++ Per Chr output (write(2) per byte)"),
            ("disk.seq_write", 11, 1024.0, "bonnie++ Block output"),
            ("disk.rewrite", 13, 1024.0, "bonnie++ Rewrite"),
            ("disk.char_read", 15, 1024.0, "bonnie++ Per Chr input (read(2) per byte)"),
            ("disk.create", 26, 1.0, "bonnie++ Sequential Create"),
            ("disk.stat", 28, 1.0, "bonnie++ Sequential Read (stat)"),
            ("disk.delete", 30, 1.0, "bonnie++ Sequential Delete"),
            ("disk.rand_create", 32, 1.0, "bonnie++ Random Create"),
            ("disk.rand_stat", 34, 1.0, "bonnie++ Random Read (stat)"),
            ("disk.rand_delete", 36, 1.0, "bonnie++ Random Delete"),
        ]
        for name, i, div, ref in fields:
            if name not in self.BONNIE_SECTION[section]:
                continue
            if f[i].startswith("+"):
                self.too_fast.add(name)
                self.too_fast.add(name + "_cpu")
                # no figure in this run; None keeps the pairs in step
                self.tool(name, None, ref + " " + opts)
                self.tool(name + "_cpu", None, ref.split(" (")[0] + " %CP")
            elif re.match(r"^[0-9.]+$", f[i]):
                self.tool(name, float(f[i]) / div, ref + " " + opts)
                cpu = float(f[i + 1]) if re.match(r"^[0-9.]+$", f[i + 1]) else None
                self.tool(name + "_cpu", cpu, ref.split(" (")[0] + " %CP")
            else:
                raise ToolError("bonnie++ %s: no %s figure in %r" % (opts, name, csv[-1]))

    def dd_disk(self):
        a = self.a
        f = os.path.join(self.work, "dd")
        count = a.disk_mib * MIB // a.block
        self.settle(warm=True)
        r = run(["dd", "if=/dev/zero", "of=" + f, "bs=%d" % a.block, "count=%d" % count,
                 "conv=fdatasync"])
        self.tool("disk.seq_write@dd", a.disk_mib / dd_seconds(r.stderr),
                  "dd bs=%d count=%d conv=fdatasync" % (a.block, count))
        # the device sees what it saw before remote-bench's read: the file
        # rewritten in place (its rewrite pass), then the cached pages dropped.
        # On a VM the "device" is the host's cache, whose state decides the
        # read speed: a read right after the first write came at a quarter
        # of the speed of one after a rewrite.
        run(["dd", "if=/dev/zero", "of=" + f, "bs=%d" % a.block, "count=%d" % count,
             "conv=notrunc,fdatasync"])
        run(["dd", "if=" + f, "iflag=nocache", "count=0"])
        r = run(["dd", "if=" + f, "of=/dev/null", "bs=%d" % a.block])
        self.tool("disk.seq_read", a.disk_mib / dd_seconds(r.stderr),
                  "dd bs=%d, after a rewrite and iflag=nocache count=0" % a.block)
        os.unlink(f)

    def fio(self):
        a = self.a
        f = os.path.join(self.work, "fio")
        run(["dd", "if=/dev/zero", "of=" + f, "bs=1M", "count=%d" % a.disk_mib, "conv=fdatasync"])
        self.settle()
        r = run(["fio", "--name=seeks", "--filename=" + f, "--rw=randread", "--bs=4k",
                 "--size=%dM" % a.disk_mib, "--ioengine=psync", "--direct=1", "--numjobs=1",
                 "--time_based", "--runtime=%s" % a.seek_time, "--norandommap",
                 "--output-format=json"], timeout=600)
        j = json.loads(r.stdout[r.stdout.index("{"):])
        self.tool("disk.seeks", j["jobs"][0]["read"]["iops"],
                  "fio randread bs=4k psync direct=1 size=%dM runtime=%s" % (a.disk_mib,
                                                                            a.seek_time))
        os.unlink(f)

    def disk_rb(self, tests, *args, warm=False):
        self.settle(warm)
        m = self.rb_run("disk", ["--dir", self.work, "--tests", tests] + list(args), timeout=1800)
        for k, v in m.items():
            self.rb(k, v)
        if "disk.seq_write" in m:
            # dd's write is a second reference for it, kept apart from
            # bonnie++'s Block output so that each ratio has one definition
            self.rb("disk.seq_write@dd", m["disk.seq_write"])

    # ---- network: iperf3 between two namespaces ----
    def netns_up(self):
        self.netns_down()
        cmds = [["ip", "netns", "add", NS_A], ["ip", "netns", "add", NS_B],
                ["ip", "link", "add", "oracle-va", "netns", NS_A, "type", "veth", "peer", "name",
                 "oracle-vb", "netns", NS_B],
                ["ip", "-n", NS_A, "addr", "add", ADDR_A + "/24", "dev", "oracle-va"],
                ["ip", "-n", NS_B, "addr", "add", ADDR_B + "/24", "dev", "oracle-vb"],
                ["ip", "-n", NS_A, "link", "set", "oracle-va", "up"],
                ["ip", "-n", NS_B, "link", "set", "oracle-vb", "up"],
                ["ip", "-n", NS_A, "link", "set", "lo", "up"],
                ["ip", "-n", NS_B, "link", "set", "lo", "up"]]
        self.netns = True
        for c in cmds:
            run(c, timeout=30)

    def netns_down(self):
        for ns in (NS_A, NS_B):
            subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)

    # Both tools' receivers on one CPU and their senders on another, the same
    # for both: with two CPUs, where the scheduler puts the two ends (and the
    # softirq work that follows them) moved the UDP figure by 2x.
    PIN_SERVER, PIN_CLIENT = ["taskset", "-c", "1"], ["taskset", "-c", "0"]

    def server(self, cmd):
        p = subprocess.Popen(["ip", "netns", "exec", NS_B] + self.pin(self.PIN_SERVER) + cmd,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.procs.append(p)
        return p

    def pin(self, how):
        return how if os.cpu_count() and os.cpu_count() >= 2 and shutil.which("taskset") else []

    def reap(self, p):
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        self.procs.remove(p)

    def iperf(self, args):
        p = self.server(["iperf3", "-s", "-1", "-B", ADDR_B, "-p", str(PORT + 1)])
        time.sleep(0.3)
        try:
            r = run(["ip", "netns", "exec", NS_A] + self.pin(self.PIN_CLIENT) +
                    ["iperf3", "-c", ADDR_B, "-p", str(PORT + 1),
                     "-t", str(self.a.net_time), "-J"] + args, timeout=60 + self.a.net_time)
        finally:
            self.reap(p)
        return json.loads(r.stdout)

    def net(self, rnd):
        self.pair(self.net_tool, self.net_rb)

    def net_tool(self):
        t = self.a.net_time
        j = self.iperf(["-l", "128K"])
        self.tool("net.tcp_stream", j["end"]["sum_received"]["bits_per_second"] / 1e6,
                  "iperf3 -l 128K -t %s, receiver Mbit/s" % t)
        self.tool("net.tcp_stream_cpu", j["end"]["cpu_utilization_percent"]["host_total"],
                  "iperf3 client cpu_utilization_percent.host_total")
        j = self.iperf(["-u", "-b", "0", "-l", "64"])
        s = j["end"]["sum"]
        self.tool("net.udp_pps", (s["packets"] - s["lost_packets"]) / s["seconds"],
                  "iperf3 -u -b 0 -l 64 -t %s, datagrams received/s" % t)
        self.tool("net.udp_pps_cpu", j["end"]["cpu_utilization_percent"]["host_total"],
                  "iperf3 client cpu_utilization_percent.host_total")

    def net_rb(self):
        t = self.a.net_time
        p = self.server([os.path.join(self.bin, "remote-bench-net"), "--server", "--bind", ADDR_B,
                         "--port", str(PORT), "--idle-timeout", "60"])
        try:
            r = run(["ip", "netns", "exec", NS_A] + self.pin(self.PIN_CLIENT) +
                    [os.path.join(self.bin, "remote-bench-net"),
                     "--client", ADDR_B, "--port", str(PORT), "--time", str(t),
                     "--udp-size", "64"], timeout=120 + 2 * t)
        finally:
            self.reap(p)
        m = rb_metrics(r.stdout)
        self.seen.update(m)
        for k, v in m.items():
            self.rb(k, v)

    # ---- crypto: openssl speed ----
    OPENSSL = {"chacha20": "chacha20", "chacha20poly1305": "chacha20-poly1305",
               "aes128_cbc": "aes-128-cbc", "aes128_gcm": "aes-128-gcm"}

    def crypto(self, rnd):
        a = self.a
        env = dict(os.environ, OPENSSL_ia32cap="0")
        got = {}

        def rb_fn():
            got.update(self.rb_run("crypto", ["--time", str(a.crypto_time), "--repeats", "3"]))
            for k, v in got.items():
                self.rb(k, v)

        def tool_fn():
            # the names remote-bench-crypto prints decide what is compared:
            # in the first round (remote-bench first) they are known; later
            # rounds reuse them
            for k in sorted(self.crypto_names):
                f = re.match(r"^crypto\.(\w+?)_(\d+)(_pps)?$", k)
                if f and f.group(1) in self.OPENSSL:
                    alg, size, pps = f.group(1), int(f.group(2)), f.group(3)
                    if pps:
                        continue  # from the same openssl run as its Mbit/s twin
                    # an AEAD is sealed packet by packet (new IV, tag) as
                    # remote-bench does: -aead; plain -evp streams one context
                    aead = alg in ("chacha20poly1305", "aes128_gcm")
                    if alg == "chacha20poly1305":
                        # OpenSSL 3.0.22's `speed -aead` streams this one
                        # (one EVP_EncryptUpdate per operation, no IV, AAD
                        # or tag: seen with gdb); its AEAD loop, in C
                        bps = self.aead_loop(self.OPENSSL[alg], size, env)
                        ref = ("libcrypto sealing per packet as speed.c's AEAD loop "
                               "(bench/openssl-aead-loop.c) -bytes %d (ia32cap=0)" % size)
                    else:
                        bps = self.openssl_evp(self.OPENSSL[alg], size, env, aead)
                        ref = "openssl speed %s-evp %s -bytes %d (ia32cap=0)" % (
                            "-aead " if aead else "", self.OPENSSL[alg], size)
                    self.tool(k, bps * 8 / 1e6, ref)
                    if k + "_pps" in self.crypto_names:
                        self.tool(k + "_pps", bps / size, ref)
                elif k == "crypto.x25519":
                    self.tool(k, self.openssl_x25519(env), "openssl speed ecdhx25519 (ia32cap=0)")

        if not self.crypto_names:
            rb_fn()
            self.crypto_names = set(got)
            tool_fn()
        else:
            self.pair(tool_fn, rb_fn)

    def openssl_evp(self, alg, size, env, aead=False):
        r = run(["openssl", "speed", "-mr", "-elapsed", "-seconds", str(self.a.crypto_time),
                 "-bytes", str(size)] + (["-aead"] if aead else []) + ["-evp", alg],
                env=env, timeout=120)
        for line in r.stdout.splitlines() + r.stderr.splitlines():
            if line.startswith("+F:"):
                return float(line.split(":")[3])
        raise ToolError("openssl speed -evp %s printed no +F line" % alg)

    def aead_loop(self, alg, size, env):
        """Bytes/s of bench/openssl-aead-loop.c, built once per run."""
        if not getattr(self, "aead_bin", None):
            d = tempfile.mkdtemp(prefix="rb-oracle-aead-")
            self.tmpdirs.append(d)
            out = os.path.join(d, "openssl-aead-loop")
            cc = shutil.which("cc") or shutil.which("gcc")
            if not cc:
                raise ToolError("no C compiler for bench/openssl-aead-loop.c")
            run([cc, "-O2", "-o", out, os.path.join(SRC, "bench", "openssl-aead-loop.c"),
                 "-lcrypto"], timeout=120)
            self.aead_bin = out
        r = run([self.aead_bin, alg, str(size), str(self.a.crypto_time)], env=env, timeout=120)
        for line in r.stdout.splitlines():
            if line.startswith("+F:"):
                return float(line[3:])
        raise ToolError("openssl-aead-loop %s printed no +F line" % alg)

    def openssl_x25519(self, env):
        r = run(["openssl", "speed", "-mr", "-elapsed", "-seconds", str(self.a.crypto_time),
                 "ecdhx25519"], env=env, timeout=120)
        for line in r.stdout.splitlines() + r.stderr.splitlines():
            if line.startswith("+F5:"):
                return float(line.split(":")[3])
        raise ToolError("openssl speed ecdhx25519 printed no +F5 line")

    # ---- the run ----
    def go(self):
        a = self.a
        self.disk_up()
        print("disk target: %s" % self.target, flush=True)
        self.shm = tempfile.mkdtemp(prefix="rb-oracle-", dir="/dev/shm")
        self.shown = set()
        self.crypto_names = set()
        self.too_fast = set()   # bonnie++ printed +++ for these
        groups = []
        if "mem" in a.only or "tmpfs" in a.only:
            groups.append(("mem", self.mem))
        if "disk" in a.only or "seeks" in a.only:
            groups.append(("disk", self.disk))
        if "net" in a.only:
            self.netns_up()
            groups.append(("net", self.net))
        if "crypto" in a.only:
            groups.append(("crypto", self.crypto))
        for rnd in range(a.rounds):
            self.rnd = rnd
            for name, fn in groups:
                t0 = time.time()
                fn(rnd)
                self.end_round()
                ratios = ["%s %.3f%s" % (k, v["ratio"][rnd], " (%s)" % " ".join(
                              "%.2f" % x for x in v["pairs"][rnd])
                              if a.verbose and len(v["pairs"][rnd]) > 1 else "")
                          for k, v in sorted(self.samples.items())
                          if rnd in v["ratio"] and k not in self.shown]
                self.shown.update(k.split(" ")[0] for k in ratios)
                print("round %d/%d %s: %.0f s, load %s: %s" % (rnd + 1, a.rounds, name,
                      time.time() - t0, loadavg(), ", ".join(ratios)), file=sys.stderr,
                      flush=True)
            self.shown = set()

    def cleanup(self):
        for p in list(self.procs):
            p.kill()
            p.wait()
        if self.netns:
            self.netns_down()
        self.disk_down()
        for d in self.tmpdirs:
            shutil.rmtree(d, ignore_errors=True)
        if getattr(self, "shm", None):
            shutil.rmtree(self.shm, ignore_errors=True)


# Reference rows printed beside the others but not judged, and why: the
# tool's figure holds work remote-bench's does not.
NOT_JUDGED = {
    "disk.seq_write@dd": "dd reads each block from /dev/zero inside its timing, remote-bench and "
    "bonnie++ write from a buffer: `dd if=/dev/zero of=/dev/null` of the same 2 GiB took "
    "0.067-0.081 s, 6-8 % of the write here (bench/RESULTS.md); bonnie++'s Block output judges "
    "disk.seq_write",
}

NO_REFERENCE = [
    (r"^cpu\.bogomips$", "the kernel's delay loop timed here; the kernel's own BogoMIPS on this "
     "host comes from the TSC (2 x MHz), not from a loop (orch records it as cpu.bogomips_kernel)"),
    (r"^cpu\.(int|float)_ops$", "remote-bench's own operation mix; no standard tool counts the "
     "same operations"),
    (r"^mem\.(total|free|available)$", "read from /proc/meminfo, which is the reference itself"),
    (r"^disk\.(putc_write|getc_read)$", "bonnie++ 1.0x's stdio putc/getc; Debian's bonnie++ 2.00a "
     "does one write(2)/read(2) per byte instead, compared as disk.char_write/char_read"),
    (r"^disk\.(putc_write|getc_read)_(cpu|syscpu)$", "as its figure"),
    (r"^disk\.open_read(_cpu|_syscpu)?$", "open+read+close of each small file: bonnie++'s Read "
     "is stat() (disk.stat); no tool times this"),
    (r"^disk\..*_syscpu$|^net\..*_syscpu$", "the machine's busy share from /proc/stat during the "
     "step: /proc/stat is itself the reference (no tool prints it per step)"),
    (r"^disk\.seq_read(_cpu)?$", "bonnie++'s Block input reads the file from the page cache "
     "unless -s is twice the RAM (48 GiB here); compared with dd after a drop instead"),
    (r"^disk\.seeks_cpu$", "not printed (the seek loop's CPU is not bonnie++'s either: its "
     "seeks run in 5 processes)"),
    (r"^net\.udp_loss$", "not the same quantity: iperf3 counts gaps in the sequence numbers up to "
     "the last datagram received, remote-bench the datagrams sent but not received"),
    (r"^crypto\.(hello|key)_(64|1500)(_pps|_ms)?$", "one X25519 and one sealed packet together: openssl speed "
     "times each alone (crypto.x25519, crypto.chacha20poly1305_64)"),
    (r"^crypto\..*_ms$", "--count mode: the same work as the rate metric, as a time"),
]


def dd_seconds(stderr):
    f = re.search(r"copied, ([0-9.e+-]+) s", stderr)
    if not f:
        raise ToolError("dd printed no time: %r" % stderr)
    return float(f.group(1))


def fs_of(d):
    r = run(["df", "--output=fstype,source", d], timeout=30, check=False)
    f = r.stdout.split()
    return "%s on %s" % (f[2], f[3]) if len(f) >= 4 else "file system unknown"


def touch_memory(mib):
    """Touches every page of mib MiB of anonymous memory, then frees it."""
    m = mmap.mmap(-1, mib * MIB)
    chunk = b"\1" * (64 * MIB)
    try:
        for off in range(0, len(m), len(chunk)):
            m[off:off + len(chunk)] = chunk[:len(m) - off]
    finally:
        m.close()


class PageReporting:
    """Holds back free page reporting for the run's length, where the kernel
    lets root do it, and puts every value back after (also on Ctrl-C and
    SIGTERM: main's signal handlers end in cleanup). On this VM (a 6.18
    kernel with a balloon that reports free pages to the host) a page freed
    and reported is faulted in again by the host at its next touch; a 2 GiB
    write through the page cache during which the kernel reported 500 MiB
    ran at 190-820 MiB/s, against 1700-2250 MiB/s with none reported (bench/
    RESULTS.md, helper diskvm). The kernel reports pages free for min_free_ms
    or as soon as max_waiting_mib are waiting; both are raised to the most
    the kernel takes (300000 ms, 1 TiB). Other kernels (no such parameters,
    or not root): nothing changed, said so."""
    DIR = "/sys/module/page_reporting/parameters/"
    WANT = (("min_free_ms", "300000"), ("max_waiting_mib", "1048576"))

    def __init__(self):
        self.saved = []
        self.note = None

    def reported_kib(self):
        try:
            with open(self.DIR + "reported_kib") as f:
                return int(f.read())
        except (OSError, ValueError):
            return None

    def hold(self):
        if not os.path.isdir(self.DIR):
            self.note = "free page reporting: none on this kernel; nothing changed"
            return
        if os.geteuid() != 0:
            self.note = "free page reporting: left as it is (not root)"
            return
        done = []
        for name, value in self.WANT:
            path = self.DIR + name
            if not os.path.exists(path):
                continue
            with open(path) as f:
                old = f.read().strip()
            try:
                with open(path, "w") as f:
                    f.write(value)
            except OSError as e:
                done.append("%s %s kept (%s refused: %s)" % (name, old, value, e.strerror))
                continue
            self.saved.append((path, old))
            done.append("%s %s -> %s" % (name, old, value))
        self.start_kib = self.reported_kib()
        self.note = "free page reporting held back for the run (%s): %s" % (
            self.DIR.rstrip("/"), ", ".join(done) or "no parameter to hold it back with")

    def restore(self):
        back = []
        while self.saved:
            path, old = self.saved.pop()
            try:
                with open(path, "w") as f:
                    f.write(old)
                back.append("%s %s" % (os.path.basename(path), old))
            except OSError as e:
                back.append("%s NOT restored to %s: %s" % (os.path.basename(path), old, e.strerror))
        return back


def gmean(v):
    return math.exp(statistics.mean(math.log(x) for x in v)) if all(x > 0 for x in v) \
        else statistics.mean(v)


def cpu_pressure():
    """Microseconds, since boot, during which some runnable task here waited
    for a CPU (/proc/pressure/cpu "some" total), or None without PSI."""
    try:
        with open("/proc/pressure/cpu") as f:
            return int(re.search(r"^some .*total=(\d+)", f.read(), re.M).group(1))
    except (OSError, AttributeError):
        return None


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def quartiles(v):
    if len(v) < 2:
        return v[0], v[0]
    q = statistics.quantiles(v, n=4, method="inclusive")
    return q[0], q[2]


def report(o, quick):
    bad = 0
    rows = []
    for name in sorted(o.samples):
        s = o.samples[name]
        if name not in o.refs:
            continue
        both = sorted(s["ratio"])
        n = len(both)
        if n == 0 or (name in o.too_fast and n < o.a.rounds):
            # bonnie++ printed +++ (under 0.5 s) in the other rounds: the
            # rounds with a figure are those something slowed it in
            continue
        ratios = [s["ratio"][r] for r in both]
        med = statistics.median(ratios)
        q1, q3 = quartiles(ratios)
        band = CRYPTO_BAND if name.startswith("crypto.") else BAND
        if quick:
            verdict = "(quick: not judged)"
        elif name in NOT_JUDGED:
            verdict = "not judged"
        elif band[0] <= med <= band[1]:
            verdict = "ok"
        else:
            verdict = "OUT OF %.1f-%.1f" % band
            bad += 1
        rows.append((name, statistics.median(s["rb"][r] for r in both),
                     statistics.median(s["tool"][r] for r in both),
                     med, q3 - q1, n, verdict, o.refs[name]))
    print("%-26s %12s %12s %7s %7s %3s  %-12s %s" % ("metric", "remote-bench", "tool", "ratio",
          "IQR", "n", "verdict", "reference"))
    for r in rows:
        print("%-26s %12.1f %12.1f %7.3f %7.3f %3d  %-12s %s" % r)
    for name in sorted(n for n in NOT_JUDGED if any(r[0] == n for r in rows)):
        print("\nnot judged: %s: %s" % (name, NOT_JUDGED[name]))
    compared = {r[0].split("@")[0] for r in rows}
    missing = sorted(m for m in o.seen if m not in compared)
    if missing:
        print("\nno reference:")
        for m in missing:
            why = None
            if m in o.too_fast:
                why = ("bonnie++ printed +++ (the pass took under 0.5 s) in some or all rounds at "
                       "-n %d (a figure only from rounds that slowed it is not compared); "
                       "--files-k 256 gives figures on the scratch ext4 (stat 340k/s, random stat "
                       "250k/s measured) at about 50 s per side per round" % o.a.kfiles)
            why = why or next((w for pat, w in NO_REFERENCE if re.search(pat, m)), None)
            print("  %-26s %s" % (m, why or "no reference tool known"))
    return bad


def parse():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("bin", nargs="?", help="directory with remote-bench-*")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--quick", action="store_true")
    p.add_argument("-v", "--verbose", action="store_true", help="time of every run on stderr")
    p.add_argument("--only", default="mem,tmpfs,disk,seeks,net,crypto")
    p.add_argument("--disk-dir", "--dir", dest="disk_dir", metavar="DIR",
                   help="run the disk tools and remote-bench-disk in DIR (a real disk); default "
                   "as root: a scratch ext4 on a loop device over a file in /dev/shm")
    p.add_argument("--disk-repeats", type=int, default=4, metavar="N",
                   help="adjacent pairs (tool, remote-bench) of the 2 GiB block section per "
                   "round, in ABBA order (per-char, file and seek sections: N/2; default 4)")
    p.add_argument("--disk-sections", default="char,block,files", metavar="LIST",
                   help="the disk group's sections to run (char, block, files; default all)")
    p.add_argument("--busy-limit", type=float, default=0.10, metavar="F",
                   help="a disk pair during which this machine's tasks waited for a CPU more "
                   "than this share of its time (/proc/pressure/cpu) is run again (default 0.10)")
    p.add_argument("--busy-retries", type=int, default=2, metavar="N",
                   help="times a disk pair is run again for --busy-limit (default 2; then kept "
                   "and counted)")
    p.add_argument("--warm-mib", type=int, metavar="MIB",
                   help="anonymous memory touched and freed before each 2 GiB block run "
                   "(default: the file size + 512 MiB; 0: none)")
    p.add_argument("--no-hold", action="store_true",
                   help="leave the kernel's free page reporting as it is")
    p.add_argument("--glibc-bin", help="a glibc build of remote-bench (BUILD/remote-bench/libc/"
                   "ARCH; found beside BIN_DIR by default) for mem rows NAME@glibc")
    p.add_argument("--files-k", type=int, help="the file tests' count in units of 1024 "
                   "(bonnie++ -n; default 64 on the scratch ext4, 16 elsewhere; stat and random "
                   "stat need about 256 there for bonnie++ to print a figure)")
    a = p.parse_args()
    a.only = set(a.only.split(","))
    a.disk_sections = set(a.disk_sections.split(","))
    if a.disk_sections - {"char", "block", "files"}:
        p.error("unknown --disk-sections: %s" % ",".join(sorted(a.disk_sections -
                                                               {"char", "block", "files"})))
    unknown = a.only - {"mem", "tmpfs", "disk", "seeks", "net", "crypto"}
    if unknown:
        p.error("unknown --only group: %s" % ",".join(sorted(unknown)))
    if a.quick:
        a.rounds = 1 if a.rounds == 7 else a.rounds
        a.disk_repeats = 1
        a.mem_mib, a.mem_loops, a.mem_pairs = 8, 3, 1
        a.disk_mib, a.block, a.kfiles, a.char_mib = 16, 65536, 1, 1
        a.seek_time, a.net_time, a.crypto_time = 0.5, 1, 1
    else:
        a.mem_mib, a.mem_loops, a.mem_pairs = 64, 5, 4
        a.disk_mib, a.block, a.kfiles, a.char_mib = 2048, 65536, 64, 2
        if a.disk_dir or os.geteuid() != 0:
            a.kfiles = 16
        a.seek_time, a.net_time, a.crypto_time = 3, 3, 1
    if a.files_k:
        a.kfiles = a.files_k
    if a.warm_mib is None:
        a.warm_mib = 0 if a.quick else a.disk_mib + 512
    # the scratch ext4: the largest file (2 GiB) plus room for the small
    # files, the journal and ext4's own blocks
    a.scratch_mib = a.disk_mib + (240 if a.quick else 1024)
    return a


def main():
    a = parse()
    need = {"mem": ["mbw"], "tmpfs": ["dd"], "disk": ["bonnie++", "dd"], "seeks": ["fio", "dd"],
            "net": ["iperf3", "ip"], "crypto": ["openssl"]}
    for g in a.only:
        for t in need[g]:
            if not shutil.which(t):
                print("missing %s (scripts/install-deps.sh bench)" % t, file=sys.stderr)
                return 2
    if "net" in a.only and os.geteuid() != 0:
        print("the net group needs root (network namespaces); use --only without net",
              file=sys.stderr)
        return 2
    build = None
    if not a.bin:
        build = tempfile.mkdtemp(prefix="rb-oracle-build-")
        run(["cmake", "-S", SRC, "-B", build, "-DCMAKE_BUILD_TYPE=Release"], timeout=600)
        run(["cmake", "--build", build, "-j2", "--target", "remote-bench"], timeout=1200)
        bins = [os.path.join(build, "remote-bench", "bin", d)
                for d in os.listdir(os.path.join(build, "remote-bench", "bin"))]
        a.bin = bins[0]
    if a.glibc_bin is None and a.bin:
        guess = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(a.bin))), "libc",
                             os.path.basename(os.path.abspath(a.bin)))
        if os.path.exists(os.path.join(guess, "remote-bench-mem")):
            a.glibc_bin = guess
    o = Oracle(a)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda n, f: sys.exit(128 + n))
    print("remote-bench-vs-tools: %d rounds (tool, remote-bench, alternating); bin %s; load %s; "
          "%s" % (a.rounds, a.bin, loadavg(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
    pr = PageReporting()
    try:
        if not a.no_hold and not a.quick:
            pr.hold()
            print(pr.note, flush=True)
        o.go()
    except ToolError as e:
        print("remote-bench-vs-tools: %s" % e, file=sys.stderr)
        return 2
    finally:
        o.cleanup()
        end_kib = pr.reported_kib()
        back = pr.restore()
        if back:
            print("free page reporting restored: %s" % ", ".join(back), flush=True)
        if build:
            shutil.rmtree(build, ignore_errors=True)
    bad = report(o, a.quick)
    if getattr(pr, "start_kib", None) is not None and end_kib is not None:
        print("\nreported to the host during the run: %.0f MiB" % ((end_kib - pr.start_kib) / 1024))
    print("disk pairs run again for CPU pressure over %.0f%%: %d; kept over it after %d tries: "
          "%d; waited for a quiet CPU: %.0f s" % (100 * a.busy_limit, o.busy_redone,
                                                  a.busy_retries + 1, o.busy_kept, o.waited))
    print("load at the end: %s" % loadavg())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
