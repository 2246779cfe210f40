"""Benchmarks (``make bench``): each ``bench/bench_*.py`` module has a ``main()`` that prints
its figures, measured in one run next to their reference, as ratios."""
