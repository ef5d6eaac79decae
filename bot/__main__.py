"""`python -m bot`: the command-line entry point."""

from bot.cli import main

raise SystemExit(main())
