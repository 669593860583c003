"""The single-page app: the files built from frontend/ into bib2graph/gui/static/, shipped in the wheel.

`/` is index.html; any other path outside /api/ is a file of the build when there is one (assets,
icons), else index.html again, so the app's own routes survive a reload. Without a build (a checkout
where `npm run build` never ran) a short page says so instead.
"""

from __future__ import annotations

from pathlib import Path

from starlette.responses import FileResponse, HTMLResponse, Response

STATIC = Path(__file__).resolve().parent.parent / "gui" / "static"

MISSING = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bib2graph</title></head>
<body><h1>bib2graph</h1>
<p>The GUI assets are missing from this installation (no <code>bib2graph/gui/static/index.html</code>).
Build them with <code>npm ci &amp;&amp; npm run build</code> in <code>frontend/</code>, or install a released wheel.
The API answers under <code>/api/</code> (see <code>/api/openapi.json</code>).</p>
</body></html>
"""


def page(static_dir: Path, path: str) -> Response:
    """The file at `path` under the build (never outside it), else the app's index.html."""
    root = static_dir.resolve()
    try:       # a NUL or a name too long for the file system is no file of the build
        wanted = (root / path).resolve()
        found = bool(path) and wanted.is_relative_to(root) and wanted.is_file()
    except (OSError, ValueError):
        found = False
    if found:
        return FileResponse(wanted)
    if path.startswith("assets/"):
        return Response("no such asset\n", status_code=404, media_type="text/plain")
    index = root / "index.html"
    if not index.is_file():
        return HTMLResponse(MISSING, headers={"Cache-Control": "no-store"})
    return FileResponse(index, headers={"Cache-Control": "no-store"})
