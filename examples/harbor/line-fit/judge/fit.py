"""The scoring rule shared by score.py (training points) and final.py (held-out points)."""
import csv
import json
import math
from pathlib import Path

HERE = Path(__file__).parent


def points(name):
    with open(HERE / name) as f:
        return [(float(r["x"]), float(r["y"])) for r in csv.DictReader(f)]


def grade_on(name, artifact):
    if artifact is None:
        return {"reward": 0.0, "reason": "nothing submitted"}
    try:
        fit = json.loads(Path(artifact).read_text())
        a, b = fit["a"], fit["b"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        return {"reward": 0.0, "reason": f"not a JSON object with numbers a and b ({type(e).__name__})"}
    if isinstance(a, bool) or isinstance(b, bool) or not all(isinstance(v, (int, float)) for v in (a, b)):
        return {"reward": 0.0, "reason": "a and b must be numbers"}
    if not all(math.isfinite(v) for v in (a, b)):
        return {"reward": 0.0, "reason": "a and b must be finite"}
    pts = points(name)
    rmse = math.sqrt(sum((y - (a * x + b)) ** 2 for x, y in pts) / len(pts))
    # The noise alone leaves an error of about 1.5-1.9: up to 2 is a full reward, then it falls
    # to 0 at an error of 12.
    reward = 1.0 if rmse <= 2.0 else max(0.0, 1.0 - (rmse - 2.0) / 10.0)
    return {"reward": round(reward, 6), "reason": f"rmse {rmse:.4f} on {len(pts)} points"}
