"""Language: locale strings, plural rules and number formats, below charts and render."""

from pipeline.language.fmt import Formatter
from pipeline.language.strings import Strings

__all__ = ["Formatter", "Strings"]
