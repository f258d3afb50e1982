#!/bin/bash
# The reference fix: the mean of the two middle values for an even count.
set -e
cat > /app/stats.py <<'PY'
"""Small statistics helpers."""


def mean(values):
    if not values:
        raise ValueError("mean of an empty list")
    return sum(values) / len(values)


def median(values):
    if not values:
        raise ValueError("median of an empty list")
    ordered = sorted(values)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[mid]
    return (ordered[mid - 1] + ordered[mid]) / 2
PY
