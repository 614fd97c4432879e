"""The two exceptions an adapter's run() raises for an answer other than a result."""


class Unsupported(Exception):
    """The framework cannot run this call here (e.g. a kernel missing on CPU)."""


class DocumentedError(Exception):
    """The framework rejected the call with an error of a known category."""

    def __init__(self, category, message):
        super().__init__(message)
        self.category = category
