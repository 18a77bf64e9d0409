"""Client credential parsing (contract §1, RFC 6749 §2.3.1, RFC 7617)."""

from __future__ import annotations

import base64
from urllib.parse import quote_plus

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vigil.auth.credentials import parse_basic, parse_post, secrets_equal
from vigil.auth.errors import InvalidClientError, InvalidRequestError


def header(text: str) -> str:
    return "Basic " + base64.b64encode(text.encode()).decode()


def test_form_decoded_reading_first_then_raw() -> None:
    creds = parse_basic(header("my%20id:a%2Bb+c"))
    assert creds is not None
    assert creds.candidates == (("my id", "a+b c"), ("my%20id", "a%2Bb+c"))


def test_split_at_first_colon() -> None:
    creds = parse_basic(header("id:se:cr:et"))
    assert creds is not None and creds.candidates[0] == ("id", "se:cr:et")


@pytest.mark.parametrize("value", ["Basic !!!", "Basic " + base64.b64encode(b"nocolon").decode()])
def test_malformed_basic(value: str) -> None:
    with pytest.raises(InvalidRequestError):
        parse_basic(value)


def test_other_scheme_is_not_basic() -> None:
    assert parse_basic("Bearer abc") is None


def test_lengths_limited_to_100() -> None:
    assert parse_basic(header("i" * 100 + ":" + "s" * 100)) is not None
    with pytest.raises(InvalidRequestError):
        parse_basic(header("i" * 101 + ":s"))


def test_post_requires_secret() -> None:
    assert parse_post({"grant_type": "client_credentials"}) is None
    with pytest.raises(InvalidClientError):
        parse_post({"client_id": "x"})


def test_repr_hides_secret() -> None:
    creds = parse_basic(header("id:TOPSECRET"))
    assert "TOPSECRET" not in repr(creds)


def test_secrets_equal() -> None:
    assert secrets_equal("ä+b", "ä+b") and not secrets_equal("a", "b")


#: any Unicode text that can be UTF-8 encoded (no lone surrogates)
TEXT = st.characters(blacklist_categories=("Cs",))


@settings(max_examples=150, deadline=None)
@given(client_id=st.text(TEXT, min_size=1, max_size=30), secret=st.text(TEXT, max_size=40))
def test_encoded_roundtrip(client_id: str, secret: str) -> None:
    """Seed §5.3: base64(urlenc(id) ":" urlenc(secret)) decodes back to the pair."""
    creds = parse_basic(header(f"{quote_plus(client_id)}:{quote_plus(secret)}"))
    assert creds is not None and creds.candidates[0] == (client_id, secret)


@settings(max_examples=150, deadline=None)
@given(
    client_id=st.text(
        st.characters(blacklist_categories=("Cs",), blacklist_characters=":"),
        min_size=1,
        max_size=30,
    ),
    secret=st.text(TEXT, max_size=40),
)
def test_raw_reading_always_offered(client_id: str, secret: str) -> None:
    """Libraries send parts unencoded: the raw pair is always among the readings."""
    creds = parse_basic(header(f"{client_id}:{secret}"))
    assert creds is not None and (client_id, secret) in creds.candidates
