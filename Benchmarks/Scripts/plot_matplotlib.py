"""The report benchmark's peer: plot the numeric streams of a `tlm export
--format csv` file with pandas and matplotlib, as a user would script it.

    plot_matplotlib.py EXPORT.csv OUT.png

Reads the CSV (log_time, topic, value columns), draws one subplot per topic
(value against time in seconds from the first sample, every sample as a
line), and saves the figure as a PNG. Prints the number of samples plotted
per topic, so the caller can check it drew what `tlm report` drew.
"""

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: plot_matplotlib.py EXPORT.csv OUT.png", file=sys.stderr)
        return 2
    frame = pd.read_csv(sys.argv[1], usecols=["log_time", "topic", "value"])
    if frame.empty:
        print(f"{sys.argv[1]}: no samples", file=sys.stderr)
        return 1
    start = frame["log_time"].min()
    topics = sorted(frame["topic"].unique())
    figure, axes = plt.subplots(len(topics), 1, figsize=(14, 3 * len(topics)), squeeze=False, sharex=True)
    for axis, topic in zip(axes[:, 0], topics):
        samples = frame[frame["topic"] == topic]
        axis.plot((samples["log_time"] - start) / 1e9, samples["value"], linewidth=0.5)
        axis.set_title(topic)
        axis.set_ylabel("value")
        print(f"{topic} {len(samples)}")
    axes[-1, 0].set_xlabel("seconds")
    figure.tight_layout()
    figure.savefig(sys.argv[2], dpi=100)
    return 0


if __name__ == "__main__":
    sys.exit(main())
