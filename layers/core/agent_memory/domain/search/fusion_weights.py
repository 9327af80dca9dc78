"""The learned fusion's coefficients (fusion.py), written by benchmarks/train_fusion.py:
do not edit by hand, run the script again.

Command: benchmarks/train_fusion.py fit --sets locomo,lme --balance questions
Questions fitted on: lme 4, locomo 760
Data (sha256 prefixes): locomo_dev.json d44a21fdf3e2ac6a, longmemeval_s_dev.json.gz d87c2f972569e32c
Date: 2026-12-03
"""

COEFFICIENTS = {
    "fixed": 7.640324,
    "meaning": 7.004140,
    "reached": 0.803123,
    "words": 0.979699,
    "own": 1.112648,
    "context": 0.677504,
    "window": 0.348835,
    "reply": -4.786400,
    "credited": -11.657431,
    "first_hop": 0.000000,
    "second_hop": 0.000000,
    "recency": -0.930872,
}
