"""What a benchmark of bench/ does with its results object: JSON to a file
(--json), a plot (--plot), and JSON on stdout."""

import json


def emit(out, json_path=None, plot_path=None, plot=None, indent=1):
    """Writes `out` as JSON to `json_path` (when given), draws it with
    `plot(out, plot_path)` (when a path is given) and prints the JSON."""
    text = json.dumps(out, indent=indent)
    if json_path:
        with open(json_path, "w") as fh:
            fh.write(text + "\n")
    if plot_path:
        plot(out, plot_path)
    print(text)
