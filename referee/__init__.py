"""The rules of each game (``referee.games``) and the play of one game between two bot processes."""
