"""Sub-commands of the ``arena`` CLI, one module each (see ``arena.cli.COMMANDS``)."""
