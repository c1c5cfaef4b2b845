"""Go RE2 patterns must mean in Python what they mean to the API server."""

from __future__ import annotations

import re
import warnings

import pytest
from nodepools.validation import regex

LABEL_KEY = (
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\/))?"
    r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$"
)


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        ("^abc$", "abc", True),
        ("^abc$", "abc\n", False),  # Python's $ would accept the trailing newline
        ("(?m)^abc$", "abc\nx", True),
        (r"^\d+$", "123", True),
        (r"^\d+$", "١٢٣", False),  # Arabic-Indic digits: \d is ASCII in RE2
        (r"^\w+$", "naïve", False),
        (r"^\s$", "\v", False),  # RE2's \s has no vertical tab
        (r"\bgpu\b", "é gpu", True),
        (r"^a{,2}$", "a{,2}", True),  # not a repetition in RE2
        (r"^a{2}$", "aa", True),
        (r"^[[:upper:]][[:digit:]]$", "A1", True),
        (r"^\Qa.b*\E$", "a.b*", True),
        (r"^\Qa.b\E$", "axb", False),
        (r"^\x{263a}$", "☺", True),
        (r"^(?<family>[a-z0-9]+)@", "al2023@latest", True),
        (r"^(?i:gpu)$", "GPU", True),
        (r"[a||b]", "|", True),
        ("ami-[0-9a-z]+", "x-ami-123", True),  # schema patterns are unanchored
        (LABEL_KEY, "nvidia.com/gpu", True),
        (LABEL_KEY, "", False),
        (LABEL_KEY, "-bad", False),
    ],
)
def test_re2_semantics(pattern, text, matches):
    assert regex.search(pattern, text) is matches


@pytest.mark.parametrize(
    "pattern",
    [
        r"(a)\1",
        r"(?=a)",
        r"(?<!a)b",
        r"a*+",
        r"a++",
        r"\pL",
        r"\p{Greek}",
        "(?U)a+",
        "a(?i)b|c",
        "a{1001}",
    ],
)
def test_syntax_without_a_faithful_translation_is_refused(pattern):
    with pytest.raises(regex.UnsupportedRegex):
        regex.translate(pattern)


def test_invalid_pattern_is_refused_at_compile():
    with pytest.raises(regex.UnsupportedRegex):
        regex.compile_re2("[unclosed")


def test_translations_compile_without_python_warnings():
    # Python warns (FutureWarning) about "||", "&&", "~~" and "[" inside a set; RE2 reads
    # them as literals, and so must the translation.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled = re.compile(regex.translate(r"^[a||b&&c~~d[e]+$"))
    assert compiled.search("a|&~[") is not None


def test_find_and_find_all():
    assert regex.find("^([^/]+)", "karpenter.k8s.aws/instance-family") == "karpenter.k8s.aws"
    assert regex.find("[0-9]+", "none") == ""
    assert regex.find_all("[0-9]", "a1b22") == ["1", "2", "2"]
    assert regex.find_all("[0-9]", "a1b22", 2) == ["1", "2"]
    assert regex.find_all("[0-9]", "a1b22", 0) == []


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        # Kueue's AdmissionCheck parameters.kind pattern (v0.19.2): case-insensitive after `^`.
        ("^(?i)[a-z]([-a-z0-9]*[a-z0-9])?$", "ProvisioningRequestConfig", True),
        ("^(?i)[a-z]([-a-z0-9]*[a-z0-9])?$", "Provisioning_Config", False),
        ("a(?i)b", "aB", True),
        ("a(?i)b", "AB", False),  # the flag holds from where it is set
        ("x((?i)b)c", "xBc", True),
        ("x((?i)b)c", "xBC", False),  # ... to the end of its group
    ],
)
def test_mid_pattern_flags_hold_to_the_end_of_their_group_as_in_re2(pattern, text, matches):
    assert regex.search(pattern, text) is matches
