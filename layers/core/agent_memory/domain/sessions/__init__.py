"""Sessions: sessions and their turns, the effects a turn stages and the plan that commits
them, a turn's context and budget, ingest, and the service that opens and ends turns."""
