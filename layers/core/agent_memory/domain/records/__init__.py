"""Records: structured memories, their versions and provenance, the port that keeps them, and
the services that stage them in a turn, rank, pin, fork and administer them."""
