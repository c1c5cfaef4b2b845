"""AWS resource tags, checked by AWS's own rules (not as Kubernetes labels).

EC2, EKS and Auto Scaling take a key of 1 to 128 and a value of 0 to 256 Unicode letters,
digits, spaces and `_ . : / = + - @`; keys starting with `aws:` are AWS's own, and a
resource holds at most 50 user tags
(https://docs.aws.amazon.com/tag-editor/latest/userguide/tagging.html).
"""

from __future__ import annotations

import re
from typing import Annotated

from nodepools.specs.core.base import Issue, NestedIssues
from pydantic import AfterValidator

_AWS_TAG_TEXT = re.compile(r"^[\w .:/=+\-@]*$")
MAX_TAGS = 50


def aws_tag_problem(key: str, value: str, *, selector: bool = False) -> str | None:
    """Why AWS would refuse tag `key`=`value`, or None. `selector`: a Karpenter selector term,
    where `*` matches any value and an empty value matches nothing."""
    if not key or len(key) > 128 or not _AWS_TAG_TEXT.fullmatch(key):
        return f"tag key {key!r} must be 1 to 128 letters, digits, spaces or '_.:/=+-@' characters"
    if key.lower().startswith("aws:"):
        return f"tag {key!r} uses the 'aws:' prefix, which AWS reserves for its own tags"
    if selector and value == "*":
        return None  # Karpenter's wildcard: any value of the tag
    if selector and not value:
        return f"tag {key!r} needs a value; selector terms can't match an empty value"
    if len(value) > 256 or not _AWS_TAG_TEXT.fullmatch(value):
        return (
            f"tag value {value!r} of {key!r} must be at most 256 letters, digits, spaces or "
            "'_.:/=+-@' characters"
        )
    return None


def _aws_tags(tags: dict[str, str]) -> dict[str, str]:
    problems = [
        Issue(f'["{key}"]', problem)
        for key, value in tags.items()
        if (problem := aws_tag_problem(key, value))
    ]
    if len(tags) > MAX_TAGS:
        problems.append(Issue("", f"at most {MAX_TAGS} tags are allowed (got {len(tags)})"))
    if problems:
        raise NestedIssues(problems)
    return dict(sorted(tags.items()))


AwsTags = Annotated[dict[str, str], AfterValidator(_aws_tags)]
