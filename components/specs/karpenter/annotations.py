"""`metadata.annotations` of the objects a Karpenter pool creates (its NodePool and
EC2NodeClass), checked as the API server checks them."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator


def _annotations(annotations: dict[str, str]) -> dict[str, str]:
    from nodepools.validation.names import ANNOTATIONS_MAX_BYTES, is_qualified_name

    for key in annotations:
        # The API server lowers annotation keys before checking them (objectmeta.go).
        if problems := is_qualified_name(key.lower()):
            raise ValueError(f"annotation key {key!r}: {problems[0]}")
    size = sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items())
    if size > ANNOTATIONS_MAX_BYTES:
        raise ValueError(
            f"annotations take {size} bytes; the API server allows {ANNOTATIONS_MAX_BYTES}"
        )
    return dict(sorted(annotations.items()))


Annotations = Annotated[dict[str, str], AfterValidator(_annotations)]
