"""Scripts written without spaces between words (Chinese, Japanese): the index reads a Han character as a word of its
own and a run of hiragana or of katakana as one, by setting them apart with spaces before its tokenizer splits the
text. Their characters are literal ranges, for Python's ``re``. Pure."""

from __future__ import annotations

import re

HAN = "\u3005\u3007\u3021-\u3029\u3038-\u303b\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
HIRAGANA = "\u3041-\u309f"
KATAKANA = "\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9d"
_UNSPACED = re.compile(f"[{HAN}{HIRAGANA}{KATAKANA}]")
_HAN = re.compile(f"[{HAN}]")
_KANA_SEAM = re.compile(f"(?<=[{HIRAGANA}])(?=[{KATAKANA}])|(?<=[{KATAKANA}])(?=[{HIRAGANA}])")


def unspaced(word: str) -> bool:
    """Whether ``word`` (a token of the index) is of a script written without spaces. Pure."""
    return bool(_UNSPACED.match(word))


def set_apart(text: str) -> str:
    """``text`` with each Han character, and each run of hiragana or of katakana, between spaces. Pure."""
    if not _UNSPACED.search(text):
        return text
    return _KANA_SEAM.sub(" ", _HAN.sub(r" \g<0> ", text))
