"""``vigil evaluate``: one row of cost terms per candidate, row errors in the contract's form."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from vigil.cli import create_app
from vigil.optimise import Candidates, Engine
from vigil.optimise.costs import TERM_NAMES
from vigil.optimise.synthetic import swap_candidates
from vigil.roster.synthetic import generate_airline_duties, render_roster


def _files(tmp_path: Path) -> tuple[Path, Path, Engine, object]:
    duties = generate_airline_duties(6, 40, seed=11)
    base = tmp_path / "base.csv"
    base.write_text(render_roster(duties))
    engine = Engine.from_roster(base.read_text())
    cs = swap_candidates(engine, duties, 4, seed=2)
    lines: list[str] = []
    for k, window in enumerate(cs.windows):
        rows = render_roster([replace(d, reference=cs.crew[k]) for d in window]).splitlines()
        if not lines:
            lines.append(rows[0] + ",Candidate")
        lines += [f"{r},c{k}" for r in rows[1:]]
    cands = tmp_path / "cands.csv"
    cands.write_text("\r\n".join(lines) + "\r\n")
    return base, cands, engine, cs


def test_evaluate_prints_the_engines_terms(tmp_path: Path) -> None:
    base, cands, engine, cs = _files(tmp_path)
    result = CliRunner().invoke(
        create_app(), ["evaluate", "--base", str(base), "--candidates", str(cands), "--json"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out) == {"candidate", *TERM_NAMES}
    keep = [k for k, w in enumerate(cs.windows) if w]  # type: ignore[attr-defined]
    assert out["candidate"] == [f"c{k}" for k in keep]
    c = cs.candidates  # type: ignore[attr-defined]
    on, off = cs.pool.plan.on, cs.pool.plan.off  # type: ignore[attr-defined]
    has = np.diff(c.duty_ptr) > 0
    span = Candidates(  # the CLI's window: the span of the candidate's own rows
        c.crew[has],
        np.minimum.reduceat(on[c.duty], c.duty_ptr[:-1][has]),
        np.maximum.reduceat(off[c.duty], c.duty_ptr[:-1][has]),
        np.concatenate([[0], np.cumsum(np.diff(c.duty_ptr)[has])]),
        c.duty,
    )
    ev = engine.evaluate(cs.pool, span)  # type: ignore[attr-defined]
    np.testing.assert_allclose(out["cost"], ev.terms.cost, atol=1e-5)
    csv = CliRunner().invoke(
        create_app(), ["evaluate", "--base", str(base), "--candidates", str(cands)]
    )
    assert csv.exit_code == 0
    header, *rows = csv.stdout.strip().splitlines()
    assert header.split(",") == ["candidate", *TERM_NAMES] and len(rows) == len(keep)


def test_evaluate_reports_bad_rows_and_scores_the_rest(tmp_path: Path) -> None:
    base, cands, _, _ = _files(tmp_path)
    lines = cands.read_text().splitlines()
    ref = lines[1].split(",")[0]
    lines.append(lines[1].replace(ref, "NOBODY", 1).rsplit(",", 1)[0] + ",x1")
    lines.append("short,row")
    cands.write_text("\r\n".join(lines) + "\r\n")
    result = CliRunner().invoke(
        create_app(), ["evaluate", "--base", str(base), "--candidates", str(cands)]
    )
    assert result.exit_code == 1
    n = len(lines)
    assert f"{n - 1}|x1|Reference 'NOBODY' is not a schedule of the base roster" in result.stderr
    assert f"{n}||expected 35 columns, got 2" in result.stderr
    assert result.stdout.count("\n") > 1  # the good candidates still have rows


def test_evaluate_refuses_a_header_without_candidate(tmp_path: Path) -> None:
    base, _, _, _ = _files(tmp_path)
    plain = tmp_path / "plain.csv"
    plain.write_text(base.read_text())
    result = CliRunner().invoke(
        create_app(), ["evaluate", "--base", str(base), "--candidates", str(plain)]
    )
    assert result.exit_code == 1
    assert "1||no Candidate column in the header" in result.stderr
