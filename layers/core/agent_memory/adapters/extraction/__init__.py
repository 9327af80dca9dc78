"""How post-turn reviews are started: Step Functions executions in the cloud (and the stream
dispatcher that starts them), the in-process worker embedded."""
