"""Claude Code integration: the hook handlers and the settings they are wired by.

Facts from the real client (docs/delivery.md): every hook gets JSON on stdin
(``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name`` plus
per-event fields) and stdin is not always closed; SessionStart may print
``{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": ...}}``
(cut to a preview past 10,000 characters) and may append ``export`` lines to
``$CLAUDE_ENV_FILE``; SessionEnd is unreliable and shares a 1.5 s budget.
"""
