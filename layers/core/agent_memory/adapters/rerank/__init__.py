"""Rerankers (the search capability's Reranker port): Amazon Bedrock's Rerank API, any HTTP
service speaking the common /rerank API, and a local ONNX cross-encoder."""
