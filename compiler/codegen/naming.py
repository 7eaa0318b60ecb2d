"""Kernel names: a kernel's text names its entry NAME_PLACEHOLDER (and its block function
NAME_PLACEHOLDER_body: codegen/block_function.py); finish_source names the kernel after its content."""
from __future__ import annotations

import hashlib
import re

NAME_PLACEHOLDER = "BY_KERNEL_NAME"


def finish_source(prefix: str, source: str) -> tuple[str, str]:
    """Names a kernel after its content: replaces the placeholder by prefix_<sha256[:16]>."""
    h = hashlib.sha256(source.encode()).hexdigest()[:16]
    entry = f"{re.sub(r'[^A-Za-z0-9_]', '_', prefix)}_{h}"
    return entry, source.replace(NAME_PLACEHOLDER, entry)
