#!/usr/bin/env python3
"""Samples a process tree every second: CPU, threads, RSS (for ./tradebench bench).

usage: sample.py ROOT_PID OUT.jsonl

One JSON line per second: {"t": ms, "cpuTicks": N, "threads": N, "rssKb": N, "procs": N}
summed over ROOT_PID and all its descendants (a Node parent and its children, a
JVM). Stops when the root process is gone or on SIGTERM.
"""
import json, os, signal, sys, time

PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def tree(root):
    children = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read()
        except OSError:
            continue
        ppid = int(st[st.rindex(")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(d))
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def sample(root):
    ticks = threads = rss = procs = 0
    for pid in tree(root):
        try:
            with open(f"/proc/{pid}/stat") as f:
                st = f.read()
        except OSError:
            continue
        fields = st[st.rindex(")") + 2:].split()
        # fields[0] is field 3 (state): utime=14, stime=15, num_threads=20, rss=24
        ticks += int(fields[11]) + int(fields[12])
        threads += int(fields[17])
        rss += int(fields[21]) * PAGE_KB
        procs += 1
    return {"t": int(time.time() * 1000), "cpuTicks": ticks, "threads": threads, "rssKb": rss, "procs": procs}


def main():
    root, out = int(sys.argv[1]), sys.argv[2]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with open(out, "a", buffering=1) as f:
        while os.path.exists(f"/proc/{root}"):
            f.write(json.dumps(sample(root)) + "\n")
            time.sleep(1)


if __name__ == "__main__":
    main()
