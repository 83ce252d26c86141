"""An independent Foxglove WebSocket client for the live view tests.

Speaks `foxglove.websocket.v1` as its published specification describes it
(github.com/foxglove/ws-protocol docs/spec.md), with the `websockets`
package, and decodes message data with mcap-ros2-support's CDR decoder and
the schema each channel was advertised with.

Usage: foxglove_client.py URL [--topic GLOB ...] [--slow SECONDS] [--slow-first SECONDS]
                          [--disconnect-after N] [--max-seconds S] [--keep-field NAME] [--send TEXT ...]

Subscribes to each topic a --topic glob matches as soon as it is advertised (all topics when none
is given), then reads until the server closes the connection, --max-seconds
pass, or --disconnect-after messages arrived (then it drops the TCP
connection without a closing handshake). --slow sleeps that long after each
message (a slow client), --slow-first after the first one only; --keep-field
NAME keeps only that field of each decoded message; --send TEXT sends TEXT
as is after the first advertise (repeatable). Prints one JSON document on stdout:

  {"server_info": {...}, "channels": [...], "statuses": [...],
   "messages": [{"topic", "log_time", "fields"}],
   "times": [{"time", "messages"}], "end": "why reading stopped"}

"times" are the server's time messages (binary opcode 0x02, a uint64 LE
timestamp in ns): each one's time and how many messages had arrived before it.

Decoded floats are written as Python's repr (bit-exact text), like
read_mcap.py. Exits non-zero with a message on stderr on a protocol error.
"""
import argparse
import fnmatch
import json
import socket
import struct
import sys
import time

from mcap.records import Schema
from mcap_ros2.decoder import DecoderFactory
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect
from value_tokens import plain

SUBPROTOCOL = "foxglove.websocket.v1"


def fail(message):
    print(f"foxglove_client: {message}", file=sys.stderr)
    sys.exit(2)

def read(ws, args, out, channels, decoders, deadline):
    """Reads until the server closes, the deadline, --disconnect-after, --until-messages,
    or --idle-seconds without a frame once anything arrived."""
    factory = DecoderFactory()
    next_subscription = 0
    if ws.subprotocol != SUBPROTOCOL:
        fail(f"the server chose subprotocol {ws.subprotocol!r}")
    out["end"] = "max-seconds"
    while time.monotonic() < deadline:
        if args.until_messages and len(out["messages"]) >= args.until_messages:
            out["end"] = "until-messages"
            break
        timeout = max(0.01, deadline - time.monotonic())
        idle = bool(args.idle_seconds and (out["messages"] or out["statuses"]) and args.idle_seconds < timeout)
        if idle:
            timeout = args.idle_seconds
        try:
            frame = ws.recv(timeout=timeout)
        except TimeoutError:
            out["end"] = "idle" if idle else "max-seconds"
            break
        if isinstance(frame, str):
            message = json.loads(frame)
            op = message.get("op")
            if op == "serverInfo":
                out["server_info"] = message
            elif op == "advertise":
                if out["server_info"] is None:
                    fail("advertise before serverInfo")
                subscriptions = []
                for channel in message["channels"]:
                    channels[channel["id"]] = channel
                    out["channels"].append(channel)
                    if args.topic and not any(fnmatch.fnmatchcase(channel["topic"], t) for t in args.topic):
                        continue
                    schema = Schema(
                        id=channel["id"], name=channel["schemaName"],
                        encoding=channel.get("schemaEncoding", "ros2msg"),
                        data=channel["schema"].encode())
                    decode = factory.decoder_for(channel["encoding"], schema)
                    if decode is None:
                        fail(f"no decoder for {channel['encoding']} / {schema.encoding}")
                    decoders[next_subscription] = (channel["topic"], decode)
                    subscriptions.append({"id": next_subscription, "channelId": channel["id"]})
                    next_subscription += 1
                if subscriptions:
                    ws.send(json.dumps({"op": "subscribe", "subscriptions": subscriptions}))
                for text in args.send:
                    ws.send(text)
                args.send = []
            elif op == "status":
                out["statuses"].append(message)
                # Progress a test can wait for (the server answered this many requests).
                print(f"status {len(out['statuses'])}", file=sys.stderr, flush=True)
            else:
                out.setdefault("other", []).append(message)
            continue
        if frame and frame[0] == 0x02:
            if len(frame) != 9:
                fail(f"a time message of {len(frame)} bytes, not 9")
            if "time" not in (out["server_info"] or {}).get("capabilities", []):
                fail("a time message from a server without the time capability")
            tick = struct.unpack_from("<Q", frame, 1)[0]
            if out["times"] and tick < out["times"][-1]["time"]:
                seeks = sum(1 for a, b in zip(out["times"], out["times"][1:]) if b["time"] < a["time"]) + 1
                # Progress a test can wait for (the server's clock went back this many times).
                print(f"seek {seeks}", file=sys.stderr, flush=True)
            out["times"].append({"time": tick, "messages": len(out["messages"])})
            continue
        if len(frame) < 13 or frame[0] != 0x01:
            fail(f"unexpected binary message of {len(frame)} bytes, opcode {frame[0] if frame else None}")
        subscription, log_time = struct.unpack_from("<IQ", frame, 1)
        if subscription not in decoders:
            fail(f"message data for unknown subscription {subscription}")
        topic, decode = decoders[subscription]
        fields = plain(decode(frame[13:]))
        if args.keep_field is not None:
            fields = {args.keep_field: fields[args.keep_field]}
        out["messages"].append({"topic": topic, "log_time": log_time, "fields": fields})
        if args.slow_first and len(out["messages"]) == 1:
            time.sleep(args.slow_first)
        if args.disconnect_after and len(out["messages"]) >= args.disconnect_after:
            # Gone without a closing handshake, as a crashed viewer would be.
            ws.socket.shutdown(socket.SHUT_RDWR)
            ws.socket.close()
            out["end"] = "disconnect-after"
            break
        if args.slow:
            time.sleep(args.slow)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--topic", action="append", default=[])
    parser.add_argument("--slow", type=float, default=0.0)
    parser.add_argument("--disconnect-after", type=int, default=0)
    parser.add_argument("--max-seconds", type=float, default=60.0)
    parser.add_argument("--slow-first", type=float, default=0.0)
    parser.add_argument("--keep-field", default=None)
    parser.add_argument("--send", action="append", default=[])
    # Ends that do not depend on how fast the machine is (a test's --max-seconds is only a guard).
    parser.add_argument("--until-messages", type=int, default=0)
    parser.add_argument("--idle-seconds", type=float, default=0.0)
    args = parser.parse_args()

    out = {"server_info": None, "channels": [], "statuses": [], "messages": [], "times": [], "end": None}
    channels = {}  # channel id -> advertised channel
    decoders = {}  # subscription id -> (topic, decode)
    deadline = time.monotonic() + args.max_seconds

    # websockets reads on a thread of its own into a queue of 16 frames: a client that stops at
    # --until-messages while the server still sends fast (a looping playback) would leave that
    # thread waiting for room, unable to read the server's Close, and the closing handshake would
    # take its 10 s timeout. Without a slow option there is no backpressure to keep: no bound.
    unbounded = args.until_messages and not (args.slow or args.slow_first)
    try:
        with connect(
            args.url, subprotocols=[SUBPROTOCOL], max_size=None, open_timeout=10,
            max_queue=None if unbounded else 16,
        ) as ws:
            read(ws, args, out, channels, decoders, deadline)
    except ConnectionClosed as closed:
        out["end"] = f"connection closed: {closed}"
    except OSError:
        # Closing after the socket was dropped on purpose (--disconnect-after).
        if not args.disconnect_after:
            raise
    print(f"foxglove_client: {len(out['messages'])} message(s), ended: {out['end']}", file=sys.stderr)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
