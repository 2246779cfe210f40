"""Process containment: a bot's program started, contained, limited, read and ended.

Everything here is about the operating system, nothing about games or the protocol's words:
the spawn and its clean environment (:mod:`~referee.process.spawn`), the sandbox and what a
bot sees (:mod:`~referee.process.sandbox`, :mod:`~referee.process.botview`,
:mod:`~referee.process.rootfs`, :mod:`~referee.process.jail`,
:mod:`~referee.process.shims`), limits that add up (:mod:`~referee.process.cgroup`), the
process tree (:mod:`~referee.process.proctree`), the running process and its pipes
(:mod:`~referee.process.botprocess`, :mod:`~referee.process.child`,
:mod:`~referee.process.linereader`, :mod:`~referee.process.stderrlog`), and whose fault a
failed start is (:mod:`~referee.process.faults`, :mod:`~referee.process.boterrors`).

This package's ``__init__`` imports nothing: ``arena run`` starts its first bots
(:mod:`~referee.process.spawn`, which does not import trio) before it imports trio.
"""
