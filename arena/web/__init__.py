"""``arena serve``: web pages that follow a run live and seat a human against a bot.

Starlette apps served by Hypercorn's trio worker: :mod:`arena.web.watch` follows a run
directory's files, :mod:`arena.web.app` pushes its snapshots to the page (server-sent events),
:mod:`arena.web.humanplay` is the human seat of a game played in the browser.
"""
