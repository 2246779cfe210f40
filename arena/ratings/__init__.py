"""Ratings and match statistics: Ordo-style Elo fit, pairwise tables, pentanomial, SPRT.

Used by the tournament runner (live SPRT, standings) and by the reports; imports nothing above
the ``arena`` layer. The public API is re-exported here.
"""
