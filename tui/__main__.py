"""`python -m tui`: the `codex-deck` command (how `codex-deck serve` starts each session)."""

from tui.cli import main

raise SystemExit(main())
