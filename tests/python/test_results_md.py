"""benchmarks/results/RESULTS.md is generated from the JSON beside it (benchmarks/results_md.py):
a result added or rerun without regenerating it fails here."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_results_md_is_generated_from_the_json():
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "results_md.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_a_stale_results_md_is_caught(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import results_md
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    monkeypatch.setattr(results_md, "OUT", tmp_path / "RESULTS.md")
    assert results_md.main(["--check"]) == 1          # missing
    assert results_md.main([]) == 0
    assert results_md.main(["--check"]) == 0
    (tmp_path / "RESULTS.md").write_text("edited by hand\n")
    assert results_md.main(["--check"]) == 1
