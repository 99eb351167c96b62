"""What happened, kept and read back: the store (SQLite), each conversation's trace, session
recordings, command outputs kept in files, exports and search. Built on the engine's events;
knows nothing of how a conversation runs."""
