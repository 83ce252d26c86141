#!/usr/bin/python3
"""A fake BlueZ 5.66 (`org.bluez`) for integration tests, on a private bus.

    /usr/bin/python3 fake_bluez.py --address BUS_ADDRESS --scenario SCENARIO.json \
        --log EVENTS.jsonl [--time-scale X]

Connects to BUS_ADDRESS, owns `org.bluez`, prints `ready <unique-name>` on stdout
and serves until SIGTERM/SIGINT (or until the bus goes away). Everything it does is
written to the event log, one JSON object per line. The scenario format, the event
log and the fault semantics are described in README.md beside this file.

Needs Debian's python3-dbus and python3-gi (GLib main loop); run it with
/usr/bin/python3, not another interpreter on PATH.

Faithfulness notes (what BlueZ 5.66 + libdbus 1.14 do, and so what this does):
- Each object carries org.freedesktop.DBus.Introspectable, its BlueZ interface, and
  org.freedesktop.DBus.Properties, in that order (gdbus), in GetManagedObjects and
  InterfacesAdded; InterfacesRemoved lists [Properties, Introspectable, <iface>].
- A method that does not exist, a wrong signature or a path that is not exported is
  left unhandled, so libdbus itself answers (org.freedesktop.DBus.Error.UnknownMethod,
  'Method "X" with signature "S" on interface "I" doesn't exist').
- Property errors follow gdbus: Get/GetAll of an unknown interface or property ->
  org.freedesktop.DBus.Error.InvalidArgs; Set -> UnknownProperty / PropertyReadOnly /
  InvalidSignature.
- Property changes that happen together are merged into one PropertiesChanged, and
  pending signals go out before the method reply (g_dbus_send_message flushes).
"""

import argparse
import json
import os
import select
import signal
import socket
import struct
import sys
import time

import dbus
import dbus.lowlevel
import dbus.types
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

BLUEZ = "org.bluez"
ADAPTER_PATH = "/org/bluez/hci0"
I_OM = "org.freedesktop.DBus.ObjectManager"
I_PROPS = "org.freedesktop.DBus.Properties"
I_INTRO = "org.freedesktop.DBus.Introspectable"
I_ADAPTER = "org.bluez.Adapter1"
I_DEVICE = "org.bluez.Device1"
I_SERVICE = "org.bluez.GattService1"
I_CHAR = "org.bluez.GattCharacteristic1"
I_DESC = "org.bluez.GattDescriptor1"
I_AGENT_MGR = "org.bluez.AgentManager1"
I_PROFILE_MGR = "org.bluez.ProfileManager1"
CCCD_UUID = "00002902-0000-1000-8000-00805f9b34fb"
BASE_SUFFIX = "-0000-1000-8000-00805f9b34fb"

E_FAILED = "org.bluez.Error.Failed"
E_IN_PROGRESS = "org.bluez.Error.InProgress"
E_NOT_READY = "org.bluez.Error.NotReady"
E_NOT_CONNECTED = "org.bluez.Error.NotConnected"
E_NOT_PERMITTED = "org.bluez.Error.NotPermitted"
E_NOT_SUPPORTED = "org.bluez.Error.NotSupported"
E_INVALID_ARGS = "org.bluez.Error.InvalidArguments"
E_DOES_NOT_EXIST = "org.bluez.Error.DoesNotExist"
E_DBUS_INVALID_ARGS = "org.freedesktop.DBus.Error.InvalidArgs"
E_DBUS_UNKNOWN_PROPERTY = "org.freedesktop.DBus.Error.UnknownProperty"
E_DBUS_READ_ONLY = "org.freedesktop.DBus.Error.PropertyReadOnly"
E_DBUS_INVALID_SIGNATURE = "org.freedesktop.DBus.Error.InvalidSignature"
LE_ABORT = "le-connection-abort-by-local"

# Notifications sent per main-loop callback on the as-fast-as-possible path, and the
# longest a batch may take, so method calls are still answered during a flood.
BATCH_MAX = 1000
BATCH_SECONDS = 0.004
PREBUILD_MAX = 500_000
# With --batch-signals: Value signals written to the bus socket per write.
RAW_CHUNK = 64

NOT_HANDLED = dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED
HANDLED = dbus.lowlevel.HANDLER_RESULT_HANDLED


class BluezError(Exception):
    def __init__(self, name, message):
        super().__init__(message)
        self.name = name
        self.message = message


class Deferred(Exception):
    """Raised by a handler that answers the call later."""


class ScenarioError(Exception):
    pass


def now_ns():
    return time.monotonic_ns()


def full_uuid(value):
    """'2A19', '0x2a19' or a 128-bit UUID -> lower-case 128-bit string."""
    u = str(value).strip().lower()
    if u.startswith("0x"):
        u = u[2:]
    if len(u) == 4:
        return "0000" + u + BASE_SUFFIX
    if len(u) == 8 and "-" not in u:
        return u + BASE_SUFFIX
    if len(u) != 36:
        raise ScenarioError("not a UUID: %r" % value)
    return u


def parse_hex(text, what):
    if text is None:
        return b""
    cleaned = "".join(str(text).split()).replace(":", "")
    try:
        return bytes.fromhex(cleaned)
    except ValueError:
        raise ScenarioError("%s: not hex: %r" % (what, text))


def company_id(key):
    k = str(key).strip().lower()
    return int(k, 16) if k.startswith("0x") else int(k)


def jsonable(value):
    """dbus-python values -> JSON-friendly values for the event log."""
    if isinstance(value, (dbus.ByteArray, bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, dbus.Array) and value.signature == "y":
        return bytes(int(b) for b in value).hex()
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (int,)):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, dbus.types.UnixFd):
        return "<fd>"
    return str(value)


def ay(data):
    return dbus.ByteArray(bytes(data))


def ay_variant(data):
    return dbus.Array([dbus.Byte(b) for b in data], signature="y", variant_level=1)


class EventLog:
    """JSON lines; every write ends at a line boundary and goes straight to the file."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)

    def event(self, kind, **fields):
        fields["kind"] = kind
        if "t_ns" not in fields:
            fields["t_ns"] = now_ns()
        self.raw(json.dumps(fields, separators=(",", ":")) + "\n")

    def raw(self, text):
        data = text.encode()
        while data:
            n = os.write(self.fd, data)
            data = data[n:]


# ---------------------------------------------------------------------------
# Objects


class Obj:
    """One exported object: a path and one BlueZ interface with its properties."""

    def __init__(self, path, iface, props, char=None):
        self.path = path
        self.iface = iface
        self.props = props  # name -> dbus-typed value (absent = property does not exist)
        self.writable = {}  # name -> signature of writable properties
        self.char = char  # a characteristic's Value is read from it when asked for

    def current(self):
        if self.char is not None:
            self.props["Value"] = ay(self.char.value)
        return self.props

    def iface_names(self):
        # gdbus adds Properties only next to an interface that has properties.
        if self.iface == I_AGENT_MGR:
            return [I_INTRO, self.iface]
        return [I_INTRO, self.iface, I_PROPS]

    def interfaces(self):
        return dbus.Dictionary({
            name: dbus.Dictionary(self.current() if name == self.iface else {}, signature="sv")
            for name in self.iface_names()}, signature="sa{sv}")


class Characteristic:
    def __init__(self, service, spec, handle):
        self.service = service
        self.device = service.device
        self.uuid = full_uuid(spec["uuid"])
        self.flags = [str(f) for f in spec.get("flags") or []]
        self.initial = parse_hex(spec.get("value"), "characteristic value")
        self.value = self.initial
        self.handle = handle
        self.value_handle = handle + 1
        self.can_notify = "notify" in self.flags or "indicate" in self.flags
        acq = spec.get("acquire_notify")
        self.acquire_notify = ("notify" in self.flags) if acq is None else bool(acq)
        self.cccd_handle = handle + 2 if self.can_notify else None
        self.path = "%s/char%04x" % (service.path, handle)
        self.removed = False  # remove_characteristic fault: gone for the rest of the run
        self.reset()

    def reset(self):
        self.notify_clients = set()  # unique names with a StartNotify session
        self.sock = None  # our end of an AcquireNotify socketpair
        self.sock_watch = None
        self.sock_owner = None
        self.out_watch = None

    @property
    def notifying(self):
        return bool(self.notify_clients) or self.sock is not None

    def make_obj(self):
        props = {
            "UUID": dbus.String(self.uuid),
            "Service": dbus.ObjectPath(self.service.path),
            "Value": ay(self.value),
            "Flags": dbus.Array(self.flags, signature="s"),
            "Handle": dbus.UInt16(self.handle),
            "MTU": dbus.UInt16(self.device.mtu),
        }
        if self.can_notify:
            props["Notifying"] = dbus.Boolean(self.notifying)
        if self.acquire_notify:
            props["NotifyAcquired"] = dbus.Boolean(self.sock is not None)
        return Obj(self.path, I_CHAR, props, char=self)

    def cccd_obj(self):
        path = "%s/desc%04x" % (self.path, self.cccd_handle)
        return Obj(path, I_DESC, {
            "UUID": dbus.String(CCCD_UUID),
            "Characteristic": dbus.ObjectPath(self.path),
            "Value": ay(b""),
            "Flags": dbus.Array(["read", "write"], signature="s"),
            "Handle": dbus.UInt16(self.cccd_handle),
        })


class Service:
    def __init__(self, device, spec, handle):
        self.device = device
        self.uuid = full_uuid(spec["uuid"])
        self.primary = bool(spec.get("primary", True))
        self.handle = int(spec.get("handle") or handle)
        self.path = "%s/service%04x" % (device.path, self.handle)
        self.characteristics = []
        h = self.handle + 1
        for cspec in spec.get("characteristics") or []:
            c = Characteristic(self, cspec, h)
            self.characteristics.append(c)
            h += 3 if c.can_notify else 2
        self.end_handle = h - 1

    def make_obj(self):
        return Obj(self.path, I_SERVICE, {
            "UUID": dbus.String(self.uuid),
            "Device": dbus.ObjectPath(self.device.path),
            "Primary": dbus.Boolean(self.primary),
            "Includes": dbus.Array([], signature="o"),
            "Handle": dbus.UInt16(self.handle),
        })


class Device:
    def __init__(self, fake, spec, scale):
        self.fake = fake
        self.address = str(spec["address"]).upper()
        parts = self.address.split(":")
        if len(parts) != 6 or not all(len(p) == 2 for p in parts):
            raise ScenarioError("bad device address %r" % spec["address"])
        self.path = "%s/dev_%s" % (ADAPTER_PATH, self.address.replace(":", "_"))
        self.address_type = spec.get("address_type") or "public"
        self.name = spec.get("name")
        self.rssi = int(spec.get("rssi", -60))
        self.tx_power = spec.get("tx_power")
        self.mtu = int(spec.get("mtu") or 247)
        self.manufacturer_data = {company_id(k): parse_hex(v, "manufacturer_data")
                                  for k, v in (spec.get("manufacturer_data") or {}).items()}
        self.service_data = {full_uuid(k): parse_hex(v, "service_data")
                             for k, v in (spec.get("service_data") or {}).items()}
        self.adv_uuids = [full_uuid(u) for u in spec.get("uuids") or []]
        self.appear_s = float(spec.get("appear_ms", 10)) * scale / 1000
        self.connect_s = float(spec.get("connect_ms", 20)) * scale / 1000
        self.resolve_s = float(spec.get("resolve_ms", 20)) * scale / 1000
        self.fd_backpressure = spec.get("fd_backpressure") or "drop"
        if self.fd_backpressure not in ("drop", "wait"):
            raise ScenarioError("fd_backpressure must be drop or wait")
        self.services = []
        h = 0x000A
        for sspec in spec.get("services") or []:
            s = Service(self, sspec, h)
            self.services.append(s)
            h = s.end_handle + 1
        self.chars_by_uuid = {}
        for s in self.services:
            for c in s.characteristics:
                if c.uuid in self.chars_by_uuid:
                    raise ScenarioError("%s: characteristic %s appears twice" % (self.address, c.uuid))
                self.chars_by_uuid[c.uuid] = c
        # The stream: (at seconds, characteristic, bytes, hex)
        entries = []
        for i, n in enumerate(spec.get("notifications") or []):
            c = self.char(n["char"])
            data = parse_hex(n.get("hex"), "notification")
            entries.append((float(n.get("at_ms", 0)) * scale / 1000, i, c, data))
        entries.sort(key=lambda e: (e[0], e[1]))
        self.stream = [(at, c, data, data.hex()) for at, _, c, data in entries]
        # PropertiesChanged(Value) messages built ahead while the loop is idle (building one
        # costs ~8 us in dbus-python, sending ~2 us); each is sent at most once.
        self.prebuilt = [None] * len(self.stream)
        self.prebuilt_upto = 0
        self.stream_chars = sorted({c.uuid for _, c, _, _ in self.stream})
        self.on_write = []
        for rule in spec.get("on_write") or []:
            c = self.char(rule["char"])
            prefix = None if rule.get("prefix") is None else parse_hex(rule["prefix"], "prefix")
            replies = [(self.char(r["char"]), parse_hex(r.get("hex"), "on_write reply"))
                       for r in rule.get("notify") or []]
            self.on_write.append((c, prefix, replies))
        self.faults = []
        for f in spec.get("faults") or []:
            kind = f.get("kind")
            if kind not in ("disconnect", "restart", "in_progress", "remove_characteristic",
                            "empty_notification"):
                raise ScenarioError("unknown fault kind %r" % kind)
            if kind in ("remove_characteristic", "empty_notification"):
                self.char(f["char"])
            mode = f.get("connect_during_down") or "fail"
            if mode not in ("fail", "wait"):
                raise ScenarioError("connect_during_down must be fail or wait")
            self.faults.append(dict(f, fired=False, connect_during_down=mode))
        self.in_progress_left = sum(int(f.get("count", 1)) for f in self.faults
                                    if f["kind"] == "in_progress")
        self.reset_state()
        self.exported = False  # Device1 object on the bus
        self.pos = 0
        self.stream_state = "idle"  # idle | running | paused | done
        self.t0 = 0.0
        self.gen = 0
        self.seq = 0
        self.down_until = 0.0
        self.down_mode = "fail"
        self.waiting_connects = []

    def char(self, uuid):
        u = full_uuid(uuid)
        for s in self.services:
            for c in s.characteristics:
                if c.uuid == u:
                    return c
        raise ScenarioError("%s has no characteristic %s" % (self.address, uuid))

    def reset_state(self):
        self.connected = False
        self.resolved = False
        self.connecting = None  # pending Connect message
        self.rssi_present = False
        self.gatt_exported = False
        for s in self.services:
            for c in s.characteristics:
                c.reset()

    def uuids_now(self):
        u = set(self.adv_uuids) | set(self.service_data)
        if self.resolved:
            u |= {s.uuid for s in self.services}
        return sorted(u)

    def make_obj(self):
        props = {
            "Address": dbus.String(self.address),
            "AddressType": dbus.String(self.address_type),
            "Alias": dbus.String(self.name if self.name else self.address.replace(":", "-")),
            "Paired": dbus.Boolean(False),
            "Bonded": dbus.Boolean(False),
            "Trusted": dbus.Boolean(False),
            "Blocked": dbus.Boolean(False),
            "LegacyPairing": dbus.Boolean(False),
            "Connected": dbus.Boolean(self.connected),
            "UUIDs": dbus.Array(self.uuids_now(), signature="s"),
            "Adapter": dbus.ObjectPath(ADAPTER_PATH),
            "ServicesResolved": dbus.Boolean(self.resolved),
        }
        if self.name:
            props["Name"] = dbus.String(self.name)
        if self.rssi_present:
            props["RSSI"] = dbus.Int16(self.rssi)
            if self.tx_power is not None:
                props["TxPower"] = dbus.Int16(int(self.tx_power))
        if self.manufacturer_data:
            props["ManufacturerData"] = self.manufacturer_dict()
        if self.service_data:
            props["ServiceData"] = dbus.Dictionary(
                {dbus.String(k): ay_variant(v) for k, v in self.service_data.items()}, signature="sv")
        o = Obj(self.path, I_DEVICE, props)
        o.writable = {"Alias": "s", "Trusted": "b", "Blocked": "b"}
        return o

    def manufacturer_dict(self):
        return dbus.Dictionary({dbus.UInt16(k): ay_variant(v)
                                for k, v in self.manufacturer_data.items()}, signature="qv")


# ---------------------------------------------------------------------------
# The service


class FakeBluez:
    def __init__(self, args, scenario):
        self.address = args.address
        self.scale = float(args.time_scale)
        self.log = EventLog(args.log)
        # --batch-signals: the stream's Value signals are marshalled here and written to
        # the bus socket RAW_CHUNK at a time instead of one libdbus send (one write) each.
        self.batch_signals = bool(getattr(args, "batch_signals", False))
        self.raw_serial = 1 << 30  # serials of our own messages, clear of libdbus's
        self.loop = GLib.MainLoop()
        self.conn = None
        self.unique_name = None
        self.bus_gen = 0
        self.objects = {}  # path -> Obj (everything exported, "/" excluded)
        self.pending_props = {}  # path -> (iface, ordered dict of changed)
        adapter = scenario.get("adapter")
        self.has_adapter = adapter is not None
        adapter = adapter or {}
        self.adapter_address = str(adapter.get("address") or "00:11:22:33:44:55").upper()
        self.adapter_name = adapter.get("name") or "fake-bluez"
        self.powered = bool(adapter.get("powered", True))
        tt = adapter.get("temporary_timeout_ms")
        self.temporary_timeout_s = None if tt is None else float(tt) * self.scale / 1000
        self.devices = [Device(self, d, self.scale) for d in scenario.get("devices") or []]
        self.devices_by_path = {d.path: d for d in self.devices}
        if len(self.devices_by_path) != len(self.devices):
            raise ScenarioError("two devices share an address")
        self.filters = {}  # sender -> filter dict (python values)
        self.discovery = {}  # sender -> filter at StartDiscovery
        self.discovering = False
        self.restarting = False

    # ---- bus connection -------------------------------------------------

    def connect_bus(self):
        self.bus_gen += 1
        conn = dbus.bus.BusConnection(self.address)
        conn.set_exit_on_disconnect(False)
        conn._register_object_path("/", self.on_message, fallback=True)
        conn.add_match_string_non_blocking(
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
            "member='NameOwnerChanged'")
        gen = self.bus_gen
        conn.call_on_disconnection(lambda c: self.on_bus_lost(gen))
        self.conn = conn
        reply = conn.request_name(BLUEZ, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
        if reply != dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
            raise RuntimeError("could not own org.bluez (reply %d)" % reply)
        self.unique_name = conn.get_unique_name()

    def on_bus_lost(self, gen):
        if gen != self.bus_gen or self.restarting:
            return
        self.log.event("bus_lost")
        self.loop.quit()

    def export_initial(self, announce):
        """/org/bluez, the adapter, and (after a restart) the known devices."""
        mgr = Obj("/org/bluez", I_AGENT_MGR, {})
        self.add_object(mgr, announce)
        if not self.has_adapter:
            return
        self.add_object(self.adapter_obj(), announce)

    def adapter_obj(self):
        o = Obj(ADAPTER_PATH, I_ADAPTER, {
            "Address": dbus.String(self.adapter_address),
            "AddressType": dbus.String("public"),
            "Name": dbus.String(self.adapter_name),
            "Alias": dbus.String(self.adapter_name),
            "Class": dbus.UInt32(0),
            "Powered": dbus.Boolean(self.powered),
            "Discoverable": dbus.Boolean(False),
            "DiscoverableTimeout": dbus.UInt32(180),
            "Pairable": dbus.Boolean(True),
            "PairableTimeout": dbus.UInt32(0),
            "Discovering": dbus.Boolean(self.discovering),
            "UUIDs": dbus.Array(["00001800-0000-1000-8000-00805f9b34fb",
                                 "00001801-0000-1000-8000-00805f9b34fb"], signature="s"),
            "Modalias": dbus.String("usb:v1D6Bp0246d0542"),
            "Roles": dbus.Array(["central", "peripheral"], signature="s"),
        })
        o.writable = {"Alias": "s", "Powered": "b", "Discoverable": "b",
                      "DiscoverableTimeout": "u", "Pairable": "b", "PairableTimeout": "u"}
        return o

    # ---- signals ----------------------------------------------------------

    def send(self, msg):
        if self.conn is not None:
            self.conn.send_message(msg)

    def flush_props(self):
        pending, self.pending_props = self.pending_props, {}
        for path, (iface, changed, invalidated) in pending.items():
            if path not in self.objects:
                continue
            msg = dbus.lowlevel.SignalMessage(path, I_PROPS, "PropertiesChanged")
            msg.append(iface, dbus.Dictionary(changed, signature="sv"),
                       dbus.Array(invalidated, signature="s"), signature="sa{sv}as")
            self.send(msg)
            self.log.event("signal", member="PropertiesChanged", path=path, interface=iface,
                           changed=jsonable(changed), invalidated=list(invalidated))

    def set_props(self, path, changes, invalidate=(), flush=True):
        """Update properties and queue one merged PropertiesChanged per object."""
        o = self.objects.get(path)
        if o is None:
            return
        entry = self.pending_props.setdefault(path, (o.iface, {}, []))
        for k, v in changes.items():
            o.props[k] = v
            entry[1][k] = v
            if k in entry[2]:
                entry[2].remove(k)
        for k in invalidate:
            o.props.pop(k, None)
            entry[1].pop(k, None)
            if k not in entry[2]:
                entry[2].append(k)
        if flush:
            self.flush_props()

    def add_object(self, obj, announce=True):
        self.objects[obj.path] = obj
        if announce:
            self.flush_props()
            msg = dbus.lowlevel.SignalMessage("/", I_OM, "InterfacesAdded")
            msg.append(dbus.ObjectPath(obj.path), obj.interfaces(), signature="oa{sa{sv}}")
            self.send(msg)
            self.log.event("signal", member="InterfacesAdded", path=obj.path,
                           interfaces=obj.iface_names())

    def remove_object(self, path):
        obj = self.objects.pop(path, None)
        if obj is None:
            return
        self.pending_props.pop(path, None)
        self.flush_props()
        ifaces = [n for n in reversed(obj.iface_names()) if n != obj.iface] + [obj.iface]
        msg = dbus.lowlevel.SignalMessage("/", I_OM, "InterfacesRemoved")
        msg.append(dbus.ObjectPath(path), dbus.Array(ifaces, signature="s"), signature="oas")
        self.send(msg)
        self.log.event("signal", member="InterfacesRemoved", path=path, interfaces=ifaces)

    # ---- replies ------------------------------------------------------------

    def reply(self, msg, signature="", values=(), log_result=None):
        self.flush_props()
        r = dbus.lowlevel.MethodReturnMessage(msg)
        if signature:
            r.append(*values, signature=signature)
        self.send(r)
        self.log_call(msg, "ok", returned=log_result)

    def reply_error(self, msg, name, text):
        self.flush_props()
        self.send(dbus.lowlevel.ErrorMessage(msg, name, text))
        self.log_call(msg, "error", error=name, message=text)

    def log_call(self, msg, result, **extra):
        path = msg.get_path()
        fields = dict(sender=msg.get_sender(), path=path, interface=msg.get_interface(),
                      member=msg.get_member(), result=result)
        dev, char = self.locate(path)
        if dev is not None:
            fields["device"] = dev.address
        if char is not None:
            fields["char"] = char.uuid
        try:
            args = msg.get_args_list(byte_arrays=True)
            if args:
                fields["args"] = jsonable(args)
        except Exception:
            pass
        fields.update({k: v for k, v in extra.items() if v is not None})
        self.log.event("call", **fields)

    def locate(self, path):
        if not path or not path.startswith(ADAPTER_PATH + "/dev_"):
            return None, None
        dev_path = "/".join(path.split("/")[:5])
        dev = self.devices_by_path.get(dev_path)
        if dev is None or path == dev_path:
            return dev, None
        for s in dev.services:
            for c in s.characteristics:
                if path == c.path or path.startswith(c.path + "/"):
                    return dev, c
        return dev, None

    # ---- dispatch -------------------------------------------------------------

    def on_message(self, conn, msg):
        if conn is not self.conn:
            return NOT_HANDLED
        if isinstance(msg, dbus.lowlevel.SignalMessage):
            if msg.get_member() == "NameOwnerChanged" and msg.get_interface() == "org.freedesktop.DBus":
                name, old, new = msg.get_args_list()
                if old and not new and name == old and name.startswith(":"):
                    self.client_gone(str(name))
            return NOT_HANDLED
        if not isinstance(msg, dbus.lowlevel.MethodCallMessage):
            return NOT_HANDLED
        path = msg.get_path()
        iface = msg.get_interface()
        member = msg.get_member()
        sig = msg.get_signature()
        handler = None
        if path == "/":
            if (iface, member, sig) == (I_OM, "GetManagedObjects", ""):
                handler = self.get_managed_objects
            elif (iface, member, sig) == (I_INTRO, "Introspect", ""):
                handler = self.introspect
        elif path in self.objects:
            obj = self.objects[path]
            if iface == I_INTRO and member == "Introspect" and sig == "":
                handler = self.introspect
            elif iface == I_PROPS and obj.iface not in (I_AGENT_MGR,):
                handler = {("Get", "ss"): self.prop_get, ("GetAll", "s"): self.prop_get_all,
                           ("Set", "ssv"): self.prop_set}.get((member, sig))
            elif iface == obj.iface:
                fn = self.METHODS.get((iface, member, sig))
                handler = fn.__get__(self) if fn else None
        if handler is None:
            return NOT_HANDLED  # libdbus answers UnknownMethod, as it does for bluetoothd
        try:
            handler(msg)
        except Deferred:
            pass
        except BluezError as e:
            self.reply_error(msg, e.name, e.message)
        except Exception as e:  # a bug in the fake: answer and record it
            self.log.event("internal_error", error=repr(e), member=member, path=path)
            self.reply_error(msg, E_FAILED, "fake_bluez internal error: %r" % e)
        return HANDLED

    # ---- ObjectManager, Properties, Introspectable --------------------------------

    def get_managed_objects(self, msg):
        self.flush_props()
        result = dbus.Dictionary({dbus.ObjectPath(p): o.interfaces()
                                  for p, o in self.objects.items()}, signature="oa{sa{sv}}")
        self.reply(msg, "a{oa{sa{sv}}}", (result,), log_result=sorted(self.objects))

    def prop_get(self, msg):
        iface, name = msg.get_args_list()
        obj = self.objects[msg.get_path()]
        if iface != obj.iface:
            raise BluezError(E_DBUS_INVALID_ARGS, "No such interface '%s'" % iface)
        if name not in obj.props:
            raise BluezError(E_DBUS_INVALID_ARGS, "No such property '%s'" % name)
        value = obj.current()[name]
        self.reply(msg, "v", (value,), log_result=jsonable(value))

    def prop_get_all(self, msg):
        (iface,) = msg.get_args_list()
        obj = self.objects[msg.get_path()]
        if iface != obj.iface:
            raise BluezError(E_DBUS_INVALID_ARGS, "No such interface '%s'" % iface)
        self.reply(msg, "a{sv}", (dbus.Dictionary(obj.current(), signature="sv"),))

    def prop_set(self, msg):
        iface, name, value = msg.get_args_list()
        obj = self.objects[msg.get_path()]
        if iface != obj.iface:
            raise BluezError(E_DBUS_INVALID_ARGS, "No such interface '%s'" % iface)
        if name not in obj.props:
            raise BluezError(E_DBUS_UNKNOWN_PROPERTY, "No such property '%s'" % name)
        if name not in obj.writable:
            raise BluezError(E_DBUS_READ_ONLY, "Property '%s' is not writable" % name)
        if not _has_sig(value, obj.writable[name]):
            raise BluezError(E_DBUS_INVALID_SIGNATURE, "Invalid signature for '%s'" % name)
        typed = {"s": dbus.String, "b": dbus.Boolean, "u": dbus.UInt32}[obj.writable[name]](value)
        if obj.iface == I_ADAPTER and name == "Powered":
            self.powered = bool(value)
            if not self.powered:
                for d in self.devices:
                    if d.connected or d.connecting:
                        self.drop_connection(d, reason="powered off")
                if self.discovery:
                    self.discovery.clear()
                    self.set_discovering(False)
        changed = obj.props.get(name) != typed
        self.reply(msg)
        if changed:
            self.set_props(obj.path, {name: typed})

    def introspect(self, msg):
        path = msg.get_path()
        xml = ['<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"\n'
               '"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">\n<node>']
        xml.append(INTROSPECT_IFACES[I_INTRO])
        if path == "/":
            xml.append(INTROSPECT_IFACES[I_OM])
        else:
            obj = self.objects[path]
            xml.append(INTROSPECT_IFACES.get(obj.iface, '<interface name="%s"/>' % obj.iface))
            xml.append(INTROSPECT_IFACES[I_PROPS])
        prefix = path.rstrip("/") + "/"
        children = sorted({p[len(prefix):].split("/")[0] for p in self.objects if p.startswith(prefix)})
        xml.extend('<node name="%s"/>' % c for c in children)
        xml.append("</node>")
        self.reply(msg, "s", ("".join(xml),))

    # ---- org.bluez.AgentManager1 (accepted, does nothing) ---------------------------

    def agent_ok(self, msg):
        self.reply(msg)

    # ---- Adapter1 -------------------------------------------------------------------

    def set_discovery_filter(self, msg):
        (flt,) = msg.get_args_list()
        allowed = {"UUIDs": "as", "RSSI": "n", "Pathloss": "q", "Transport": "s",
                   "DuplicateData": "b", "Discoverable": "b", "Pattern": "s"}
        parsed = {}
        for k, v in flt.items():
            if k not in allowed or not _has_sig(v, allowed[k]):
                raise BluezError(E_INVALID_ARGS, "Invalid arguments in method call")
            parsed[str(k)] = jsonable(v)
        if "RSSI" in parsed and "Pathloss" in parsed:
            raise BluezError(E_INVALID_ARGS, "Invalid arguments in method call")
        if parsed.get("Transport", "auto") not in ("auto", "bredr", "le"):
            raise BluezError(E_INVALID_ARGS, "Invalid arguments in method call")
        try:
            parsed["UUIDs"] = [full_uuid(u) for u in parsed.get("UUIDs", [])]
        except ScenarioError:
            raise BluezError(E_INVALID_ARGS, "Invalid arguments in method call")
        sender = msg.get_sender()
        if parsed.get("UUIDs") == [] and len(parsed) == 1:
            parsed = {}
        if parsed:
            self.filters[sender] = parsed
        else:
            self.filters.pop(sender, None)
        self.log.event("discovery_filter", sender=sender, filter=parsed)
        self.reply(msg)

    def get_discovery_filters(self, msg):
        self.reply(msg, "as", (dbus.Array(["UUIDs", "RSSI", "Pathloss", "Transport",
                                           "DuplicateData", "Discoverable", "Pattern"],
                                          signature="s"),))

    def start_discovery(self, msg):
        sender = msg.get_sender()
        if not self.powered:
            raise BluezError(E_NOT_READY, "Resource Not Ready")
        if sender in self.discovery:
            raise BluezError(E_IN_PROGRESS, "Operation already in progress")
        self.discovery[sender] = self.filters.get(sender, {})
        self.reply(msg)
        if not self.discovering:
            self.set_discovering(True)
        gen = self.bus_gen
        for d in self.devices:
            if self.matches(d):
                GLib.timeout_add(int(d.appear_s * 1000), self.advertise, d, gen)

    def matches(self, d):
        for flt in self.discovery.values():
            if not flt:
                return True
            if flt.get("Transport") == "bredr":
                continue
            uuids = flt.get("UUIDs") or []
            if uuids and not (set(uuids) & (set(d.adv_uuids) | set(d.service_data))):
                continue
            if "RSSI" in flt and d.rssi < int(flt["RSSI"]):
                continue
            pattern = flt.get("Pattern")
            if pattern and not (d.address.startswith(pattern.upper()) or
                                (d.name or "").startswith(pattern)):
                continue
            return True
        return False

    def advertise(self, d, gen):
        if gen != self.bus_gen or not self.discovering or not self.matches(d):
            return False
        if not d.exported:
            d.rssi_present = True
            d.exported = True
            self.add_object(d.make_obj())
        else:
            changes = {"RSSI": dbus.Int16(d.rssi)}
            if d.manufacturer_data:
                changes["ManufacturerData"] = d.manufacturer_dict()
            d.rssi_present = True
            self.set_props(d.path, changes)
        self.log.event("advertise", device=d.address, rssi=d.rssi)
        return False

    def stop_discovery(self, msg):
        sender = msg.get_sender()
        if not self.powered:
            raise BluezError(E_NOT_READY, "Resource Not Ready")
        if sender not in self.discovery:
            raise BluezError(E_FAILED, "No discovery started")
        del self.discovery[sender]
        self.reply(msg)
        if not self.discovery:
            self.set_discovering(False)

    def set_discovering(self, on):
        self.discovering = on
        self.set_props(ADAPTER_PATH, {"Discovering": dbus.Boolean(on)})
        if on:
            return
        for d in self.devices:
            if d.exported and d.rssi_present:
                d.rssi_present = False
                self.set_props(d.path, {}, invalidate=["RSSI"] + (["TxPower"] if d.tx_power is not None else []))
        if self.temporary_timeout_s is not None:
            gen = self.bus_gen
            GLib.timeout_add(int(self.temporary_timeout_s * 1000), self.expire_devices, gen)

    def expire_devices(self, gen):
        if gen != self.bus_gen or self.discovering:
            return False
        for d in self.devices:
            if d.exported and not d.connected and not d.connecting:
                self.unexport_device(d)
                self.log.event("device_expired", device=d.address)
        return False

    def remove_device(self, msg):
        (path,) = msg.get_args_list()
        d = self.devices_by_path.get(str(path))
        if d is None or not d.exported:
            raise BluezError(E_DOES_NOT_EXIST, "Does Not Exist")
        if d.connected or d.connecting:
            self.drop_connection(d, reason="removed")
        self.reply(msg)
        self.unexport_device(d)

    def unexport_device(self, d):
        self.remove_gatt(d)
        d.exported = False
        d.rssi_present = False
        self.remove_object(d.path)

    # ---- Device1 -------------------------------------------------------------------

    def device_connect(self, msg):
        d = self.devices_by_path[msg.get_path()]
        if not self.powered:
            raise BluezError(E_NOT_READY, "Resource Not Ready")
        if d.connected and d.resolved:
            self.reply(msg)  # BlueZ: nothing to do
            return
        if d.connecting is not None or d.waiting_connects:
            raise BluezError(E_IN_PROGRESS, "In Progress")
        if d.in_progress_left > 0:
            d.in_progress_left -= 1
            self.log.event("fault", fault="in_progress", phase="applied", device=d.address,
                           remaining=d.in_progress_left)
            raise BluezError(E_IN_PROGRESS, "In Progress")
        if time.monotonic() < d.down_until:
            if d.down_mode == "fail":
                raise BluezError(E_FAILED, LE_ABORT)
            d.waiting_connects.append(msg)  # answered when the device is back
            raise Deferred()
        self.begin_connect(d, msg)
        raise Deferred()

    def begin_connect(self, d, msg):
        d.connecting = msg
        gen = (self.bus_gen, d.gen)
        GLib.timeout_add(int(d.connect_s * 1000), self.link_up, d, gen)

    def link_up(self, d, gen):
        if gen != (self.bus_gen, d.gen) or d.connecting is None:
            return False
        d.connected = True
        self.set_props(d.path, {"Connected": dbus.Boolean(True)})
        GLib.timeout_add(int(d.resolve_s * 1000), self.resolve, d, gen)
        return False

    def resolve(self, d, gen):
        if gen != (self.bus_gen, d.gen) or d.connecting is None:
            return False
        self.export_gatt(d)
        d.resolved = True
        self.set_props(d.path, {"UUIDs": dbus.Array(d.uuids_now(), signature="s"),
                                "ServicesResolved": dbus.Boolean(True)}, flush=False)
        msg, d.connecting = d.connecting, None
        self.reply(msg)  # flushes ServicesResolved first
        return False

    def export_gatt(self, d):
        for s in d.services:
            self.add_object(s.make_obj())
            for c in s.characteristics:
                if c.removed:
                    continue
                self.add_object(c.make_obj())
                if c.can_notify:
                    self.add_object(c.cccd_obj())
        d.gatt_exported = True

    def remove_gatt(self, d):
        if not d.gatt_exported:
            return
        for s in reversed(d.services):
            for c in reversed(s.characteristics):
                self.close_fd(c, emit=False)
                if c.can_notify:
                    self.remove_object("%s/desc%04x" % (c.path, c.cccd_handle))
                self.remove_object(c.path)
                c.reset()
            self.remove_object(s.path)
        d.gatt_exported = False

    def device_disconnect(self, msg):
        d = self.devices_by_path[msg.get_path()]
        if d.connecting is not None:
            pending, d.connecting = d.connecting, None
            d.gen += 1
            if d.connected:
                d.connected = False
                self.set_props(d.path, {"Connected": dbus.Boolean(False)}, flush=False)
            self.reply_error(pending, E_FAILED, LE_ABORT)
            self.reply(msg)
            return
        if not d.connected:
            raise BluezError(E_NOT_CONNECTED, "Not Connected")
        # Client-initiated: ServicesResolved=false, the reply, Connected=false, GATT removed.
        self.pause_stream(d, "disconnect")
        d.gen += 1
        d.resolved = False
        self.set_props(d.path, {"ServicesResolved": dbus.Boolean(False)}, flush=False)
        self.reply(msg)
        d.connected = False
        self.set_props(d.path, {"Connected": dbus.Boolean(False)})
        self.remove_gatt(d)

    def drop_connection(self, d, reason):
        """Remote (or forced) disconnection: ServicesResolved=false, Connected=false
        in one PropertiesChanged, then the GATT objects go, deepest first."""
        self.pause_stream(d, reason)
        d.gen += 1
        if d.connecting is not None:
            pending, d.connecting = d.connecting, None
            self.reply_error(pending, E_FAILED, LE_ABORT)
        changes = {}
        if d.resolved:
            changes["ServicesResolved"] = dbus.Boolean(False)
        if d.connected:
            changes["Connected"] = dbus.Boolean(False)
        d.resolved = False
        d.connected = False
        if changes:
            self.set_props(d.path, changes)
        self.remove_gatt(d)

    # ---- GattCharacteristic1 / GattDescriptor1 ---------------------------------------------

    def char_of(self, msg):
        d, c = self.locate(msg.get_path())
        return d, c

    def start_notify(self, msg):
        d, c = self.char_of(msg)
        sender = msg.get_sender()
        if c.sock is not None:
            raise BluezError(E_NOT_PERMITTED, "Notify acquired")
        if sender in c.notify_clients:
            self.reply(msg)
            return
        if not c.can_notify:
            raise BluezError(E_NOT_SUPPORTED, "Operation is not supported")
        if not d.connected:
            raise BluezError(E_FAILED, "Not connected")
        was = c.notifying
        c.notify_clients.add(sender)
        if not was:
            self.set_props(c.path, {"Notifying": dbus.Boolean(True)}, flush=False)
        self.reply(msg)
        self.maybe_start_stream(d)

    def stop_notify(self, msg):
        d, c = self.char_of(msg)
        sender = msg.get_sender()
        if c.sock is not None and sender not in c.notify_clients:
            raise BluezError(E_NOT_PERMITTED, "Notify acquired")
        if sender not in c.notify_clients:
            raise BluezError(E_FAILED, "No notify session started")
        c.notify_clients.discard(sender)
        if not c.notifying:
            self.set_props(c.path, {"Notifying": dbus.Boolean(False)}, flush=False)
        self.reply(msg)

    def acquire_notify(self, msg):
        d, c = self.char_of(msg)
        if not c.acquire_notify:
            return self._unknown(msg)
        if c.sock is not None:
            raise BluezError(E_NOT_PERMITTED, "Notify acquired")
        if c.notify_clients:
            raise BluezError(E_IN_PROGRESS, "In Progress")
        if not c.can_notify:
            raise BluezError(E_NOT_SUPPORTED, "Operation is not supported")
        if not d.connected:
            raise BluezError(E_FAILED, "Not connected")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.setblocking(False)
        c.sock = ours
        c.sock_owner = msg.get_sender()
        c.sock_watch = GLib.io_add_watch(ours.fileno(), GLib.PRIORITY_DEFAULT,
                                         GLib.IO_HUP | GLib.IO_ERR | GLib.IO_IN,
                                         self.on_fd_event, c, (self.bus_gen, d.gen))
        self.set_props(c.path, {"Notifying": dbus.Boolean(True),
                                "NotifyAcquired": dbus.Boolean(True)}, flush=False)
        fd = dbus.types.UnixFd(theirs)
        theirs.close()
        self.reply(msg, "hq", (fd, dbus.UInt16(d.mtu)), log_result={"mtu": d.mtu})
        del fd
        self.maybe_start_stream(d)

    def on_fd_event(self, fd, condition, c, gen):
        if c.sock is None or c.sock.fileno() != fd:
            return False
        if condition & GLib.IO_IN and not condition & (GLib.IO_HUP | GLib.IO_ERR):
            try:
                data = c.sock.recv(65536)
            except BlockingIOError:
                return True
            except OSError:
                data = b""
            if data:
                return True
        self.log.event("fd_released", device=c.device.address, char=c.uuid)
        c.sock_watch = None
        self.close_fd(c, emit=True)
        return False

    def close_fd(self, c, emit):
        if c.sock is None:
            return
        if c.sock_watch is not None:
            GLib.source_remove(c.sock_watch)
            c.sock_watch = None
        if c.out_watch is not None:
            GLib.source_remove(c.out_watch)
            c.out_watch = None
        try:
            c.sock.close()
        except OSError:
            pass
        c.sock = None
        c.sock_owner = None
        if emit and c.path in self.objects:
            changes = {"NotifyAcquired": dbus.Boolean(False)}
            if not c.notifying:
                changes["Notifying"] = dbus.Boolean(False)
            self.set_props(c.path, changes)

    def read_value(self, msg):
        d, c = self.char_of(msg)
        if not d.connected:
            raise BluezError(E_FAILED, "Not connected")
        if "read" not in c.flags:
            raise BluezError(E_NOT_PERMITTED, "Read not permitted")
        (options,) = msg.get_args_list()
        offset = int(options.get("offset", 0))
        if offset > len(c.value):
            raise BluezError("org.bluez.Error.InvalidOffset", "Invalid offset")
        value = c.value[offset:]
        # BlueZ stores what it read and signals it, so a read looks like a Value change.
        self.set_props(c.path, {"Value": ay(c.value)}, flush=False)
        self.reply(msg, "ay", (ay(value),), log_result=value.hex())

    def write_value(self, msg):
        d, c = self.char_of(msg)
        value, options = msg.get_args_list(byte_arrays=True)
        value = bytes(value)
        if not d.connected:
            raise BluezError(E_FAILED, "Not connected")
        wtype = str(options.get("type", ""))
        if wtype not in ("", "command", "request", "reliable"):
            raise BluezError(E_INVALID_ARGS, "Invalid arguments in method call")
        can_req = "write" in c.flags or "reliable-write" in c.flags
        can_cmd = "write-without-response" in c.flags
        if wtype == "command" and not can_cmd:
            raise BluezError(E_NOT_SUPPORTED, "Operation is not supported")
        if wtype in ("request", "reliable") and not can_req:
            raise BluezError(E_NOT_SUPPORTED, "Operation is not supported")
        if not (can_req or can_cmd):
            raise BluezError(E_NOT_PERMITTED, "Write not permitted")
        if not wtype:
            wtype = "request" if can_req else "command"
        c.value = value
        self.log.event("write", device=d.address, char=c.uuid, hex=value.hex(), type=wtype)
        self.reply(msg)
        for rc, prefix, replies in d.on_write:
            if rc is c and (prefix is None or value.startswith(prefix)):
                for target, data in replies:
                    self.notify(d, target, data, None, "on_write")
                break

    def desc_read_value(self, msg):
        d, c = self.char_of(msg)
        if not d.connected:
            raise BluezError(E_FAILED, "Not connected")
        value = bytes([1 if c.notifying else 0, 0])
        self.reply(msg, "ay", (ay(value),), log_result=value.hex())

    def desc_write_value(self, msg):
        raise BluezError(E_NOT_PERMITTED, "Write not permitted")

    def _unknown(self, msg):
        # Same answer libdbus gives for a method the object does not have.
        raise BluezError("org.freedesktop.DBus.Error.UnknownMethod",
                         'Method "%s" with signature "%s" on interface "%s" doesn\'t exist\n'
                         % (msg.get_member(), msg.get_signature(), msg.get_interface()))

    # ---- the stream ---------------------------------------------------------------------

    def maybe_start_stream(self, d):
        if d.stream_state not in ("idle", "paused") or not d.connected or self.conn is None:
            return
        for u in d.stream_chars:
            c = d.chars_by_uuid[u]
            if not c.removed and not c.notifying:
                return
        now = time.monotonic()
        if d.pos < len(d.stream):
            d.t0 = now - d.stream[d.pos][0]
        else:
            d.t0 = now
        d.stream_state = "running"
        self.log.event("stream_start", device=d.address, from_index=d.pos)
        self.schedule_pump(d, 0)

    def pause_stream(self, d, reason):
        if d.stream_state == "running":
            d.stream_state = "paused"
            self.log.event("stream_pause", device=d.address, at_index=d.pos, reason=reason)

    def schedule_pump(self, d, delay_s):
        key = (self.bus_gen, d.gen, d.stream_state)
        if delay_s <= 0:
            GLib.idle_add(self.pump, d, key, priority=GLib.PRIORITY_DEFAULT_IDLE)
        else:
            GLib.timeout_add(max(1, int(delay_s * 1000)), self.pump, d, key)

    def pump(self, d, key):
        if key != (self.bus_gen, d.gen, d.stream_state) or d.stream_state != "running":
            return False
        stream = d.stream
        n = len(stream)
        start = time.monotonic()
        sent = 0
        lines = []
        raw = [] if self.batch_signals else None
        try:
            while d.pos < n:
                if not self.fire_faults(d, d.pos, lines, raw):
                    return False
                at, c, data, hx = stream[d.pos]
                now = time.monotonic()
                due = d.t0 + at
                if due > now:
                    self.schedule_pump(d, due - now)
                    return False
                if sent >= BATCH_MAX or now - start > BATCH_SECONDS:
                    self.schedule_pump(d, 0)
                    return False
                msg = d.prebuilt[d.pos]
                if msg is not None:
                    d.prebuilt[d.pos] = None
                if not self.notify(d, c, data, d.pos, "scenario", lines, msg, hx, raw):
                    return False  # waiting for the fd to drain
                d.pos += 1
                sent += 1
                if raw and len(raw) >= RAW_CHUNK:
                    self.write_raw(raw)
            if not self.fire_faults(d, n, lines, raw):
                return False
            d.stream_state = "done"
            lines.append(json.dumps({"kind": "stream_done", "device": d.address, "sent": d.pos,
                                     "t_ns": now_ns()}, separators=(",", ":")) + "\n")
            return False
        finally:
            if raw:
                self.write_raw(raw)
            if lines:
                self.log.raw("".join(lines))

    def fire_faults(self, d, pos, lines, raw=None):
        """Faults whose `after` is pos; False when the stream must stop here."""
        for f in d.faults:
            if f["fired"] or f["kind"] == "in_progress" or int(f.get("after", 0)) != pos:
                continue
            f["fired"] = True
            if raw:
                self.write_raw(raw)
            if lines:
                self.log.raw("".join(lines))
                del lines[:]
            kind = f["kind"]
            if kind == "empty_notification":
                c = d.char(f["char"])
                self.log.event("fault", fault=kind, phase="start", device=d.address, char=c.uuid, after=pos)
                self.notify(d, c, b"", None, "fault")
                self.log.event("fault", fault=kind, phase="end", device=d.address, char=c.uuid, after=pos)
            elif kind == "remove_characteristic":
                c = d.char(f["char"])
                self.log.event("fault", fault=kind, phase="start", device=d.address, char=c.uuid, after=pos)
                c.removed = True
                self.close_fd(c, emit=False)
                if c.can_notify:
                    self.remove_object("%s/desc%04x" % (c.path, c.cccd_handle))
                self.remove_object(c.path)
                c.reset()
                self.log.event("fault", fault=kind, phase="end", device=d.address, char=c.uuid, after=pos)
            elif kind == "disconnect":
                self.fault_disconnect(d, f, pos)
                return False
            elif kind == "restart":
                self.fault_restart(d, f, pos)
                return False
        return True

    def notify(self, d, c, data, index, source, lines=None, prebuilt=None, hx=None, raw=None):
        """One notification; False only when fd back-pressure says wait. With `raw` (a
        list, --batch-signals), a Value signal is appended to it, marshalled, for
        `write_raw` to send, rather than sent; `prebuilt` is then its bytes."""
        if hx is None:
            hx = data.hex()
        if c.removed or c.path not in self.objects or not c.notifying:
            reason = "removed" if c.removed else "not notifying"
            self._line(lines, '{"kind":"skip","device":"%s","char":"%s","hex":"%s","index":%s,'
                       '"source":"%s","reason":"%s","t_ns":%d}\n'
                       % (d.address, c.uuid, hx, _idx(index), source, reason, now_ns()))
            return True
        if c.sock is not None:
            try:
                c.sock.send(data)
                via = "fd"
            except BlockingIOError:
                if d.fd_backpressure == "wait" and source == "scenario":
                    self.wait_writable(d, c)
                    return False
                self._line(lines, '{"kind":"drop","device":"%s","char":"%s","hex":"%s","index":%s,'
                           '"source":"%s","reason":"fd full","t_ns":%d}\n'
                           % (d.address, c.uuid, hx, _idx(index), source, now_ns()))
                return True
            except OSError:
                self.close_fd(c, emit=True)
                self._line(lines, '{"kind":"skip","device":"%s","char":"%s","hex":"%s","index":%s,'
                           '"source":"%s","reason":"fd closed","t_ns":%d}\n'
                           % (d.address, c.uuid, hx, _idx(index), source, now_ns()))
                return True
        elif raw is not None:
            raw.append(prebuilt if prebuilt is not None else self.value_bytes(c.path, data))
            c.value = data
            via = "signal"
        else:
            self.conn.send_message(prebuilt if prebuilt is not None else value_message(c.path, data))
            c.value = data
            via = "signal"
        seq = d.seq
        d.seq += 1
        self._line(lines, '{"kind":"notify","device":"%s","char":"%s","hex":"%s","index":%s,'
                   '"seq":%d,"via":"%s","source":"%s","t_ns":%d}\n'
                   % (d.address, c.uuid, hx, _idx(index), seq, via, source, now_ns()))
        return True

    def value_bytes(self, path, data):
        """The Value signal of `path`, marshalled, with the next serial of our own."""
        self.raw_serial += 1
        return value_signal_bytes(path, data, self.raw_serial)

    def write_raw(self, raw):
        """Writes the marshalled signals in `raw` (and empties it) to the bus socket,
        after whatever libdbus has queued, so messages never interleave; blocks while the
        socket is full (the bus daemon drains it). A lost bus is left to libdbus to notice."""
        data = b"".join(raw)
        del raw[:]
        if self.conn is None:
            return
        self.conn.flush()
        fd = self.conn.get_unix_fd()
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                select.select([], [fd], [])
            except OSError:
                return

    def _line(self, lines, text):
        if lines is None:
            self.log.raw(text)
        else:
            lines.append(text)

    def wait_writable(self, d, c):
        if c.out_watch is not None:
            return
        key = (self.bus_gen, d.gen)

        def writable(fd, cond):
            c.out_watch = None
            if key == (self.bus_gen, d.gen) and d.stream_state == "running":
                self.schedule_pump(d, 0)
            return False
        c.out_watch = GLib.io_add_watch(c.sock.fileno(), GLib.PRIORITY_DEFAULT,
                                        GLib.IO_OUT | GLib.IO_HUP | GLib.IO_ERR, writable)

    # ---- faults -----------------------------------------------------------------------

    def fault_disconnect(self, d, f, pos):
        down = float(f.get("down_ms", 0)) * self.scale / 1000
        start = now_ns()
        self.log.event("fault", fault="disconnect", phase="start", device=d.address, after=pos,
                       down_ms=f.get("down_ms", 0), connect_during_down=f["connect_during_down"],
                       t_ns=start)
        d.down_until = time.monotonic() + down
        d.down_mode = f["connect_during_down"]
        self.drop_connection(d, reason="fault")
        gen = self.bus_gen

        def back():
            if gen != self.bus_gen:
                return False
            self.log.event("fault", fault="disconnect", phase="end", device=d.address, after=pos,
                           start_ns=start)
            waiting, d.waiting_connects = d.waiting_connects, []
            for i, m in enumerate(waiting):
                if i == 0:
                    self.begin_connect(d, m)
                else:
                    self.reply_error(m, E_IN_PROGRESS, "In Progress")
            return False
        GLib.timeout_add(int(down * 1000), back)

    def fault_restart(self, d, f, pos):
        down = float(f.get("down_ms", 0)) * self.scale / 1000
        start = now_ns()
        old = self.unique_name
        self.log.event("fault", fault="restart", phase="start", device=d.address, after=pos,
                       down_ms=f.get("down_ms", 0), old_name=old, t_ns=start)
        self.restarting = True
        for dev in self.devices:
            self.pause_stream(dev, "restart")
            dev.gen += 1
            for s in dev.services:
                for c in s.characteristics:
                    self.close_fd(c, emit=False)
            dev.reset_state()
            dev.down_until = 0.0
            dev.waiting_connects = []  # the daemon answers them: we leave without replying
        self.discovery.clear()
        self.filters.clear()
        self.discovering = False
        self.pending_props.clear()
        known = [dev for dev in self.devices if dev.exported]
        self.objects.clear()
        conn, self.conn = self.conn, None
        self.bus_gen += 1
        conn.flush()
        conn.close()

        def back():
            self.connect_bus()
            self.restarting = False
            self.log.event("fault", fault="restart", phase="end", device=d.address, after=pos,
                           start_ns=start, old_name=old, new_name=self.unique_name)
            self.export_initial(announce=True)
            if self.has_adapter:
                for dev in known:
                    self.add_object(dev.make_obj())
            return False
        GLib.timeout_add(int(down * 1000), back)

    # ---- clients leaving --------------------------------------------------------------

    def client_gone(self, name):
        touched = False
        self.filters.pop(name, None)
        if name in self.discovery:
            del self.discovery[name]
            touched = True
            if not self.discovery:
                self.set_discovering(False)
        for d in self.devices:
            for s in d.services:
                for c in s.characteristics:
                    if name in c.notify_clients:
                        c.notify_clients.discard(name)
                        touched = True
                        if not c.notifying and c.path in self.objects:
                            self.set_props(c.path, {"Notifying": dbus.Boolean(False)})
        if touched:
            self.log.event("client_gone", name=name)

    METHODS = {}

    def prebuild(self):
        """Idle-time work: build the stream's Value signals ahead, PREBUILD_MAX at most."""
        budget = 500
        for d in self.devices:
            upto = max(d.prebuilt_upto, d.pos)
            end = min(len(d.stream), PREBUILD_MAX)
            while upto < end and budget > 0:
                _, c, data, _ = d.stream[upto]
                d.prebuilt[upto] = (self.value_bytes(c.path, data) if self.batch_signals
                                    else value_message(c.path, data))
                upto += 1
                budget -= 1
            d.prebuilt_upto = upto
            if budget == 0:
                return True
        return False

    # ---- run ----------------------------------------------------------------------------

    def run(self):
        self.connect_bus()
        self.export_initial(announce=False)
        self.log.event("ready", unique_name=self.unique_name, adapter=self.has_adapter,
                       devices=[d.address for d in self.devices], time_scale=self.scale)
        sys.stdout.write("ready %s\n" % self.unique_name)
        sys.stdout.flush()

        def stop():
            self.log.event("exit", reason="signal")
            self.loop.quit()
            return False
        GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGTERM, stop)
        GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGINT, stop)
        GLib.idle_add(self.prebuild, priority=GLib.PRIORITY_LOW)
        self.loop.run()
        for d in self.devices:
            for s in d.services:
                for c in s.characteristics:
                    if c.sock is not None:
                        c.sock.close()


def value_message(path, data):
    msg = dbus.lowlevel.SignalMessage(path, I_PROPS, "PropertiesChanged")
    msg.append(I_CHAR, {"Value": dbus.ByteArray(data)}, EMPTY_AS, signature="sa{sv}as")
    return msg


EMPTY_AS = dbus.Array([], signature="s")


def _pad(buffer, alignment):
    buffer += b"\0" * (-len(buffer) % alignment)


def _string(buffer, text):
    _pad(buffer, 4)
    data = text.encode()
    buffer += struct.pack("<I", len(data)) + data + b"\0"


def value_signal_bytes(path, data, serial):
    """The message `value_message(path, data)` builds, marshalled as libdbus marshals it
    (little-endian, NO_REPLY_EXPECTED, header fields path, interface, member, signature),
    with `serial`: PropertiesChanged("org.bluez.GattCharacteristic1", {"Value": <ay>}, [])."""
    body = bytearray()
    _string(body, I_CHAR)
    _pad(body, 4)
    length_at = len(body)
    body += b"\0\0\0\0"  # the a{sv}'s length, below
    _pad(body, 8)
    entries_at = len(body)
    _string(body, "Value")
    body += b"\x02ay\0"
    _pad(body, 4)
    body += struct.pack("<I", len(data)) + bytes(data)
    struct.pack_into("<I", body, length_at, len(body) - entries_at)
    _pad(body, 4)
    body += struct.pack("<I", 0)  # as: empty
    fields = bytearray(16)  # the fixed header and the fields' length come first
    for code, kind, value in ((1, "o", path), (2, "s", I_PROPS), (3, "s", "PropertiesChanged")):
        _pad(fields, 8)
        fields += bytes((code, 1, ord(kind), 0))
        _string(fields, value)
    _pad(fields, 8)
    fields += b"\x08\x01g\x00\x08sa{sv}as\x00"
    struct.pack_into("<cBBBIII", fields, 0, b"l", 4, 1, 1, len(body), serial, len(fields) - 16)
    _pad(fields, 8)
    return bytes(fields + body)


def _idx(index):
    return "null" if index is None else str(index)


def _has_sig(value, sig):
    """Whether a value unpacked from a variant had D-Bus signature `sig`."""
    kinds = {"s": (dbus.String,), "b": (dbus.Boolean,), "n": (dbus.Int16,), "q": (dbus.UInt16,),
             "u": (dbus.UInt32,), "as": (dbus.Array,)}
    if sig == "as":
        return isinstance(value, dbus.Array) and value.signature == "s"
    return isinstance(value, kinds[sig])


FakeBluez.METHODS = {
    (I_ADAPTER, "SetDiscoveryFilter", "a{sv}"): FakeBluez.set_discovery_filter,
    (I_ADAPTER, "GetDiscoveryFilters", ""): FakeBluez.get_discovery_filters,
    (I_ADAPTER, "StartDiscovery", ""): FakeBluez.start_discovery,
    (I_ADAPTER, "StopDiscovery", ""): FakeBluez.stop_discovery,
    (I_ADAPTER, "RemoveDevice", "o"): FakeBluez.remove_device,
    (I_DEVICE, "Connect", ""): FakeBluez.device_connect,
    (I_DEVICE, "Disconnect", ""): FakeBluez.device_disconnect,
    (I_CHAR, "StartNotify", ""): FakeBluez.start_notify,
    (I_CHAR, "StopNotify", ""): FakeBluez.stop_notify,
    (I_CHAR, "AcquireNotify", "a{sv}"): FakeBluez.acquire_notify,
    (I_CHAR, "ReadValue", "a{sv}"): FakeBluez.read_value,
    (I_CHAR, "WriteValue", "aya{sv}"): FakeBluez.write_value,
    (I_DESC, "ReadValue", "a{sv}"): FakeBluez.desc_read_value,
    (I_DESC, "WriteValue", "aya{sv}"): FakeBluez.desc_write_value,
    (I_AGENT_MGR, "RegisterAgent", "os"): FakeBluez.agent_ok,
    (I_AGENT_MGR, "UnregisterAgent", "o"): FakeBluez.agent_ok,
    (I_AGENT_MGR, "RequestDefaultAgent", "o"): FakeBluez.agent_ok,
}


def _iface_xml(name, methods=(), signals=(), props=()):
    out = ['<interface name="%s">' % name]
    for m, args in methods:
        out.append('<method name="%s">%s</method>' % (m, "".join(
            '<arg name="%s" type="%s" direction="%s"/>' % a for a in args)))
    for s, args in signals:
        out.append('<signal name="%s">%s</signal>' % (s, "".join(
            '<arg name="%s" type="%s"/>' % a for a in args)))
    for p, t, access in props:
        out.append('<property name="%s" type="%s" access="%s"/>' % (p, t, access))
    out.append("</interface>")
    return "".join(out)


INTROSPECT_IFACES = {
    I_INTRO: _iface_xml(I_INTRO, [("Introspect", [("xml", "s", "out")])]),
    I_OM: _iface_xml(I_OM, [("GetManagedObjects", [("objects", "a{oa{sa{sv}}}", "out")])],
                     [("InterfacesAdded", [("object", "o"), ("interfaces", "a{sa{sv}}")]),
                      ("InterfacesRemoved", [("object", "o"), ("interfaces", "as")])]),
    I_PROPS: _iface_xml(I_PROPS, [
        ("Get", [("interface", "s", "in"), ("name", "s", "in"), ("value", "v", "out")]),
        ("Set", [("interface", "s", "in"), ("name", "s", "in"), ("value", "v", "in")]),
        ("GetAll", [("interface", "s", "in"), ("properties", "a{sv}", "out")])],
        [("PropertiesChanged", [("interface", "s"), ("changed_properties", "a{sv}"),
                                ("invalidated_properties", "as")])]),
    I_AGENT_MGR: _iface_xml(I_AGENT_MGR, [
        ("RegisterAgent", [("agent", "o", "in"), ("capability", "s", "in")]),
        ("UnregisterAgent", [("agent", "o", "in")]),
        ("RequestDefaultAgent", [("agent", "o", "in")])]),
    I_ADAPTER: _iface_xml(I_ADAPTER, [
        ("StartDiscovery", []), ("SetDiscoveryFilter", [("properties", "a{sv}", "in")]),
        ("StopDiscovery", []), ("RemoveDevice", [("device", "o", "in")]),
        ("GetDiscoveryFilters", [("filters", "as", "out")])], [], [
        ("Address", "s", "read"), ("AddressType", "s", "read"), ("Name", "s", "read"),
        ("Alias", "s", "readwrite"), ("Class", "u", "read"), ("Powered", "b", "readwrite"),
        ("Discoverable", "b", "readwrite"), ("DiscoverableTimeout", "u", "readwrite"),
        ("Pairable", "b", "readwrite"), ("PairableTimeout", "u", "readwrite"),
        ("Discovering", "b", "read"), ("UUIDs", "as", "read"), ("Modalias", "s", "read"),
        ("Roles", "as", "read")]),
    I_DEVICE: _iface_xml(I_DEVICE, [("Disconnect", []), ("Connect", [])], [], [
        ("Address", "s", "read"), ("AddressType", "s", "read"), ("Name", "s", "read"),
        ("Alias", "s", "readwrite"), ("Paired", "b", "read"), ("Bonded", "b", "read"),
        ("Trusted", "b", "readwrite"), ("Blocked", "b", "readwrite"),
        ("LegacyPairing", "b", "read"), ("RSSI", "n", "read"), ("TxPower", "n", "read"),
        ("Connected", "b", "read"), ("UUIDs", "as", "read"), ("Adapter", "o", "read"),
        ("ManufacturerData", "a{qv}", "read"), ("ServiceData", "a{sv}", "read"),
        ("ServicesResolved", "b", "read")]),
    I_SERVICE: _iface_xml(I_SERVICE, [], [], [
        ("UUID", "s", "read"), ("Device", "o", "read"), ("Primary", "b", "read"),
        ("Includes", "ao", "read"), ("Handle", "q", "read")]),
    I_CHAR: _iface_xml(I_CHAR, [
        ("ReadValue", [("options", "a{sv}", "in"), ("value", "ay", "out")]),
        ("WriteValue", [("value", "ay", "in"), ("options", "a{sv}", "in")]),
        ("AcquireNotify", [("options", "a{sv}", "in"), ("fd", "h", "out"), ("mtu", "q", "out")]),
        ("StartNotify", []), ("StopNotify", [])], [], [
        ("UUID", "s", "read"), ("Service", "o", "read"), ("Value", "ay", "read"),
        ("Notifying", "b", "read"), ("Flags", "as", "read"), ("NotifyAcquired", "b", "read"),
        ("Handle", "q", "read"), ("MTU", "q", "read")]),
    I_DESC: _iface_xml(I_DESC, [
        ("ReadValue", [("options", "a{sv}", "in"), ("value", "ay", "out")]),
        ("WriteValue", [("value", "ay", "in"), ("options", "a{sv}", "in")])], [], [
        ("UUID", "s", "read"), ("Characteristic", "o", "read"), ("Value", "ay", "read"),
        ("Flags", "as", "read"), ("Handle", "q", "read")]),
}


def main(argv=None):
    p = argparse.ArgumentParser(description="A fake BlueZ (org.bluez) for tests.")
    p.add_argument("--address", required=True, help="bus address (unix:path=…)")
    p.add_argument("--scenario", required=True, help="scenario JSON file")
    p.add_argument("--log", required=True, help="event log (JSON lines) to write")
    p.add_argument("--time-scale", type=float, default=1.0,
                   help="multiplies every *_ms of the scenario (default 1)")
    p.add_argument("--batch-signals", action="store_true",
                   help="write the stream's Value signals to the bus socket many per write "
                        "(the same messages; for benchmarks, where libdbus's one write per "
                        "message would bound the rate)")
    args = p.parse_args(argv)
    # A child started from a thread that blocks signals (libdispatch's workers do, so
    # Foundation's Process from a Swift test) inherits that mask: SIGTERM would never arrive.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    if args.time_scale < 0:
        p.error("--time-scale must be >= 0")
    try:
        with open(args.scenario) as f:
            scenario = json.load(f)
        DBusGMainLoop(set_as_default=True)
        fake = FakeBluez(args, scenario)
    except (ScenarioError, KeyError, ValueError, TypeError, OSError) as e:
        sys.stderr.write("fake_bluez: bad scenario %s: %s: %s\n" % (args.scenario, type(e).__name__, e))
        return 2
    try:
        fake.run()
    except dbus.exceptions.DBusException as e:
        sys.stderr.write("fake_bluez: D-Bus error: %s\n" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
