#!/bin/bash
# Least squares on the training points, submitted once.
set -e
python3 - <<'PY'
import csv, json, os, urllib.request
pts = [(float(r["x"]), float(r["y"])) for r in csv.DictReader(open("/app/data/train.csv"))]
n = len(pts); sx = sum(x for x, _ in pts); sy = sum(y for _, y in pts)
sxx = sum(x * x for x, _ in pts); sxy = sum(x * y for x, y in pts)
a = (n * sxy - sx * sy) / (n * sxx - sx * sx); b = (sy - a * sx) / n
body = json.dumps({"a": a, "b": b}).encode()
reply = json.load(urllib.request.urlopen(urllib.request.Request(os.environ["JUDGE_URL"] + "/submit", data=body, method="POST")))
print(reply)
PY
