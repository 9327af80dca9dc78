"""History: each session's events (messages, tool calls) and their fact keys, the port that
keeps them, and the services that append, page and search them."""
