"""Writes an MCAP file with the Python `mcap` writer (via mcap-ros2-support),
for tests of tlm reading files other tools made.

Usage: write_mcap.py OUTPUT.mcap COMPRESSION COUNT

COMPRESSION is lz4, zstd or none. Two topics, /py/dev1/value and
/py/dev2/value, share one ros2msg schema (float64 value, int32 count);
message i of COUNT goes to dev1 when i is even, dev2 when odd, with
value = i * 0.25, count = i, log and publish time 1e18 + i * 1 ms and
sequence i. Chunks of 1 KiB, so a few hundred messages make many chunks.
Prints {"chunk_compressions": [...], "chunk_count": N} read back from the
file's summary.
"""
import json
import sys

from mcap.reader import make_reader
from mcap.writer import CompressionType
from mcap_ros2.writer import Writer

COMPRESSIONS = {"lz4": CompressionType.LZ4, "zstd": CompressionType.ZSTD, "none": CompressionType.NONE}


def main():
    path, compression, count = sys.argv[1], COMPRESSIONS[sys.argv[2]], int(sys.argv[3])
    with open(path, "wb") as stream:
        writer = Writer(stream, chunk_size=1024, compression=compression)
        schema = writer.register_msgdef("tlm_test/msg/Reading", "float64 value\nint32 count\n")
        for i in range(count):
            time = 10**18 + i * 1_000_000
            topic = "/py/dev1/value" if i % 2 == 0 else "/py/dev2/value"
            writer.write_message(
                topic, schema, {"value": i * 0.25, "count": i}, log_time=time, publish_time=time, sequence=i)
        writer.finish()
    with open(path, "rb") as stream:
        summary = make_reader(stream).get_summary()
        print(json.dumps({
            "chunk_compressions": sorted({c.compression for c in summary.chunk_indexes}),
            "chunk_count": len(summary.chunk_indexes),
        }))


if __name__ == "__main__":
    main()
