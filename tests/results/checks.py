"""What the Python result tests share: collect failed checks, print each, exit by their count."""
import sys


class Checks:
    def __init__(self, name):
        self.name = name
        self.failures = []

    def __call__(self, ok, what):
        """Records `what` as a failure (and prints it) unless `ok`."""
        if not ok:
            self.failures.append(what)
            print("FAIL:", what)

    def finish(self):
        """Exits 1 if any check failed, else 0, saying how many failed."""
        print(f"{self.name}: {len(self.failures)} failure(s)")
        sys.exit(1 if self.failures else 0)
