"""Independent check of tlm's tidy CSV and JSON lines exports with two
readers, polars and DuckDB, each with its default type inference.

Usage: read_tidy.py DIR [--long]

DIR holds one `<topic>.csv` or `<topic>.jsonl` per topic (tlm export
--format csv|jsonl --output DIR). Every file is read whole by polars
(read_csv / read_ndjson) and DuckDB (read_csv / read_json). Values are
printed as the tokens read_parquet.py prints: integers "i<decimal>", floats
"d<hex of the IEEE-754 bits>", booleans "T"/"F", strings "s<text>", lists
as JSON arrays of tokens (a CSV column whose every cell is a JSON array is
parsed, exactly, by Python's json), null as null. Prints one JSON document:

  {"files": {"<name>": {"polars": {"types": {...}, "columns": {...}, "rows": N},
                        "duckdb": {"types": {...}, "columns": {...}, "rows": N}}}}

With --long the files are long-form exports (topic, log_time, field,
value): their value column is text, which CSV cannot say, so it is read
with the type given (polars schema_overrides, DuckDB types); everything
else is inferred.

Exits non-zero (with the reader's error on stderr) if a file fails to read.
"""
import glob
import json
import os
import sys

import duckdb
import polars as pl
from value_tokens import token


def quote(text):
    return "'" + text.replace("'", "''") + "'"


def json_arrays(values):
    """A CSV column of JSON arrays (every cell "[...]"), parsed; any other column as it is."""
    cells = [v for v in values if v is not None]
    if cells and all(isinstance(v, str) and v.startswith("[") and v.endswith("]") for v in cells):
        return [None if v is None else json.loads(v) for v in values]
    return values


LONG = "--long" in sys.argv


def read_polars(path):
    if path.endswith(".csv"):
        frame = pl.read_csv(path, schema_overrides={"value": pl.String} if LONG else None)
    else:
        frame = pl.read_ndjson(path)
    columns = {name: [token(v) for v in json_arrays(frame[name].to_list())] for name in frame.columns}
    return {"types": {name: str(dtype) for name, dtype in frame.schema.items()}, "columns": columns,
            "rows": frame.height}


def read_duckdb(connection, path):
    reader = "read_csv" if path.endswith(".csv") else "read_json"
    extra = ", types = {'value': 'VARCHAR'}" if LONG and path.endswith(".csv") else ""
    relation = connection.sql("SELECT * FROM %s(%s%s)" % (reader, quote(path), extra))
    names, types = relation.columns, [str(t) for t in relation.types]
    rows = relation.fetchall()
    columns = {name: [token(v) for v in json_arrays([row[index] for row in rows])]
               for index, name in enumerate(names)}
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
