"""How codex-deck reaches a codex: the binary, the app-server process it starts (or the one it
attaches to over a unix socket or ws://), and JSON-RPC over it. Knows nothing of
conversations; only the wire types of `engine.protocol` and the settings."""
