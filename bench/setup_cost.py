#!/usr/bin/python3
"""Setup cost of recursive watching: time, memory and kernel marks to start watching big trees.

Builds trees of 100,000 and 1,000,000 directories with mktree (fan-out 10, six levels for a
million), then for fathom (inotify), fathom (fanotify) and `inotifywait -m -r` measures, from
start until the monitor says it is watching ("watches established" / "Watches established."):
the elapsed time, CPU time, resident memory at that point (VmRSS, and the peak VmHWM), and the
kernel marks it holds (inotify watches / fanotify marks, counted from /proc/PID/fdinfo).

inotify needs one kernel watch per directory, and fs.inotify.max_user_watches (often ~192k on
small machines) is below a million. As root, the script raises it for the run and restores it
afterwards, and says so (--no-raise-limit reports the failure instead). Trees are kept between
runs with --keep: building a million directories takes a while. Progress goes to stderr, the
table to stdout. Example:
    /usr/bin/python3 bench/setup_cost.py --build build --keep --json setup-results.json
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_local_bench import (REPO, write_table, DEFAULT_KINDS, fs_type, log, machine_facts, proc_cpu_seconds,  # noqa: E402
                             proc_status_kb, stop_process)

WATCHES_SYSCTL = "/proc/sys/fs/inotify/max_user_watches"
FANOUT = 10


def kernel_marks(pid):
    """(inotify watches, fanotify marks) held by a process, from /proc/PID/fdinfo."""
    inotify = fanotify = 0
    try:
        fds = os.listdir("/proc/%d/fdinfo" % pid)
    except OSError:
        return None, None
    for fd in fds:
        try:
            with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                for line in f:
                    if line.startswith("inotify wd:"):
                        inotify += 1
                    elif line.startswith(("fanotify ino:", "fanotify mnt_id:", "fanotify sdev:")):
                        fanotify += 1
        except OSError:
            continue
    return inotify, fanotify


def ensure_tree(args, base, dirs):
    """The tree of `dirs` directories under base, built now or reused (--keep). Returns (path, build s)."""
    root = os.path.join(base, "fathom-setup-%d" % dirs)
    marker = os.path.join(root, ".mktree-complete")
    stamp = "dirs=%d fanout=%d\n" % (dirs, FANOUT)
    if os.path.exists(marker):
        with open(marker) as f:
            if f.read() == stamp:
                log("reusing %s (%s directories)" % (root, "{:,}".format(dirs)))
                return root, None
    if os.path.exists(root):
        log("removing incomplete %s ..." % root)
        shutil.rmtree(root)
    log("building %s: %s directories, fan-out %d ..." % (root, "{:,}".format(dirs), FANOUT))
    out = subprocess.run([args.mktree, "--dir", root, "--dirs", str(dirs), "--fanout", str(FANOUT)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("setup_cost: mktree failed: " + out.stderr.strip())
    built = json.loads(out.stdout)
    log("    built in %.1f s" % built["elapsed_s"])
    with open(marker, "w") as f:
        f.write(stamp)
    return root, built["elapsed_s"]


def monitor_argv(args, name, root):
    if name == "fathom-inotify":
        return [args.fathom, "watch", "-r", root, "--backend", "inotify", "-q"]
    if name == "fathom-fanotify":
        return [args.fathom, "watch", "-r", root, "--backend", "fanotify", "-q"]
    argv = ["inotifywait", "-m", "-r"]
    for k in DEFAULT_KINDS:
        argv += ["-e", k]
    return argv + [root]


READY_TEXT = {"fathom-inotify": "watches established", "fathom-fanotify": "watches established",
              "inotifywait": "Watches established"}


def measure(args, name, root, outdir):
    """Starts one monitor on root and measures it when it reports it is watching."""
    err_path = os.path.join(outdir, "%s.stderr" % name)
    with open(err_path, "wb") as err:
        t0 = time.monotonic()
        proc = subprocess.Popen(monitor_argv(args, name, root), stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        try:
            return watch_until_ready(args, name, proc, err_path, t0)
        finally:
            stop_process(proc, signal.SIGINT)


def watch_until_ready(args, name, proc, err_path, t0):
    ready = False
    text = ""
    deadline = t0 + args.timeout
    while time.monotonic() < deadline:
        with open(err_path, errors="replace") as f:
            text = f.read()
        if READY_TEXT[name] in text:
            ready = True
            break
        if proc.poll() is not None:
            break
        time.sleep(0.005)
    elapsed = time.monotonic() - t0
    result = {"monitor": name}
    if not ready:
        result["error"] = "not watching after %.1f s: %s" % (elapsed, text.strip()[-600:] or
                                                           "exited with status %s" % proc.returncode)
        return result
    inotify, fanotify = kernel_marks(proc.pid)
    result.update({
        "ready_s": round(elapsed, 3),
        "cpu_s": proc_cpu_seconds(proc.pid),
        "rss_kb": proc_status_kb(proc.pid, "VmRSS"),
        "hwm_kb": proc_status_kb(proc.pid, "VmHWM"),
        "inotify_watches": inotify,
        "fanotify_marks": fanotify,
    })
    for line in text.splitlines():
        if READY_TEXT[name] in line:
            result["ready_line"] = line.strip()
            m = re.search(r"(\d+) kernel watches", line)
            if m:
                result["reported_watches"] = int(m.group(1))
    return result


def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def exit_on_signal(signum, frame):
    raise SystemExit(128 + signum)   # unwinds through the finally blocks that stop monitors


def raise_limit_for(args, name, dirs, old_limit):
    """Raises max_user_watches when an inotify monitor needs more than the limit for `dirs`
    directories (one watch each, plus headroom for other watchers of this user). Returns the
    new limit, or None when the limit is left alone. The caller restores old_limit."""
    if name not in ("inotifywait", "fathom-inotify") or args.no_raise_limit:
        return None
    needed = dirs + 1 + 65536
    if needed <= old_limit:
        return None
    try:
        write_limit(needed)
    except OSError as e:
        log("    cannot raise fs.inotify.max_user_watches (%s): expect the watch limit to be reached" % e)
        return None
    log("    raised fs.inotify.max_user_watches from %d to %d for this run (restored after it)" % (old_limit, needed))
    return needed


def read_limit():
    with open(WATCHES_SYSCTL) as f:
        return int(f.read())


def write_limit(value):
    with open(WATCHES_SYSCTL, "w") as f:
        f.write("%d\n" % value)


def print_table(results, out):
    header = ("fs", "directories", "monitor", "watching after s", "CPU s", "RSS MB", "peak RSS MB",
              "inotify watches", "fanotify marks")
    table = [header]
    for r in results:
        if r.get("error"):
            table.append((r["fs"], "{:,}".format(r["dirs"]), r["monitor"], "error: " + r["error"][:90]) +
                         ("",) * (len(header) - 4))
            continue
        table.append((r["fs"], "{:,}".format(r["dirs"]), r["monitor"], "%.3f" % r["ready_s"],
                      "%.2f" % (r["cpu_s"] or 0), "%.1f" % (r["rss_kb"] / 1024), "%.1f" % (r["hwm_kb"] / 1024),
                      "{:,}".format(r["inotify_watches"]), "{:,}".format(r["fanotify_marks"])))
    write_table(out, table, left_columns=3)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--build", default=os.path.join(REPO, "build"), help="build directory holding fathom and mktree")
    p.add_argument("--dirs", default="100000,1000000", help="comma-separated tree sizes, in directories")
    p.add_argument("--fs", default="ext4", help="comma-separated file systems: ext4, tmpfs")
    p.add_argument("--ext4-dir", default="/var/tmp", help="where the disk-file-system trees are made")
    p.add_argument("--tmpfs-dir", default="/dev/shm", help="where the tmpfs trees are made")
    p.add_argument("--monitors", default="fathom-inotify,fathom-fanotify,inotifywait",
                   help="comma-separated: fathom-inotify, fathom-fanotify, inotifywait")
    p.add_argument("--repeat", type=int, default=1, help="runs per monitor and tree (the table shows each)")
    p.add_argument("--timeout", type=float, default=300, help="seconds to wait for a monitor to be watching")
    p.add_argument("--cold", action="store_true",
                   help="drop the page, dentry and inode caches before each measurement (root)")
    p.add_argument("--keep", action="store_true", help="keep the trees for the next run (and reuse kept ones)")
    p.add_argument("--no-raise-limit", action="store_true",
                   help="do not raise fs.inotify.max_user_watches for the run (inotify then fails on big trees)")
    p.add_argument("--json", metavar="FILE", help="also write machine facts and results as JSON")
    args = p.parse_args(argv)
    args.build = os.path.abspath(args.build)
    args.fathom = os.path.join(args.build, "fathom")
    args.mktree = os.path.join(args.build, "mktree")
    try:
        args.dir_counts = [int(x) for x in args.dirs.split(",") if x]
    except ValueError:
        p.error("bad --dirs '%s' (e.g. 100000,1000000)" % args.dirs)
    args.fs_list = [x for x in args.fs.split(",") if x]
    for fs in args.fs_list:
        if fs not in ("ext4", "tmpfs"):
            p.error("bad --fs '%s' (ext4, tmpfs)" % fs)
    args.monitor_list = [x for x in args.monitors.split(",") if x]
    for m in args.monitor_list:
        if m not in READY_TEXT:
            p.error("bad monitor '%s' (fathom-inotify, fathom-fanotify, inotifywait)" % m)
    for prog in (args.mktree,) + ((args.fathom,) if any(m.startswith("fathom") for m in args.monitor_list) else ()):
        if not os.access(prog, os.X_OK):
            p.error("%s is missing: build it first (cmake --build %s)" % (prog, args.build))
    return args


def main(argv):
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, exit_on_signal)
    bases = {"ext4": args.ext4_dir, "tmpfs": args.tmpfs_dir}
    old_limit = read_limit()
    raised = []
    facts = machine_facts()
    facts["inotify_max_user_watches_before"] = old_limit
    results = []
    trees = []
    outdir = os.path.join(args.tmpfs_dir if os.path.isdir(args.tmpfs_dir) else "/tmp", "fathom-setup-logs-%d" % os.getpid())
    os.makedirs(outdir, exist_ok=True)
    try:
        for fs in args.fs_list:
            for dirs in args.dir_counts:
                root, build_s = ensure_tree(args, bases[fs], dirs)
                trees.append(root)
                for name in args.monitor_list:
                    for _ in range(args.repeat):
                        log("[%s, %s dirs] %s ..." % (fs, "{:,}".format(dirs), name))
                        if args.cold:
                            drop_caches()
                        limit = raise_limit_for(args, name, dirs, old_limit)
                        try:
                            r = measure(args, name, root, outdir)
                        finally:
                            if limit:
                                write_limit(old_limit)
                        if limit:
                            raised.append(limit)
                            r["inotify_limit_raised_to"] = limit
                        r.update({"fs": fs, "fs_type": fs_type(root), "dirs": dirs, "tree_build_s": build_s})
                        results.append(r)
                        if r.get("error"):
                            log("    " + r["error"])
                        else:
                            log("    watching after %.3f s, RSS %.1f MB, %d inotify watches, %d fanotify marks"
                                % (r["ready_s"], r["rss_kb"] / 1024, r["inotify_watches"], r["fanotify_marks"]))
    finally:
        shutil.rmtree(outdir, ignore_errors=True)
        if not args.keep:
            for root in trees:
                log("removing %s (use --keep to reuse it next time) ..." % root)
                shutil.rmtree(root, ignore_errors=True)
    sys.stdout.write("\nsetup cost: from start until watching (%s caches; fan-out %d trees)\n"
                     % ("cold" if args.cold else "warm", FANOUT))
    print_table(results, sys.stdout)
    if raised:
        sys.stdout.write("  (fs.inotify.max_user_watches was raised from %d to %d for the inotify runs on the "
                         "biggest trees, and restored after each)\n" % (old_limit, max(raised)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"command": " ".join([os.path.basename(sys.argv[0])] + argv), "machine": facts,
                       "inotify_max_user_watches": old_limit, "results": results}, f, indent=1)
        log("wrote %s" % args.json)
    return 0 if all(not r.get("error") for r in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
