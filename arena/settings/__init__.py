"""What a person writes to describe a tournament, read and checked (a data floor).

- :mod:`.config`: the tournament config (``arena run CONFIG.toml``): its typed shape, the
  checks a person needs, time controls parsed once.
- :mod:`.botsfile` and :mod:`.enginesjson`: engines described once (a ``[[bots]]`` file, or
  cutechess's ``engines.json``) and named from configs.

Every error names the file, the line and the key.
"""
