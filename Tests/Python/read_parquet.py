"""Independent check of tlm's Parquet export with three readers: pyarrow,
DuckDB and polars.

Usage: read_parquet.py FLAT_DIR [HIVE_DIR]

FLAT_DIR holds one `<topic>.parquet` per topic; each file is read whole by
every reader. HIVE_DIR (optional) is a Hive-style tree
(`key=value/.../<stream>@<recording>.parquet`); for each stream DuckDB reads
the glob `HIVE_DIR/**/<stream>@*.parquet` with hive_partitioning, and
pyarrow reads the tree as a partitioned dataset.

Every value is printed as a token, so that the Swift side compares exactly:
integers as "i<decimal>" (uint64 kept whole), floats as "d<hex of the
IEEE-754 double bits>" (a float32 is widened exactly), booleans "T"/"F",
strings "s<text>", lists as JSON arrays, null as null. Timestamps are
printed as integer nanoseconds since the epoch. Prints one JSON document:

  {"files": {"<name>": {"pyarrow": {"types": {...}, "columns": {...},
                                     "row_groups": N, "statistics": [...],
                                     "metadata": {...}, "created_by": "..."},
                        "duckdb": {"types": {...}, "columns": {...}},
                        "polars": {"types": {...}, "columns": {...}}}},
   "hive": {"<stream>": {"duckdb": {...}, "pyarrow_rows": N}}}

Exits non-zero (with the reader's error on stderr) if a file fails to read.
"""
import glob
import json
import os
import sys

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq
from value_tokens import token


def read_pyarrow(path):
    parquet = pq.ParquetFile(path)
    table = parquet.read()
    columns = {}
    for field in table.schema:
        column = table.column(field.name)
        if pa.types.is_timestamp(field.type):
            # In nanoseconds, whatever the unit (tlm writes microseconds), as DuckDB's and polars' columns.
            column = pc.cast(pc.cast(column, pa.timestamp("ns", tz=field.type.tz)), pa.int64())
        columns[field.name] = [token(v) for v in column.to_pylist()]
    statistics = []
    metadata = parquet.metadata
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        entry = {"rows": row_group.num_rows, "columns": {}}
        for index in range(row_group.num_columns):
            chunk = row_group.column(index)
            stats = chunk.statistics
            item = {"compression": chunk.compression, "path": chunk.path_in_schema}
            if stats is not None and stats.has_min_max:
                if stats.logical_type.type == "TIMESTAMP":  # the physical integer (µs), in nanoseconds
                    low, high = stats.min_raw * 1000, stats.max_raw * 1000
                else:
                    low, high = stats.min, stats.max
                item["min"], item["max"] = token(low), token(high)
            if stats is not None and stats.has_null_count:
                item["null_count"] = stats.null_count
            entry["columns"][chunk.path_in_schema] = item
        statistics.append(entry)
    key_values = {k.decode(): v.decode() for k, v in (metadata.metadata or {}).items()}
    return {
        "types": {field.name: str(field.type) for field in table.schema},
        "columns": columns,
        "rows": table.num_rows,
        "row_groups": metadata.num_row_groups,
        "statistics": statistics,
        "metadata": key_values,
        "created_by": metadata.created_by,
        "format_version": metadata.format_version,
    }


def read_duckdb(connection, source, extra=""):
    relation = connection.sql("SELECT * FROM read_parquet(%s%s)" % (source, extra))
    names, types = relation.columns, [str(t) for t in relation.types]
    # A TIMESTAMP(MICROS, UTC) column reads as TIMESTAMP WITH TIME ZONE;
    # epoch_ns gives its value in nanoseconds.
    select = []
    for name, kind in zip(names, types):
        quoted = '"%s"' % name.replace('"', '""')
        if kind.startswith("TIMESTAMP"):
            select.append("epoch_ns(%s) AS %s" % (quoted, quoted))
        elif kind == "DATE":
            select.append("CAST(%s AS VARCHAR) AS %s" % (quoted, quoted))
        else:
            select.append(quoted)
    rows = connection.sql("SELECT %s FROM read_parquet(%s%s)" % (", ".join(select), source, extra)).fetchall()
    columns = {name: [token(row[index]) for row in rows] for index, name in enumerate(names)}
    return {"types": dict(zip(names, types)), "columns": columns, "rows": len(rows)}


def read_polars(path):
    frame = pl.read_parquet(path)
    columns = {}
    for name, dtype in frame.schema.items():
        series = frame[name]
        if isinstance(dtype, pl.Datetime):
            series = series.dt.epoch("ns")
        columns[name] = [token(v) for v in series.to_list()]
    return {"types": {name: str(dtype) for name, dtype in frame.schema.items()}, "columns": columns,
            "rows": frame.height}


def quote(text):
    return "'" + text.replace("'", "''") + "'"


def main():
    flat = sys.argv[1]
    connection = duckdb.connect()
    result = {"files": {}, "hive": {}}
    for path in sorted(glob.glob(os.path.join(flat, "*.parquet"))):
        name = os.path.basename(path)
        result["files"][name] = {
            "pyarrow": read_pyarrow(path),
            "duckdb": read_duckdb(connection, quote(path)),
            "polars": read_polars(path),
        }
    if len(sys.argv) > 2:
        hive = sys.argv[2]
        paths = sorted(glob.glob(os.path.join(hive, "**", "*.parquet"), recursive=True))
        streams = sorted({os.path.basename(p).split("@")[0] for p in paths})
        for stream in streams:
            source = quote(os.path.join(hive, "**", stream + "@*.parquet"))
            entry = {"duckdb": read_duckdb(connection, source, ", hive_partitioning = true"),
                     "files": sorted(os.path.relpath(p, hive) for p in paths
                                     if os.path.basename(p).split("@")[0] == stream)}
            result["hive"][stream] = entry
        # The whole tree as one pyarrow dataset: every file, the partition keys as columns.
        dataset = ds.dataset(hive, format="parquet", partitioning="hive")
        result["hive_partition_fields"] = [field.name for field in dataset.partitioning.schema] \
            if dataset.partitioning is not None else []
        result["hive_files"] = len(dataset.files)
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
