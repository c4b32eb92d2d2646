"""execlens: code-execution reasoning — run, trace, evaluate, synthesise, reward."""

__version__ = "0.1.0"
