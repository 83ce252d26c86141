#!/usr/bin/python3
"""The peer of the capture benchmark: a dbus-python client that does what a
recorder's D-Bus side does against the fake BlueZ (discover the device,
Connect, StartNotify on one characteristic) and receives its Value
notifications, decoding each one's bytes and nothing more.

    dbus_python_receiver.py BUS_ADDRESS DEVICE_PATH CHAR_UUID COUNT

Prints one JSON line: {"count": N, "seconds": first-to-last receive time, "rate": N/s,
"cpu": this process's CPU seconds over the same span, "switches": its context switches then}.
"""
import json
import resource
import sys
import time

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

address, device_path, char_uuid, total = sys.argv[1], sys.argv[2], sys.argv[3].lower(), int(sys.argv[4])
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(address)
loop = GLib.MainLoop()
om = dbus.Interface(bus.get_object("org.bluez", "/"), "org.freedesktop.DBus.ObjectManager")
adapter = dbus.Interface(bus.get_object("org.bluez", "/org/bluez/hci0"), "org.bluez.Adapter1")


def until(condition, timeout=30):
    deadline = time.monotonic() + timeout
    ctx = loop.get_context()
    while not condition():
        if time.monotonic() > deadline:
            sys.exit("timed out")
        ctx.iteration(True)


objects = {}


def added(path, interfaces):
    objects[str(path)] = interfaces


bus.add_signal_receiver(added, "InterfacesAdded", "org.freedesktop.DBus.ObjectManager", "org.bluez", "/")
adapter.SetDiscoveryFilter({"Transport": "le", "DuplicateData": False})
adapter.StartDiscovery()
until(lambda: device_path in objects)
adapter.StopDiscovery()
dbus.Interface(bus.get_object("org.bluez", device_path), "org.bluez.Device1").Connect(timeout=30)
char_path = next(str(p) for p, i in om.GetManagedObjects().items()
                 if str(p).startswith(device_path + "/")
                 and str(i.get("org.bluez.GattCharacteristic1", {}).get("UUID", "")) == char_uuid)

state = {"count": 0, "t0": None, "t1": None, "bytes": 0}


def switches():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_nvcsw + usage.ru_nivcsw


def counter(conn, msg):
    if msg.get_member() == "PropertiesChanged" and msg.get_path() == char_path:
        args = msg.get_args_list(byte_arrays=True)
        value = args[1].get("Value") if len(args) > 1 else None
        if value is not None:
            state["bytes"] += len(bytes(value))
            state["count"] += 1
            if state["count"] == 1:
                state["t0"] = time.monotonic()
                state["cpu0"] = time.process_time()
                state["switches0"] = switches()
            if state["count"] == total:
                state["t1"] = time.monotonic()
                state["cpu1"] = time.process_time()
                state["switches1"] = switches()
    return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED


bus.add_match_string("type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',"
                     "member='PropertiesChanged',path_namespace='%s'" % device_path)
bus.add_message_filter(counter)
dbus.Interface(bus.get_object("org.bluez", char_path), "org.bluez.GattCharacteristic1").StartNotify()
until(lambda: state["t1"] is not None, timeout=120)
seconds = state["t1"] - state["t0"]
print(json.dumps({"count": state["count"], "seconds": seconds, "rate": (total - 1) / seconds,
                  "cpu": state["cpu1"] - state["cpu0"], "switches": state["switches1"] - state["switches0"]}))
