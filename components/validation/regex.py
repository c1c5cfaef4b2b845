"""Go RE2 regular expressions, run with Python's `re`.

The API server evaluates schema ``pattern``s and CEL ``matches``/``find`` with Go's
``regexp`` (RE2 syntax). Python's ``re`` reads most of that syntax the same way but
*means* a few things differently, and those differences decide whether a label key
passes. `translate` rewrites an RE2 pattern into a Python pattern with the RE2
meaning:

- ``$`` (without the ``m`` flag) matches only at the very end in RE2; Python's ``$``
  also matches before a final newline, so ``"abc\\n"`` would pass ``^abc$``. -> ``\\Z``
- ``\\d``, ``\\w``, ``\\s`` and ``\\b`` are ASCII-only in RE2 and Unicode in Python
  (``\\d`` matches ``'٣'``). RE2's ``\\s`` is ``[\\t\\n\\f\\r ]`` (no ``\\v``).
- ``\\z`` is RE2's end of text (Python spells it ``\\Z``); ``\\Q...\\E`` quotes a literal;
  ``\\x{10FFFF}`` is a code point; ``[[:alpha:]]`` is a POSIX class.
- ``x{,3}`` is a literal in RE2 and a repetition in Python.
- ``(?<name>...)`` is RE2's newer spelling of ``(?P<name>...)``.
- ``(?i)`` after the start (e.g. Kueue's ``^(?i)[a-z]...$``) sets the flag until the end of
  the enclosing group in RE2; Python 3.11 refuses global flags there. -> ``(?i:...)`` up
  to that group's end (a ``|`` after the flag in the same group is refused: the scoped
  group would change what the alternatives are).

Syntax RE2 rejects (backreferences, lookaround, possessive quantifiers) and RE2
syntax Python cannot express (Unicode classes ``\\pL``, ungreedy flag ``U``, flags in the
middle of a pattern) raise `UnsupportedRegex` instead of silently meaning something
else. A regex is matched with ``search`` (JSON-schema ``pattern`` is unanchored, as is
Go's ``MatchString``).
"""

from __future__ import annotations

import re
from functools import lru_cache

POSIX_CLASSES = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "ascii": "\\x00-\\x7f",
    "blank": "\\t ",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": "\\t\\n\\v\\f\\r ",
    "upper": "A-Z",
    "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}

# Perl classes as RE2 defines them: ASCII only.
PERL_CLASSES = {"d": "0-9", "s": "\\t\\n\\f\\r ", "w": "0-9A-Za-z_"}
WORD = "[0-9A-Za-z_]"
ASCII_WORD_BOUNDARY = f"(?:(?<={WORD})(?!{WORD})|(?<!{WORD})(?={WORD}))"
ASCII_NON_BOUNDARY = f"(?:(?<={WORD})(?={WORD})|(?<!{WORD})(?!{WORD}))"
SIMPLE_ESCAPES = frozenset("afnrtv")
RE2_MAX_REPEAT = 1000
REPEAT = re.compile(r"\{(\d+)(,(\d*))?\}")


class UnsupportedRegex(ValueError):
    """An RE2 pattern that is invalid in RE2 or has no faithful Python translation."""


def translate(pattern: str) -> str:
    """The Python ``re`` pattern that matches what Go's ``regexp`` would match."""
    return _Translator(pattern).run()


@lru_cache(maxsize=1024)
def compile_re2(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(translate(pattern))
    except re.error as err:
        raise UnsupportedRegex(f"invalid regular expression {pattern!r}: {err}") from err


def search(pattern: str, text: str) -> bool:
    return compile_re2(pattern).search(text) is not None


def find(pattern: str, text: str) -> str:
    """Kubernetes CEL ``<string>.find(<regex>)``: the leftmost match, or ``""``."""
    match = compile_re2(pattern).search(text)
    return match.group(0) if match else ""


def find_all(pattern: str, text: str, limit: int = -1) -> list[str]:
    """Kubernetes CEL ``<string>.findAll(<regex>[, limit])``."""
    if limit == 0:
        return []
    found = [m.group(0) for m in compile_re2(pattern).finditer(text)]
    return found if limit < 0 else found[:limit]


class _Translator:
    def __init__(self, pattern: str):
        self.src = pattern
        self.pos = 0
        self.out: list[str] = []
        self.multiline = False
        # Per open group (index 0: the whole pattern): scoped flag groups opened for a
        # mid-pattern `(?flags)`, closed where the enclosing group ends.
        self.flag_scopes: list[int] = [0]

    def fail(self, why: str) -> UnsupportedRegex:
        return UnsupportedRegex(f"RE2 pattern {self.src!r} at offset {self.pos}: {why}")

    def run(self) -> str:
        self.leading_flags()
        src = self.src
        while self.pos < len(src):
            ch = src[self.pos]
            if ch == "\\":
                self.out.append(self.escape(in_class=False))
            elif ch == "[":
                self.out.append(self.char_class())
            elif ch == "(":
                self.out.append(self.group_open())
            elif ch == ")":
                self.out.append(
                    ")" * self.flag_scopes.pop() + ")" if len(self.flag_scopes) > 1 else ")"
                )
                self.pos += 1
            elif ch == "|" and self.flag_scopes[-1]:
                raise self.fail("'|' after a mid-pattern flag group is not supported")
            elif ch == "$":
                self.out.append("$" if self.multiline else "\\Z")
                self.pos += 1
            elif ch == "{":
                self.out.append(self.brace())
            elif ch in "*+?":
                self.out.append(self.quantifier())
            else:
                self.out.append(ch)
                self.pos += 1
        return "".join(self.out) + ")" * self.flag_scopes[0]

    def leading_flags(self) -> None:
        match = re.match(r"\(\?([imsU]+)\)", self.src)
        if not match:
            return
        flags = match.group(1)
        if "U" in flags:
            raise self.fail("the ungreedy flag U has no Python equivalent")
        self.multiline = "m" in flags
        self.out.append(match.group(0))
        self.pos = match.end()

    def quantifier(self) -> str:
        ch = self.src[self.pos]
        self.pos += 1
        if self.pos < len(self.src) and self.src[self.pos] == "?":
            self.pos += 1
            return ch + "?"
        if self.pos < len(self.src) and self.src[self.pos] in "*+":
            raise self.fail("RE2 rejects repeated repetition operators (e.g. possessive '*+')")
        return ch

    def brace(self) -> str:
        match = REPEAT.match(self.src, self.pos)
        if not match:
            # RE2 reads a brace that does not start a valid repetition as a literal;
            # Python would read "{,3}" as {0,3}.
            self.pos += 1
            return "\\{"
        low = int(match.group(1))
        high = match.group(3)
        if low > RE2_MAX_REPEAT or (high and int(high) > RE2_MAX_REPEAT):
            raise self.fail(f"RE2 allows at most {RE2_MAX_REPEAT} repetitions")
        self.pos = match.end()
        lazy = ""
        if self.pos < len(self.src) and self.src[self.pos] == "?":
            lazy = "?"
            self.pos += 1
        return match.group(0) + lazy

    def group_open(self) -> str:
        src, pos = self.src, self.pos
        flags = re.match(r"\(\?([is]+)\)", src[pos:])
        if flags:
            # A mid-pattern flag: scoped to the rest of the enclosing group.
            self.pos += flags.end()
            self.flag_scopes[-1] += 1
            return f"(?{flags.group(1)}:"
        self.flag_scopes.append(0)
        if not src.startswith("(?", pos):
            self.pos += 1
            return "("
        if src.startswith("(?:", pos):
            self.pos += 3
            return "(?:"
        if src.startswith("(?P<", pos):
            self.pos += 4
            return "(?P<"
        if src.startswith("(?<", pos) and not src.startswith(("(?<=", "(?<!"), pos):
            self.pos += 3
            return "(?P<"
        scoped = re.match(r"\(\?([ims]*)(-[ims]*)?:", src[pos:])
        if scoped:
            if "m" in scoped.group(0):
                raise self.fail("a scoped 'm' flag is not supported")
            self.pos += scoped.end()
            return scoped.group(0)
        raise self.fail(
            "lookaround, inline flags in mid-pattern and other (?...) groups are not RE2"
        )

    def escape(self, in_class: bool) -> str:
        src = self.src
        if self.pos + 1 >= len(src):
            raise self.fail("trailing backslash")
        ch = src[self.pos + 1]
        self.pos += 2
        if ch in PERL_CLASSES:
            return PERL_CLASSES[ch] if in_class else f"[{PERL_CLASSES[ch]}]"
        if ch in "DSW":
            if in_class:
                raise self.fail(f"negated class \\{ch} inside [...] is not supported")
            return f"[^{PERL_CLASSES[ch.lower()]}]"
        if ch in "bB" and not in_class:
            return ASCII_WORD_BOUNDARY if ch == "b" else ASCII_NON_BOUNDARY
        if ch in "Az" and not in_class:
            return "\\A" if ch == "A" else "\\Z"
        if ch == "Q":
            end = src.find("\\E", self.pos)
            literal = src[self.pos :] if end < 0 else src[self.pos : end]
            self.pos = len(src) if end < 0 else end + 2
            return "".join(_escape_literal(c, in_class) for c in literal)
        if ch == "x":
            return self.hex_escape(in_class)
        if ch in SIMPLE_ESCAPES:
            return "\\" + ch
        if ch in "01234567":
            return self.octal_escape(ch, in_class)
        if ch.isalnum() or ch == "_" or ord(ch) > 127:
            raise self.fail(f"escape \\{ch} is not supported")
        return _escape_literal(ch, in_class)

    def hex_escape(self, in_class: bool) -> str:
        src = self.src
        if src.startswith("{", self.pos):
            end = src.find("}", self.pos)
            if end < 0:
                raise self.fail("unterminated \\x{...}")
            digits = src[self.pos + 1 : end]
            self.pos = end + 1
        else:
            digits = src[self.pos : self.pos + 2]
            self.pos += 2
        try:
            code = int(digits, 16)
            char = chr(code)
        except ValueError as err:
            raise self.fail(f"bad hex escape {digits!r}") from err
        return _escape_literal(char, in_class)

    def octal_escape(self, first: str, in_class: bool) -> str:
        # RE2 reads \1..\7 as backreferences (rejected) unless followed by more digits;
        # \0 and \NNN are octal.
        src = self.src
        digits = first
        while len(digits) < 3 and self.pos < len(src) and src[self.pos] in "01234567":
            digits += src[self.pos]
            self.pos += 1
        if first != "0" and len(digits) == 1:
            raise self.fail("RE2 does not support backreferences")
        return _escape_literal(chr(int(digits, 8)), in_class)

    def char_class(self) -> str:
        src = self.src
        self.pos += 1
        parts = ["["]
        if self.pos < len(src) and src[self.pos] == "^":
            parts.append("^")
            self.pos += 1
        first = True
        while True:
            if self.pos >= len(src):
                raise self.fail("missing closing ]")
            ch = src[self.pos]
            if ch == "]" and not first:
                self.pos += 1
                parts.append("]")
                break
            if ch == "[" and src.startswith("[:", self.pos):
                end = src.find(":]", self.pos + 2)
                if end < 0:
                    raise self.fail("unterminated POSIX class")
                name = src[self.pos + 2 : end]
                negated = name.startswith("^")
                if negated:
                    raise self.fail("negated POSIX classes are not supported")
                if name not in POSIX_CLASSES:
                    raise self.fail(f"unknown POSIX class {name!r}")
                parts.append(POSIX_CLASSES[name])
                self.pos = end + 2
            elif ch == "\\":
                parts.append(self.escape(in_class=True))
            else:
                parts.append(_escape_literal(ch, in_class=True) if ch in "[&~|" else ch)
                self.pos += 1
            first = False
        return "".join(parts)


def _escape_literal(char: str, in_class: bool) -> str:
    if in_class:
        # Python warns about (and may one day reinterpret) '[', '&&', '~~', '||' in sets.
        return "\\" + char if char in "[]\\^-&~|" else char
    return re.escape(char)
