"""The learned fusion's coefficients (fusion.py), written by benchmarks/train_fusion.py:
do not edit by hand, run the script again.

Command: benchmarks/train_fusion.py fit --sets locomo,lme --balance questions
Questions fitted on: lme 60, locomo 760
Data (sha256 prefixes): locomo_dev.json d44a21fdf3e2ac6a, longmemeval_s_dev.json.gz d87c2f972569e32c
Date: 2026-12-03
"""

COEFFICIENTS = {
    "fixed": 7.392539,
    "meaning": 7.416428,
    "reached": 0.778476,
    "words": 1.007169,
    "own": 1.157589,
    "context": 0.582685,
    "window": 0.440361,
    "reply": -5.573525,
    "credited": -0.632704,
    "first_hop": 0.000000,
    "second_hop": 0.000000,
    "recency": -0.908920,
}
