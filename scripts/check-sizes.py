#!/usr/bin/env python3
"""check-sizes.py — files and functions stay at a size a person can read.

    no source file over 500 lines, no function over 80 lines

Scans the source files of ROOT (default: the repository this script is in):
C, C++ and CUDA (.c .cc .h .cu .cuh), Python (.py), and the scripts in
scripts/ that start with `#!`. In a git checkout the files are those git
tracks or would track (`git ls-files --cached --others --exclude-standard`:
ignored build trees and virtual environments left out); elsewhere, every file
outside folders whose name starts with `.` or `build`.

A file's size is its line count (`wc -l`). A function's size is the lines
from the line of its opening brace to the line of its closing brace (C, C++,
CUDA), or from its `def` to its last line (Python, read with `ast`).

Files and functions over the limit today are named, each with its size and a
one-line reason, in scripts/size-exceptions.txt:

    file      PATH        LINES  reason
    function  PATH NAME   LINES  reason

The checker fails on a file or function over the limit that has no entry, and
on one with an entry that has grown past the size the entry records. It
prints, without failing, the entries that could be lowered or removed (the
file or function shrank, or is gone): lower them in the same commit.

Finding C++ functions is a heuristic, not a parser. Comments, string and
character literals (raw strings included; a ' between digits is a digit
separator, 1'000) and preprocessor lines are blanked first; then braces are matched, and a `{` opens a function when it is not
inside another function and the text before it (since the last `;`, `{` or
`}`) ends with a parameter list: `)` optionally followed by qualifiers,
a trailing return type or a constructor's initializer list. Lambdas and blocks
inside a function count as part of it; a lambda at namespace scope counts as a
function of its own. Known limits: a constructor whose initializer list uses
braces (`x_{a}`) is measured, and named, from the last such brace on; a
function whose braces sit in macros is misread; a function body written
inside a macro is not seen; a function is named by the identifier before its
parameter list (`Class::method`, or `TEST(Suite, Name)` for an all-capitals
macro), so overloads share a name and one entry covers each of them.

    scripts/check-sizes.py [--root DIR]
    scripts/check-sizes.py --list        # every file and function over the
                                         # limits, in the exceptions' format
    scripts/check-sizes.py --self-test   # the checker refuses a planted
                                         # long file, long functions (C++,
                                         # Python) and grown exceptions

Both run as CTest tests (`sizes`, `sizes_self_test`).
"""

import ast
import os
import re
import subprocess
import sys
import tempfile

from checklib import arguments, clean_failures, finish, planted_failures, planted_tree, report  # scripts/checklib.py

MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80
EXCEPTIONS = os.path.join("scripts", "size-exceptions.txt")
C_SUFFIXES = (".c", ".cc", ".h", ".cu", ".cuh")
HEAD_IS_FUNCTION = re.compile(
    r"\)\s*(?:const|noexcept(?:\([^)]*\))?|override|final|mutable|&&?|\s)*"
    r"(?:->\s*[\w:<>,\s*&]+)?\s*(?::\s*[\w:]+\s*\(.*)?$", re.S)
NAME_BEFORE_PARAMS = re.compile(r"((?:~?[A-Za-z_]\w*\s*::\s*)*~?[A-Za-z_]\w*|operator\s*[^\s(]+)\s*\($")


def digit_separator(text, i):
    """Whether the ' at text[i] separates digits (1'000, 0xFF'FF), not a character literal."""
    j = i
    while j > 0 and (text[j - 1].isalnum() or text[j - 1] in "'_."):
        j -= 1
    return j < i and text[j].isdigit()


def blank_c(text):
    """The text with comments, literals and preprocessor lines made spaces
    (newlines kept, so line numbers hold)."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#" or (at_line_start and c in " \t" and text[i:].lstrip(" \t").startswith("#")):
            end = i
            while True:  # a preprocessor line, with its continuations
                end = text.find("\n", end)
                if end < 0:
                    end = n
                    break
                if text[end - 1] != "\\":
                    break
                end += 1
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        at_line_start = False
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
        elif c == "R" and text.startswith('"', i + 1) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            match = re.match(r'R"([^(\s]*)\(', text[i:])
            if match:
                close = ")" + match.group(1) + '"'
                end = text.find(close, i + len(match.group(0)))
                end = n if end < 0 else end + len(close)
                out.append("R\"" + re.sub(r"[^\n]", " ", text[i + 2:end - 1]) + "\"")
                i = end
                continue
            end = i + 1
        elif c == "'" and digit_separator(text, i):
            out.append(c)
            i += 1
            continue
        elif c in "\"'":
            end = i + 1
            while end < n and text[end] != c and text[end] != "\n":
                end += 2 if text[end] == "\\" else 1
            end = min(end + 1, n) if end < n and text[end] == c else min(end, n)  # a newline ends it too
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        else:
            out.append(c)
            at_line_start = c == "\n"
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:end]))
        i = end
    return "".join(out)


def function_name(head):
    """The name of the function whose definition `head` starts: the
    identifier before the head's first parenthesis."""
    index = head.find("(")
    if index < 0:
        return "(unnamed)"
    before = re.sub(r"\s+", " ", head[:index + 1])
    if before.rstrip("( ").endswith("]"):
        return "(lambda)"
    if re.search(r"\boperator\s*\($", before):
        return "operator()"
    match = NAME_BEFORE_PARAMS.search(before)
    if not match:
        return "(unnamed)"
    name = re.sub(r"\s+", "", match.group(1))
    if re.fullmatch(r"[A-Z][A-Z0-9_]*", name):  # TEST(Suite, Name) and the like
        close = head.find(")", index)
        return f"{name}({re.sub(chr(92) + 's+', ' ', head[index + 1:close]).strip()})"
    return name


def c_functions(text):
    """(name, first line, lines) of each function of a C/C++/CUDA source."""
    code = blank_c(text)
    functions = []
    stack = []  # per open brace: "function", "inside" (within a function) or "scope"
    head_start = 0
    line = 1
    opened = []  # per open function: (name, line of its brace)
    for index, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            if stack and stack[-1] in ("function", "inside"):
                stack.append("inside")
            else:
                head = code[head_start:index].strip()
                is_function = bool(head) and "=" not in head.split("(")[0] and HEAD_IS_FUNCTION.search(head)
                is_function = is_function and not re.match(r"(namespace|struct|class|union|enum)\b", head)
                if not is_function and re.search(r"\]\s*(\([^)]*\))?\s*(mutable\s*)?$", head):
                    is_function = True  # a lambda at namespace or class scope
                stack.append("function" if is_function else "scope")
                if is_function:
                    opened.append((function_name(head), line))
            head_start = index + 1
        elif c == "}":
            kind = stack.pop() if stack else "scope"
            if kind == "function":
                name, first = opened.pop()
                functions.append((name, first, line - first + 1))
            head_start = index + 1
        elif c == ";":
            head_start = index + 1
    return functions


def python_functions(text):
    """(name, first line, lines) of each function of a Python source."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    functions = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                functions.append((name, child.lineno, child.end_lineno - child.lineno + 1))
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return functions


def candidate_files(root):
    """Relative paths of the files of `root`: what git tracks or would track
    (ignored build outputs left out) in a git work tree, else every file
    outside folders named `.*` or `build*`."""
    if os.path.exists(os.path.join(root, ".git")):  # a checkout, or a worktree's .git file
        listed = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                capture_output=True)
        if listed.returncode == 0:
            return sorted(p for p in listed.stdout.decode("utf-8", "replace").split("\0")
                          if p and os.path.isfile(os.path.join(root, p)))
    found = []
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith((".", "build")))
        found += [os.path.relpath(os.path.join(directory, name), root) for name in sorted(files)]
    return found


def sources(root):
    """Relative paths of the source files under `root`, sorted."""
    found = []
    for relative in candidate_files(root):
        name = os.path.basename(relative)
        if name.endswith(C_SUFFIXES + (".py",)):
            found.append(relative)
        elif os.path.dirname(relative) == "scripts" and "." not in name:
            with open(os.path.join(root, relative), "rb") as source:
                if source.read(2) == b"#!":
                    found.append(relative)
    return found


def measure(root):
    """{("file", path): lines} and {("function", path, name): lines} over the limits."""
    over = {}
    for relative in sources(root):
        with open(os.path.join(root, relative), encoding="utf-8", errors="replace") as source:
            text = source.read()
        lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
        if lines > MAX_FILE_LINES:
            over[("file", relative)] = lines
        if relative.endswith(C_SUFFIXES):
            functions = c_functions(text)
        elif relative.endswith(".py") or text.startswith("#!") and "python" in text.split("\n", 1)[0]:
            functions = python_functions(text)
        else:
            functions = []
        for name, _, size in functions:
            if size > MAX_FUNCTION_LINES:
                key = ("function", relative, name)
                over[key] = max(size, over.get(key, 0))
    return over


def read_exceptions(root):
    """{key: (lines, reason, line number)} from the exceptions file; and its format errors."""
    entries, errors = {}, []
    path = os.path.join(root, EXCEPTIONS)
    if not os.path.isfile(path):
        return entries, errors
    with open(path, encoding="utf-8") as source:
        for number, line in enumerate(source, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            file_entry = re.match(r"^file\s+(\S+)\s+(\d+)\s+(\S.*)$", line.strip())
            function_entry = re.match(r"^function\s+(\S+)\s+(.+?)\s+(\d+)\s+(\S.*)$", line.strip())
            if file_entry:
                key = ("file", file_entry.group(1))
                entries[key] = (int(file_entry.group(2)), file_entry.group(3), number)
            elif function_entry:
                key = ("function", function_entry.group(1), function_entry.group(2))
                entries[key] = (int(function_entry.group(3)), function_entry.group(4), number)
            else:
                errors.append(f"{EXCEPTIONS}:{number}: not 'file PATH LINES reason' "
                              "or 'function PATH NAME LINES reason'")
    return entries, errors


def describe(key):
    return f"{key[1]} ({key[0]})" if key[0] == "file" else f"{key[1]}: {key[2]} (function)"


def check(root):
    """(problems, notes) as printable lines."""
    over = measure(root)
    entries, problems = read_exceptions(root)
    notes = []
    for key, size in sorted(over.items()):
        limit = MAX_FILE_LINES if key[0] == "file" else MAX_FUNCTION_LINES
        if key not in entries:
            problems.append(f"{describe(key)}: {size} lines, over {limit}; split it "
                            f"(or, with a reason, list it in {EXCEPTIONS})")
        elif size > entries[key][0]:
            problems.append(f"{describe(key)}: {size} lines, grown past its exception's {entries[key][0]} "
                            f"({EXCEPTIONS}:{entries[key][2]}); it may shrink, not grow")
    for key, (lines, _, number) in sorted(entries.items(), key=lambda item: item[1][2]):
        now = over.get(key)
        if now is None:
            notes.append(f"{EXCEPTIONS}:{number}: {describe(key)} is within the limit now (or gone): "
                         "remove the entry")
        elif now < lines:
            notes.append(f"{EXCEPTIONS}:{number}: {describe(key)} is {now} lines now: lower the entry to {now}")
    return problems, notes


def self_test():
    """The checker fails on a synthetic tree with planted problems, and
    passes the same tree without them."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="sp-sizes-") as root:
        write, run = planted_tree(root, __file__)

        def body(lines, inner=""):  # a C++ function body of exactly `lines` lines, brace to brace
            return "{\n" + inner + "  x += 1;\n" * (lines - 2 - inner.count("\n")) + "}\n"

        # Literal numbers, not the constants: limits that drifted must fail.
        # Braces in a comment and a raw string (across lines) must not count;
        # a block inside a function is part of it, not a function of its own.
        tricky = ('namespace sp {\nstruct S {\n  int f() const '
                  + body(80, '  // {\n  /* { */\n#define OPEN {\n  int m[] = {1\'000, 2};\n  const char* s = R"(\n{ "\n)";\n  s = "{ \\" {"; c = \'{\';\n') + '};\n'
                  'int nested(int x) ' + body(100, "  if (x) " + body(90)) +
                  'const char* kText = R"(}}}{{{ void g() {)";\n// }\n/* { */\n'
                  'Foo::Foo(int a) : a_(a) ' + body(80) + 'TEST(Suite, Name) ' + body(80) + '}\n')
        write("reference/ok.cc", tricky + "\n" * (500 - tricky.count("\n")))
        write("cli/big.cc", "int run_cli(int argc) " + body(100) + "\n" * 401)
        write("scripts/tool.py", "def main():\n" + "    x = 1\n" * 90)
        write("scripts/size-exceptions.txt",
              "# path, size, reason\nfile cli/big.cc 501 one subcommand per function: issue 29\n"
              "function cli/big.cc run_cli 100 the whole CLI in one function\n"
              "function reference/ok.cc nested 100 a function with a long block\n"
              "function scripts/tool.py main 91 one long script\n")

        failures += clean_failures(run())

        # A long function after the tricky part: a lexer that lost its way
        # there would not see it.
        late = tricky + "int late() " + body(81)
        write("reference/ok.cc", late + "\n" * (501 - late.count("\n")))
        write("reference/long.h", "inline int h() " + body(81))
        write("cli/big.cc", "int run_cli(int argc) " + body(101) + "\n" * 401)
        write("tests/t.cc", "TEST(Suite, Long) " + body(81))
        write("adapters/a.py", "class A:\n    def run(self):\n" + "        x = 1\n" * 80)
        write("scripts/py-tool", "#!/usr/bin/env python3\ndef go():\n" + "    x = 1\n" * 80)
        write("fuzz/lambda.cc", "auto kGen = [](int x) " + body(81) + ";\n"
              'extern "C" {\nint c_api(void) ' + body(80) + '}\nextern "C" void handler(int s) ' + body(81))
        planted = run()
        expected = [
            "reference/ok.cc (file): 501 lines, over 500",
            "reference/ok.cc: late (function): 81 lines, over 80",
            "reference/long.h: h (function): 81 lines, over 80",
            "cli/big.cc (file): 502 lines, grown past its exception's 501",
            "cli/big.cc: run_cli (function): 101 lines, grown past its exception's 100",
            "tests/t.cc: TEST(Suite, Long) (function): 81 lines, over 80",
            "fuzz/lambda.cc: (lambda) (function): 81 lines, over 80",
            "fuzz/lambda.cc: handler (function): 81 lines, over 80",
            "adapters/a.py: A.run (function): 81 lines, over 80",
            "scripts/py-tool: go (function): 81 lines, over 80",
        ]
        failures += planted_failures(planted, expected, "planted problems", lambda line: not line.startswith("check-sizes"))
    return finish("check-sizes", failures,
                  "a planted long file, long functions (member, lambda, TEST) and grown "
              "exceptions are refused; a clean tree, with braces in strings and comments, passes")


def main():
    args = arguments(__doc__, "prove the checker refuses planted problems",
                     ("--list", "print every file and function over the limits"))
    if args.self_test:
        return self_test()
    root = os.path.abspath(args.root)
    if args.list:
        for key, size in sorted(measure(root).items()):
            print(f"file {key[1]} {size}" if key[0] == "file" else f"function {key[1]} {key[2]} {size}")
        return 0
    problems, notes = check(root)
    for note in notes:
        print(f"check-sizes: note: {note}")
    return report("check-sizes", problems, f"problem(s): files over {MAX_FILE_LINES} lines or functions over "
                  f"{MAX_FUNCTION_LINES} (scripts/check-sizes.py)")


if __name__ == "__main__":
    sys.exit(main())
