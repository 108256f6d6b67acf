"""Scripts written without spaces between words (Chinese, Japanese): the index reads a Han character as a word of its
own and a run of hiragana or of katakana as one, by setting them apart with spaces before its tokenizer splits the
text (``as_indexed``). Their characters are literal ranges, for Python's ``re``. Pure."""

from __future__ import annotations

import re

from backscroll.sanitize import composed

HAN = "\u3005\u3007\u3021-\u3029\u3038-\u303b\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
HIRAGANA = "\u3041-\u309f"
KATAKANA = "\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9d"
_UNSPACED = re.compile(f"[{HAN}{HIRAGANA}{KATAKANA}]")
_PIECES = re.compile(f"([{HAN}]+)|[{HIRAGANA}]+|[{KATAKANA}]+")  # (a run of Han at a time: one by one was 6x slower)


def unspaced(word: str) -> bool:
    """Whether ``word`` (a token of the index) is of a script written without spaces. Pure."""
    return bool(_UNSPACED.match(word))


def _apart(m: re.Match) -> str:
    return f" {' '.join(m.group(1)) if m.group(1) else m.group(0)} "


def as_indexed(text: str) -> str:
    """``text`` as the index is given it: composed (NFC), each Han character and each run of hiragana or of
    katakana between spaces (so "再起動後にnginxが" holds "nginx"). Pure."""
    if text.isascii():
        return text
    text = composed(text)
    return _PIECES.sub(_apart, text) if _UNSPACED.search(text) else text
