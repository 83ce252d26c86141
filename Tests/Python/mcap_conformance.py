"""The MCAP conformance variants, generated here, and the Python `mcap` side of their checks.

Usage:
  mcap_conformance.py generate OUT_DIR
      Writes OUT_DIR/variants.json (every variant: name, features, input records),
      writes OUT_DIR/python/<variant>.mcap with the Python `mcap` writer for every variant
      without `pad`, and prints the readings of those files (see `read`) as JSON.
  mcap_conformance.py read DIR
      Prints, as JSON, {variant: {"records": [...], "problems": [...]}} for every DIR/*.mcap:
      the records the Python streamed reader yields (Chunk and Message Index records
      included, CRCs validated) and the places where an offset, length or CRC in the
      file does not point where the MCAP specification says it must.

The variant grammar follows the MCAP conformance specification: a variant is one of six
inputs plus a set of writer features, named `<input>-<features sorted, joined by ->`:

  ch   chunks                       mx   message indexes (needs ch)
  chx  chunk indexes (needs ch)     st   statistics
  rsh  schemas repeated in summary  rch  channels repeated in summary
  ax   attachment index             mdx  metadata index
  sum  summary offsets (needs a non-empty summary: st, rsh, rch, chx, ax or mdx)
  pad  unknown bytes appended to every extensible record outside chunks

A feature is only combined with an input it can affect: ch (and so mx, chx) and rch need
messages on a channel, rsh a schema, ax an attachment, mdx a metadata record. That gives
416 variants, 208 of them with `pad`. The Python writer cannot pad, so `pad` variants are
written by our writer only; `read` is how the tests hand them back to the Python reader.

Records are shown in one canonical shape, shared with the Swift tests: {"type", "fields"},
fields by name, integers as decimal strings, bytes as arrays of decimal strings, maps as
objects with string keys.
"""
import dataclasses
import itertools
import json
import os
import struct
import sys
import zlib

from mcap.records import (Attachment, AttachmentIndex, Channel, Chunk, ChunkIndex, DataEnd,
                          Footer, MessageIndex, Metadata, MetadataIndex, SummaryOffset)
from mcap.stream_reader import StreamReader
from mcap.writer import CompressionType, IndexType, Writer

FEATURES = ["ch", "mx", "chx", "st", "rsh", "rch", "ax", "mdx", "sum", "pad"]


def header():
    return {"type": "Header", "fields": {"profile": "", "library": ""}}


def schema():
    return {"type": "Schema", "fields": {"id": "1", "name": "Example", "encoding": "c",
                                         "data": ["4", "5", "6"]}}


def channel(schema_id, message_encoding, metadata):
    return {"type": "Channel", "fields": {"id": "1", "schema_id": schema_id, "topic": "example",
                                          "message_encoding": message_encoding,
                                          "metadata": metadata}}


def message(sequence, log_time, publish_time):
    return {"type": "Message", "fields": {"channel_id": "1", "sequence": str(sequence),
                                          "log_time": str(log_time),
                                          "publish_time": str(publish_time),
                                          "data": ["1", "2", "3"]}}


def inputs():
    """The six inputs: name -> data records, in the order they are written."""
    ten_log_times = [0, 2, 1, 3, 3, 5, 4, 7, 8, 9]
    return {
        "NoData": [header()],
        "OneSchemalessMessage": [header(), channel("0", "text", {}), message(10, 2, 1)],
        "OneMessage": [header(), schema(), channel("1", "a", {"foo": "bar"}), message(10, 2, 1)],
        "OneAttachment": [header(), {"type": "Attachment", "fields": {
            "log_time": "2", "create_time": "1", "name": "myFile",
            "media_type": "application/octet-stream", "data": ["1", "2", "3"]}}],
        "OneMetadata": [header(), {"type": "Metadata", "fields": {
            "name": "myMetadata", "metadata": {"foo": "bar"}}}],
        "TenMessages": [header(), schema(), channel("1", "a", {"foo": "bar"})]
        + [message(i, t, t) for i, t in enumerate(ten_log_times)],
    }


def applies(features, records):
    """Whether the feature set is a variant of an input with these records."""
    types = {record["type"] for record in records}
    if features & {"ch", "mx", "chx", "rch"} and "Message" not in types:
        return False
    if features & {"mx", "chx"} and "ch" not in features:
        return False
    if "rsh" in features and "Schema" not in types:
        return False
    if "ax" in features and "Attachment" not in types:
        return False
    if "mdx" in features and "Metadata" not in types:
        return False
    if "sum" in features and not features & {"st", "rsh", "rch", "chx", "ax", "mdx"}:
        return False
    return True


def variants():
    result = []
    for name, records in inputs().items():
        for count in range(len(FEATURES) + 1):
            for combination in itertools.combinations(FEATURES, count):
                features = set(combination)
                if applies(features, records):
                    result.append({"name": "-".join([name] + sorted(features)),
                                   "features": sorted(features), "records": records})
    return sorted(result, key=lambda variant: variant["name"])


def to_bytes(values):
    return bytes(int(value) for value in values)


def write_with_python(variant, path):
    features = set(variant["features"])
    index_types = IndexType.NONE
    for feature, index in (("mx", IndexType.MESSAGE), ("chx", IndexType.CHUNK),
                           ("ax", IndexType.ATTACHMENT), ("mdx", IndexType.METADATA)):
        if feature in features:
            index_types |= index
    with open(path, "wb") as stream:
        writer = Writer(stream, compression=CompressionType.NONE, index_types=index_types,
                        repeat_channels="rch" in features, repeat_schemas="rsh" in features,
                        use_chunking="ch" in features, use_statistics="st" in features,
                        use_summary_offsets="sum" in features, enable_crcs=True,
                        enable_data_crcs=True)
        for record in variant["records"]:
            fields = record["fields"]
            kind = record["type"]
            if kind == "Header":
                writer.start(profile=fields["profile"], library=fields["library"])
            elif kind == "Schema":
                writer.register_schema(name=fields["name"], encoding=fields["encoding"],
                                       data=to_bytes(fields["data"]))
            elif kind == "Channel":
                writer.register_channel(topic=fields["topic"],
                                        message_encoding=fields["message_encoding"],
                                        schema_id=int(fields["schema_id"]),
                                        metadata=fields["metadata"])
            elif kind == "Message":
                writer.add_message(channel_id=int(fields["channel_id"]),
                                   log_time=int(fields["log_time"]), data=to_bytes(fields["data"]),
                                   publish_time=int(fields["publish_time"]),
                                   sequence=int(fields["sequence"]))
            elif kind == "Attachment":
                writer.add_attachment(create_time=int(fields["create_time"]),
                                      log_time=int(fields["log_time"]), name=fields["name"],
                                      media_type=fields["media_type"], data=to_bytes(fields["data"]))
            elif kind == "Metadata":
                writer.add_metadata(name=fields["name"], data=fields["metadata"])
            else:
                raise ValueError(f"{variant['name']}: no way to write a {kind} record")
        writer.finish()


def canonical_value(value):
    if isinstance(value, bool):
        raise TypeError("no boolean fields in MCAP records")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return [str(byte) for byte in bytes(value)]
    if isinstance(value, dict):
        return {str(key): canonical_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [canonical_value(item) for item in value]
    raise TypeError(f"no canonical form for {type(value).__name__}")


def canonical_record(record):
    return {"type": type(record).__name__,
            "fields": {field.name: canonical_value(getattr(record, field.name))
                       for field in dataclasses.fields(record)}}


def top_level_records(data):
    """(offset, opcode, total length) of every record between the magics, by its framing."""
    frames = []
    position = 8
    while position + 9 <= len(data) - 8:
        opcode, length = struct.unpack_from("<BQ", data, position)
        frames.append((position, opcode, 9 + length))
        position += 9 + length
        if opcode == 0x02:
            break
    return frames


def position_problems(data, records):
    """Offsets, lengths and CRCs in the file checked against where things really are."""
    problems = []
    frames = top_level_records(data)
    if len(frames) != len(records):
        return [f"{len(frames)} framed records but the reader yielded {len(records)}"]
    at = {offset: (record, length) for (offset, _, length), record in zip(frames, records)}
    entries = [(offset, length, record) for (offset, _, length), record in zip(frames, records)]
    data_end = next(i for i, (_, _, record) in enumerate(entries) if isinstance(record, DataEnd))
    footer_offset, _, footer = entries[-1]
    summary = entries[data_end + 1:-1]

    crc = zlib.crc32(data[:entries[data_end][0]])
    if entries[data_end][2].data_section_crc != crc:
        problems.append(f"data_section_crc {entries[data_end][2].data_section_crc}, bytes give {crc}")
    summary_start = summary[0][0] if summary else 0
    if footer.summary_start != summary_start:
        problems.append(f"summary_start {footer.summary_start}, summary begins at {summary_start}")
    offsets = [offset for offset, _, record in summary if isinstance(record, SummaryOffset)]
    if footer.summary_offset_start != (offsets[0] if offsets else 0):
        problems.append(f"summary_offset_start {footer.summary_offset_start}, "
                        f"first Summary Offset at {offsets[0] if offsets else 0}")
    crc = zlib.crc32(data[summary_start or footer_offset:footer_offset + 9 + 16])
    if footer.summary_crc != crc:
        problems.append(f"summary_crc {footer.summary_crc}, bytes give {crc}")

    for offset, length, record in summary:
        if isinstance(record, ChunkIndex):
            chunk, chunk_length = at.get(record.chunk_start_offset, (None, 0))
            if not isinstance(chunk, Chunk) or chunk_length != record.chunk_length:
                problems.append(f"ChunkIndex at {offset}: no Chunk of {record.chunk_length} bytes "
                                f"at {record.chunk_start_offset}")
                continue
            if (record.compressed_size, record.uncompressed_size) != (len(chunk.data),
                                                                      chunk.uncompressed_size):
                problems.append(f"ChunkIndex at {offset}: sizes differ from the chunk's")
            indexes_start = record.chunk_start_offset + chunk_length
            indexes_end = indexes_start
            while isinstance(at.get(indexes_end, (None, 0))[0], MessageIndex):
                indexes_end += at[indexes_end][1]
            if record.message_index_length != indexes_end - indexes_start:
                problems.append(f"ChunkIndex at {offset}: message_index_length "
                                f"{record.message_index_length}, indexes span "
                                f"{indexes_end - indexes_start}")
            for channel_id, index_offset in record.message_index_offsets.items():
                index = at.get(index_offset, (None, 0))[0]
                if not isinstance(index, MessageIndex) or index.channel_id != channel_id:
                    problems.append(f"ChunkIndex at {offset}: no Message Index of channel "
                                    f"{channel_id} at {index_offset}")
        elif isinstance(record, AttachmentIndex):
            attachment, attachment_length = at.get(record.offset, (None, 0))
            if (not isinstance(attachment, Attachment) or attachment_length != record.length
                    or attachment.name != record.name or len(attachment.data) != record.data_size):
                problems.append(f"AttachmentIndex at {offset}: no matching Attachment of "
                                f"{record.length} bytes at {record.offset}")
        elif isinstance(record, MetadataIndex):
            metadata, metadata_length = at.get(record.offset, (None, 0))
            if (not isinstance(metadata, Metadata) or metadata_length != record.length
                    or metadata.name != record.name):
                problems.append(f"MetadataIndex at {offset}: no matching Metadata of "
                                f"{record.length} bytes at {record.offset}")
        elif isinstance(record, SummaryOffset):
            group = [(o, n, r) for o, n, r in summary
                     if o >= record.group_start and o + n <= record.group_start + record.group_length]
            spans = sum(n for _, n, _ in group) == record.group_length
            opcodes = {data[o] for o, _, _ in group}
            whole = sum(1 for o, _, _ in summary if data[o] == record.group_opcode) == len(group)
            if not group or group[0][0] != record.group_start or not spans \
                    or opcodes != {record.group_opcode} or not whole:
                problems.append(f"SummaryOffset at {offset}: group {record.group_opcode} "
                                f"[{record.group_start}, +{record.group_length}) is not that group")
    return problems


def read(path):
    with open(path, "rb") as stream:
        data = stream.read()
    with open(path, "rb") as stream:
        records = list(StreamReader(stream, emit_chunks=True, validate_crcs=True).records)
    if not isinstance(records[-1], Footer):
        raise ValueError(f"{path}: the reader stopped before the Footer")
    return {"records": [canonical_record(record) for record in records],
            "problems": position_problems(data, records)}


def read_directory(directory):
    return {name[:-5]: read(os.path.join(directory, name))
            for name in sorted(os.listdir(directory)) if name.endswith(".mcap")}


def generate(out_dir):
    python_dir = os.path.join(out_dir, "python")
    os.makedirs(python_dir, exist_ok=True)
    all_variants = variants()
    with open(os.path.join(out_dir, "variants.json"), "w") as stream:
        json.dump(all_variants, stream)
    for variant in all_variants:
        if "pad" not in variant["features"]:
            write_with_python(variant, os.path.join(python_dir, variant["name"] + ".mcap"))
    return read_directory(python_dir)


def main(arguments):
    if len(arguments) == 2 and arguments[0] == "generate":
        result = generate(arguments[1])
    elif len(arguments) == 2 and arguments[0] == "read":
        result = read_directory(arguments[1])
    else:
        sys.exit(__doc__)
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
