"""The domain: models, errors, ports and services. Imports no AWS, HTTP or SQLite code."""
