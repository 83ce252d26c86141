"""Independent check that a tlm recording is a ROS 2 bag, with `rosbags`.

Usage: read_rosbag.py BAG EXPECTED.jsonl

BAG is the recording directory (it holds `metadata.yaml` next to the
segments; `segments/` in a recording made in the old layout), or one MCAP
file (`tlm export --format mcap`).
rosbags' AnyReader opens it, registers the message types from the schemas
the segments carry, and deserializes every message. Each message is compared,
field by field, with the same message as our own reader exported it
(EXPECTED.jsonl, `tlm export --format jsonl`: one object per message with
"topic", "log_time" and "fields"), per topic in log-time order (a stable
sort on both sides).

Prints one JSON document on stdout:

  {"message_count", "start_time", "end_time", "custom_data", "topics": {name: {"type",
   "count", "qos": [...]}}, "deserialized", "compared", "mismatches": [...]}

Exits non-zero (with the error on stderr) if the bag does not open or a
message does not deserialize; mismatches are reported, not raised, so the
Swift test can show them.
"""
import json
import math
import struct
import sys
from collections import defaultdict
from pathlib import Path

from rosbags.highlevel import AnyReader


def plain(value):
    """A deserialized message (or field) as JSON-like Python values."""
    if hasattr(value, "tolist"):  # numpy arrays of primitives
        return value.tolist()
    if isinstance(value, (bytes, bytearray)):
        return list(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "__dataclass_fields__"):
        return {name: plain(getattr(value, name)) for name in value.__dataclass_fields__ if name != "__msgtype__"}
    return value


def as_float32(number):
    return struct.unpack("<f", struct.pack("<f", number))[0]


def same(ours, theirs, float32):
    """Whether a field our reader exported equals the one rosbags decoded."""
    if isinstance(theirs, dict) and set(theirs) == {"sec", "nanosec"}:
        # builtin_interfaces/Time: ours is one count of nanoseconds.
        return isinstance(ours, int) and ours == theirs["sec"] * 1_000_000_000 + theirs["nanosec"]
    if isinstance(ours, list) and isinstance(theirs, list):
        return len(ours) == len(theirs) and all(same(a, b, float32) for a, b in zip(ours, theirs))
    if isinstance(ours, bool) or isinstance(theirs, bool):
        return ours == theirs and isinstance(ours, bool) and isinstance(theirs, bool)
    if isinstance(ours, str) and isinstance(theirs, float):
        # The JSON lines export writes non-finite doubles as strings.
        return {"NaN": math.isnan(theirs), "Infinity": theirs == math.inf, "-Infinity": theirs == -math.inf}.get(
            ours, False)
    if isinstance(ours, (int, float)) and isinstance(theirs, (int, float)):
        if isinstance(theirs, float) and float32:
            return as_float32(float(ours)) == theirs
        return ours == theirs
    return ours == theirs


def float32_fields(typestore, msgtype):
    """The names of a message type's float32 fields (and float32 arrays)."""
    names = set()
    fields = typestore.fielddefs[msgtype][1]
    for name, (kind, detail) in fields:
        text = repr(detail)
        if "float32" in text:
            names.add(name)
    return names


def main(bag, expected_path):
    expected = defaultdict(list)
    with open(expected_path) as lines:
        for line in lines:
            if line.strip():
                row = json.loads(line)
                expected[row["topic"]].append(row)

    decoded = defaultdict(list)
    out = {"topics": {}, "mismatches": []}
    with AnyReader([Path(bag)]) as reader:
        out["message_count"] = reader.message_count
        out["start_time"] = reader.start_time
        out["end_time"] = reader.end_time
        # metadata.yaml's custom_data (a bag directory only; None for one MCAP file).
        metadata = getattr(reader.readers[0].storage, "metadata", None)
        out["custom_data"] = getattr(metadata, "custom", None)
        for name, info in reader.topics.items():
            qos = [q._asdict() for c in info.connections for q in c.ext.offered_qos_profiles]
            out["topics"][name] = {
                "type": info.msgtype,
                "count": info.msgcount,
                "qos": [{k: (v.name.lower() if hasattr(v, "name") else
                             (list(v) if isinstance(v, tuple) else v)) for k, v in q.items()} for q in qos],
            }
        float32 = {}
        count = 0
        for connection, timestamp, raw in reader.messages():
            message = reader.deserialize(raw, connection.msgtype)
            if connection.msgtype not in float32:
                float32[connection.msgtype] = float32_fields(reader.typestore, connection.msgtype)
            decoded[connection.topic].append((timestamp, plain(message), float32[connection.msgtype]))
            count += 1
        out["deserialized"] = count

    compared = 0
    mismatches = out["mismatches"]
    for topic in sorted(set(expected) | set(decoded)):
        # rosbags yields messages in log-time order; our export in the order
        # they were written, which for /tlm/loss need not be time order.
        ours = sorted(expected.get(topic, []), key=lambda row: row["log_time"])
        theirs = sorted(decoded.get(topic, []), key=lambda item: item[0])
        if len(ours) != len(theirs):
            mismatches.append(f"{topic}: our reader has {len(ours)} messages, rosbags {len(theirs)}")
            continue
        for index, (row, (timestamp, fields, f32)) in enumerate(zip(ours, theirs)):
            compared += 1
            if row["log_time"] != timestamp:
                mismatches.append(f"{topic} #{index}: log time {row['log_time']} != {timestamp}")
            if set(row["fields"]) != set(fields):
                mismatches.append(f"{topic} #{index}: fields {sorted(row['fields'])} != {sorted(fields)}")
                continue
            for name, value in row["fields"].items():
                if not same(value, fields[name], name in f32):
                    mismatches.append(f"{topic} #{index} {name}: {value!r} != {fields[name]!r}")
    out["compared"] = compared
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
