"""Golden files for the MCAP conformance tests, written by the Python `mcap` writer.

Usage: write_conformance.py CONFORMANCE_DIR OUTPUT_DIR

For every variant without `pad` in CONFORMANCE_DIR/*/*.json, replays the
variant's data records (Header, Schema, Channel, Message, Attachment,
Metadata) into mcap.writer.Writer configured with the variant's features, no
compression and data CRCs on, and writes OUTPUT_DIR/<variant>.mcap. The tests
compare our writer's bytes with these, so no third-party bytes are committed.
"""
import glob
import json
import os
import sys

from mcap.writer import CompressionType, IndexType, Writer


def write_variant(path, out_dir):
    name = os.path.basename(path)[:-5]
    with open(path) as f:
        document = json.load(f)
    features = set(document["meta"]["variant"]["features"])
    if "pad" in features:
        return
    index_types = IndexType.NONE
    for feature, index in (("mx", IndexType.MESSAGE), ("chx", IndexType.CHUNK),
                           ("ax", IndexType.ATTACHMENT), ("mdx", IndexType.METADATA)):
        if feature in features:
            index_types |= index
    with open(os.path.join(out_dir, name + ".mcap"), "wb") as stream:
        writer = Writer(stream, compression=CompressionType.NONE, index_types=index_types,
                        repeat_channels="rch" in features, repeat_schemas="rsh" in features,
                        use_chunking="ch" in features, use_statistics="st" in features,
                        use_summary_offsets="sum" in features, enable_crcs=True, enable_data_crcs=True)
        for record in document["records"]:
            fields = dict(record["fields"])
            kind = record["type"]
            if kind == "Header":
                writer.start(profile=fields["profile"], library=fields["library"])
            elif kind == "Schema":
                writer.register_schema(name=fields["name"], encoding=fields["encoding"],
                                       data=bytes(int(b) for b in fields["data"]))
            elif kind == "Channel":
                writer.register_channel(topic=fields["topic"], message_encoding=fields["message_encoding"],
                                        schema_id=int(fields["schema_id"]), metadata=fields["metadata"])
            elif kind == "Message":
                writer.add_message(channel_id=int(fields["channel_id"]), log_time=int(fields["log_time"]),
                                   data=bytes(int(b) for b in fields["data"]),
                                   publish_time=int(fields["publish_time"]), sequence=int(fields["sequence"]))
            elif kind == "Attachment":
                writer.add_attachment(create_time=int(fields["create_time"]), log_time=int(fields["log_time"]),
                                      name=fields["name"], media_type=fields["media_type"],
                                      data=bytes(int(b) for b in fields["data"]))
            elif kind == "Metadata":
                writer.add_metadata(name=fields["name"], data=fields["metadata"])
            elif kind == "DataEnd":
                break
        writer.finish()


def main(conformance_dir, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for path in sorted(glob.glob(os.path.join(conformance_dir, "*", "*.json"))):
        write_variant(path, out_dir)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
