"""Post-turn extraction: the Model port and the plain steps of the review pipeline."""
