"""Side chats: a question asked beside a conversation, on a thread of its own that may read
the conversation but changes nothing in it (isolation), and what becomes of its answer."""
