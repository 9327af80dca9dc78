"""The embedding model and vector size the contract suites' search indexes are made with: the
`search_index` fixture makes the indexes, the tests write vectors of that model."""

INDEX_MODEL = "contract-model"
INDEX_DIMENSIONS = 3
