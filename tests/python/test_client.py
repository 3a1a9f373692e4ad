"""The Python binding (python/mineru_client) against the real minerud and libmineru-client.so."""
import os
import pathlib
import selectors
import tempfile
import unittest

import mineru_client
from mineru_client import Client, MineruError

from daemon import SAMPLE_PAGES, SAMPLE_PDF, Daemon


class ClientTest(unittest.TestCase):
    def setUp(self):
        self.daemon = Daemon()
        self.addCleanup(lambda: self.daemon.stop())  # whichever daemon the test left in self.daemon

    def connect(self, **kwargs) -> Client:
        client = Client(self.daemon.socket_path, **kwargs)
        self.addCleanup(client.close)
        return client

    def test_version_ping_and_where_it_connected(self):
        c = self.connect()
        self.assertRegex(mineru_client.version(), r"^\d+\.\d+\.\d+$")
        self.assertEqual(c.daemon_version, mineru_client.version())
        self.assertEqual(c.socket_path, self.daemon.socket_path)
        self.assertGreater(c.ping(), 0)

    def test_connect_error_names_the_socket(self):
        missing = os.path.join(self.daemon.dir, "nobody.sock")
        with self.assertRaises(MineruError) as caught:
            Client(missing)
        self.assertEqual(caught.exception.code, "UNAVAILABLE")
        self.assertIn(missing, str(caught.exception))

    def test_submit_a_file_wait_with_pages_and_fetch(self):
        c = self.connect(page_results=True)
        job = c.submit(SAMPLE_PDF)
        pages, progress = [], []
        status = c.wait(job, on_progress=lambda done, total: progress.append((done, total)),
                        on_page=pages.append)
        self.assertEqual(status.state, "done", status.error)
        self.assertEqual(status.name, "sample")
        self.assertEqual(status.pages_total, SAMPLE_PAGES)
        self.assertEqual([p.page_index for p in pages], list(range(SAMPLE_PAGES)))
        self.assertTrue(all(p.job_id == job and p.markdown for p in pages))
        self.assertTrue(all(isinstance(p.content_list, list) and p.content_list for p in pages))
        self.assertEqual(progress[-1], (SAMPLE_PAGES, SAMPLE_PAGES))
        self.assertEqual(progress, sorted(progress))
        files = c.fetch(job)
        markdown = files["sample.md"].decode()
        # The document's Markdown is its pages' Markdown, in order.
        for p in pages:
            self.assertIn(p.markdown.strip().splitlines()[0], markdown)
        self.assertIn("sample_content_list.json", files)
        self.assertIn("sample_middle.json", files)
        with self.assertRaises(MineruError) as again:
            c.fetch(job)
        self.assertEqual(again.exception.code, "NOT_FOUND")

    def test_submit_bytes_with_a_page_range_and_fetch_to_a_folder(self):
        c = self.connect()
        with self.assertRaises(ValueError):
            c.submit(SAMPLE_PDF.read_bytes())
        self.assertGreaterEqual(SAMPLE_PAGES, 2)
        job = c.submit(SAMPLE_PDF.read_bytes(), name="middle", pages=(1, SAMPLE_PAGES - 1), backend="text")
        status = c.wait(job, timeout=60)
        self.assertEqual((status.state, status.pages_total), ("done", SAMPLE_PAGES - 1))
        with tempfile.TemporaryDirectory() as out:
            written = c.fetch_to(job, out)
            self.assertIn(pathlib.Path(out) / "middle.md", written)
            self.assertTrue((pathlib.Path(out) / "middle.md").read_text())
            self.assertFalse(list(pathlib.Path(out).rglob("*.part")))

    def test_status_list_cancel_and_cancel_all(self):
        self.daemon.stop()
        # One worker and sixteen jobs: the last ones still wait in the queue when they are cancelled,
        # however fast one document parses.
        self.daemon = Daemon("--workers", "1")
        c = self.connect()
        pdf = SAMPLE_PDF.read_bytes()
        jobs = [c.submit(pdf, name=f"doc{i}", detach=True) for i in range(16)]
        c.cancel(jobs[-1])
        self.assertEqual(c.status(jobs[-1]).state, "cancelled")
        cancelled = c.cancel_all()
        self.assertGreaterEqual(len(cancelled), 2)
        self.assertNotIn(jobs[-1], cancelled)
        self.assertTrue(set(cancelled) <= set(jobs))
        for job in jobs:
            self.assertIn(c.wait(job, timeout=60).state, ("done", "cancelled"))
        listed = c.list()
        self.assertEqual(sorted(j.job_id for j in listed), sorted(jobs))
        self.assertEqual({j.name for j in listed}, {f"doc{i}" for i in range(16)})
        with self.assertRaises(MineruError) as caught:
            c.cancel(987654)
        self.assertEqual(caught.exception.code, "NOT_FOUND")
        self.assertIn("no job 987654", str(caught.exception))
        stats = c.stats()
        self.assertEqual(stats["counters"]["jobs_queued"], 0)

    def test_events_in_an_event_loop(self):
        c = self.connect(page_results=True)
        job = c.submit(SAMPLE_PDF, name="loop")
        selector = selectors.DefaultSelector()
        selector.register(c, selectors.EVENT_READ)
        kinds, pages = [], []
        while "done" not in kinds and "failed" not in kinds:
            self.assertTrue(selector.select(timeout=60), "no event within a minute")
            for ev in c.events(timeout=0):
                self.assertEqual(ev.job_id, job)
                kinds.append(ev.kind)
                if ev.kind == "page":
                    pages.append(ev.page.page_index)
        self.assertEqual(kinds[-1], "done")
        self.assertEqual(pages, list(range(SAMPLE_PAGES)))
        self.assertIn("progress", kinds)
        self.assertEqual(c.wait(job, timeout=5).state, "done")

    def test_an_exception_in_a_callback_reaches_the_caller(self):
        c = self.connect(page_results=True)
        job = c.submit(SAMPLE_PDF)

        def fail(_page):
            raise KeyError("from the callback")

        with self.assertRaises(KeyError):
            c.wait(job, on_page=fail)
        self.assertEqual(c.status(job).state, "done")


if __name__ == "__main__":
    unittest.main()
