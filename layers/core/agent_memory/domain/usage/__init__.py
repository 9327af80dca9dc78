"""Usage: each turn's model calls and searches, and the port that keeps them."""
