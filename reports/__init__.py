"""Reports over finished games: ratings tables, crosstables, charts, HTML and PGN."""
