"""The HTTP API: one Powertools resolver served by Lambda and by the embedded server alike."""
