"""EventPublisher adapters: an in-process bus (embedded) and EventBridge (cloud)."""
