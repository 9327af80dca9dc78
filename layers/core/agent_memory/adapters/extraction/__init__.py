"""How post-turn reviews are started in the cloud."""
