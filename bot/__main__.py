"""`python -m bot`: the command-line entry point."""

from bot.app.cli import main

raise SystemExit(main())
