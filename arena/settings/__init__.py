"""What a person writes to describe a tournament, read and checked (a data floor).

- :mod:`.config`: the tournament config (``arena run CONFIG.toml``): its typed shape, the
  checks a person needs, time controls parsed once.
- :mod:`.botsfile` and :mod:`.enginesjson`: engines described once (a ``[[bots]]`` file, or
  cutechess's ``engines.json``) and named from configs.
- :mod:`.botcommand`: a bot's command made ready to start (program, folder, ``{python}``).
- :mod:`.located`: the one located TOML decoder and error (``FILE:LINE: key: problem;
  fix``), which every settings file uses (``league.toml`` and ``bot.toml`` too).

Every error names the file, the line and the key. The modules import in one direction:
located < botcommand < enginesjson < botsfile < config.
"""
