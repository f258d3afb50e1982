import json
import sys

sys.path.insert(0, "/app")
try:
    from units import parse_duration
except Exception as e:  # a module that does not import scores nothing
    print(json.dumps({"reward": 0.0, "valid": 0.0, "invalid": 0.0, "error": 1.0}))
    sys.exit(0)

VALID = {"90s": 90, "5m": 300, "2h": 7200, "1h30m": 5400, "1d2h3m4s": 93784, "0s": 0, "10d": 864000}
INVALID = ["", "5", "m", "5x", "1m1h", "1h1h", "1.5h", " 5m", "5m "]


def ok(text, want):
    try:
        return parse_duration(text) == want and type(parse_duration(text)) is int
    except Exception:
        return False


def refused(text):
    try:
        parse_duration(text)
    except ValueError:
        return True
    except Exception:
        return False
    return False


valid = sum(ok(t, w) for t, w in VALID.items()) / len(VALID)
invalid = sum(refused(t) for t in INVALID) / len(INVALID)
# Refusing everything must not pay: invalid inputs count only once something parses.
reward = valid if valid < 1 else (valid + invalid) / 2
print(json.dumps({"reward": round(reward, 4), "valid": round(valid, 4), "invalid": round(invalid, 4)}))
