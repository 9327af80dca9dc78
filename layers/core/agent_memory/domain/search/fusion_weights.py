"""The learned fusion's coefficients (fusion.py), written by benchmarks/train_fusion.py: do not
edit by hand, run the script again.

Not fitted yet: the hand-set score alone, so the learned order is the hand-set one.
"""

COEFFICIENTS = {
    "fixed": 1.0,
    "meaning": 0.0,
    "reached": 0.0,
    "words": 0.0,
    "own": 0.0,
    "context": 0.0,
    "window": 0.0,
    "reply": 0.0,
    "credited": 0.0,
    "first_hop": 0.0,
    "second_hop": 0.0,
    "recency": 0.0,
}
