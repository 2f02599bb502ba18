"""What every HTML page of autodup shares: number formats, tables, collapsed detail, embedded plots, the page.

A page is self-contained (its plots are ``data:`` URIs and its policy refuses
anything it would have to fetch), so it opens from a file, offline, and can be
mailed alone. Plots are drawn on matplotlib's Agg canvas in its default style,
whatever the local ``matplotlibrc`` says, and the PNGs carry no version or
date: the same data gives the same bytes. matplotlib is imported on first use.
"""

from __future__ import annotations

import base64
import html
import io
import math

__all__ = ["DASH", "number", "format_number", "format_share", "interval_bounds", "format_interval", "new_figure",
           "show_no_data", "rendered_png", "html_table", "details", "embedded_image", "html_page"]

DASH = "\u2014"
_FORMATS = {"share": "{:.3f}", "ratio": "{:.2f}", "count": "{:,.0f}", "seconds": "{:,.1f}", "p": "{:.2g}",
            "difference": "{:+.3f}", "general": "{:.4g}"}


def format_share(value) -> str:
    """A share as a percentage with one decimal (a dash when not measurable); a share that rounds to zero shows
    as 0.0%, whatever its sign."""
    value = number(value)
    if value is None:
        return DASH
    return f"{0.0 if abs(value) < 0.0005 else value:.1%}"


def number(value):
    """``value`` as a float, or None when it is null, not a number or not finite."""
    if value is None or isinstance(value, bool):
        return None
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def format_number(value, style="general") -> str:
    """``value`` formatted by ``style`` (a key of ``_FORMATS``), or a dash when it is not measurable."""
    value = number(value)
    return DASH if value is None else _FORMATS[style].format(value)


def interval_bounds(interval) -> tuple:
    """``(low, high)`` of a ``[low, high]`` confidence interval, or ``(None, None)`` unless both are numbers."""
    low, high = (number(bound) for bound in (list(interval or []) + [None, None])[:2])
    return (None, None) if low is None or high is None else (low, high)


def format_interval(interval, style="ratio") -> str:
    """A ``[low, high]`` confidence interval as ``"low - high"``, or a dash."""
    low, high = interval_bounds(interval)
    return DASH if low is None else f"{format_number(low, style)} \u2013 {format_number(high, style)}"


def new_figure(width, height, rows=1, columns=1, layout="constrained", sharey=False):
    """A figure on the Agg canvas (no pyplot, so no global backend is chosen) and its axes.

    ``layout=None`` skips the constrained layout (which draws the figure twice) for a figure that places its
    axes itself.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=100, layout=layout)
    FigureCanvasAgg(figure)
    axes = figure.subplots(rows, columns, squeeze=False, sharey=sharey)
    return figure, [axis for row in axes for axis in row]


def show_no_data(axis, message):
    """Say ``message`` in the middle of an empty panel instead of drawing nothing."""
    axis.text(0.5, 0.5, message, ha="center", va="center", transform=axis.transAxes, color="grey")
    axis.set_axis_off()


def rendered_png(draw, *args) -> bytes:
    """The PNG of the figure ``draw(*args)`` returns, drawn and saved in matplotlib's default style.

    The default style, not the local matplotlibrc, so that the same data gives the same pixels anywhere.
    """
    import matplotlib
    import matplotlib.style

    buffer = io.BytesIO()
    with matplotlib.style.context("default"), matplotlib.rc_context({"font.size": 9}):
        draw(*args).savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()



# --- HTML --------------------------------------------------------------------------------------------------

WRAP_ABOVE = 60  # characters: a longer table cell is prose, and wraps
_PROSE = ' class="prose"'

_STYLE = """
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1100px; color: #222; line-height: 1.4; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
td { white-space: nowrap; }
td.prose { white-space: normal; text-align: left; min-width: 20em; }
th:first-child, td:first-child { text-align: left; }
tr.highlight td { font-weight: bold; background: #f4f4ff; }
img { max-width: 100%; display: block; margin: 0.5em 0; }
dt { font-weight: bold; } dd { margin: 0 0 0.6em 1.5em; }
.wrong { color: #b00; font-weight: bold; } .correct { color: #070; font-weight: bold; }
.verdict { border: 2px solid #446; border-radius: 6px; padding: 0.6em 1.2em; background: #f6f7fb; }
.verdict .figure { font-size: 1.5em; font-weight: bold; }
.note { color: #555; font-size: 0.9em; }
details { margin: 0.6em 0; } summary { cursor: pointer; font-weight: bold; }
"""

# A headless browser's --dump-dom shows these attributes, so a test can tell what a reader sees: every plot
# rendered, the verdict inside the first screen, and no script error or refused resource.
_SCRIPT = """
var autodupErrors = 0;
window.addEventListener("error", function () { autodupErrors += 1; }, true);
document.addEventListener("securitypolicyviolation", function () { autodupErrors += 1; });
window.addEventListener("load", function () {
  var images = Array.prototype.slice.call(document.images);
  var loaded = images.filter(function (img) { return img.complete && img.naturalWidth > 0; });
  document.body.dataset.images = String(images.length);
  document.body.dataset.imagesLoaded = String(loaded.length);
  var verdict = document.getElementById("verdict");
  if (verdict) {
    var box = verdict.getBoundingClientRect();
    document.body.dataset.verdictBottom = String(Math.ceil(box.bottom));
    document.body.dataset.screenHeight = String(window.innerHeight);
  }
  document.body.dataset.errors = String(autodupErrors);
});
"""


def html_table(headers, rows, highlighted=()) -> str:
    """A ``<table>`` of already formatted cells, every one escaped; rows whose index is in ``highlighted`` bold."""
    head = "".join(f"<th>{html.escape(str(header))}</th>" for header in headers)
    body = []
    for index, row in enumerate(rows):
        # Figures stay on one line; a cell of prose (a list of effects) wraps rather than widen the page.
        cells = "".join(f"<td{_PROSE if len(str(cell)) > WRAP_ABOVE else ''}>{html.escape(str(cell))}</td>"
                        for cell in row)
        attribute = ' class="highlight"' if index in highlighted else ""
        body.append(f"<tr{attribute}>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def embedded_image(images: dict, name: str, description: str) -> str:
    """An ``<img>`` carrying PNG ``name`` as a ``data:`` URI."""
    data = base64.b64encode(images[name]).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{html.escape(description)}" title="{html.escape(name)}">'


def details(summary: str, body: str, open_: bool = False) -> str:
    """A collapsed ``<details>`` block: ``summary`` (escaped here) shown, ``body`` (HTML) on demand."""
    return f"<details{' open' if open_ else ''}><summary>{html.escape(summary)}</summary>{body}</details>"


def html_page(title: str, body: list) -> str:
    """A self-contained page: ``body`` (HTML fragments, already escaped) under ``title`` (escaped here)."""
    # The policy makes the page refuse anything it would have to fetch: it is self-contained by construction.
    policy = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">"
            f"<title>{html.escape(title)}</title>"
            f"<style>{_STYLE}</style><script>{_SCRIPT}</script></head>\n<body>\n"
            + "\n".join(body) + "\n</body></html>\n")


