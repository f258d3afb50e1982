#!/bin/bash
# Named metrics: the share of valid inputs parsed right, the share of invalid ones refused, and
# the reward (both at once). NanoBench scores the "reward" metric.
cd /app
python3 /tests/grade_units.py > /logs/verifier/reward.json
cat /logs/verifier/reward.json
