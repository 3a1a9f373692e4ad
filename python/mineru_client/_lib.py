"""ctypes declarations of libmineru-client's C API (include/mineru/client_c.h).

The library is found at $MINERU_CLIENT_LIBRARY, else by the dynamic linker's usual search
(libmineru-client.so.0 from the package or `cmake --install`).
"""
import ctypes
import ctypes.util
import os

c_size_t = ctypes.c_size_t
c_char_p = ctypes.c_char_p
c_int = ctypes.c_int
c_uint = ctypes.c_uint
c_uint32 = ctypes.c_uint32
c_uint64 = ctypes.c_uint64
c_int64 = ctypes.c_int64
c_double = ctypes.c_double
c_void_p = ctypes.c_void_p
POINTER = ctypes.POINTER

ERR_NAMES = {
    1: "INVALID_ARGUMENT", 2: "NOT_FOUND", 3: "ALREADY_EXISTS", 4: "PERMISSION_DENIED",
    5: "RESOURCE_EXHAUSTED", 6: "BUSY", 7: "FAILED_PRECONDITION", 8: "OUT_OF_RANGE", 9: "CANCELLED",
    10: "DEADLINE_EXCEEDED", 11: "DATA_LOSS", 12: "UNAVAILABLE", 13: "UNIMPLEMENTED", 14: "IO",
    15: "INTERNAL",
}
JOB_STATES = {0: "queued", 1: "running", 2: "done", 3: "failed", 4: "cancelled"}
CONNECT_PAGE_RESULTS = 1
EVENT_PROGRESS, EVENT_PAGE, EVENT_DONE, EVENT_FAILED = 1, 2, 3, 4


class ConnectOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("socket_path", c_char_p), ("flags", c_uint),
                ("client_name", c_char_p), ("ring_bytes", c_uint64), ("connect_timeout_ms", c_int64)]


class SubmitOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("name", c_char_p), ("detach", c_int), ("backend", c_char_p),
                ("first_page", c_uint32), ("last_page", c_uint32)]


class Page(ctypes.Structure):
    _fields_ = [("job_id", c_uint64), ("page_index", c_uint32),
                ("markdown", c_void_p), ("markdown_size", c_size_t),
                ("content_list", c_void_p), ("content_list_size", c_size_t),
                ("model_output", c_void_p), ("model_output_size", c_size_t)]


class JobStatus(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("job_id", c_uint64), ("owner_uid", c_uint32), ("state", c_int),
                ("pages_done", c_uint32), ("pages_total", c_uint32), ("submitted_unix_ms", c_int64),
                ("finished_unix_ms", c_int64), ("document_bytes", c_uint64), ("error_code", c_int),
                ("name", c_char_p), ("backend", c_char_p), ("error", c_char_p)]


class ResultFile(ctypes.Structure):
    _fields_ = [("path", c_char_p), ("data", c_void_p), ("size", c_size_t)]


class Event(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("type", c_int), ("job_id", c_uint64), ("pages_done", c_uint32),
                ("pages_total", c_uint32), ("error_code", c_int), ("error", c_char_p),
                ("page", POINTER(Page))]


class TierStats(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("tier", c_char_p), ("budget_bytes", c_uint64),
                ("used_bytes", c_uint64), ("peak_bytes", c_uint64), ("units_resident", c_uint32)]


PROGRESS_FN = ctypes.CFUNCTYPE(None, c_void_p, c_uint64, c_uint32, c_uint32)
PAGE_FN = ctypes.CFUNCTYPE(None, c_void_p, POINTER(Page))

# name: (result type, argument types)
_SIGNATURES = {
    "mineru_version": (c_char_p, []),
    "mineru_version_number": (c_uint32, []),
    "mineru_connect_options_init": (c_int, [POINTER(ConnectOptions), c_size_t]),
    "mineru_client_connect_opts": (c_int, [POINTER(ConnectOptions), POINTER(c_void_p)]),
    "mineru_client_close": (None, [c_void_p]),
    "mineru_client_last_error": (c_char_p, [c_void_p]),
    "mineru_client_strerror": (c_char_p, [c_int]),
    "mineru_client_daemon_version": (c_char_p, [c_void_p]),
    "mineru_client_socket_path": (c_char_p, [c_void_p]),
    "mineru_client_ping": (c_int, [c_void_p, POINTER(c_double)]),
    "mineru_submit_options_init": (c_int, [POINTER(SubmitOptions), c_size_t]),
    "mineru_client_submit_opts": (c_int, [c_void_p, c_char_p, c_size_t, POINTER(SubmitOptions),
                                          POINTER(c_uint64)]),
    "mineru_client_wait_pages": (c_int, [c_void_p, c_uint64, PROGRESS_FN, PAGE_FN, c_void_p, c_int64,
                                         POINTER(c_int)]),
    "mineru_client_status": (c_int, [c_void_p, c_uint64, POINTER(JobStatus)]),
    "mineru_client_list": (c_int, [c_void_p, c_int, POINTER(c_void_p)]),
    "mineru_job_list_count": (c_size_t, [c_void_p]),
    "mineru_job_list_get": (c_int, [c_void_p, c_size_t, POINTER(JobStatus)]),
    "mineru_job_list_free": (None, [c_void_p]),
    "mineru_client_cancel": (c_int, [c_void_p, c_uint64]),
    "mineru_client_cancel_all": (c_int, [c_void_p, POINTER(c_uint64), c_size_t, POINTER(c_size_t)]),
    "mineru_client_fetch": (c_int, [c_void_p, c_uint64, POINTER(c_void_p)]),
    "mineru_result_count": (c_size_t, [c_void_p]),
    "mineru_result_get": (c_int, [c_void_p, c_size_t, POINTER(ResultFile)]),
    "mineru_result_free": (None, [c_void_p]),
    "mineru_client_fd": (c_int, [c_void_p]),
    "mineru_client_watch": (c_int, [c_void_p, c_uint64]),
    "mineru_client_next_event": (c_int, [c_void_p, c_int64, POINTER(Event)]),
    "mineru_client_stats": (c_int, [c_void_p, POINTER(c_void_p)]),
    "mineru_stats_counter_count": (c_size_t, [c_void_p]),
    "mineru_stats_counter_get": (c_int, [c_void_p, c_size_t, POINTER(c_char_p), POINTER(c_double)]),
    "mineru_stats_tier_count": (c_size_t, [c_void_p]),
    "mineru_stats_tier_get": (c_int, [c_void_p, c_size_t, POINTER(TierStats)]),
    "mineru_stats_free": (None, [c_void_p]),
}


def _load():
    path = os.environ.get("MINERU_CLIENT_LIBRARY") or ctypes.util.find_library("mineru-client") \
        or "libmineru-client.so.0"
    lib = ctypes.CDLL(path)
    for name, (restype, argtypes) in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


lib = _load()


def sized(struct_type):
    """A size-versioned struct as the C API expects it: zeroed, struct_size set."""
    value = struct_type()
    value.struct_size = ctypes.sizeof(struct_type)
    return value


def text(pointer, size):
    """The UTF-8 text at a (pointer, size) pair of the C API."""
    return ctypes.string_at(pointer, size).decode("utf-8", "replace") if size else ""
