import sys

sys.path.insert(0, "/app")
from stats import median  # noqa: E402

cases = [([3, 1, 2], 2), ([1, 2, 3, 4], 2.5), ([4, 1], 2.5), ([7], 7), ([1.5, 2.5, 0.5, 9], 2.0)]
failed = [(v, want, median(v)) for v, want in cases if median(v) != want]
try:
    median([])
    failed.append(([], "ValueError", "no error"))
except ValueError:
    pass
for v, want, got in failed:
    print(f"FAIL median({v}) = {got}, expected {want}")
print("PASS" if not failed else f"{len(failed)} case(s) failed")
sys.exit(1 if failed else 0)
