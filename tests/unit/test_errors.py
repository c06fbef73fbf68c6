import pytest

from graphmem.core import errors


@pytest.mark.parametrize(
    ("error", "builtin"),
    [
        (errors.NotFound, KeyError),
        (errors.InvalidInput, ValueError),
        (errors.InvalidSnapshot, ValueError),
        (errors.UnsupportedOperation, NotImplementedError),
        (errors.BackendUnavailable, ConnectionError),
        (errors.IdentityRequired, PermissionError),
        (errors.StoreClosed, RuntimeError),
    ],
)
def test_every_error_is_a_graphmem_error_and_its_builtin(error, builtin):
    exc = error("what to fix", entity_id="x", tenant="t")
    assert isinstance(exc, errors.GraphmemError)
    assert isinstance(exc, builtin)
    assert exc.entity_id == "x" and exc.tenant == "t"
    assert exc.data == {"entity_id": "x", "tenant": "t"}
    assert str(exc) == "what to fix"


def test_invalid_snapshot_is_invalid_input():
    assert issubclass(errors.InvalidSnapshot, errors.InvalidInput)


def test_not_found_message_is_not_quoted_like_a_key_error():
    assert str(errors.NotFound("no entity 'x'")) == "no entity 'x'"


def test_the_docstring_draws_every_error():
    for name in errors.__all__:
        assert name in errors.__doc__
