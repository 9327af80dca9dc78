"""The learned fusion's coefficients (fusion.py), written by benchmarks/train_fusion.py:
do not edit by hand, run the script again.

Command: benchmarks/train_fusion.py fit --sets locomo,lme --balance questions
Questions fitted on: lme 23, locomo 760
Data (sha256 prefixes): locomo_dev.json d44a21fdf3e2ac6a, longmemeval_s_dev.json.gz d87c2f972569e32c
Date: 2026-12-03
"""

COEFFICIENTS = {
    "fixed": 7.405657,
    "meaning": 7.267275,
    "reached": 0.797546,
    "words": 1.000424,
    "own": 1.142890,
    "context": 0.642599,
    "window": 0.440411,
    "reply": -6.184492,
    "credited": -1.975463,
    "first_hop": 0.000000,
    "second_hop": 0.000000,
    "recency": -0.915378,
}
