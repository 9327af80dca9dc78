"""Application services: one per area, each taking its ports in the constructor."""
