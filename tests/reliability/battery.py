"""Parent side of the bad-input battery: run cases in a few subprocesses, survive crashes.

``run_battery(names, workers)`` splits the names into ``workers`` batches and runs each in
its own ``_battery_worker.py`` process (started together; the import of jitgrad + torch is
paid once per batch, not per case). A case whose START has no RESULT before the process
dies is reported as ``{"crashed": <returncode>}`` and the batch restarts after it; a case
running longer than ``case_timeout`` seconds is killed and reported as ``{"hung": True}``.
"""
from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from pathlib import Path

WORKER = Path(__file__).with_name("_battery_worker.py")


def _start(names: list[str]) -> subprocess.Popen:
    env = dict(os.environ, PYTHONFAULTHANDLER="1")
    return subprocess.Popen([sys.executable, str(WORKER), *names], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def run_battery(names: list[str], workers: int = 2, case_timeout: float = 60.0) -> dict[str, dict]:
    results: dict[str, dict] = {}
    pending = [names[k::workers] for k in range(workers)]
    procs = {i: (_start(batch), batch) for i, batch in enumerate(pending) if batch}
    sel = selectors.DefaultSelector()
    state = {}
    for i, (proc, batch) in procs.items():
        sel.register(proc.stdout, selectors.EVENT_READ, i)
        state[i] = {"proc": proc, "todo": list(batch), "current": None, "since": time.monotonic()}

    def finish(i: int, outcome: dict) -> None:
        s = state[i]
        sel.unregister(s["proc"].stdout)
        s["proc"].kill()
        s["proc"].wait()
        if s["current"] is not None:
            results[s["current"]] = dict(outcome, name=s["current"],
                                         stderr=s["proc"].stderr.read()[-2000:])
            s["todo"].remove(s["current"])
        s["current"] = None
        if s["todo"]:  # restart after the case that died
            s["proc"] = _start(s["todo"])
            s["since"] = time.monotonic()
            sel.register(s["proc"].stdout, selectors.EVENT_READ, i)
        else:
            del state[i]

    while state:
        for key, _ in sel.select(timeout=1.0):
            i = key.data
            s = state[i]
            line = s["proc"].stdout.readline()
            if not line:  # EOF: the process exited
                rc = s["proc"].wait()
                finish(i, {"crashed": rc})
                continue
            if line.startswith("@@START "):
                s["current"] = line[len("@@START "):].strip()
                s["since"] = time.monotonic()
            elif line.startswith("@@RESULT "):
                r = json.loads(line[len("@@RESULT "):])
                results[r["name"]] = r
                s["todo"].remove(r["name"])
                s["current"] = None
        for i in list(state):
            if state[i]["current"] is not None and time.monotonic() - state[i]["since"] > case_timeout:
                finish(i, {"hung": True})
    return results
