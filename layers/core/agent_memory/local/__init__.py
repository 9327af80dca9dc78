"""The embedded shape: a local HTTP server in front of the same resolver the cloud runs."""
