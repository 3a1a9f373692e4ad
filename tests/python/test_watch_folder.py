"""examples/watch-folder and mineructl as two clients of one minerud at the same time."""
import os
import pathlib
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import unittest

from mineru_client import Client

from daemon import SAMPLE_PDF, SOURCE_DIR, Daemon

WATCH_FOLDER = SOURCE_DIR / "examples" / "watch-folder" / "watch-folder"


class WatchFolderTest(unittest.TestCase):
    def setUp(self):
        self.daemon = Daemon("--workers", "1")  # one worker: the two clients' jobs share the queue
        self.addCleanup(self.daemon.stop)
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="watch-folder-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.inbox = self.tmp / "inbox"
        self.inbox.mkdir()

    def start_watcher(self, *args):
        watcher = subprocess.Popen([sys.executable, str(WATCH_FOLDER), "--socket", self.daemon.socket_path,
                                    *args, str(self.inbox)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True)
        self.lines = queue.Queue()
        self.skipped = []  # lines read while looking for another kind, in order
        self.reader = threading.Thread(
            target=lambda: [self.lines.put(line.rstrip("\n")) for line in watcher.stdout], daemon=True)
        self.reader.start()
        self.addCleanup(lambda: watcher.poll() is None and (watcher.kill(), watcher.wait()))
        return watcher

    def expect_line(self, prefix, timeout=120):
        """The watcher's next output line that starts with `prefix` (a "failed" line fails the test)."""
        for i, line in enumerate(self.skipped):
            if line.startswith(prefix):
                return self.skipped.pop(i)
        while True:
            line = self.lines.get(timeout=timeout)
            self.assertFalse(line.startswith("failed"), line)
            if line.startswith(prefix):
                return line
            self.skipped.append(line)

    def test_watcher_and_mineructl_share_one_daemon(self):
        shutil.copy(SAMPLE_PDF, self.inbox / "before.pdf")  # there before the watcher starts
        watcher = self.start_watcher()
        self.expect_line("watching")
        # Written in place and moved in: both are noticed.
        for name in ("written", "moved"):
            target = self.inbox / f"{name}.pdf"
            if name == "moved":
                shutil.copy(SAMPLE_PDF, self.tmp / "moved.pdf")
                os.rename(self.tmp / "moved.pdf", target)
            else:
                shutil.copy(SAMPLE_PDF, target)
        submitted = {self.expect_line("submitted").split()[1] for _ in range(3)}
        self.assertEqual(submitted, {str(self.inbox / f"{n}.pdf") for n in ("before", "written", "moved")})
        # mineructl submits while the watcher's jobs are queued or running.
        ctl = subprocess.run([os.environ["MINERUCTL"], "--socket", self.daemon.socket_path, "submit", str(SAMPLE_PDF),
                              "-o", str(self.tmp / "ctl")], capture_output=True, text=True, timeout=300)
        self.assertEqual(ctl.returncode, 0, ctl.stderr)
        done = {self.expect_line("done").split()[1] for _ in range(3)}
        self.assertEqual(done, submitted)
        watcher.send_signal(signal.SIGTERM)
        self.assertEqual(watcher.wait(30), 0)

        reference = (self.tmp / "ctl" / "sample.md").read_text()
        self.assertTrue(reference)
        for name in ("before", "written", "moved"):
            out = self.inbox / f"{name}.mineru"
            # The same document gives the same Markdown through either client (image links aside: the
            # crops are named by content, so they match too).
            self.assertEqual((out / f"{name}.md").read_text(), reference)
            self.assertTrue((out / f"{name}_content_list.json").is_file())
            self.assertFalse((self.inbox / f"{name}.mineru.part").exists())
        # The two clients' jobs overlapped: mineructl's was submitted before the watcher's last ended.
        with Client(self.daemon.socket_path) as c:
            jobs = c.list()
        ctl_job = next(j for j in jobs if j.name == "sample")
        watcher_jobs = [j for j in jobs if j.name != "sample"]
        self.assertEqual(len(watcher_jobs), 3)
        self.assertLess(ctl_job.submitted_unix_ms, max(j.finished_unix_ms for j in watcher_jobs))

    def test_once_parses_what_is_there_and_skips_what_is_done(self):
        shutil.copy(SAMPLE_PDF, self.inbox / "a.pdf")
        shutil.copy(SAMPLE_PDF, self.inbox / "b.pdf")
        (self.inbox / "b.mineru").mkdir()  # b is done already
        (self.inbox / "notes.txt").write_text("not a PDF")
        watcher = self.start_watcher("--once")
        self.assertEqual(watcher.wait(120), 0)
        self.reader.join(30)  # every line it printed
        output = []
        while not self.lines.empty():
            output.append(self.lines.get())
        self.assertTrue((self.inbox / "a.mineru" / "a.md").read_text())
        self.assertEqual(list((self.inbox / "b.mineru").iterdir()), [])
        self.assertEqual([line.split()[0] for line in output if not line.startswith("watching")],
                         ["submitted", "done"], output)


if __name__ == "__main__":
    unittest.main()
