"""The Python face of libmineru-client: a Client over one connection to minerud."""
import ctypes
import dataclasses
import json
import os
import pathlib
from typing import Callable, Dict, Iterator, List, Optional, Tuple, Union

from . import _lib
from ._lib import lib


class MineruError(Exception):
    """A failed call: `code` is the C API's error name ("BUSY", "UNAVAILABLE", "NOT_FOUND", ...)."""

    def __init__(self, rc: int, message: str):
        self.code = _lib.ERR_NAMES.get(-rc, "UNKNOWN")
        self.rc = rc
        self.message = message or lib.mineru_client_strerror(rc).decode()
        super().__init__(f"{self.message} ({self.code})")


@dataclasses.dataclass
class JobStatus:
    job_id: int
    state: str  # "queued", "running", "done", "failed", "cancelled"
    name: str
    backend: str
    pages_done: int
    pages_total: int
    owner_uid: int
    submitted_unix_ms: int
    finished_unix_ms: int
    document_bytes: int
    error: str  # "" unless failed or cancelled

    @staticmethod
    def _from_c(s: "_lib.JobStatus") -> "JobStatus":
        return JobStatus(s.job_id, _lib.JOB_STATES.get(s.state, "unknown"), s.name.decode(),
                         s.backend.decode(), s.pages_done, s.pages_total, s.owner_uid, s.submitted_unix_ms,
                         s.finished_unix_ms, s.document_bytes, s.error.decode())


@dataclasses.dataclass
class Page:
    """One finished page, streamed while its job runs (Client(page_results=True))."""
    job_id: int
    page_index: int  # 0-based, in the document
    markdown: str
    content_list: list  # the page's content-list items
    model_output: str  # the model's raw text; "" for the text layer

    @staticmethod
    def _from_c(p: "_lib.Page") -> "Page":
        items = _lib.text(p.content_list, p.content_list_size)
        return Page(p.job_id, p.page_index, _lib.text(p.markdown, p.markdown_size),
                    json.loads(items) if items else [], _lib.text(p.model_output, p.model_output_size))


@dataclasses.dataclass
class Event:
    """A job event (Client.events): kind "progress", "page", "done" or "failed"."""
    kind: str
    job_id: int
    pages_done: int = 0
    pages_total: int = 0
    page: Optional[Page] = None
    error: str = ""


_EVENT_KINDS = {_lib.EVENT_PROGRESS: "progress", _lib.EVENT_PAGE: "page", _lib.EVENT_DONE: "done",
                _lib.EVENT_FAILED: "failed"}


def version() -> str:
    """The version of the libmineru-client this binding loaded."""
    return lib.mineru_version().decode()


class Client:
    """One connection to minerud. Use it from one thread at a time; close it (or use `with`).

    socket_path None finds the daemon as every client does ($MINERU_SOCKET, client.conf, the user's
    own daemon, the system daemon). page_results streams each finished page to wait(on_page=...)
    and events().
    """

    def __init__(self, socket_path: Optional[str] = None, *, page_results: bool = False,
                 client_name: str = "python", connect_timeout_ms: int = 5000):
        options = _lib.sized(_lib.ConnectOptions)
        lib.mineru_connect_options_init(ctypes.byref(options), ctypes.sizeof(options))
        options.socket_path = os.fsencode(socket_path) if socket_path is not None else None
        options.flags = _lib.CONNECT_PAGE_RESULTS if page_results else 0
        options.client_name = client_name.encode()
        options.connect_timeout_ms = connect_timeout_ms
        handle = ctypes.c_void_p()
        rc = lib.mineru_client_connect_opts(ctypes.byref(options), ctypes.byref(handle))
        if rc < 0:
            raise MineruError(rc, lib.mineru_client_last_error(None).decode())
        self._handle = handle

    def close(self) -> None:
        if self._handle:
            lib.mineru_client_close(self._handle)
            self._handle = None

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        self.close()

    def _check(self, rc: int) -> int:
        if rc < 0:
            raise MineruError(rc, lib.mineru_client_last_error(self._handle).decode())
        return rc

    @property
    def handle(self) -> ctypes.c_void_p:
        if not self._handle:
            raise MineruError(-1, "the client is closed")
        return self._handle

    @property
    def daemon_version(self) -> str:
        return lib.mineru_client_daemon_version(self.handle).decode()

    @property
    def socket_path(self) -> str:
        return os.fsdecode(lib.mineru_client_socket_path(self.handle))

    def ping(self) -> float:
        """Round trip time of an empty message, in microseconds."""
        rtt = ctypes.c_double()
        self._check(lib.mineru_client_ping(self.handle, ctypes.byref(rtt)))
        return rtt.value

    def submit(self, document: Union[str, os.PathLike, bytes], *, name: Optional[str] = None,
               detach: bool = False, backend: Optional[str] = None,
               pages: Optional[Tuple[int, int]] = None) -> int:
        """Submits a PDF (a path, or its bytes) and returns the job id.

        name: the outputs' base name (default: the file's name without .pdf; required for bytes).
        detach: the job outlives this connection (fetch its results later, from any connection).
        backend: "auto" (default), "text" or "vlm". pages: (first, last), 0-based and inclusive.
        """
        if isinstance(document, (bytes, bytearray, memoryview)):
            data = bytes(document)
            if name is None:
                raise ValueError("submitting bytes needs a name")
        else:
            path = pathlib.Path(document)
            data = path.read_bytes()
            if name is None:
                name = path.stem
        options = _lib.sized(_lib.SubmitOptions)
        lib.mineru_submit_options_init(ctypes.byref(options), ctypes.sizeof(options))
        options.name = name.encode()
        options.detach = 1 if detach else 0
        options.backend = backend.encode() if backend else None
        if pages is not None:
            options.first_page, options.last_page = pages
        job = ctypes.c_uint64()
        self._check(lib.mineru_client_submit_opts(self.handle, data, len(data), ctypes.byref(options),
                                                  ctypes.byref(job)))
        return job.value

    def wait(self, job_id: int, *, on_progress: Optional[Callable[[int, int], None]] = None,
             on_page: Optional[Callable[[Page], None]] = None,
             timeout: Optional[float] = None) -> JobStatus:
        """Waits for the job to end and returns its final status (a failed job is a status, not an
        exception). on_progress(pages_done, pages_total) sees each page; on_page(Page) receives each
        finished page of a job this client submitted (with page_results). timeout in seconds
        (MineruError DEADLINE_EXCEEDED; the job goes on)."""
        raised: List[BaseException] = []

        def progress(_user, _job, done, total):
            if on_progress is not None and not raised:
                try:
                    on_progress(done, total)
                except BaseException as e:  # re-raised once the C call returns
                    raised.append(e)

        def page(_user, p):
            if on_page is not None and not raised:
                try:
                    on_page(Page._from_c(p.contents))
                except BaseException as e:
                    raised.append(e)

        progress_fn, page_fn = _lib.PROGRESS_FN(progress), _lib.PAGE_FN(page)
        state = ctypes.c_int(-1)
        timeout_ms = -1 if timeout is None else int(timeout * 1000)
        self._check(lib.mineru_client_wait_pages(self.handle, job_id, progress_fn, page_fn, None, timeout_ms,
                                                 ctypes.byref(state)))
        if raised:
            raise raised[0]
        return self.status(job_id)

    def status(self, job_id: int) -> JobStatus:
        s = _lib.sized(_lib.JobStatus)
        self._check(lib.mineru_client_status(self.handle, job_id, ctypes.byref(s)))
        return JobStatus._from_c(s)

    def list(self, all_users: bool = False) -> List[JobStatus]:
        """Your jobs (every user's with all_users, for root and the admin group)."""
        handle = ctypes.c_void_p()
        self._check(lib.mineru_client_list(self.handle, 1 if all_users else 0, ctypes.byref(handle)))
        try:
            jobs = []
            for i in range(lib.mineru_job_list_count(handle)):
                s = _lib.sized(_lib.JobStatus)
                lib.mineru_job_list_get(handle, i, ctypes.byref(s))
                jobs.append(JobStatus._from_c(s))
            return jobs
        finally:
            lib.mineru_job_list_free(handle)

    def cancel(self, job_id: int) -> None:
        self._check(lib.mineru_client_cancel(self.handle, job_id))

    def cancel_all(self) -> List[int]:
        """Cancels every job of yours that has not ended; returns their ids."""
        count = ctypes.c_size_t()
        ids = (ctypes.c_uint64 * 1024)()
        self._check(lib.mineru_client_cancel_all(self.handle, ids, len(ids), ctypes.byref(count)))
        return list(ids[:min(count.value, len(ids))])

    def fetch(self, job_id: int) -> Dict[str, bytes]:
        """A finished job's output files by relative path ("paper.md", "images/<hash>.jpg").
        Fetching removes them from the daemon."""
        handle = ctypes.c_void_p()
        self._check(lib.mineru_client_fetch(self.handle, job_id, ctypes.byref(handle)))
        try:
            files = {}
            for i in range(lib.mineru_result_count(handle)):
                f = _lib.ResultFile()
                lib.mineru_result_get(handle, i, ctypes.byref(f))
                files[f.path.decode()] = ctypes.string_at(f.data, f.size) if f.size else b""
            return files
        finally:
            lib.mineru_result_free(handle)

    def fetch_to(self, job_id: int, folder: Union[str, os.PathLike]) -> List[pathlib.Path]:
        """Fetches the job's outputs and writes them under `folder`; returns the paths written."""
        folder = pathlib.Path(folder)
        written = []
        for relative, data in self.fetch(job_id).items():
            target = folder / relative  # the library checked: a plain name, or images/<name>
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(target.name + ".part")
            tmp.write_bytes(data)
            os.replace(tmp, target)
            written.append(target)
        return written

    def stats(self) -> dict:
        """The daemon's counters and memory tiers: {"counters": {...}, "tiers": [{...}, ...]}."""
        handle = ctypes.c_void_p()
        self._check(lib.mineru_client_stats(self.handle, ctypes.byref(handle)))
        try:
            counters = {}
            for i in range(lib.mineru_stats_counter_count(handle)):
                name, value = ctypes.c_char_p(), ctypes.c_double()
                lib.mineru_stats_counter_get(handle, i, ctypes.byref(name), ctypes.byref(value))
                counters[name.value.decode()] = value.value
            tiers = []
            for i in range(lib.mineru_stats_tier_count(handle)):
                t = _lib.sized(_lib.TierStats)
                lib.mineru_stats_tier_get(handle, i, ctypes.byref(t))
                tiers.append({"tier": t.tier.decode(), "budget_bytes": t.budget_bytes, "used_bytes": t.used_bytes,
                              "peak_bytes": t.peak_bytes, "units_resident": t.units_resident})
            return {"counters": counters, "tiers": tiers}
        finally:
            lib.mineru_stats_free(handle)

    # ---- For an event loop (selectors, asyncio's add_reader): poll fileno(), then drain events(0).

    def fileno(self) -> int:
        """The descriptor to poll for reading; after it polls readable, drain events(timeout=0)."""
        return self._check(lib.mineru_client_fd(self.handle))

    def watch(self, job_id: int) -> None:
        """Streams the events of a job this client did not submit (or submitted detached)."""
        self._check(lib.mineru_client_watch(self.handle, job_id))

    def events(self, timeout: Optional[float] = 0) -> Iterator[Event]:
        """The events that come within `timeout` seconds of each other (0: those already here;
        None: no limit), for jobs this client submitted or watches."""
        timeout_ms = -1 if timeout is None else int(timeout * 1000)
        while True:
            ev = _lib.sized(_lib.Event)
            if self._check(lib.mineru_client_next_event(self.handle, timeout_ms, ctypes.byref(ev))) == 0:
                return
            page = Page._from_c(ev.page.contents) if ev.type == _lib.EVENT_PAGE else None
            yield Event(_EVENT_KINDS.get(ev.type, "unknown"), ev.job_id, ev.pages_done, ev.pages_total, page,
                        (ev.error or b"").decode())
