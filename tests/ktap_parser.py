#!/usr/bin/env python3
"""tests/ktap_parser.py: KTAP version 1, as Linux's KUnit prints it and
kernel/ktap.c writes it, read from the lines of a serial log (the
counterpart of Linux's tools/testing/kunit/kunit_parser.py).

    docs = parse_ktap(lines)          # [KtapDoc]: the tree of each document
    cases, problems = ktap_cases(docs)

A document is a version line, a plan (1..N) and N results; a result
line at one level closes the subtest just inside it.  Lines that are not
KTAP (printk output, firmware noise) are skipped.  What the structure
gets wrong is a Problem, never dropped: a missing plan, a plan that
disagrees with the results, a misnumbered result, KTAP after a complete
document, output that stops or restarts inside a suite.  KTAP v1 has
only the SKIP directive: "not ok N name # TODO" is a failure.
Only the Python standard library is used.
"""

import re
from dataclasses import dataclass, field

_VERSION = re.compile(r"(?:KTAP|TAP) version (\d+)$")
_SUBTEST = re.compile(r"# Subtest: (.*\S)")
_PLAN = re.compile(r"1\.\.(\d+)(?:\s*#.*)?$")
_RESULT = re.compile(r"(not )?ok (\d+)(?:\s+-)?(?:\s+([^#]*?))?\s*(?:#\s*(.*))?$")


@dataclass
class Result:
    ok: bool
    num: int
    name: str
    directive: str        # "SKIP", "TODO" or ""
    comment: str          # the text after '#', e.g. the skip reason
    lineno: int
    diags: list           # diagnostic lines of this case (before its result)
    subtest: "Test" = None
    unfinished: bool = False  # no result line: attached by the parser


@dataclass
class Test:
    indent: int
    lineno: int
    name: str = None
    plan: int = None
    results: list = field(default_factory=list)
    pending_diags: list = field(default_factory=list)
    closed: bool = False  # a result line at the parent level ended it


@dataclass
class Problem:
    where: str            # suite path, e.g. "mm" or "" for the document
    what: str
    lineno: int
    truncated: bool = False   # output stopped or restarted inside a test


class KtapDoc:
    def __init__(self, root):
        self.root = root
        self.problems = []
        self.overrun = False    # KTAP lines came after it was complete


def _classify(body):
    m = _VERSION.match(body)
    if m:
        return "version", m
    m = _SUBTEST.match(body)
    if m:
        return "subtest", m
    m = _PLAN.match(body)
    if m:
        return "plan", m
    m = _RESULT.match(body)
    if m:
        return "result", m
    if body.startswith("#"):
        return "diag", None
    return "other", None


def _test_name(t, fallback):
    return t.name or fallback


_RESUMED = "ended without a result line (output resumed at an outer level)"


class KtapParser:
    """Reads the lines of a log one at a time into KtapDoc trees.

    self.stack holds the open tests of the current document, its root
    first and the innermost last; it is empty between documents.  A
    line's indentation says which open test it belongs to; a test that
    output leaves without its result line is closed as unfinished and
    kept, so what it printed is still judged."""

    def __init__(self):
        self.docs = []
        self.doc = None
        self.stack = []

    def parse(self, lines):
        for lineno, line in enumerate(lines, 1):
            body = line.lstrip(" ")
            self.feed(lineno, len(line) - len(body), body)
        self.finish(len(lines))
        return self.docs

    def feed(self, lineno, indent, body):
        """One line, without its indent of `indent` spaces."""
        kind, m = _classify(body)
        if kind == "other":
            return
        if not self.stack:
            self._between_documents(kind, indent, body, lineno)
        elif indent >= self.stack[0].indent:    # else: not this document's
            getattr(self, "_" + kind)(indent, body, m, lineno)

    def finish(self, last):
        """The end of the log: a document still open stopped inside."""
        if not self.stack:
            return
        # Output stopped inside the document: say which case was running.
        depth = len(self.stack) - 1
        t = self.stack[depth]
        plan = f" of {t.plan}" if t.plan is not None else ""
        where = self._path_of(depth) if depth else ""
        self.doc.problems.append(Problem(
            (where + "/" if where else "") + f"#{len(t.results) + 1}",
            f"output stopped: case {len(t.results) + 1}{plan} never "
            "reported a result", last, True))
        # Attach the unfinished tests so what they did print is judged.
        while len(self.stack) > 1:
            self._attach_unfinished(self.stack.pop(), "output stopped", last)

    # -- structure ---------------------------------------------------------

    def _new_document(self, indent, lineno):
        self.doc = KtapDoc(Test(indent, lineno))
        self.docs.append(self.doc)
        self.stack = [self.doc.root]

    def _complete(self):
        """Whether the root has as many results as its plan."""
        root = self.doc.root
        return root.plan is not None and len(root.results) >= root.plan

    def _path_of(self, depth):
        """The suite path of self.stack[depth], e.g. "rcu/tree"."""
        names = []
        for i in range(1, depth + 1):
            t = self.stack[i]
            names.append(_test_name(t, f"#{len(self.stack[i - 1].results) + 1}"))
        return "/".join(names)

    def _attach_unfinished(self, t, why, lineno):
        """Keeps what an unfinished test printed: it becomes a case of its
        parent that never reported, so its own results are still shown."""
        parent = self.stack[-1]
        parent.results.append(Result(False, len(parent.results) + 1,
                                     _test_name(t, "?"), "", why,
                                     lineno, t.pending_diags, t, True))

    def _close_unfinished(self, to_indent, lineno, why):
        """Pops tests deeper than to_indent that never got a result line."""
        while len(self.stack) > 1 and self.stack[-1].indent > to_indent:
            self.doc.problems.append(Problem(self._path_of(len(self.stack) - 1),
                                             why, lineno, True))
            self._attach_unfinished(self.stack.pop(), "no result line", lineno)

    def _resume(self, indent, lineno):
        """A header or plan line: tests deeper than it never finished; a
        line deeper than the test it resumes opens a test of its own.
        Returns the innermost open test."""
        top = self.stack[-1]
        if indent < top.indent:
            self._close_unfinished(indent, lineno, _RESUMED)
            top = self.stack[-1]
            if indent > top.indent:
                top = Test(indent, lineno)
                self.stack.append(top)
        return top

    # -- one handler per kind of line ---------------------------------------

    def _between_documents(self, kind, indent, body, lineno):
        doc = self.doc
        if kind == "version" and (doc is None or indent <= doc.root.indent):
            self._new_document(indent, lineno)
        elif doc is not None and kind != "diag" \
                and indent >= doc.root.indent and not doc.overrun:
            # KTAP after a complete document (more suites than its plan,
            # or a stray result) is output the plan did not announce: a
            # failure, never silently dropped.
            doc.overrun = True
            doc.problems.append(Problem(
                "", f"KTAP output after the plan 1..{doc.root.plan} was "
                f"complete, at line {lineno}: {body}", lineno))

    def _diag(self, indent, body, m, lineno):
        # Diagnostics never change the structure; they belong to the
        # innermost open test at or above their indentation.
        owner = self.stack[-1]
        for t in reversed(self.stack):
            if t.indent <= indent:
                owner = t
                break
        owner.pending_diags.append((lineno, body))

    def _version(self, indent, body, m, lineno):
        top, base = self.stack[-1], self.stack[0].indent
        if indent > top.indent:
            self.stack.append(Test(indent, lineno))
            return
        if indent == base and len(self.stack) == 1 and self.doc.root.results \
                and self._complete():
            self._new_document(indent, lineno)  # after a complete one
            return
        inner_open = len(self.stack) > 1
        self._close_unfinished(indent - 1, lineno,
                               f"output restarted (a new KTAP header at line "
                               f"{lineno}) inside this suite")
        if indent == base:
            if not inner_open:
                self.doc.problems.append(Problem(
                    "", f"KTAP output restarted at line {lineno} before "
                    "the plan was complete", lineno, True))
            self._new_document(indent, lineno)
        else:
            self.stack.append(Test(indent, lineno))

    def _subtest(self, indent, body, m, lineno):
        top = self._resume(indent, lineno)
        if indent > top.indent:
            self.stack.append(Test(indent, lineno, name=m.group(1)))
        elif top.name is None and not top.results and top is not self.stack[0]:
            top.name = m.group(1)
        else:
            top.pending_diags.append((lineno, body))

    def _plan(self, indent, body, m, lineno):
        top = self._resume(indent, lineno)
        if indent > top.indent:
            top = Test(indent, lineno)
            self.stack.append(top)
        if top.plan is not None:
            self.doc.problems.append(Problem(self._path_of(len(self.stack) - 1),
                                             f"a second plan at line {lineno}",
                                             lineno))
        else:
            top.plan = int(m.group(1))

    def _result(self, indent, body, m, lineno):
        top, child = self.stack[-1], None
        if indent > top.indent:
            # Results deeper than any header: a subtest with no header
            # and no plan (the missing plan is reported when it closes).
            self.stack.append(Test(indent, lineno))
        elif indent < top.indent:
            # The result line of a subtest comes at the parent's level
            # right after the subtest's own lines: it closes the test
            # just inside that level; anything deeper never finished.
            inner = next(t for t in self.stack if t.indent > indent)
            self._close_unfinished(inner.indent, lineno, _RESUMED)
            child = self.stack.pop()
            child.closed = True
        top = self.stack[-1]

        neg, num, name, comment = m.group(1), int(m.group(2)), \
            (m.group(3) or "").strip(), (m.group(4) or "").strip()
        directive = ""
        word = comment.split(" ", 1)[0].upper() if comment else ""
        if word in ("SKIP", "TODO"):
            directive = word
            comment = comment[len(word):].strip()
        expected = len(top.results) + 1
        if num != expected:
            self.doc.problems.append(Problem(
                self._path_of(len(self.stack) - 1),
                f"result numbered {num} where {expected} was due "
                f"(line {lineno})", lineno))
        diags = top.pending_diags
        top.pending_diags = []
        if child is not None:
            diags = child.pending_diags + diags
            if child.name is None:
                child.name = name
        top.results.append(Result(not neg, num, name or f"#{num}", directive,
                                  comment, lineno, diags, child))
        if len(self.stack) == 1 and self._complete():
            self.stack = []     # the document is complete


def parse_ktap(lines):
    """Parses every KTAP document in the lines.  Returns the list of
    KtapDoc; structural problems (missing plan, miscount, output that stops
    or restarts inside a suite) are in each doc's .problems.  Lines that are
    not KTAP (printk output, firmware noise) are ignored here."""
    return KtapParser().parse(lines)


@dataclass
class Case:
    status: str           # PASS, FAIL, SKIP
    path: str             # suite/case (without the config)
    detail: str = ""      # one line: why
    diags: list = field(default_factory=list)


def _walk(test, prefix, cases, problems, complete):
    """Cases from a (sub)test: leaves are cases; a subtest's own result is
    checked against its cases."""
    if test.plan is None and test.results:
        problems.append(Problem(prefix, "no plan line (1..N)", test.lineno))
    elif test.plan is not None and complete and len(test.results) != test.plan:
        problems.append(Problem(prefix, f"plan says {test.plan} case(s), "
                                f"{len(test.results)} reported", test.lineno))
    for r in test.results:
        path = f"{prefix}/{r.name}" if prefix else r.name
        # KTAP v1 has SKIP only: "not ok ... # TODO" is a failure.
        skip = r.directive == "SKIP"
        if r.subtest is not None and r.subtest.results:
            before = len(cases)
            _walk(r.subtest, path, cases, problems, r.subtest.closed)
            mine = cases[before:]
            failed = any(c.status == "FAIL" for c in mine)
            if r.unfinished:
                pass    # the parser's problem line says why
            elif not r.ok and not skip and not failed:
                cases.append(Case("FAIL", path, "the suite reports not ok "
                                  "though none of its cases failed", r.diags))
            elif r.ok and failed and r.subtest.closed:
                problems.append(Problem(path, "the suite reports ok though a "
                                        "case failed", r.lineno))
            continue
        if r.unfinished:
            continue    # nothing to show but the parser's problem line
        if skip:
            cases.append(Case("SKIP", path, r.comment or r.directive, r.diags))
        elif r.ok:
            cases.append(Case("PASS", path, "", r.diags))
        else:
            why = f"{r.directive} {r.comment}".strip() if r.directive \
                else r.comment
            cases.append(Case("FAIL", path, why, r.diags))


def ktap_cases(docs):
    """Flattens parsed documents into cases plus structural problems."""
    cases, problems = [], []
    for doc in docs:
        problems.extend(doc.problems)
        truncated = any(p.truncated for p in doc.problems)
        _walk(doc.root, "", cases, problems, not truncated)
    # A problem seen twice (e.g. by the parser and the walk) shows once.
    seen, unique = set(), []
    for p in problems:
        key = (p.where, p.what)
        if key not in seen:
            seen.add(key)
            unique.append(p)
    return cases, unique
