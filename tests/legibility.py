"""What makes a plot unreadable, checked on the drawn figure: tick labels whose boxes overlap, and two labelled
series of one panel drawn alike (same colour, line style and marker)."""

import itertools


def overlapping_labels(axis, renderer) -> list:
    """Pairs of tick labels of ``axis`` whose drawn boxes overlap."""
    found = []
    for ticks in (axis.get_xticklabels(), axis.get_yticklabels()):
        boxes = [(label.get_text(), label.get_window_extent(renderer)) for label in ticks
                 if label.get_visible() and label.get_text()]
        found += [(a, b) for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2) if box_a.overlaps(box_b)]
    return found


def assert_legible(name, draw, *args):
    """Draw ``draw(*args)`` in matplotlib's default style and check every panel."""
    import matplotlib.style

    with matplotlib.style.context("default"):
        figure = draw(*args)
        figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    for axis in figure.axes:
        assert not overlapping_labels(axis, renderer), (name, overlapping_labels(axis, renderer)[:3])
        looks = [(line.get_color(), line.get_linestyle(), line.get_marker()) for line in axis.get_lines()
                 if line.get_label() and not line.get_label().startswith("_")]
        assert len(looks) == len(set(looks)), (name, looks)
