"""Named agent manifests: a versioned manifest document that agents follow by name."""
