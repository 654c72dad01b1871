#!/usr/bin/python3
"""Whole-system benchmark of local watching: fathom beside inotifywait, fswatch, watchman, watchdog.

For each file system (ext4 and tmpfs by default), each number of generator processes and each
monitor, one run: start the monitor on a fresh directory tree, wait until it is ready, run
evaluate_performance (FSMonitor's Evaluate_Performance_Script: create, write, close, delete;
4 events a cycle) for a fixed number of cycles, wait until the monitor's output stops growing,
stop it, and count what it reported for the generator's files. Prints one table per file
system and generator count, ratios of fathom to inotifywait, and optionally JSON (--json).

Progress goes to stderr, tables to stdout. Run as root for fanotify. Example:
    /usr/bin/python3 bench/run_local_bench.py --build build --json bench-results.json
"""

import argparse
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# The kinds fathom reports by default (every change, not reads); inotifywait gets the same.
DEFAULT_KINDS = ["create", "modify", "attrib", "close_write", "moved_from", "moved_to", "delete",
                 "delete_self", "move_self"]

WATCHDOG_SCRIPT = r"""
import sys, time
from watchdog.events import FileSystemEventHandler
from watchdog.observers.inotify import InotifyObserver

class Printer(FileSystemEventHandler):
    def on_any_event(self, event):
        sys.stdout.write("%s%s %s\n" % (event.event_type, ",dir" if event.is_directory else "", event.src_path))

sys.stdout.reconfigure(line_buffering=True)
observer = InotifyObserver()
observer.schedule(Printer(), sys.argv[1], recursive=True)
observer.start()
sys.stderr.write("watchdog: watches established\n")
sys.stderr.flush()
try:
    while True:
        time.sleep(3600)
except KeyboardInterrupt:
    pass
observer.stop()
observer.join()
"""


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


# ---------------------------------------------------------------------------------------------
# Process and machine facts


def proc_cpu_seconds(pid):
    """utime + stime of a live process (all its threads, living and dead), in seconds."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK
    except (OSError, IndexError, ValueError):
        return None


def proc_status_kb(pid, key):
    """A 'kB' line of /proc/PID/status (VmHWM, VmRSS), or None."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def fs_type(path):
    """The type of the file system holding path, from the longest matching /proc/self/mounts entry."""
    path = os.path.realpath(path)
    best, kind = "", "unknown"
    with open("/proc/self/mounts") as f:
        for line in f:
            fields = line.split()
            if len(fields) < 3:
                continue
            mnt = fields[1].replace("\\040", " ")
            inside = path == mnt or path.startswith(mnt.rstrip("/") + "/")
            if inside and len(mnt) >= len(best):
                best, kind = mnt, fields[2]
    return kind


def read_first_line(path):
    try:
        with open(path) as f:
            return f.readline().strip()
    except OSError:
        return ""


def tool_version(argv):
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (out.stdout or out.stderr).strip().splitlines()
    return text[0] if text else None


def machine_facts():
    model = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem_kb = proc_meminfo_kb("MemTotal")
    return {
        "loadavg_at_start": os.getloadavg()[0],
        "nproc": os.cpu_count(),
        "cpu": model,
        "kernel": platform.release(),
        "mem_gb": round(mem_kb / 1048576, 1) if mem_kb else None,
        "inotify_max_queued_events": read_first_line("/proc/sys/fs/inotify/max_queued_events"),
        "inotify_max_user_watches": read_first_line("/proc/sys/fs/inotify/max_user_watches"),
        "versions": {
            "inotifywait": tool_version(["inotifywait", "--help"]),
            "fswatch": tool_version(["fswatch", "--version"]),
            "watchman": tool_version(["watchman", "--version"]),
            "watchdog": tool_version(["/usr/bin/python3", "-c",
                                      "import watchdog.version as v; print('watchdog', v.VERSION_STRING)"]),
        },
    }


def proc_meminfo_kb(key):
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return None


def wait_for_text(path, needle, timeout, proc=None):
    """Polls a file until it contains needle; returns its text, or None on timeout/exit."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(path, errors="replace") as f:
                text = f.read()
        except OSError:
            text = ""
        if needle in text:
            return text
        if proc is not None and proc.poll() is not None:
            return None
        time.sleep(0.02)
    return None


def stop_process(proc, sig=signal.SIGINT, timeout=15):
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


# ---------------------------------------------------------------------------------------------
# Output parsers: each returns (events, creates, deletes, overflows) for the generator's files.


def parse_inotify_lines(path, name_re):
    """`ROOT KINDS PATH` (fathom --format inotify) or `DIR/ KINDS NAME` (inotifywait)."""
    events = creates = deletes = overflows = 0
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 2)
            if len(parts) < 2:
                continue
            kinds = parts[1].split(",")
            if "OVERFLOW" in kinds or "Q_OVERFLOW" in kinds:
                overflows += 1
                continue
            if len(parts) < 3 or not name_re.search(parts[2]):
                continue
            events += 1
            creates += "CREATE" in kinds
            deletes += "DELETE" in kinds
    return events, creates, deletes, overflows


def parse_fswatch(path, name_re):
    """`PATH FLAG,FLAG` (fswatch -x --event-flag-separator=,): Created → CREATE, Removed → DELETE."""
    events = creates = deletes = overflows = 0
    with open(path, errors="replace") as f:
        for line in f:
            head, _, flags = line.rstrip("\n").rpartition(" ")
            flags = flags.split(",")
            if "Overflow" in flags:
                overflows += 1
            if not name_re.search(head):
                continue
            events += 1
            creates += "Created" in flags
            deletes += "Removed" in flags
    return events, creates, deletes, overflows


def parse_watchman(path, name_re):
    """Subscription PDUs: a file entry with new=true counts as CREATE, exists=false as DELETE."""
    events = creates = deletes = overflows = 0
    with open(path, errors="replace") as f:
        for line in f:
            try:
                pdu = json.loads(line)
            except ValueError:
                continue
            if pdu.get("unilateral") and pdu.get("is_fresh_instance"):
                overflows += 1
            for entry in pdu.get("files") or []:
                if not name_re.search(entry.get("name", "")):
                    continue
                new, gone = bool(entry.get("new")), not entry.get("exists", True)
                events += new + gone
                creates += new
                deletes += gone
    return events, creates, deletes, overflows


def parse_watchdog(path, name_re):
    """`TYPE PATH` lines from the inline observer: created → CREATE, deleted → DELETE."""
    events = creates = deletes = overflows = 0
    with open(path, errors="replace") as f:
        for line in f:
            kind, _, target = line.rstrip("\n").partition(" ")
            if not name_re.search(target):
                continue
            events += 1
            creates += kind == "created"
            deletes += kind == "deleted"
    return events, creates, deletes, overflows


# ---------------------------------------------------------------------------------------------
# Monitors. Each knows how to start on a tree, when it is ready, and how to read its output.


class Monitor:
    name = ""
    ready_text = None   # substring of stderr that says watches are in place
    settle = 0.2        # seconds to wait after readiness (peers that print nothing get more)
    quiet = 0.5         # output unchanged this long after the generator ends = quiescent
    needs = []          # programs that must be installed

    def __init__(self, args):
        self.args = args
        self.proc = None
        self.extra_pids = []

    def available(self):
        missing = [p for p in self.needs if not shutil.which(p) and not os.path.exists(p)]
        return None if not missing else "not installed: " + ", ".join(missing)

    def argv(self, root, workdir):
        return []

    def start(self, root, workdir, out_path, err_path):
        self.out_f = open(out_path, "wb")
        self.err_f = open(err_path, "wb")
        self.proc = subprocess.Popen(self.argv(root, workdir), stdin=subprocess.DEVNULL,
                                     stdout=self.out_f, stderr=self.err_f, start_new_session=True)

    def wait_ready(self, out_path, err_path, timeout):
        if self.ready_text is None:
            time.sleep(self.settle)
            return self.proc.poll() is None
        text = wait_for_text(err_path, self.ready_text, timeout, self.proc)
        if text is None:
            return False
        self.ready_log = text
        time.sleep(self.settle)
        return True

    def pids(self):
        return [self.proc.pid] + self.extra_pids

    def alive(self):
        return self.proc.poll() is None

    def processes(self):
        return [self.proc] if self.proc is not None else []

    def kill(self):
        """After an interruption: SIGKILL whatever this monitor still has running."""
        for p in self.processes():
            if p.poll() is None:
                p.kill()
                p.wait()

    def stop(self):
        rc = stop_process(self.proc)
        self.out_f.close()
        self.err_f.close()
        return rc

    def parse(self, out_path, name_re):
        return parse_inotify_lines(out_path, name_re)


class NoMonitor(Monitor):
    """The generator alone: the machine's generation rate with nothing watching."""
    name = "none"

    def start(self, root, workdir, out_path, err_path):
        open(out_path, "wb").close()

    def wait_ready(self, out_path, err_path, timeout):
        return True

    def pids(self):
        return []

    def alive(self):
        return True

    def stop(self):
        return 0

    def parse(self, out_path, name_re):
        return 0, 0, 0, 0


class FathomMonitor(Monitor):
    ready_text = "watches established"
    needs = []

    def __init__(self, args, backend, store):
        super().__init__(args)
        self.backend = backend
        self.store = store
        self.name = "fathom-%s%s" % (backend, "+store" if store else "")

    def available(self):
        return None if os.access(self.args.fathom, os.X_OK) else "not built: " + self.args.fathom

    def store_path(self):
        return os.path.join(self.args.store_dir, "fathom-bench-%d.db" % os.getpid())

    def argv(self, root, workdir):
        argv = [self.args.fathom, "watch", "-r", root, "--backend", self.backend, "--format", "inotify"]
        if self.store:
            argv += ["--store", self.store_path()]
        return argv

    def remove_store(self):
        for suffix in ("", "-wal", "-shm", "-journal"):
            if os.path.exists(self.store_path() + suffix):
                os.unlink(self.store_path() + suffix)

    def start(self, root, workdir, out_path, err_path):
        if self.store:
            self.remove_store()
        super().start(root, workdir, out_path, err_path)

    def stop(self):
        rc = super().stop()
        if self.store:
            self.remove_store()
        return rc

    def kernel_watches(self):
        m = re.search(r"\((\w+), (\d+) kernel watches\)", getattr(self, "ready_log", ""))
        return int(m.group(2)) if m else None


class InotifywaitMonitor(Monitor):
    name = "inotifywait"
    ready_text = "Watches established"
    needs = ["inotifywait"]

    def argv(self, root, workdir):
        argv = ["inotifywait", "-m", "-r"]
        for k in DEFAULT_KINDS:
            argv += ["-e", k]
        return argv + [root]


class FswatchMonitor(Monitor):
    name = "fswatch"
    needs = ["fswatch"]
    settle = 1.0

    # Its inotify monitor reads one buffer of events per latency period: at the default 1 s it
    # keeps up with under a hundred files a second and then exits on the kernel queue overflow.
    # A 10 ms latency, with overflows reported instead of fatal, is its best configuration.
    def argv(self, root, workdir):
        return ["fswatch", "-m", "inotify_monitor", "-r", "-x", "--event-flag-separator=,", "--latency", "0.01",
                "--allow-overflow", root]

    def parse(self, out_path, name_re):
        return parse_fswatch(out_path, name_re)


class WatchdogMonitor(Monitor):
    name = "watchdog"
    ready_text = "watches established"
    needs = ["/usr/bin/python3"]

    def available(self):
        missing = super().available()
        if missing:
            return missing
        probe = subprocess.run(["/usr/bin/python3", "-c", "import watchdog.observers.inotify"],
                               capture_output=True)
        return None if probe.returncode == 0 else "python3-watchdog not importable by /usr/bin/python3"

    def argv(self, root, workdir):
        return ["/usr/bin/python3", "-c", WATCHDOG_SCRIPT, root]

    def parse(self, out_path, name_re):
        return parse_watchdog(out_path, name_re)


class WatchmanMonitor(Monitor):
    """A private watchman server (own socket, state and log in a temp dir, no system service),
    a `watch` of the tree, and a persistent `watchman -j -p` subscription whose PDUs are the
    output. CPU and peak RSS are the server's plus the subscribing client's."""
    name = "watchman"
    needs = ["watchman"]
    settle = 0.5

    def _base(self, workdir):
        return ["watchman", "-U", os.path.join(workdir, "wm.sock"), "--no-spawn", "--no-pretty"]

    def start(self, root, workdir, out_path, err_path):
        self.out_f = open(out_path, "wb")
        self.err_f = open(err_path, "wb")
        self.server_log = open(os.path.join(workdir, "wm-server.out"), "wb")
        sock = os.path.join(workdir, "wm.sock")
        self.server = subprocess.Popen(
            ["watchman", "--foreground", "-U", sock, "--statefile=" + os.path.join(workdir, "wm.state"),
             "--logfile=" + os.path.join(workdir, "wm.log"), "--pidfile=" + os.path.join(workdir, "wm.pid"),
             "--no-save-state"],
            stdin=subprocess.DEVNULL, stdout=self.server_log, stderr=self.server_log, start_new_session=True)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if subprocess.run(self._base(workdir) + ["get-pid"], capture_output=True).returncode == 0:
                break
            if self.server.poll() is not None:
                break
            time.sleep(0.05)
        subprocess.run(self._base(workdir) + ["watch", root], capture_output=True, timeout=60)
        sub = json.dumps(["subscribe", root, "bench", {"fields": ["name", "exists", "new"],
                                                        "expression": ["type", "f"]}])
        self.proc = subprocess.Popen(self._base(workdir) + ["-j", "-p"],
                                     stdin=subprocess.PIPE, stdout=self.out_f, stderr=self.err_f,
                                     start_new_session=True)
        self.proc.stdin.write((sub + "\n").encode())
        self.proc.stdin.close()
        self.extra_pids = [self.server.pid]
        self.workdir = workdir

    def wait_ready(self, out_path, err_path, timeout):
        if wait_for_text(out_path, '"subscribe"', timeout, self.proc) is None:
            return False
        time.sleep(self.settle)
        return True

    def processes(self):
        return [p for p in (self.proc, getattr(self, "server", None)) if p is not None]

    def stop(self):
        rc = stop_process(self.proc, signal.SIGTERM)
        subprocess.run(self._base(self.workdir) + ["shutdown-server"], capture_output=True, timeout=30)
        stop_process(self.server, signal.SIGTERM)
        for f in (self.out_f, self.err_f, self.server_log):
            f.close()
        return rc

    def parse(self, out_path, name_re):
        return parse_watchman(out_path, name_re)


def all_monitors(args):
    return [
        NoMonitor(args),
        FathomMonitor(args, "inotify", False),
        FathomMonitor(args, "inotify", True),
        FathomMonitor(args, "fanotify", False),
        FathomMonitor(args, "fanotify", True),
        InotifywaitMonitor(args),
        FswatchMonitor(args),
        WatchmanMonitor(args),
        WatchdogMonitor(args),
    ]


def select_monitors(args):
    monitors = all_monitors(args)
    if not args.monitors:
        return monitors
    wanted = []
    for token in args.monitors.split(","):
        token = token.strip()
        group = [m for m in monitors if m.name == token or m.name.startswith(token + "-")]
        if not group:
            sys.exit("run_local_bench: unknown monitor '%s' (known: %s; 'fathom' selects all four fathom "
                     "variants)" % (token, ", ".join(m.name for m in monitors)))
        wanted += [m for m in group if m not in wanted]
    return wanted


# ---------------------------------------------------------------------------------------------
# One run


def wait_quiescent(out_path, quiet, cap, t_start):
    """Waits until out_path stops growing for `quiet` seconds (or `cap` seconds pass).
    Returns the time of the last growth (monotonic) and whether the cap was hit."""
    deadline = time.monotonic() + cap
    last_size = -1
    last_growth = t_start
    while True:
        now = time.monotonic()
        try:
            size = os.path.getsize(out_path)
        except OSError:
            size = 0
        if size != last_size:
            last_size = size
            last_growth = now
        elif now - last_growth >= quiet:
            return last_growth, False
        if now >= deadline:
            return last_growth, True
        time.sleep(0.05)


def run_one(args, monitor, fs_label, base, procs, cycles, run_id):
    """One monitor, one file system, one generator count. Returns a result dict."""
    result = {"fs": fs_label, "fs_type": fs_type(base), "procs": procs, "monitor": monitor.name,
              "cycles": cycles}
    rundir = tempfile.mkdtemp(prefix="fathom-bench-", dir=base)
    root = os.path.join(rundir, "tree")
    work = os.path.join(root, "work")   # one level down: every monitor must be recursive
    os.makedirs(work)
    # Captured output goes to another file system than the watched one, so that writing it
    # is not itself an event on the watched file system (fanotify sees the whole file system).
    out_base = args.tmpfs_dir if fs_label != "tmpfs" else args.ext4_dir
    outdir = tempfile.mkdtemp(prefix="fathom-bench-out-", dir=out_base)
    out_path = os.path.join(outdir, "stdout")
    err_path = os.path.join(outdir, "stderr")
    prefix = "r%dp" % run_id
    name_re = re.compile(r"(^|/)%s\d+_\d+$" % re.escape(prefix))
    try:
        t_launch = time.monotonic()
        monitor.start(root, outdir, out_path, err_path)
        if not monitor.wait_ready(out_path, err_path, args.ready_timeout):
            monitor.stop()
            with open(err_path, errors="replace") as f:
                result["error"] = "not ready: " + f.read().strip()[-400:]
            return result
        result["ready_s"] = round(time.monotonic() - t_launch, 3)
        cpu0 = sum(proc_cpu_seconds(p) or 0 for p in monitor.pids())
        t_gen = time.monotonic()
        gen = subprocess.run([args.generator, "--dir", work, "--procs", str(procs), "--cycles", str(cycles),
                              "--prefix", prefix], capture_output=True, text=True)
        if gen.returncode != 0:
            monitor.stop()
            result["error"] = "generator failed: " + gen.stderr.strip()
            return result
        g = json.loads(gen.stdout)
        result.update({"generated": g["events"], "generated_create_delete": 2 * g["cycles"],
                       "gen_elapsed_s": g["elapsed_s"], "gen_events_per_s": round(g["events_per_s"])})
        cap = max(args.quiescence_cap, 10 * g["elapsed_s"])
        last_growth, capped = wait_quiescent(out_path, monitor.quiet, cap, t_gen)
        cpu1 = sum(proc_cpu_seconds(p) or 0 for p in monitor.pids())
        hwm = [proc_status_kb(p, "VmHWM") for p in monitor.pids()]
        alive = monitor.alive()
        rc = monitor.stop()
        events, creates, deletes, overflows = monitor.parse(out_path, name_re)
        span = max(last_growth - t_gen, g["elapsed_s"])
        lost = result["generated_create_delete"] - creates - deletes
        result.update({
            "reported": events, "reported_create": creates, "reported_delete": deletes,
            "lost_create_delete": lost, "overflows": overflows,
            "reported_per_s": round(events / span) if events else 0,
            "cpu_s": round(cpu1 - cpu0, 3),
            "cpu_s_per_mevent": round((cpu1 - cpu0) / g["events"] * 1e6, 3) if monitor.pids() else None,
            "peak_rss_kb": sum(h for h in hwm if h) if monitor.pids() else None,
            "quiescence_capped": capped,
        })
        if not alive:
            result["error"] = "monitor exited early (status %s)" % rc
        if isinstance(monitor, FathomMonitor):
            result["kernel_watches"] = monitor.kernel_watches()
        return result
    finally:
        monitor.kill()
        if not args.keep_output:
            shutil.rmtree(outdir, ignore_errors=True)
        shutil.rmtree(rundir, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Reporting


def write_table(out, table, left_columns):
    """Writes rows (the first is the header) as aligned text columns: the first `left_columns`
    left-aligned, the rest right-aligned, with a rule under the header. Short rows are padded."""
    width = len(table[0])
    widths = [max(len(str(row[i])) for row in table if len(row) > i) for i in range(width)]
    for i, row in enumerate(table):
        out.write("  " + "  ".join(str(c).ljust(widths[j]) if j < left_columns else str(c).rjust(widths[j])
                                   for j, c in enumerate(row)).rstrip() + "\n")
        if i == 0:
            out.write("  " + "  ".join("-" * w for w in widths) + "\n")


def fmt_num(v, digits=0):
    if v is None:
        return "-"
    if isinstance(v, float) and digits:
        return "%.*f" % (digits, v)
    return "{:,}".format(int(round(v)))


def print_tables(results, out):
    groups = []
    for r in results:
        key = (r["fs"], r["fs_type"], r["procs"])
        if key not in groups:
            groups.append(key)
    header = ("monitor", "generated", "gen ev/s", "reported", "CREATE", "DELETE", "lost C+D", "C+D ratio",
              "overflow", "reported/s", "CPU s/Mev", "peak RSS MB")
    for fs, ftype, procs in groups:
        rows = [r for r in results if (r["fs"], r["fs_type"], r["procs"]) == (fs, ftype, procs)]
        runs = rows[0].get("runs", 1)
        out.write("\n%s (%s), %d generator process%s, %s cycles%s\n" %
                  (fs, ftype, procs, "" if procs == 1 else "es", fmt_num(rows[0]["cycles"]),
                   ", median of %d runs (lost, overflow: worst run)" % runs if runs > 1 else ""))
        table = [header]
        for r in rows:
            if "error" in r and "reported" not in r:
                table.append((r["monitor"], "error: " + r["error"][:80]) + ("",) * (len(header) - 2))
                continue
            rss = r.get("peak_rss_kb")
            table.append((
                r["monitor"] + (" (!)" if r.get("error") else ""),
                fmt_num(r.get("generated")), fmt_num(r.get("gen_events_per_s")), fmt_num(r.get("reported")),
                fmt_num(r.get("reported_create")), fmt_num(r.get("reported_delete")),
                fmt_num(r.get("lost_create_delete")) if r["monitor"] != "none" else "-",
                "%.3f" % (1 - r["lost_create_delete"] / r["generated_create_delete"])
                if r["monitor"] != "none" and r.get("generated_create_delete") else "-",
                fmt_num(r.get("overflows")), fmt_num(r.get("reported_per_s")),
                fmt_num(r.get("cpu_s_per_mevent"), 2), fmt_num(rss / 1024.0, 1) if rss else "-"))
        write_table(out, table, left_columns=1)
        errors = [r for r in rows if r.get("error")]
        for r in errors:
            out.write("  (!) %s: %s\n" % (r["monitor"], r["error"]))


def compute_ratios(results):
    ratios = []
    for r in results:
        if not r["monitor"].startswith("fathom") or "reported" not in r:
            continue
        base = [b for b in results if b["monitor"] == "inotifywait" and b["fs"] == r["fs"]
                and b["procs"] == r["procs"] and "reported" in b]
        if not base:
            continue
        b = base[0]

        def ratio(key):
            x, y = r.get(key), b.get(key)
            return round(x / y, 2) if x is not None and y else None
        ratios.append({"fs": r["fs"], "procs": r["procs"], "monitor": r["monitor"],
                       "reported_per_s": ratio("reported_per_s"), "cpu_s_per_mevent": ratio("cpu_s_per_mevent"),
                       "peak_rss": ratio("peak_rss_kb")})
    return ratios


def print_ratios(ratios, out):
    if not ratios:
        return
    out.write("\nfathom / inotifywait (reported/s: higher is better; CPU per Mevent and RSS: lower is better)\n")
    header = ("fs", "procs", "monitor", "reported/s", "CPU/Mev", "peak RSS")
    table = [header] + [(q["fs"], str(q["procs"]), q["monitor"], fmt_num(q["reported_per_s"], 2),
                         fmt_num(q["cpu_s_per_mevent"], 2), fmt_num(q["peak_rss"], 2)) for q in ratios]
    write_table(out, table, left_columns=3)


# ---------------------------------------------------------------------------------------------


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0] + " Counts events generated and reported, loss, reported "
        "events/s, monitor CPU seconds per million generated events and peak RSS; prints ratios of "
        "fathom to inotifywait. Run as root (fanotify).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--build", default=os.path.join(REPO, "build"),
                   help="build directory holding fathom and evaluate_performance")
    p.add_argument("--cycles", type=int, default=100000,
                   help="generator cycles per run (4 events each), split over the processes")
    p.add_argument("--procs", default="1,2", help="comma-separated generator process counts")
    p.add_argument("--fs", default="ext4,tmpfs", help="comma-separated file systems: ext4, tmpfs")
    p.add_argument("--monitors", default="",
                   help="comma-separated monitors (default all): none, fathom (all four), fathom-inotify, "
                   "fathom-inotify+store, fathom-fanotify, fathom-fanotify+store, inotifywait, fswatch, "
                   "watchman, watchdog")
    p.add_argument("--repeat", type=int, default=1,
                   help="runs of each configuration; the tables show medians (loss: the worst run)")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: 2,000 cycles, 1 process, short waits (well under a minute)")
    p.add_argument("--json", metavar="FILE", help="also write machine facts and results as JSON")
    p.add_argument("--ext4-dir", default="/var/tmp", help="where the disk-file-system trees are made")
    p.add_argument("--tmpfs-dir", default="/dev/shm", help="where the tmpfs trees are made")
    p.add_argument("--store-dir", default="/var/tmp", help="where fathom's --store file is written")
    p.add_argument("--ready-timeout", type=float, default=30, help="seconds to wait for a monitor to be ready")
    p.add_argument("--quiescence-cap", type=float, default=60,
                   help="longest wait, in seconds, for a monitor's output to stop growing")
    p.add_argument("--require-complete", metavar="MONITORS", default="",
                   help="exit 1 unless these monitors (comma-separated; 'fathom' = every fathom variant) "
                   "reported every generated CREATE and DELETE and hit no error")
    p.add_argument("--keep-output", action="store_true", help="keep each monitor's captured output")
    args = p.parse_args(argv)
    args.build = os.path.abspath(args.build)
    args.fathom = os.path.join(args.build, "fathom")
    args.generator = os.path.join(args.build, "evaluate_performance")
    if args.quick:
        args.cycles = 2000 if args.cycles == p.get_default("cycles") else args.cycles
        args.procs = "1" if args.procs == p.get_default("procs") else args.procs
        args.quiescence_cap = 10
    try:
        args.proc_counts = [int(x) for x in args.procs.split(",") if x]
    except ValueError:
        p.error("bad --procs '%s' (e.g. 1,2)" % args.procs)
    args.fs_list = [x for x in args.fs.split(",") if x]
    for fs in args.fs_list:
        if fs not in ("ext4", "tmpfs"):
            p.error("bad --fs '%s' (ext4, tmpfs)" % fs)
    if not os.access(args.generator, os.X_OK):
        p.error("%s is missing: build it first (cmake --build %s --target evaluate_performance)"
                % (args.generator, args.build))
    return args


def log_run(r):
    if r["monitor"] == "none" and "generated" in r:
        log("    generated %s events at %s ev/s" % (fmt_num(r["generated"]), fmt_num(r["gen_events_per_s"])))
    elif "reported" in r:
        log("    generated %s, reported %s (lost C+D %s), %s ev/s, CPU %.2fs%s" % (
            fmt_num(r["generated"]), fmt_num(r["reported"]), fmt_num(r["lost_create_delete"]),
            fmt_num(r["reported_per_s"]), r["cpu_s"], " -- " + r["error"] if r.get("error") else ""))
    else:
        log("    error: %s" % r.get("error"))


MEDIAN_KEYS = ("generated", "generated_create_delete", "gen_elapsed_s", "gen_events_per_s", "reported",
               "reported_create", "reported_delete", "reported_per_s", "cpu_s", "cpu_s_per_mevent", "peak_rss_kb",
               "ready_s", "kernel_watches")
WORST_KEYS = ("lost_create_delete", "overflows")


def aggregate(runs):
    """One result per (fs, procs, monitor): the median of each figure over the repeated runs,
    and the worst (largest) loss and overflow count. Errors of any run are kept."""
    results = []
    for r in runs:
        key = (r["fs"], r["procs"], r["monitor"])
        if any((a["fs"], a["procs"], a["monitor"]) == key for a in results):
            continue
        same = [x for x in runs if (x["fs"], x["procs"], x["monitor"]) == key]
        done = [x for x in same if "reported" in x]
        agg = {k: r[k] for k in ("fs", "fs_type", "procs", "monitor", "cycles")}
        agg["runs"] = len(same)
        for k in MEDIAN_KEYS:
            values = [x[k] for x in done if x.get(k) is not None]
            if values:
                agg[k] = statistics.median(values)
        for k in WORST_KEYS:
            values = [x[k] for x in done if x.get(k) is not None]
            if values:
                agg[k] = max(values)
        if done:
            agg["quiescence_capped"] = any(x.get("quiescence_capped") for x in done)
        errors = ["run %d: %s" % (x["run"], x["error"]) for x in same if x.get("error")]
        if errors:
            agg["error"] = "; ".join(errors)
        results.append(agg)
    return results


def exit_on_signal(signum, frame):
    raise SystemExit(128 + signum)   # unwinds through the finally blocks that stop monitors


def main(argv):
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, exit_on_signal)
    monitors = select_monitors(args)
    runnable = []
    skipped = {}
    for m in monitors:
        why = m.available()
        if why:
            skipped[m.name] = why
            log("skipping %s: %s" % (m.name, why))
        else:
            runnable.append(m)
    bases = {"ext4": args.ext4_dir, "tmpfs": args.tmpfs_dir}
    facts = machine_facts()
    facts["fs"] = {fs: {"dir": bases[fs], "type": fs_type(bases[fs])} for fs in args.fs_list}
    log("machine: %d CPUs, kernel %s; %d runs of %d cycles" % (
        facts["nproc"], facts["kernel"], len(args.fs_list) * len(args.proc_counts) * len(runnable), args.cycles))
    if facts["loadavg_at_start"] > 0.5 * facts["nproc"]:
        log("warning: load average %.1f on %d CPUs: other work will disturb rates and CPU figures"
            % (facts["loadavg_at_start"], facts["nproc"]))
    runs = []
    run_id = 0
    for fs in args.fs_list:
        for procs in args.proc_counts:
            for rep in range(args.repeat):
                for m in runnable:
                    run_id += 1
                    log("[%s, %d proc%s] %s ..." % (fs, procs, ", run %d/%d" % (rep + 1, args.repeat)
                                                   if args.repeat > 1 else "", m.name))
                    r = run_one(args, m, fs, bases[fs], procs, args.cycles, run_id)
                    r["run"] = rep + 1
                    runs.append(r)
                    log_run(r)
    results = aggregate(runs)
    print_tables(results, sys.stdout)
    ratios = compute_ratios(results)
    print_ratios(ratios, sys.stdout)
    if args.json:
        with open(args.json, "w") as f:
            facts["loadavg_at_end"] = os.getloadavg()[0]
            json.dump({"command": " ".join([os.path.basename(sys.argv[0])] + argv), "machine": facts,
                       "config": {"cycles": args.cycles, "repeat": args.repeat, "procs": args.proc_counts, "fs": args.fs_list,
                                  "skipped": skipped},
                       "results": results, "ratios": ratios, "runs": runs}, f, indent=1)
        log("wrote %s" % args.json)
    if args.require_complete:
        required = [m.name for m in select_monitors(argparse.Namespace(**{**vars(args),
                                                                          "monitors": args.require_complete}))]
        bad = []
        for name in required:
            if name in skipped:
                bad.append("%s: %s" % (name, skipped[name]))
            elif not any(r["monitor"] == name for r in runs):
                bad.append("%s: not run (add it to --monitors)" % name)
            for r in runs:
                if r["monitor"] != name:
                    continue
                if r.get("error"):
                    bad.append("%s on %s/%d: %s" % (name, r["fs"], r["procs"], r["error"]))
                elif r.get("lost_create_delete", 1) != 0:
                    bad.append("%s on %s/%d: %d of %d CREATE/DELETE not reported" % (
                        name, r["fs"], r["procs"], r["lost_create_delete"], r["generated_create_delete"]))
        if bad:
            for b in bad:
                log("INCOMPLETE: " + b)
            return 1
        log("complete: %s reported every generated CREATE and DELETE" % ", ".join(required))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
