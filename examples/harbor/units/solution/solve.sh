#!/bin/bash
set -e
cat > /app/units.py <<'PY'
"""Parsing human-written durations."""
import re

_PATTERN = re.compile(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?")
_SECONDS = (86400, 3600, 60, 1)


def parse_duration(text):
    m = _PATTERN.fullmatch(text)
    if not text or m is None or not any(m.groups()):
        raise ValueError(f"not a duration: {text!r}")
    return sum(int(g) * s for g, s in zip(m.groups(), _SECONDS) if g is not None)
PY
