"""Bots people can copy: random, greedy and alpha-beta in Python, plus C and JavaScript bots."""
