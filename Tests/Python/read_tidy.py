"""Independent check of tlm's tidy CSV and JSON lines exports with two
readers, polars and DuckDB, each with its default type inference.

Usage: read_tidy.py DIR

DIR holds one `<topic>.csv` or `<topic>.jsonl` per topic (tlm export
--format csv|jsonl --output DIR). Every file is read whole by polars
(read_csv / read_ndjson) and DuckDB (read_csv / read_json). Values are
printed as the tokens read_parquet.py prints: integers "i<decimal>", floats
"d<hex of the IEEE-754 bits>", booleans "T"/"F", strings "s<text>", lists
as JSON arrays of tokens, null as null. Prints one JSON document:

  {"files": {"<name>": {"polars": {"types": {...}, "columns": {...}, "rows": N},
                        "duckdb": {"types": {...}, "columns": {...}, "rows": N}}}}

Exits non-zero (with the reader's error on stderr) if a file fails to read.
"""
import glob
import json
import os
import struct
import sys

import duckdb
import polars as pl


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
    if isinstance(value, (list, tuple)):
        return [token(item) for item in value]
    return "?" + repr(value)


def quote(text):
    return "'" + text.replace("'", "''") + "'"


def read_polars(path):
    frame = pl.read_csv(path) if path.endswith(".csv") else pl.read_ndjson(path)
    columns = {name: [token(v) for v in frame[name].to_list()] for name in frame.columns}
    return {"types": {name: str(dtype) for name, dtype in frame.schema.items()}, "columns": columns,
            "rows": frame.height}


def read_duckdb(connection, path):
    reader = "read_csv" if path.endswith(".csv") else "read_json"
    relation = connection.sql("SELECT * FROM %s(%s)" % (reader, quote(path)))
    names, types = relation.columns, [str(t) for t in relation.types]
    rows = relation.fetchall()
    columns = {name: [token(row[index]) for row in rows] for index, name in enumerate(names)}
    return {"types": dict(zip(names, types)), "columns": columns, "rows": len(rows)}


def main():
    directory = sys.argv[1]
    connection = duckdb.connect()
    result = {"files": {}}
    paths = glob.glob(os.path.join(directory, "*.csv")) + glob.glob(os.path.join(directory, "*.jsonl"))
    for path in sorted(paths):
        name = os.path.basename(path)
        try:
            result["files"][name] = {"polars": read_polars(path), "duckdb": read_duckdb(connection, path)}
        except Exception as error:  # name the file that failed
            sys.stderr.write("%s: %s\n" % (name, error))
            sys.exit(1)
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
