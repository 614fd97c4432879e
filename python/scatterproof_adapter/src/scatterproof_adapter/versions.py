"""Framework versions and version-ranged error tables: an adapter's classify()."""
import re


def parse_version(text):
    """The numeric release of a framework's version string as a tuple of ints,
    read leniently as frameworks print it: "2.15.0+cu132" -> (2, 15, 0),
    "1.13.0a0+gitunknown" -> (1, 13, 0), "3.3.1" -> (3, 3, 1), "r2.10" ->
    (2, 10). What follows the release (a pre-release, post or local tag: "a0",
    "rc1", ".dev2", "+cu132") is not read. None when the text does not start
    with a number (after an optional "r" or "v"). The same reading as
    reference/versions.h's parse_version."""
    match = re.match(r"\s*[rv]?(\d+(?:\.\d+)*)", str(text or ""))
    return tuple(int(part) for part in match.group(1).split(".")) if match else None


def compare_versions(a, b):
    """<0, 0 or >0 as release tuple (or version string) a is before, equal to
    or after b; missing parts count as 0 ("2.10" == "2.10.0")."""
    a = parse_version(a) if isinstance(a, str) else tuple(a)
    b = parse_version(b) if isinstance(b, str) else tuple(b)
    width = max(len(a), len(b))
    a, b = a + (0,) * (width - len(a)), b + (0,) * (width - len(b))
    return (a > b) - (a < b)


class Row(tuple):
    """One row of an adapter's error table: the exceptions it applies to, a
    regex searched in the exception's text, the category (an
    reference/errors.h name; None: the text is known and deliberately left
    without one), and the half-open range of framework versions
    [since, until) the text is printed in ("" or None: open). `since` is the
    first version known to print it, `until` the first known not to.
    `device`: the device kind whose kernels print the text ("cuda"; a CUDA
    kernel's message beside the CPU row of the same rule), None for every
    device: a device row holds only where the adapter runs on that device."""

    __slots__ = ()

    def __new__(cls, types, pattern, category, since=None, until=None, device=None):
        types = tuple(types) if isinstance(types, (tuple, list)) else (types,)
        if not types or not all(isinstance(t, type) and issubclass(t, BaseException) for t in types):
            raise TypeError("Row %r: types must be exception classes" % (pattern,))
        for bound in (since, until):
            if bound and parse_version(bound) is None:
                raise ValueError("Row %r: unreadable version bound %r" % (pattern, bound))
        if device is not None and (not isinstance(device, str) or not device or ":" in device):
            raise ValueError("Row %r: device must be a device kind such as 'cuda', got %r" % (pattern, device))
        return super().__new__(cls, (types, pattern, category, since or None, until or None, device))

    types = property(lambda self: self[0])
    pattern = property(lambda self: self[1])
    category = property(lambda self: self[2])
    since = property(lambda self: self[3])
    until = property(lambda self: self[4])
    device = property(lambda self: self[5])

    def holds_on(self, device):
        """Whether the row holds on `device` ("cuda:0", a kind, or None for the host's CPU)."""
        kind = str(device).split(":")[0] if device is not None else "cpu"
        return self.device is None or self.device == kind

    def applies_to(self, version):
        """Whether the row holds for framework `version` (a string or a
        parse_version tuple). An unreadable version gets only the rows that
        hold for every version."""
        if self.since is None and self.until is None:
            return True
        v = parse_version(version) if isinstance(version, str) or version is None else tuple(version)
        if v is None:
            return False
        if self.since is not None and compare_versions(v, self.since) < 0:
            return False
        return self.until is None or compare_versions(v, self.until) < 0


def rows_for(table, version, device=None):
    """The rows of `table` that hold for framework `version` on `device` (None: the CPU), in table order."""
    return [row for row in (r if isinstance(r, Row) else Row(*r) for r in table)
            if row.applies_to(version) and row.holds_on(device)]


def classifier(table, version, flags=0, device=None):
    """A classify(exc) for serve(): the category of the first row of `table`
    (Row, or a tuple of Row's fields) that holds for framework `version`
    (the running framework's __version__), names a class of the exception and
    whose regex (compiled with `flags`) matches the exception's text; None
    when no row does. `device`: where the adapter runs the ops (None: the
    CPU); rows of another device are left out. classify.rows: the rows in use."""
    rows = rows_for(table, version, device)
    compiled = [(row.types, re.compile(row.pattern, flags), row.category) for row in rows]

    def classify(exc):
        text = str(exc)
        for types, pattern, category in compiled:
            if isinstance(exc, types) and pattern.search(text):
                return category
        return None

    classify.rows = rows
    return classify
