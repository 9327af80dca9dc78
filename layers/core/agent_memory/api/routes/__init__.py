"""One Router per area, each built from the services it calls."""
