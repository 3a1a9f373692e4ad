"""mineru_client: Python binding of libmineru-client (ctypes; no build step beyond the library).

    from mineru_client import Client
    with Client(page_results=True) as c:
        job = c.submit("paper.pdf")
        status = c.wait(job, on_page=lambda p: print(p.page_index, len(p.markdown)))
        c.fetch_to(job, "paper.mineru")
"""
from .client import Client, Event, JobStatus, MineruError, Page, version

__all__ = ["Client", "Event", "JobStatus", "MineruError", "Page", "version"]
