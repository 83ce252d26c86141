#ifndef CDBUS_SHIM_H
#define CDBUS_SHIM_H
// Debian's libdbus-1-dev (1.14 on Debian 12), found with pkg-config `dbus-1`.
#include <dbus/dbus.h>
#include <sys/eventfd.h>
#include <stdint.h>
#include <unistd.h>

// The DBUS_TYPE_* codes are defined as `((int) 'y')` casts, which Swift does
// not import; these return them.
static inline int cdbus_type_invalid(void) { return DBUS_TYPE_INVALID; }
static inline int cdbus_type_byte(void) { return DBUS_TYPE_BYTE; }
static inline int cdbus_type_boolean(void) { return DBUS_TYPE_BOOLEAN; }
static inline int cdbus_type_int16(void) { return DBUS_TYPE_INT16; }
static inline int cdbus_type_uint16(void) { return DBUS_TYPE_UINT16; }
static inline int cdbus_type_int32(void) { return DBUS_TYPE_INT32; }
static inline int cdbus_type_uint32(void) { return DBUS_TYPE_UINT32; }
static inline int cdbus_type_int64(void) { return DBUS_TYPE_INT64; }
static inline int cdbus_type_uint64(void) { return DBUS_TYPE_UINT64; }
static inline int cdbus_type_double(void) { return DBUS_TYPE_DOUBLE; }
static inline int cdbus_type_string(void) { return DBUS_TYPE_STRING; }
static inline int cdbus_type_object_path(void) { return DBUS_TYPE_OBJECT_PATH; }
static inline int cdbus_type_signature(void) { return DBUS_TYPE_SIGNATURE; }
static inline int cdbus_type_unix_fd(void) { return DBUS_TYPE_UNIX_FD; }
static inline int cdbus_type_array(void) { return DBUS_TYPE_ARRAY; }
static inline int cdbus_type_variant(void) { return DBUS_TYPE_VARIANT; }
static inline int cdbus_type_struct(void) { return DBUS_TYPE_STRUCT; }
static inline int cdbus_type_dict_entry(void) { return DBUS_TYPE_DICT_ENTRY; }

/// DBUS_TIMEOUT_INFINITE, also a cast.
static inline int cdbus_timeout_infinite(void) { return DBUS_TIMEOUT_INFINITE; }

/// An eventfd for waking the event loop: close-on-exec, non-blocking.
static inline int cdbus_eventfd_open(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

/// Adds 1 to an eventfd's counter, waking whoever polls it.
static inline void cdbus_eventfd_signal(int fd) {
    uint64_t one = 1;
    ssize_t written = write(fd, &one, sizeof one);
    (void) written;  // EAGAIN means the counter is already non-zero: still awake.
}

/// Resets an eventfd's counter to zero.
static inline void cdbus_eventfd_drain(int fd) {
    uint64_t value;
    ssize_t got = read(fd, &value, sizeof value);
    (void) got;  // EAGAIN means there was nothing to drain.
}

#endif
