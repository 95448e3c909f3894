"""Bad input: every hostile call raises the built-in family a user would catch, with a message
naming the operation and the offending values, and writes nothing (values, geometry and
``_version`` of every tensor involved are unchanged). PyTorch is the oracle for the family
where it raises. Cases live in ``bad_input_cases.py``; they run in two subprocesses
(``battery.py``) so that a crash is reported as a failing case, not a dead test run.
"""
from __future__ import annotations

import pytest

from reliability.bad_input_cases import CASES, Case
from reliability.battery import run_battery

# Cases that fail today, with the reason (each is a bug to fix, not a difference to keep).
KNOWN_FAILURES: dict[str, str] = {}


@pytest.fixture(scope="module")
def results() -> dict[str, dict]:
    return run_battery([c.name for c in CASES])


def check(case: Case, r: dict) -> None:
    assert "crashed" not in r, f"the process died (return code {r['crashed']}):\n{r['stderr']}"
    assert "hung" not in r, f"still running after the case timeout:\n{r['stderr']}"
    assert "error" not in r, r["error"]
    where = f"\n{case.setup}\n>>> {case.call}\n"
    assert r["raised"] is not None, f"did not raise{where}"
    assert r["family"] == case.family, (
        f"raised {r['raised']}: {r['message']!r}, expected a {case.family}{where}")
    missing = [f for f in case.fragments if f not in r["message"]]
    assert not missing, f"message {r['message']!r} lacks {missing}{where}"
    assert not r["changed"], f"the failed call changed {r['changed']}{where}"
    if case.torch is not None and r.get("torch"):
        expected_torch = case.family if case.torch == "same" else case.torch
        assert r["torch"] == expected_torch, (
            f"PyTorch raises {r['torch']} ({r['torch_message']!r}), jitgrad {r['family']}; "
            f"the table expects PyTorch to raise {expected_torch}{where}")


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=c.name, marks=[pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[c.name])]
                  if c.name in KNOWN_FAILURES else []) for c in CASES])
def test_bad_input(case: Case, results: dict[str, dict]) -> None:
    check(case, results[case.name])


def test_battery_reports_a_crash_and_carries_on() -> None:
    names = [CASES[0].name, "__crash__", CASES[1].name]
    r = run_battery(names, workers=1)
    assert r["__crash__"].get("crashed") not in (None, 0), r["__crash__"]
    for name in (CASES[0].name, CASES[1].name):
        assert "crashed" not in r[name] and r[name]["raised"], r[name]
