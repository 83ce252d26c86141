"""How the Python checkers print values for the Swift tests to compare
exactly (shared by read_parquet.py, read_tidy.py, read_mcap.py and
foxglove_client.py; imported from the scripts' own folder).

`token` is the typed form of the table checkers: integers "i<decimal>"
(uint64 kept whole), floats "d<hex of the IEEE-754 double bits>", booleans
"T"/"F", strings (and UUIDs, which DuckDB makes of JSON strings that look
like one) "s<text>", bytes "b<hex>", lists as lists of tokens, null as None.

`plain` is the JSON form of a decoded ROS 2 message: floats as their
shortest round-trip text (JSON parsers differ in how exactly they read
decimal floats, text parsed with Double(String) does not), bytes as lists
of integers, messages as objects of their fields.
"""
import struct
import uuid


def token(value):
    if value is None:
        return None
    if isinstance(value, bool):
        return "T" if value else "F"
    if isinstance(value, int):
        return "i%d" % value
    if isinstance(value, float):
        return "d%016x" % struct.unpack("<Q", struct.pack("<d", value))[0]
    if isinstance(value, str):
        return "s" + value
    if isinstance(value, uuid.UUID):
        return "s" + str(value)
    if isinstance(value, (bytes, bytearray)):
        return "b" + bytes(value).hex()
    if isinstance(value, (list, tuple)):
        return [token(item) for item in value]
    return "?" + repr(value)


def plain(value):
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (bytes, bytearray)):
        return list(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "__slots__"):
        return {name: plain(getattr(value, name)) for name in value.__slots__}
    return value
