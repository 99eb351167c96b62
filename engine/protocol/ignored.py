"""The notifications codex sends that codex-deck shows nowhere, each with why. The rest are
read into types (`NOTIFICATION_TYPES`) and shown where a user looks for them; a test checks
that every method in the schemas of the codex versions codex-deck runs on is one or the
other. One left untyped still reaches the trace, raw."""

from __future__ import annotations

REALTIME = "realtime voice sessions, which codex-deck does not start"
CODEX_APP = "state of codex's own app (its sidebar, projects, suggestions), not of a turn"
WINDOWS = "Windows only; codex-deck runs on Linux and macOS"
RENEWING = "codex renewing a provider's sign-in by itself; a failure comes as an error"

IGNORED_NOTIFICATIONS: dict[str, str] = {
    # Read, and shown nowhere:
    "thread/started": "codex-deck starts each thread itself and reads it from the reply",
    "thread/name/updated": "a conversation keeps the title it has here (/rename changes it)",
    "thread/archived": "archiving is done from codex-deck, which knows it already",
    "thread/unarchived": "unarchiving is done from codex-deck, which knows it already",
    "thread/closed": "codex closes a thread when codex-deck stops following it",
    "item/reasoning/summaryPartAdded": "the reasoning deltas carry the part they belong to",
    "item/mcpToolCall/progress": "the tool call's line says it runs until it completes",
    "fuzzyFileSearch/sessionCompleted": "the @ list shows each batch of files as it comes",
    "hook/started": "a hook is shown in one line when it completes, with how it ended",
    # Not read:
    "thread/readState/changed": "read marks of codex's own thread list; codex-deck has its own",
    "thread/deleted": "codex-deck deletes no thread; one deleted elsewhere fails when used",
    "thread/reverted": "codex-deck reverts no thread: its rewind forks, keeping the old path",
    "thread/section/changed": CODEX_APP,
    "skills/changed": "codex-deck has no view of codex's skills",
    "thread/attachment/updated": "images go with messages here, not with threads",
    "thread/prediction/updated": CODEX_APP,
    "thread/queue/changed": (
        "codex-deck queues messages itself; codex's own queue (of other clients) is named "
        "by thread only"
    ),
    "project/changed": CODEX_APP,
    "thread/project/updated": CODEX_APP,
    "thread/environment/connected": "codex cloud's remote environments; codex-deck runs here",
    "thread/environment/disconnected": "codex cloud's remote environments; codex-deck runs here",
    "item/autoApprovalReview/started": "codex's automatic reviewer; here the user approves",
    "item/autoApprovalReview/completed": "codex's automatic reviewer; here the user approves",
    "autoApprovalReview/strictReviewRequired": "codex's automatic reviewer; here the user approves",
    "process/outputDelta": "processes of process/* requests, which codex-deck does not make",
    "process/exited": "processes of process/* requests, which codex-deck does not make",
    "thread/search/partial": "codex's thread search; codex-deck searches its own store",
    "item/fileChange/outputDelta": "the file change's completed item says how applying it went",
    "mcpServer/oauthLogin/completed": "codex-deck starts no MCP sign-in",
    "mcpServer/event/stream/notification": "an MCP server's own notifications, passed on raw",
    "account/gatewayOAuth/changed": "a sign-in codex-deck does not offer",
    "app/list/updated": CODEX_APP,
    "remoteControl/status/changed": "codex's remote control, which codex-deck does not use",
    "externalAgentConfig/import/progress": "importing other agents' settings is not started here",
    "externalAgentConfig/import/completed": "importing other agents' settings is not started here",
    "fs/changed": "file watches (fs/watch), which codex-deck does not set",
    "thread/compacted": "deprecated: the contextCompaction item shows a compaction",
    "model/verification": CODEX_APP,
    "modelProvider/authRecoveryStarted": RENEWING,
    "modelProvider/authRecoveryCompleted": RENEWING,
    "turn/moderationMetadata": CODEX_APP,
    "model/safetyBuffering/updated": CODEX_APP,
    "thread/realtime/started": REALTIME,
    "thread/realtime/itemAdded": REALTIME,
    "thread/realtime/item/started": REALTIME,
    "thread/realtime/item/transcript/delta": REALTIME,
    "thread/realtime/item/completed": REALTIME,
    "thread/realtime/transcript/delta": REALTIME,
    "thread/realtime/transcript/done": REALTIME,
    "thread/realtime/outputAudio/delta": REALTIME,
    "thread/realtime/sdp": REALTIME,
    "thread/realtime/error": REALTIME,
    "thread/realtime/closed": REALTIME,
    "windows/worldWritableWarning": WINDOWS,
    "windowsSandbox/setupCompleted": WINDOWS,
}
