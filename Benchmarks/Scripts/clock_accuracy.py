"""The clock-accuracy table: receive time, tlm's sample time (online), tlm's
offline fit of the whole session and pyxdf's dejittering of the same receive
times, each against the truth.

Reads the scenario files `ClockAccuracy` wrote (one CSV per stream:
truth_ns, receive_ns, estimate_ns, offline_ns, causal_ns relative to the
session's start, causal_ns empty after the first five minutes; and a JSON index
naming each stream's nominal rate and scenario), writes the
receive times of each scenario into an XDF file (the writer below follows
the XDF 1.0 specification), loads it with pyxdf (dejitter_timestamps=True)
and prints a Markdown table.

    .venv/bin/python Benchmarks/Scripts/clock_accuracy.py DIR
"""

import json
import struct
import sys
from pathlib import Path

import numpy as np
import pyxdf


def chunk(tag, content):
    """One XDF chunk: length-byte count, length (tag + content), tag, content."""
    length = 2 + len(content)
    if length < 256:
        head = struct.pack("<BB", 1, length)
    elif length < 2**32:
        head = struct.pack("<BI", 4, length)
    else:
        head = struct.pack("<BQ", 8, length)
    return head + struct.pack("<H", tag) + content


def varlen(value):
    """A variable-length integer: its byte count (1, 4 or 8), then the value."""
    if value < 256:
        return struct.pack("<BB", 1, value)
    if value < 2**32:
        return struct.pack("<BI", 4, value)
    return struct.pack("<BQ", 8, value)


def write_xdf(path, streams):
    """streams: list of (name, nominal_srate, timestamps in seconds)."""
    out = bytearray(b"XDF:")
    out += chunk(1, b'<?xml version="1.0"?><info><version>1.0</version></info>')
    for sid, (name, srate, stamps) in enumerate(streams, start=1):
        header = (
            f'<?xml version="1.0"?><info><name>{name}</name><type>Sim</type>'
            f"<channel_count>1</channel_count><nominal_srate>{srate}</nominal_srate>"
            f"<channel_format>double64</channel_format><source_id>{name}</source_id>"
            f"<created_at>0</created_at></info>"
        )
        out += chunk(2, struct.pack("<I", sid) + header.encode())
    for sid, (name, srate, stamps) in enumerate(streams, start=1):
        for start in range(0, len(stamps), 1000):
            part = stamps[start : start + 1000]
            body = bytearray(struct.pack("<I", sid) + varlen(len(part)))
            for index, stamp in enumerate(part):
                body += struct.pack("<Bdd", 8, float(stamp), float(start + index))
            out += chunk(3, bytes(body))
    for sid, (name, srate, stamps) in enumerate(streams, start=1):
        footer = (
            f'<?xml version="1.0"?><info><first_timestamp>{stamps[0]}</first_timestamp>'
            f"<last_timestamp>{stamps[-1]}</last_timestamp><sample_count>{len(stamps)}</sample_count>"
            f"<clock_offsets></clock_offsets></info>"
        )
        out += chunk(6, struct.pack("<I", sid) + footer.encode())
    Path(path).write_bytes(bytes(out))


def pyxdf_times(path, names):
    """pyxdf's dejittered times (ns) per stream name, in sample order."""
    streams, _ = pyxdf.load_xdf(str(path), dejitter_timestamps=True, synchronize_clocks=False)
    by_name = {s["info"]["name"][0]: s for s in streams}
    result = {}
    for name in names:
        s = by_name[name]
        order = np.argsort(np.asarray(s["time_series"])[:, 0], kind="stable")
        result[name] = np.round(np.asarray(s["time_stamps"])[order] * 1e9).astype(np.int64)
    return result


# The first five minutes: the estimators' warm-up under phase lock (docs/time.md, Limits).
WARM_UP_NS = 300 * 10**9


def stats(errors):
    a = np.abs(errors)
    return np.percentile(a, 50), np.percentile(a, 99), a.max()


def ms(value):
    return f"{value / 1e6:.3f}"


def main():
    directory = Path(sys.argv[1])
    index = json.loads((directory / "index.json").read_text())
    rows = []
    errors = {}
    for scenario in index["scenarios"]:
        streams = []
        data = {}
        for stream in scenario["streams"]:
            # Float64 holds these nanoseconds (at most about 1.2e12) exactly; an empty cell is NaN.
            table = np.genfromtxt(directory / stream["file"], delimiter=",", skip_header=1, ndmin=2)
            data[stream["name"]] = table
            streams.append((stream["name"], stream["rate"], table[:, 1] / 1e9))
        xdf = directory / (scenario["name"] + ".xdf")
        write_xdf(xdf, streams)
        dejittered = pyxdf_times(xdf, [s["name"] for s in scenario["streams"]])
        for stream in scenario["streams"]:
            table = data[stream["name"]]
            truth, receive, ours, offline = (table[:, column].astype(np.int64) for column in range(4))
            theirs = dejittered[stream["name"]]
            e = {"receive": receive - truth, "tlm": ours - truth, "offline": offline - truth, "pyxdf": theirs - truth}
            errors[stream["name"]] = (truth, e)
            row = {"stream": stream["name"], "kind": stream["kind"], "interval": scenario["interval_ms"],
                   "drift": stream["drift_ppm"], "samples": len(truth)}
            settled = truth >= WARM_UP_NS
            for method, err in e.items():
                median = np.median(err)
                later = err[settled] - np.median(err[settled])
                row[method] = {"raw": stats(err), "median": median, "centred": stats(err - median),
                               "settled": stats(later)}
            # The first minutes: online against the causal fit, each around its median over them.
            row["early"] = []
            for seconds in (60, 120, 300):
                inside = (receive < seconds * 10**9) & ~np.isnan(table[:, 4])
                online = ours[inside] - truth[inside]
                causal = table[inside, 4].astype(np.int64) - truth[inside]
                row["early"].append((stats(online - np.median(online))[1], stats(causal - np.median(causal))[1]))
            rows.append(row)

    print("Error against the truth, ms: p50 / p99 / max of |error| after removing the method's median error")
    print("(the constant one-way delay, which no receiver can observe; it is shown as `delay`, the median of")
    print("receive time minus truth).\n")
    print("The last two columns: p99 after the first five minutes (tlm online / tlm offline / pyxdf), around")
    print("their own medians.\n")
    print("| stream | interval ms | drift ppm | samples | delay | receive time | tlm online | tlm offline "
          "| pyxdf dejitter | tlm online raw p99 | p99 after 5 min online / offline / pyxdf |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        cells = []
        for method in ("receive", "tlm", "offline", "pyxdf"):
            p50, p99, mx = r[method]["centred"]
            cells.append(f"{ms(p50)} / {ms(p99)} / {ms(mx)}")
        print(f"| {r['kind']} | {r['interval']} | {r['drift']:+g} | {r['samples']} | {ms(r['receive']['median'])} | "
              + " | ".join(cells) + f" | {ms(r['tlm']['raw'][1])} | "
              f"{ms(r['tlm']['settled'][1])} / {ms(r['offline']['settled'][1])} / {ms(r['pyxdf']['settled'][1])} |")

    print("\nThe first minutes: p99 of |error| around its median over the samples received in the first 60,")
    print("120 and 300 s: tlm online against the causal bound, `OfflineClockFit` over every delivery received")
    print("up to the end of each sample's second (the whole past and up to a second of future), ms.\n")
    print("| stream | interval ms | drift ppm | first 60 s: online / bound | first 120 s | first 300 s |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        cells = [f"{ms(online)} / {ms(bound)}" for online, bound in r["early"]]
        print(f"| {r['kind']} | {r['interval']} | {r['drift']:+g} | " + " | ".join(cells) + " |")

    pairs = index.get("pairs", [])
    if pairs:
        print("\nTwo devices in one session: p99 / max of |error(A) − error(B)| over the samples of A and, for")
        print("each, the first sample of B measured at or after it, ms (raw errors: both devices share the host's")
        print("latency model).\n")
        print("| pair | receive time | tlm online | tlm offline | pyxdf dejitter |")
        print("|---|---|---|---|---|")
        for a, b in pairs:
            truth_a, ea = errors[a]
            truth_b, eb = errors[b]
            nearest = np.clip(np.searchsorted(truth_b, truth_a), 0, len(truth_b) - 1)
            cells = []
            for method in ("receive", "tlm", "offline", "pyxdf"):
                d = np.abs(ea[method] - eb[method][nearest])
                cells.append(f"{ms(np.percentile(d, 99))} / {ms(d.max())}")
            print(f"| {a} + {b} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
