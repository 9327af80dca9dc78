"""The learned fusion's coefficients (fusion.py), written by benchmarks/train_fusion.py:
do not edit by hand, run the script again.

Command: benchmarks/train_fusion.py fit --sets locomo
Data (sha256 prefixes): locomo_dev.json d44a21fdf3e2ac6a, longmemeval_s_dev.json.gz d87c2f972569e32c
Date: 2026-12-03
"""

COEFFICIENTS = {
    "fixed": 6.712402,
    "meaning": 7.450119,
    "reached": 0.809615,
    "words": 1.095580,
    "own": 1.232823,
    "context": 0.822561,
    "window": 0.583436,
    "reply": 0.000000,
    "credited": 0.000000,
    "first_hop": 0.000000,
    "second_hop": 0.000000,
    "recency": -0.930884,
}
