"""A real minerud for the Python tests: a temporary socket and state folder, started as systemd would
(NOTIFY_SOCKET, READY=1 awaited). The binary comes from $MINERUD (set by CTest)."""
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import tempfile

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
SAMPLE_PDF = SOURCE_DIR / "examples" / "sample.pdf"  # born-digital


def page_count(pdf: pathlib.Path) -> int:
    """The PDF's page count as poppler's pdfinfo reads it (not through minerud)."""
    info = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True, text=True).stdout
    return int(next(line.split()[1] for line in info.splitlines() if line.startswith("Pages:")))


SAMPLE_PAGES = page_count(SAMPLE_PDF)


class Daemon:
    def __init__(self, *extra_args: str):
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="minerud-py-"))
        self.socket_path = str(self.dir / "minerud.sock")
        notify_path = str(self.dir / "notify.sock")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        notify.settimeout(20)
        env = dict(os.environ, NOTIFY_SOCKET=notify_path)
        env.pop("MINERU_SOCKET", None)
        self.log = open(self.dir / "minerud.log", "wb")
        self.process = subprocess.Popen(
            [os.environ["MINERUD"], "--socket", self.socket_path, "--state-dir", str(self.dir / "state"),
             "--workers", "2", *extra_args], env=env, stdout=self.log, stderr=subprocess.STDOUT)
        try:
            while b"READY=1" not in notify.recv(4096):
                pass
        except socket.timeout:
            self.stop()
            raise RuntimeError("minerud did not send READY=1:\n" + self.log_text())
        finally:
            notify.close()  # later notifications find no one; sd_notify does not block on that

    def log_text(self) -> str:
        return (self.dir / "minerud.log").read_text(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)
