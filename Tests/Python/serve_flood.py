"""Floods `tlm serve` with control frames while another client watches.

Usage: serve_flood.py URL --pid PID [--seed N] [--frames N] [--seconds S]

Client A (the `websockets` package) subscribes to every channel and counts
message data frames. Client C (a raw socket) subscribes to every channel and
never reads. Client B (a raw socket, masked frames as RFC 6455 asks) sends
--frames seeded random frames: unsubscribes and subscribes of unknown ids,
duplicate and unknown channels, pings, invalid JSON, unknown opcodes, an
oversized text frame; it reconnects whenever the server closes it. Meanwhile
VmRSS and VmHWM of PID are sampled from /proc. Prints one JSON document:

  {"baseline_kib", "max_rss_kib", "hwm_kib", "frames", "reconnects",
   "messages_before", "messages_during", "messages_after", "a_error"}
"""
import argparse
import base64
import json
import os
import random
import socket
import struct
import threading
import time

from websockets.sync.client import connect

SUBPROTOCOL = "foxglove.websocket.v1"


def memory(pid):
    values = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                key, value = line.split(":")
                values[key] = int(value.split()[0])
    return values.get("VmRSS", 0), values.get("VmHWM", 0)


def frame(opcode, payload, rng, declared=None):
    length = len(payload) if declared is None else declared
    head = bytes([0x80 | opcode])
    if length < 126:
        head += bytes([0x80 | length])
    elif length < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", length)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", length)
    # A zero mask (allowed: any four bytes) keeps the large frames cheap to make.
    mask = bytes(rng.randrange(256) for _ in range(4)) if len(payload) < 4096 else bytes(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if any(mask) else payload
    return head + mask + masked


def raw_client(host, port):
    sock = socket.create_connection((host, port), timeout=5)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
         f"Sec-WebSocket-Protocol: {SUBPROTOCOL}\r\n\r\n").encode())
    response = b""
    while b"\r\n\r\n" not in response:
        chunk = sock.recv(1)
        if not chunk:
            raise ConnectionError("closed during the handshake")
        response += chunk
    if b" 101 " not in response.split(b"\r\n")[0]:
        raise ConnectionError(f"no upgrade: {response[:80]!r}")
    return sock


def flood_frame(rng, channels):
    kind = rng.randrange(8)
    if kind == 0:
        ids = [rng.randrange(1 << 32) for _ in range(rng.randrange(1, 1000))]
        return frame(1, json.dumps({"op": "unsubscribe", "subscriptionIds": ids}).encode(), rng)
    if kind == 1:
        subs = [{"id": rng.randrange(1 << 32), "channelId": rng.choice(channels + [rng.randrange(1 << 32)])}
                for _ in range(rng.randrange(1, 200))]
        return frame(1, json.dumps({"op": "subscribe", "subscriptions": subs}).encode(), rng)
    if kind == 2:
        return frame(9, os.urandom(rng.randrange(126)), rng)
    if kind == 3:
        return frame(1, b"{\"op\": \"subscribe\", \"subscriptions\": [" * rng.randrange(1, 3000), rng)
    if kind == 4:
        return frame(rng.choice([3, 4, 5, 11, 13]), os.urandom(rng.randrange(64)), rng)
    if kind == 5:
        return frame(2, os.urandom(rng.randrange(1, 4096)), rng)
    if kind == 6:
        # An oversized text frame: a 64 MiB length, 1 MiB of it sent.
        return frame(1, b"x" * (1 << 20), rng, declared=64 << 20)[: (1 << 20) + 14]
    ids = list(range(rng.randrange(1, 100)))
    return frame(1, json.dumps({"op": "unsubscribe", "subscriptionIds": ids}).encode(), rng)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--frames", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    host, port = args.url[len("ws://"):].rstrip("/").rsplit(":", 1)
    port = int(port)
    out = {"frames": 0, "reconnects": 0, "a_error": None}
    counts = {"messages": 0}
    channels = []
    ready = threading.Event()
    stop = threading.Event()

    def watcher():
        try:
            with connect(args.url, subprotocols=[SUBPROTOCOL], max_size=None, open_timeout=10) as ws:
                subscribed = 0
                while not stop.is_set():
                    try:
                        data = ws.recv(timeout=0.2)
                    except TimeoutError:
                        continue
                    if isinstance(data, str):
                        message = json.loads(data)
                        if message.get("op") == "advertise":
                            new = [c["id"] for c in message["channels"]]
                            channels.extend(new)
                            ws.send(json.dumps({"op": "subscribe", "subscriptions": [
                                {"id": subscribed + i, "channelId": c} for i, c in enumerate(new)]}))
                            subscribed += len(new)
                            ready.set()
                    elif data[:1] == b"\x01":
                        counts["messages"] += 1
        except Exception as error:  # noqa: BLE001 - reported
            out["a_error"] = f"{type(error).__name__}: {error}"
            ready.set()

    thread = threading.Thread(target=watcher, daemon=True)
    thread.start()
    ready.wait(20)
    time.sleep(0.3)
    out["baseline_kib"] = memory(args.pid)[0]
    max_rss = out["baseline_kib"]
    # C: subscribes to everything, never reads.
    silent = raw_client(host, port)
    silent.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    silent.sendall(frame(1, json.dumps({"op": "subscribe", "subscriptions": [
        {"id": i, "channelId": c} for i, c in enumerate(channels)]}).encode(), rng))
    out["messages_before"] = counts["messages"]
    flooder = raw_client(host, port)
    started = time.monotonic()
    last_sample = 0.0
    while out["frames"] < args.frames or time.monotonic() - started < args.seconds:
        try:
            flooder.sendall(flood_frame(rng, channels))
            out["frames"] += 1
        except OSError:
            out["reconnects"] += 1
            flooder.close()
            flooder = raw_client(host, port)
        if time.monotonic() - last_sample > 0.05:
            max_rss = max(max_rss, memory(args.pid)[0])
            last_sample = time.monotonic()
    out["messages_during"] = counts["messages"] - out["messages_before"]
    mark = counts["messages"]
    for _ in range(10):
        time.sleep(0.1)
        max_rss = max(max_rss, memory(args.pid)[0])
    out["messages_after"] = counts["messages"] - mark
    out["max_rss_kib"] = max_rss
    out["hwm_kib"] = memory(args.pid)[1]
    stop.set()
    thread.join(5)
    flooder.close()
    silent.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
