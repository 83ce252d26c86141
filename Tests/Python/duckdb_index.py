"""Reads a recording's index.sqlite with DuckDB's sqlite extension (both from
PyPI, installed by `make setup`) and prints JSON: per-stream message counts and
numeric statistics, and the loss records, as DuckDB sees them."""
import glob
import json
import os
import sys

import duckdb
import duckdb_extension_sqlite_scanner

index = sys.argv[1]
package = os.path.dirname(duckdb_extension_sqlite_scanner.__file__)
extension = glob.glob(os.path.join(package, "extensions", "*", "sqlite_scanner.duckdb_extension"))[0]
con = duckdb.connect()
con.execute(f"INSTALL '{extension}'")
con.execute("LOAD sqlite_scanner")
con.execute(f"ATTACH '{index}' AS rec (TYPE sqlite, READ_ONLY)")
streams = con.execute("""
    SELECT s.topic, SUM(c.message_count), SUM(c.value_count), MIN(c.value_min), MAX(c.value_max), SUM(c.value_sum)
    FROM rec.chunk_streams c JOIN rec.streams s ON s.id = c.stream_id GROUP BY s.topic ORDER BY s.topic
    """).fetchall()
losses = con.execute("SELECT topic, count, reason, duration_ns FROM rec.losses ORDER BY id").fetchall()
print(json.dumps({
    "duckdb": duckdb.__version__,
    "streams": [{"topic": t, "messages": int(m), "values": v and int(v), "min": lo, "max": hi, "sum": su}
                for t, m, v, lo, hi, su in streams],
    "losses": [{"topic": t, "count": int(c), "reason": r, "duration_ns": d} for t, c, r, d in losses],
}))
