#!/bin/bash
# The verifier asks the judge for the final grade (its own port, its own token) and writes it.
python3 - <<'PY'
import json, os, urllib.request
req = urllib.request.Request(os.environ["JUDGE_VERIFIER_URL"] + "/final",
                             headers={"Authorization": "Bearer " + os.environ["JUDGE_TOKEN"]})
final = json.load(urllib.request.urlopen(req, timeout=60))
print(f"final reward {final['reward']} ({final['reason']}), submission {final['submission']}")
open("/logs/verifier/reward.txt", "w").write(f"{final['reward']}\n")
PY
