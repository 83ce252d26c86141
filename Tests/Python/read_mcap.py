"""Independent check of tlm recordings with the Python `mcap` reader.

Usage: read_mcap.py SEGMENT.mcap [SEGMENT.mcap ...]

For each segment: reads the summary (statistics, channels, chunk indexes),
then every message with CRC validation on, decoding CDR payloads with
mcap-ros2-support. Float fields are printed as strings (Python's repr), so
they read back bit-exact. Prints one JSON document on stdout:

  {"segments": [{"path", "profile", "library", "statistics", "metadata", "attachments",
                 "messages": [{"topic", "schema", "sequence", "log_time",
                               "publish_time", "fields": {...}}]}]}

Exits non-zero (with the reader's error on stderr) if anything fails to read,
decode or validate.
"""
import hashlib
import json
import struct
import sys
import zlib

from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from value_tokens import plain


def check_summary_crc(path):
    """The Python reader does not check the Footer's summary CRC: do it here."""
    with open(path, "rb") as stream:
        data = stream.read()
    footer_at = len(data) - 8 - 29
    if data[footer_at] != 0x02:
        raise ValueError(f"{path}: no Footer record before the trailing magic")
    summary_start, _summary_offset_start, crc = struct.unpack_from("<QQI", data, footer_at + 9)
    if summary_start == 0:
        raise ValueError(f"{path}: the Footer points to no summary")
    computed = zlib.crc32(data[summary_start:footer_at + 9 + 16])
    if computed != crc:
        raise ValueError(f"{path}: summary CRC {crc:#010x} != computed {computed:#010x}")


def read_segment(path):
    check_summary_crc(path)
    out = {"path": path, "messages": [], "metadata": []}
    with open(path, "rb") as stream:
        reader = make_reader(stream, validate_crcs=True, decoder_factories=[DecoderFactory()])
        header = reader.get_header()
        out["profile"] = header.profile
        out["library"] = header.library
        summary = reader.get_summary()
        stats = summary.statistics
        out["statistics"] = {
            "message_count": stats.message_count,
            "channel_count": stats.channel_count,
            "schema_count": stats.schema_count,
            "chunk_count": stats.chunk_count,
            "metadata_count": stats.metadata_count,
            "attachment_count": stats.attachment_count,
            "message_start_time": stats.message_start_time,
            "message_end_time": stats.message_end_time,
            "channel_message_counts": {str(k): v for k, v in stats.channel_message_counts.items()},
        }
        out["chunk_compressions"] = sorted({c.compression for c in summary.chunk_indexes})
        out["topics"] = sorted(ch.topic for ch in summary.channels.values())
        for record in reader.iter_metadata():
            out["metadata"].append({"name": record.name, "values": dict(record.metadata)})
        out["attachments"] = [
            {"name": a.name, "media_type": a.media_type, "log_time": a.log_time, "create_time": a.create_time,
             "size": len(a.data), "sha256": hashlib.sha256(a.data).hexdigest()}
            for a in reader.iter_attachments()
        ]
        for schema, channel, message, decoded in reader.iter_decoded_messages(log_time_order=False):
            out["messages"].append({
                "topic": channel.topic,
                "schema": schema.name,
                "sequence": message.sequence,
                "log_time": message.log_time,
                "publish_time": message.publish_time,
                "fields": plain(decoded),
            })
    # A second, streaming pass validates chunk CRCs and the data-section CRC.
    with open(path, "rb") as stream:
        from mcap.stream_reader import StreamReader
        count = sum(1 for _ in StreamReader(stream, validate_crcs=True).records)
        out["record_count"] = count
    return out


def main(paths):
    result = {"segments": [read_segment(p) for p in paths]}
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
