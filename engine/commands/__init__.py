"""The slash commands: `parse` turns what the user typed into a typed command (or says what is
wrong with it), `run` carries one out on a conversation."""
