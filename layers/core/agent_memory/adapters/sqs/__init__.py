"""The cloud's SQS consumers: the ingest queue's messages applied through the domain."""
