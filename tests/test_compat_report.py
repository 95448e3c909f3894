"""COMPATIBILITY.md is generated from jitgrad itself and must be current."""

from __future__ import annotations

import jitgrad
from jitgrad.tools import compat_report
from jitgrad.tools.compat_names import ABSENT_BY_DESIGN, DIFFERENCES, NAMES


def test_committed_file_is_current():
    committed = (compat_report.ROOT / "COMPATIBILITY.md").read_text()
    assert committed == compat_report.report(), (
        "COMPATIBILITY.md is stale: run `python -m jitgrad.tools.compat_report --write`"
    )


def test_status_follows_jitgrad():
    assert compat_report.status("torch", "add") == ("supported", "")
    assert compat_report.status("Tensor", "backward")[0] == "different"
    assert compat_report.status("torch.nn", "Sequential") == ("supported", "")
    assert compat_report.status("torch.nn", "Module")[0] == "different"
    assert compat_report.status("torch.nn.functional", "cross_entropy") == ("supported", "")
    assert compat_report.status("torch", "definitely_not_a_name") == ("not yet", "")
    assert compat_report.status("torch.no_such_namespace", "x") == ("not yet", "")


def test_status_changes_when_a_name_appears(monkeypatch):
    assert compat_report.status("torch", "kron") == ("not yet", "") or hasattr(jitgrad, "kron")
    monkeypatch.setattr(jitgrad, "kron", lambda *a: None, raising=False)
    assert compat_report.status("torch", "kron") == ("supported", "")


def test_every_difference_names_a_listed_name():
    listed = {f"{ns}.{n}" for ns, names in NAMES.items() for n in names}
    assert set(DIFFERENCES) | set(ABSENT_BY_DESIGN) <= listed
    assert compat_report.status("torch", "complex64")[0] == "different"
    assert compat_report.status("torch", "float16")[0] == "supported"  # (and int8/16/32, uint8)
    assert compat_report.status("torch.nn.init", "orthogonal_") == ("not yet", "") or hasattr(jitgrad.nn.init, "orthogonal_")
    for names in NAMES.values():
        assert len(names) == len(set(names))


def test_report_prints(capsys):
    compat_report.main([])
    assert capsys.readouterr().out == compat_report.report()
