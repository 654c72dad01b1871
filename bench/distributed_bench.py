#!/usr/bin/python3
"""The distributed monitor, end to end: 4 emulated MDTs (fast mode) -> 4 `fathom collect` ->
`fathom aggregate` (durable SQLite store, CURVE) -> 1 and 8 latency_subscriber; then the same
through pubsub_pipeline (plain ZeroMQ PUSH/PUB/SUB: no acknowledgements, no store, no CURVE).

Scenario A "throughput": unlimited rate, --records per MDT; events/s end to end (start of the
collectors -> the last subscriber has its last event), CPU seconds (utime+stime) and peak RSS
per role. Scenario B "latency": --rate records/s per MDT (4 MDTs: 4x that in events/s) for
--seconds; p50/p99 from record creation (its due time) to receipt, after a warm-up second.
Beside each latency run, cpu_stall_probe times a fixed unit of work every millisecond and the
tables say in how many 50 ms windows the machine ran over 4x slower than it can (on a virtual
machine, its host taking the CPUs away): such windows become latency whatever runs.

The collectors' --mount is a short directory (/tmp/lXXXXXXXX), as Lustre client mounts are
(/mnt/lustre, /scratch): every event carries it as its root, and a root longer than 15
characters costs every process one more allocation per event.

Long-running roles are measured from /proc/PID/stat and VmHWM just before they are stopped;
subscribers, which exit by themselves, from wait4()'s rusage. Everything runs in a temporary
directory with its own FATHOM_LUSTRE_SIM_RUNDIR and is torn down (processes killed, fast fs
unregistered) on success, failure or Ctrl-C. Progress goes to stderr, tables to stdout.
Run as root:
    /usr/bin/python3 bench/distributed_bench.py --build build-bench --json distributed.json
"""

import argparse
import bisect
import json
import os
import re
import shutil
import signal
import sqlite3
import socket
import subprocess
import sys
import tempfile
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
FSNAME = "dbench"
MDTS = 4


def log(message):
    sys.stderr.write("[distributed_bench] %s\n" % message)
    sys.stderr.flush()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_usage(pid):
    """(cpu seconds, peak RSS MiB) of a running process."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / CLK_TCK
        hwm = 0
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    hwm = int(line.split()[1]) / 1024.0
        return cpu, hwm
    except (OSError, IndexError, ValueError):
        return None, None


class Run:
    """The processes of one run; stop() kills what is left, always."""

    def __init__(self, tmp, build, env):
        self.tmp = tmp
        self.build = build
        self.env = env
        self.procs = []  # (role, name, Popen)
        self.usage = {}  # name -> (role, cpu, rss)
        self.fast_up = False

    def start(self, role, name, argv, stdout=None):
        err = open(os.path.join(self.tmp, name + ".err"), "w")
        p = subprocess.Popen(argv, stdout=stdout or subprocess.DEVNULL, stderr=err, env=self.env)
        err.close()
        self.procs.append((role, name, p))
        return p

    def stderr_of(self, name):
        try:
            with open(os.path.join(self.tmp, name + ".err")) as f:
                return f.read()
        except OSError:
            return ""

    def wait_stderr(self, name, pattern, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = re.search(pattern, self.stderr_of(name))
            if m:
                return m
            time.sleep(0.02)
        raise RuntimeError("%s did not log /%s/ within %d s:\n%s" % (name, pattern, timeout, self.stderr_of(name)))

    def reap(self, name, timeout):
        """Waits for an exiting process; records its rusage. Returns its stdout."""
        for role, n, p in self.procs:
            if n != name:
                continue
            deadline = time.time() + timeout
            while time.time() < deadline:
                pid, status, ru = os.wait4(p.pid, os.WNOHANG)
                if pid == p.pid:
                    p.returncode = os.waitstatus_to_exitcode(status)
                    self.usage[name] = (role, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0)
                    return p.stdout.read().decode() if p.stdout else ""
                time.sleep(0.05)
            raise RuntimeError("%s did not finish within %d s:\n%s" % (name, timeout, self.stderr_of(name)))
        raise KeyError(name)

    def measure_running(self):
        for role, name, p in self.procs:
            if p.returncode is None and name not in self.usage:
                cpu, rss = proc_usage(p.pid)
                if cpu is not None:
                    self.usage[name] = (role, cpu, rss)

    def stop(self):
        for _, _, p in self.procs:
            if p.returncode is None:
                try:
                    p.send_signal(signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.time() + 5
        for _, _, p in self.procs:
            if p.returncode is None:
                try:
                    p.wait(max(0.1, deadline - time.time()))
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        if self.fast_up:
            subprocess.run([os.path.join(self.build, "fathom-lustre-sim"), "umount", FSNAME], env=self.env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.fast_up = False

    def setup_fast(self, records, rate, mount):
        sim = os.path.join(self.build, "fathom-lustre-sim")
        subprocess.run([sim, "fast", "--fsname", FSNAME, "--mdts", str(MDTS), "--state",
                        os.path.join(self.tmp, "state"), "--records", str(records), "--rate", str(rate),
                        "--mount", mount],
                       env=self.env, check=True)
        self.fast_up = True
        users = []
        lctl = os.path.join(self.build, "lustre", "lctl")
        for mdt in range(MDTS):
            out = subprocess.run([lctl, "--device", "%s-MDT%04x" % (FSNAME, mdt), "changelog_register", "-n"],
                                 env=self.env, check=True, capture_output=True, text=True).stdout
            users.append(out.strip())
        return users

    def role_table(self):
        roles = {}
        for role, cpu, rss in self.usage.values():
            r = roles.setdefault(role, {"processes": 0, "cpu_s": 0.0, "peak_rss_mib": 0.0})
            r["processes"] += 1
            r["cpu_s"] += cpu
            r["peak_rss_mib"] = max(r["peak_rss_mib"], rss)
        return roles


def run_once(a, pipeline, scenario, consumers):
    """One run; returns its result dict."""
    tmp = tempfile.mkdtemp(prefix="fathom-dbench-")
    env = dict(os.environ)
    env["FATHOM_LUSTRE_SIM_RUNDIR"] = os.path.join(tmp, "run")
    run = Run(tmp, a.build, env)
    fathom = os.path.join(a.build, "fathom")
    library = os.path.join(a.build, "lustre", "liblustreapi.so")
    # A short mount path, as Lustre clients' are (/mnt/lustre, /scratch): /tmp/lXXXXXXXX.
    mount = tempfile.mkdtemp(prefix="l", dir="/tmp")
    if scenario == "throughput":
        records, rate, warmup = a.records, 0, 0
    else:
        records = a.rate * (a.seconds + 1)
        rate, warmup = a.rate, a.rate * MDTS  # the first second of events is not timed
    subs = []
    probe, stalls, trace_file, outside = None, None, None, None
    try:
        if pipeline == "durable":
            for name in ("server", "client"):
                subprocess.run([fathom, "keygen", "-o", os.path.join(tmp, name)], check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(os.path.join(tmp, "clients.yaml"), "w") as f:
                f.write("clients:\n  - name: bench\n    key: client.pub\n    roles: [collect, subscribe]\n")
            run.start("aggregator", "aggregator",
                      [fathom, "aggregate", "--listen", "tcp://127.0.0.1:*", "--store",
                       "sqlite:" + os.path.join(tmp, "events.db"), "--key", os.path.join(tmp, "server.key"),
                       "--clients", os.path.join(tmp, "clients.yaml"), "--sync", a.sync])
            endpoint = run.wait_stderr("aggregator", r"aggregating on (tcp://127\.0\.0\.1:\d+)", 20).group(1)
            keys = ["--key", os.path.join(tmp, "client.key"), "--server-key", os.path.join(tmp, "server.pub")]
            for i in range(consumers):
                subs.append("sub%d" % i)
                trace = []
                if a.trace and scenario == "latency":
                    trace = ["--trace", "%s.%s.%dc.sub%d" % (a.trace, a.sync, consumers, i)]
                elif scenario == "latency" and i == 0:
                    trace = ["--trace", os.path.join(tmp, "sub0.trace")]
                if trace and i == 0:
                    trace_file = trace[1]
                run.start("subscriber", subs[-1],
                          [os.path.join(a.build, "latency_subscriber"), "--from", endpoint, "--idle", str(a.idle),
                           "--warmup", str(warmup), "--timeout", str(a.timeout)] + keys + trace,
                          stdout=subprocess.PIPE)
            time.sleep(0.5)
        else:
            pull, pub = "tcp://127.0.0.1:%d" % free_port(), "tcp://127.0.0.1:%d" % free_port()
            run.start("forwarder", "forwarder", [os.path.join(a.build, "pubsub_pipeline"), "forwarder",
                                                 "--listen", pull, "--publish", pub])
            run.wait_stderr("forwarder", r"PUB on", 10)
            for i in range(consumers):
                subs.append("sub%d" % i)
                run.start("subscriber", subs[-1],
                          [os.path.join(a.build, "pubsub_pipeline"), "subscriber", "--from", pub, "--idle",
                           str(a.idle), "--warmup", str(warmup), "--timeout", str(a.timeout)], stdout=subprocess.PIPE)
            time.sleep(1.0)  # PUB/SUB: subscriptions must reach the publisher before the first event
        users = run.setup_fast(records, rate, mount)
        if scenario == "latency":
            # Times a fixed unit of work all along: windows where the machine ran far slower
            # than it can (a VM's host taking the CPUs away) show up as latency no program fixes.
            probe = subprocess.Popen([os.path.join(a.build, "cpu_stall_probe")], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        t0 = time.time_ns()
        for mdt in range(MDTS):
            device = "%s-MDT%04x" % (FSNAME, mdt)
            if pipeline == "durable":
                argv = [fathom, "collect", "--source", "lustre:" + device, "--mount", mount, "--changelog-user",
                        users[mdt], "--lustre-library", library, "--name", "mdt%d" % mdt, "--to", endpoint] + keys
            else:
                argv = [os.path.join(a.build, "pubsub_pipeline"), "collector", "--device", device, "--mount", mount,
                        "--changelog-user", users[mdt], "--lustre-library", library, "--name", "mdt%d" % mdt,
                        "--to", pull]
            run.start("collector", "collector%d" % mdt, argv)
        results = []
        for name in subs:
            out = run.reap(name, a.timeout + 30)
            line = [l for l in out.splitlines() if l.startswith("{")]
            if not line:
                raise RuntimeError("%s printed no result:\n%s" % (name, run.stderr_of(name)))
            results.append(json.loads(line[-1]))
        run.measure_running()
        if probe is not None:
            probe.send_signal(signal.SIGINT)
            stalls = json.loads(probe.communicate(timeout=10)[0])
            if trace_file:
                outside = latency_outside_stalls(trace_file, warmup, stalls)
            stalls["stalls"] = len(stalls["stalls"])
    finally:
        if probe is not None and probe.poll() is None:
            probe.kill()
            probe.wait()
        run.stop()
        stored = stored_bytes(os.path.join(tmp, "events.db"))
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(mount, ignore_errors=True)
    received = [r["received"] for r in results]
    last = max(r["last_ns"] for r in results)
    seconds = (last - t0) / 1e9 if last > t0 else 0.0
    result = {
        "pipeline": pipeline, "scenario": scenario, "consumers": consumers, "records_per_mdt": records,
        "rate_per_mdt": rate, "sync": a.sync if pipeline == "durable" else None,
        "events": min(received),
        # Every record gives at least one event (a rename two): all subscribers got the same, and enough.
        "complete": len(set(received)) == 1 and received[0] >= records * MDTS,
        "lost": sum(r.get("lost", 0) for r in results),
        "seconds": round(seconds, 3),
        "events_per_s": round(min(received) / seconds) if seconds > 0 else 0,
        "p50_ms": max(r["p50_ms"] for r in results), "p90_ms": max(r["p90_ms"] for r in results),
        "p99_ms": max(r["p99_ms"] for r in results), "max_ms": max(r["max_ms"] for r in results),
        "stored_bytes_per_event": round(stored[0] / stored[1], 1) if stored else None,
        "roles": run.role_table(), "subscribers": results, "cpu_stalls": stalls,
        "outside_stalls": outside,
    }
    return result


def stored_bytes(path):
    """(bytes of event data, events) the store holds, or None without a store."""
    if not os.path.exists(path):
        return None
    with sqlite3.connect(path) as db:
        size, events = db.execute("SELECT sum(length(data)), sum(last_id - first_id + 1) FROM chunks").fetchone()
    return (size, events) if events else None


# A stalled window's events wait for the stall and then for the backlog it left: events
# created from a stalled window's start until this long after its end are left out of the
# "outside stalls" figures.
STALL_RECOVERY_NS = 200_000_000


def latency_outside_stalls(trace_file, warmup, probe):
    """p50/p99/max of the timed events of subscriber 0 created outside the probe's stalled
    windows (and the recovery after each); None when the trace is missing."""
    if not os.path.exists(trace_file):
        return None
    window = probe["window_ms"] * 1_000_000
    starts = sorted(s["realtime_ns"] for s in probe["stalls"])
    latencies, total = [], 0
    with open(trace_file) as f:
        for i, line in enumerate(f):
            if i < warmup:
                continue
            at, created = (int(x) for x in line.split()[:2])
            total += 1
            k = bisect.bisect_right(starts, created) - 1
            if k >= 0 and created < starts[k] + window + STALL_RECOVERY_NS:
                continue
            latencies.append((at - created) / 1e6)
    if not latencies:
        return {"events": 0, "share": 0.0}
    latencies.sort()
    pick = lambda q: round(latencies[min(len(latencies) - 1, int(q * len(latencies)))], 2)
    return {"events": len(latencies), "share": round(len(latencies) / max(total, 1), 3),
            "p50_ms": pick(0.50), "p99_ms": pick(0.99), "max_ms": round(latencies[-1], 2)}


def print_tables(results, out):
    out.write("\n%-8s %-10s %4s %9s %7s %10s %8s %8s %8s  %s\n" % (
        "pipeline", "scenario", "cons", "events", "secs", "events/s", "p50 ms", "p99 ms", "max ms", "complete"))
    for r in results:
        out.write("%-8s %-10s %4d %9d %7.2f %10d %8.2f %8.2f %8.2f  %s%s\n" % (
            r["pipeline"], r["scenario"], r["consumers"], r["events"], r["seconds"], r["events_per_s"],
            r["p50_ms"], r["p99_ms"], r["max_ms"], "yes" if r["complete"] else "NO",
            "" if not r["lost"] else " (lost %d)" % r["lost"]))
    out.write("\nCPU seconds (sum over the role's processes), CPU microseconds per event and peak RSS\n"
              "(largest process), per run:\n")
    out.write("%-8s %-10s %4s  %s\n" % ("pipeline", "scenario", "cons", "role xN: cpu s (us/event) / peak MiB"))
    for r in results:
        roles = "  ".join("%s x%d: %.2f s (%.2f) / %.0f MiB" % (
            k, v["processes"], v["cpu_s"], v["cpu_s"] * 1e6 / max(r["events"], 1), v["peak_rss_mib"])
            for k, v in sorted(r["roles"].items()))
        out.write("%-8s %-10s %4d  %s\n" % (r["pipeline"], r["scenario"], r["consumers"], roles))
    for r in results:
        if r.get("stored_bytes_per_event"):
            out.write("%-8s %-10s %4d  store: %.1f bytes of event data per event\n" % (
                r["pipeline"], r["scenario"], r["consumers"], r["stored_bytes_per_event"]))
    probed = [r for r in results if r.get("cpu_stalls")]
    if probed:
        out.write("\nMachine during the latency runs (bench/cpu_stall_probe: a fixed unit of work timed every\n"
                  "millisecond; a 50 ms window is stalled when a unit took over 4x its usual time):\n")
        for r in probed:
            c = r["cpu_stalls"]
            out.write("%-8s %-10s %4d  stalled windows %d of %d (%.1f %%), worst slowdown %.1fx\n" % (
                r["pipeline"], r["scenario"], r["consumers"], c["stalled_windows"], c["windows"],
                100.0 * c["stalled_windows"] / max(c["windows"], 1), c["worst_slowdown"]))
            o = r.get("outside_stalls")
            if o and o["events"]:
                out.write("%-8s %-10s %4d  events created outside stalled windows and the %d ms after each "
                          "(%.0f %% of them): p50 %.2f ms, p99 %.2f ms, max %.2f ms\n" % (
                              r["pipeline"], r["scenario"], r["consumers"], STALL_RECOVERY_NS // 1_000_000,
                              100.0 * o["share"], o["p50_ms"], o["p99_ms"], o["max_ms"]))
    by_key = {(r["pipeline"], r["scenario"], r["consumers"]): r for r in results}
    lines = []
    for (p, s, c), r in sorted(by_key.items()):
        base = by_key.get(("pubsub", s, c))
        if p != "durable" or base is None:
            continue
        if s == "throughput" and base["events_per_s"]:
            lines.append("%s, %d consumer(s): durable/PUB-SUB events/s = %.2f" % (s, c, r["events_per_s"] / base["events_per_s"]))
        if s == "latency" and base["p99_ms"]:
            lines.append("%s, %d consumer(s): durable/PUB-SUB p50 = %.2f, p99 = %.2f" % (
                s, c, r["p50_ms"] / max(base["p50_ms"], 1e-3), r["p99_ms"] / max(base["p99_ms"], 1e-3)))
    if lines:
        out.write("\nRatios:\n" + "\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"), help="build directory (fathom, latency_subscriber, ...)")
    ap.add_argument("--records", type=int, default=250000, help="throughput: records per MDT (4 x 250,000 records give about 1,000,000 events)")
    ap.add_argument("--rate", type=int, default=25000, help="latency: records/s per MDT")
    ap.add_argument("--seconds", type=int, default=10, help="latency: seconds timed (after 1 s of warm-up)")
    ap.add_argument("--consumers", default="1,8", help="consumer counts, comma-separated")
    ap.add_argument("--sync", choices=["normal", "full"], default="normal", help="the aggregator's store sync mode")
    ap.add_argument("--pipelines", default="durable,pubsub", help="durable, pubsub or both")
    ap.add_argument("--scenarios", default="throughput,latency", help="throughput, latency or both")
    ap.add_argument("--idle", type=float, default=3.0, help="a subscriber stops after SECONDS without an event")
    ap.add_argument("--timeout", type=float, default=300.0, help="a subscriber stops after SECONDS in any case")
    ap.add_argument("--quick", action="store_true", help="small counts (smoke test)")
    ap.add_argument("--require-complete", action="store_true", help="exit 1 unless every subscriber got every event")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--trace", help="durable latency runs: each subscriber writes one line per event (receipt ns, "
                    "creation ns, source) to TRACE.SYNC.<N>c.sub<I>")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    if a.quick:
        a.records, a.rate, a.seconds, a.idle = 5000, 2000, 2, 1.5
        if a.consumers == "1,8":
            a.consumers = "1,2"
    load_before = os.getloadavg()
    log("load average before: %.2f %.2f %.2f; %d CPUs" % (load_before + (os.cpu_count(),)))
    results = []
    interrupted = False
    try:
        for pipeline in a.pipelines.split(","):
            for scenario in a.scenarios.split(","):
                for consumers in [int(c) for c in a.consumers.split(",")]:
                    log("%s / %s / %d consumer(s) ..." % (pipeline, scenario, consumers))
                    r = run_once(a, pipeline, scenario, consumers)
                    log("  %d events in %.2f s: %d events/s, p50 %.2f ms, p99 %.2f ms%s%s" % (
                        r["events"], r["seconds"], r["events_per_s"], r["p50_ms"], r["p99_ms"],
                        "" if r["complete"] else " (INCOMPLETE)",
                        "" if not r["cpu_stalls"] else "; CPU stalled in %d of %d 50-ms windows" % (
                            r["cpu_stalls"]["stalled_windows"], r["cpu_stalls"]["windows"])))
                    results.append(r)
    except KeyboardInterrupt:
        interrupted = True
        log("interrupted; everything started was stopped")
    load_after = os.getloadavg()
    sys.stdout.write("distributed benchmark: %d MDTs (fast mode), aggregator --sync %s, CURVE on (durable), "
                     "plain ZeroMQ without CURVE (pubsub); load average before %.2f %.2f %.2f, after %.2f %.2f %.2f; "
                     "%d CPUs\n" % ((MDTS, a.sync) + load_before + load_after + (os.cpu_count(),)))
    print_tables(results, sys.stdout)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"load_before": load_before, "load_after": load_after, "cpus": os.cpu_count(),
                       "sync": a.sync, "results": results}, f, indent=2)
    if interrupted:
        return 130
    if a.require_complete and not all(r["complete"] and r["lost"] == 0 for r in results):
        log("FAILED: a subscriber missed events")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
