"""How tall a report page is in a browser, and what its first screen shows.

Renders a ``report.html`` (``aesi report --run OUT``) in headless Chromium at a window width
of 1280 px, prints the page's height in px and in screens of ``--screen`` px (800 by default),
and saves a screenshot of the first screen (1280 × ``--screen`` px, PNG) for a person to look
at. The height is the document's ``scrollHeight`` after the page's ``load`` event, read from
a copy of the page with one line of script added (``--dump-dom`` prints the DOM it changed);
folded sections (``<details>`` without ``open``) count as their summary line only, as a reader
sees them.

Chromium is not a dependency of aesi (Debian: ``apt-get install chromium``); without it this
prints what to install and exits with status 2.

    .venv/bin/python benchmarks/report_height.py /tmp/report-muc4/report.html \
        --screenshot /tmp/report-muc4-first-screen.png
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: Window width of the measurement, in px.
WIDTH = 1280
#: The names Chromium is installed under (Debian's package, and upstream builds).
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Flags of a throwaway headless browser that may run as root and reaches nothing outside.
_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--hide-scrollbars", "--mute-audio")
# Written into the measured copy: the height once the page (its embedded images too) is laid
# out, as an attribute that --dump-dom prints.
_PROBE = ("<script>window.addEventListener('load', () => document.documentElement"
          ".setAttribute('data-page-height', document.documentElement.scrollHeight));</script>")
_HEIGHT = re.compile(r'data-page-height="(\d+)"')


def find_chromium(given: str | None = None) -> str | None:
    """The Chromium executable: ``given`` when it exists, else the first of
    :data:`CHROMIUM_NAMES` on the PATH."""
    if given:
        return shutil.which(given) or (given if Path(given).is_file() else None)
    return next((found for name in CHROMIUM_NAMES if (found := shutil.which(name))), None)


def _chromium(browser: str, *args: str, timeout: float) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="report-height-") as profile:
        return subprocess.run([browser, *_FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=timeout, check=False)


def page_height(browser: str, page: Path, width: int = WIDTH, timeout: float = 120) -> int:
    """The height in px of ``page`` laid out in a window ``width`` px wide."""
    text = page.read_text(encoding="utf-8")
    probed = text.replace("</body>", _PROBE + "</body>", 1) if "</body>" in text else text + _PROBE
    # Beside the original, so that relative links and images resolve as they would.
    with tempfile.NamedTemporaryFile("w", suffix=".html", dir=page.parent, encoding="utf-8",
                                     delete=False) as copy:
        copy.write(probed)
    try:
        done = _chromium(browser, f"--window-size={width},800", "--dump-dom",
                         Path(copy.name).resolve().as_uri(), timeout=timeout)
    finally:
        Path(copy.name).unlink()
    found = _HEIGHT.search(done.stdout)
    if found is None:
        raise RuntimeError(f"{browser} gave no page height for {page} (exit {done.returncode}):"
                           f" {done.stderr.strip()[-500:]}")
    return int(found.group(1))


def first_screen(browser: str, page: Path, png: Path, width: int = WIDTH, height: int = 800,
                 timeout: float = 120) -> None:
    """A ``width`` × ``height`` px screenshot of the top of ``page``, written to ``png``."""
    png.parent.mkdir(parents=True, exist_ok=True)
    done = _chromium(browser, f"--window-size={width},{height}",
                     f"--screenshot={png.resolve()}", page.resolve().as_uri(), timeout=timeout)
    if not png.is_file():
        raise RuntimeError(f"{browser} wrote no screenshot of {page} (exit {done.returncode}):"
                           f" {done.stderr.strip()[-500:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="+", type=Path, help="report.html files to measure")
    parser.add_argument("--screen", type=int, default=800,
                        help="height of one screen in px (default 800)")
    parser.add_argument("--screenshot", type=Path,
                        help="PNG of the first screen (with several pages: the first page's; "
                             "default: first-screen.png beside each page)")
    parser.add_argument("--full", action="store_true",
                        help="also save the whole page (a window as tall as the page) as "
                             "<screenshot>-full.png")
    parser.add_argument("--chromium", help="the browser executable (default: chromium on PATH)")
    args = parser.parse_args(argv)

    browser = find_chromium(args.chromium)
    if browser is None:
        print("report_height: Chromium not found (looked for "
              f"{', '.join(args.chromium and [args.chromium] or CHROMIUM_NAMES)}); install it, "
              "e.g. `apt-get install -y chromium` on Debian, or name it with --chromium",
              file=sys.stderr)
        return 2
    missing = [str(p) for p in args.pages if not p.is_file()]
    if missing:
        print(f"report_height: no such page: {', '.join(missing)}", file=sys.stderr)
        return 1
    print(f"window {WIDTH} px wide; one screen = {args.screen} px")
    print("| page | height px | screens | first screen |")
    print("|---|---|---|---|")
    for i, page in enumerate(args.pages):
        png = (args.screenshot if args.screenshot and i == 0
               else page.with_name(page.stem + "-first-screen.png"))
        height = page_height(browser, page)
        first_screen(browser, page, png, height=args.screen)
        if args.full:
            first_screen(browser, page, png.with_name(png.stem + "-full.png"), height=height)
        print(f"| {page} | {height:,} | {height / args.screen:.1f} | {png} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
