"""Roll odds as a table and a plot."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import UsageError, counted
from ..files import can_write_in, write_bytes_atomically
from ..game.config_file import COPIES_FOR_TOP_STAR

__all__ = ["format_odds", "odds_figure", "check_plot_path", "write_odds_plot"]

# --------------------------------------------------------------------------


# How the simulation dealt, in the table's note.
_SIMULATIONS = {"watched": "the draws the question sees", "game": "every slot through the table's shop"}


def _star_note(owned: int, k: int) -> str:
    total = owned + k
    return " (3-star)" if total == COPIES_FOR_TOP_STAR else " (2-star)" if total == 3 else ""


def format_odds(result: dict) -> str:
    """The terminal table: one row per number of copies found, the three methods side by side."""
    s = result["situation"]
    if s["gold"] is not None:
        spent = f"{s['gold']} gold" + (f" ({s['xp_gold']} on XP to level {s['roll_level']})" if s["xp_gold"] else "")
        spent += f" = {s['rolls']} rolls"
    else:
        spent = f"{s['rolls']} rolls"
    lines = [
        f"{s['config']}: {s['champion']} ({s['cost']}-cost) at level {s['roll_level']} "
        f"({s['tier_odds']:.0%} {s['cost']}-cost odds), {spent} of {s['shop_size']} slots",
        f"  pool: {s['copies_left']} copies left ({s['copies_out']} out, {s['owned']} owned), {s['units_left']} "
        f"{s['cost']}-cost units left ({s['cost_out']} others out); looking for up to {s['looked_for']}",
    ]
    sim = result["simulated"]
    game = result["game"]
    header = f"{'found':>5} {'have':>12}  {'chain':>8} {'game':>8}"
    if sim:
        header += f" {'simulated':>9}  {'95% CI':<17}"
    lines.append(header + "   P(=k): chain" + (" / simulated" if sim else ""))
    chain = result["exact"]
    for k in range(len(chain["p_exactly"])):
        have = f"{s['owned'] + k}{_star_note(s['owned'], k)}"
        row = f"{k:>5} {have:>12}  {chain['p_at_least'][k]:>8.4f} "
        row += f"{game['p_at_least'][k]:>8.4f}" if game else f"{'n/a':>8}"
        if sim:
            lo, hi = sim["ci"][k]
            row += f" {sim['p_at_least'][k]:>9.4f}  [{lo:.4f}, {hi:.4f}]"
        row += f"   = {chain['p_exactly'][k]:.4f}"
        if sim:
            row += f" / {sim['p_exactly'][k]:.4f}"
        lines.append(row)
    if sim:
        lines.append("columns: P(at least k) by the public calculators' chain, by the game's exact law, and simulated "
                     f"({counted(result['trials'], 'trial')}, dealer {result['dealer']}, "
                     f"{_SIMULATIONS[result['simulation']]}); then P(exactly k): chain / simulated")
    else:
        lines.append("columns: P(at least k) by the public calculators' chain and by the game's exact law; then "
                     "P(exactly k) by the chain")
    if s["holding"]:
        held = (f"the {s['other_shops']} other seats' shops hold {s['held_by_other_shops']} units"
                if s["other_shops"] else "no other seat holds a shop")
        lines.append(f"holding: units shown stay out of the pool until the shop changes, and {held}; the chain "
                     "counts neither")
    else:
        lines.append("holding: off (shown units stay in the pool; a shop's slots are dealt from the same pool)")
    d = result["largest_difference"]
    if d:
        lines.append(f"largest difference from the chain: P(at least {d['k']}) {d['game']:.4f} ({d['source']}) "
                     f"against {d['chain']:.4f} ({round(d['difference'], 4) + 0.0:+.4f})")  # no "-0.0000"
    if game is None:
        lines.append("game: n/a (a tier other than the champion's could run out while the shops hold units)")
    return "\n".join(lines)


def odds_figure(result: dict):
    """A bar chart of P(at least k), k = 1 .., by the three methods (the simulation with its 95% CIs)."""
    from ..analysis.pages import new_figure

    s = result["situation"]
    figure, (axis,) = new_figure(7, 3.8)
    ks = np.arange(1, len(result["exact"]["p_at_least"]))
    methods = [("chain", result["exact"], None), ("game, exact", result["game"], None)]
    if result["simulated"]:
        sim = result["simulated"]
        errors = np.array([[p - lo, hi - p] for p, (lo, hi) in zip(sim["p_at_least"], sim["ci"])])[1:].T
        methods.append((f"simulated ({result['trials']:,})", sim, errors))
    methods = [m for m in methods if m[1] is not None]
    width = 0.8 / len(methods)
    for i, (label, values, errors) in enumerate(methods):
        axis.bar(ks + (i - (len(methods) - 1) / 2) * width, values["p_at_least"][1:], width, label=label,
                 yerr=errors, capsize=2 if errors is not None else 0)
    axis.set_xticks(ks, [f"{k}\n({s['owned'] + k})" for k in ks])
    axis.set(xlabel="copies found (copies held)", ylabel="P(at least k)", ylim=(0, 1.05),
             title=f"{s['champion']} at level {s['roll_level']}, {s['rolls']} rolls ({s['config']})")
    axis.grid(axis="y", alpha=0.3)
    axis.legend(fontsize="small")
    return figure


def check_plot_path(path) -> Path:
    """``path`` as a Path if a PNG can be written there; ``ValueError`` (one line) otherwise."""
    if not str(path).strip():
        raise UsageError("empty (allowed: a path ending in .png)", "plot")
    path = Path(path)
    if path.suffix.lower() != ".png":
        raise UsageError(f"{str(path)!r} is not a .png file (allowed: a path ending in .png)", "plot")
    if not path.parent.is_dir():
        raise UsageError(f"the folder {str(path.parent)!r} does not exist (allowed: a file in an existing "
                         "folder)", "plot")
    if path.is_dir():
        raise UsageError(f"{str(path)!r} is a folder (allowed: a file in an existing folder)", "plot")
    if not can_write_in(path.parent):  # said before the simulation, not after
        raise UsageError(f"{str(path)!r} cannot be written (allowed: a file in a folder you can write)", "plot")
    return path


def write_odds_plot(result: dict, path) -> Path:
    """Write :func:`odds_figure` as a PNG at ``path`` (atomically); returns the path."""
    from ..analysis.pages import rendered_png

    path = check_plot_path(path)
    write_bytes_atomically(path, rendered_png(odds_figure, result))
    return path
