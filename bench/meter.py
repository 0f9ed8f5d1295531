#!/usr/bin/env python3
"""The bench's meter: runs a command (the Pulumi CLI) as its child, waits for it, and writes to the file named by
its first argument what the kernel charged to the whole tree below it once reaped: user and system CPU, the
largest resident set of any one process in it, and the bytes it caused to be written to storage
(/proc/self/io after the wait: Linux adds a reaped child's I/O to its parent's, so every process the CLI reaped,
and everything they reaped, is in it). Exits with the child's status.

    python3 bench/meter.py OUT.json -- pulumi up --yes
"""
import json
import os
import sys


def io_counters():
    counters = {}
    with open("/proc/self/io") as f:
        for line in f:
            key, _, value = line.partition(":")
            counters[key.strip()] = int(value)
    return counters


def main():
    out, sep, command = sys.argv[1], sys.argv[2], sys.argv[3:]
    if sep != "--" or not command:
        sys.exit("usage: meter.py OUT.json -- COMMAND [ARGS...]")
    before = io_counters()
    child = os.fork()
    if child == 0:
        try:
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(child, 0)
    after = io_counters()
    with open(out, "w") as f:
        json.dump(
            {
                "cpuUserMs": round(usage.ru_utime * 1000),
                "cpuSystemMs": round(usage.ru_stime * 1000),
                "maxRssKb": usage.ru_maxrss,
                "writeBytes": after["write_bytes"] - before["write_bytes"],
                "writeCalls": after["syscw"] - before["syscw"],
                "writtenChars": after["wchar"] - before["wchar"],
            },
            f,
        )
    sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


main()
