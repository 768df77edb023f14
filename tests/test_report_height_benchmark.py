"""benchmarks/report_height.py: without Chromium it says what to install and exits 2; with it
(where installed: no test needs it) it measures a page and saves its first screen."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest
from benchmark_modules import load_benchmark


def test_without_chromium_it_says_so_and_exits_2(tmp_path: Path, capsys, monkeypatch) -> None:
    bench = load_benchmark("report_height")
    page = tmp_path / "report.html"
    page.write_text("<html><body>x</body></html>", encoding="utf-8")
    assert bench.main([str(page), "--chromium", str(tmp_path / "no-such-browser")]) == 2
    assert "Chromium not found" in capsys.readouterr().err
    monkeypatch.setenv("PATH", str(tmp_path))
    assert bench.find_chromium() is None
    assert bench.main([str(page)]) == 2
    assert "apt-get install -y chromium" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Chromium is not installed")
def test_it_measures_the_page_and_saves_the_first_screen(tmp_path: Path, capsys) -> None:
    bench = load_benchmark("report_height")
    page = tmp_path / "report.html"
    page.write_text('<!DOCTYPE html><html><body style="margin:0">'
                    '<div style="height:2400px">tall</div>'
                    "<details><summary>folded</summary>"
                    '<div style="height:5000px"></div></details></body></html>',
                    encoding="utf-8")
    png = tmp_path / "shot.png"
    assert bench.main([str(page), "--screenshot", str(png)]) == 0
    out = capsys.readouterr().out
    # The folded 5000 px do not count; the summary line does.
    height = bench.page_height(shutil.which("chromium"), page)
    assert 2400 < height < 2500
    assert f"| {page} | {height:,} | {height / 800:.1f} | {png} |" in out
    assert struct.unpack(">II", png.read_bytes()[16:24]) == (1280, 800)
    assert list(tmp_path.glob("tmp*.html")) == []  # the measured copy is removed
