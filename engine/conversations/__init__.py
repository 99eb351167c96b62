"""The conversation core: a conversation and its state, its turns as codex tells them (the
router turns notifications into events), the requests codex asks of the user from asked to
answered (interactions), notices, history and the restoring of conversations after a restart."""
