"""The S3 Vectors search backend: vectors in S3 Vectors (index.py), words in DynamoDB postings
(adapters/dynamodb/postings.py), filters shared by both (filters.py). Nothing is imported here,
so the postings can use the filters without a cycle."""
