#!/bin/bash
# Runs after the agent stops; tests/ is copied in only then. Writes 1 or 0.
cd /app
if python3 /tests/check_median.py; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
