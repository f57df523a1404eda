"""evaluate_ab and the secret write API against the scripted fake service: what goes on the
wire, what comes back, and how each answer maps to an error."""

from __future__ import annotations

import json
from typing import Any, Callable

import pytest

import svc_client
from conftest import Create
from support.fake_service import PK, FakeResponse, FakeService, RecordedRequest, problem
from svc_client import (
    ServiceAbAddonNotAvailableError,
    ServiceBillingError,
    ServiceClient,
    ServiceError,
    ServiceNotFoundError,
    ServicePublicKeyError,
    ServiceRateLimitedError,
    ServiceSecretNotFoundError,
    ServiceUnauthorizedError,
)


def answer(path: str, response: FakeResponse) -> Any:
    return lambda request: response if request.path.startswith(path) else None


# Which requests each operation makes, and the path they go to.
OPERATIONS: dict[str, tuple[str, Callable[[ServiceClient], list[Callable[[], object]]]]] = {
    "evaluate_ab": ("/v1/flags/evaluate-ab", lambda c: [lambda: c.evaluate_ab(["a"], "u")]),
    "writes": (
        "/v1/secrets/",
        lambda c: [
            lambda: c.set_secret("k", "v"),
            lambda: c.delete_secret("k"),
            lambda: c.delete_secret_version("k", 1),
        ],
    ),
}


@pytest.mark.parametrize(
    ("operation", "status", "code", "error"),
    [
        ("evaluate_ab", 401, "unauthorized", ServiceUnauthorizedError),
        ("evaluate_ab", 402, "billing_overdue", ServiceBillingError),
        ("evaluate_ab", 403, "ab_addon_inactive", ServiceAbAddonNotAvailableError),
        ("evaluate_ab", 400, "invalid_request", ServiceError),
        ("evaluate_ab", 500, "internal", ServiceError),
        ("writes", 401, "unauthorized", ServiceUnauthorizedError),
        ("writes", 402, "billing_overdue", ServiceBillingError),
        ("writes", 403, "public_key_forbidden", ServicePublicKeyError),
        ("writes", 404, "secret_not_found", ServiceNotFoundError),
        ("writes", 404, "version_not_found", ServiceNotFoundError),
        ("writes", 409, "version_conflict", ServiceError),
        ("writes", 400, "invalid_request", ServiceError),
        ("writes", 413, "payload_too_large", ServiceError),
    ],
)
def test_maps_error_answers(
    service: FakeService,
    create: Create,
    operation: str,
    status: int,
    code: str,
    error: type[ServiceError],
) -> None:
    path, calls = OPERATIONS[operation]
    service.respond = answer(path, problem(status, code))
    client = create()
    for call in calls(client):
        with pytest.raises(ServiceError) as raised:
            call()
        assert type(raised.value) is error
        assert raised.value.code == code
        if error is not ServicePublicKeyError:
            assert raised.value.status == status


class TestEvaluateAb:
    def test_posts_flags_user_id_and_attributes_and_returns_the_results(
        self, service: FakeService, create: Create
    ) -> None:
        results = {"checkout.v2": True, "search.beta": False}
        service.respond = answer("/v1/flags/evaluate-ab", FakeResponse(200, {"results": results}))
        client = create()
        got = client.evaluate_ab(("checkout.v2", "search.beta"), "user-42", {"country": "DE"})
        assert got == results
        (request,) = service.requests_to("/v1/flags/evaluate-ab")
        assert request.method == "POST"
        assert request.headers["content-type"] == "application/json"
        assert request.body is not None
        assert json.loads(request.body) == {
            "flags": ["checkout.v2", "search.beta"],
            "user_id": "user-42",
            "attributes": {"country": "DE"},
        }
        client.evaluate_ab(["a"], "u")
        body = service.requests_to("/v1/flags/evaluate-ab")[1].body
        assert body is not None
        assert json.loads(body)["attributes"] == {}

    @pytest.mark.parametrize(
        "body", [{"results": {"a": "yes"}}, {"results": []}, {}, [1], "not json"]
    )
    def test_a_body_off_the_contract_is_a_service_error(
        self, service: FakeService, create: Create, body: Any
    ) -> None:
        service.respond = answer("/v1/flags/evaluate-ab", FakeResponse(200, body))
        client = create()
        with pytest.raises(ServiceError):
            client.evaluate_ab(["a"], "u")

    def test_checks_its_argument_types_locally(self, service: FakeService, create: Create) -> None:
        client = create()
        bad: list[tuple[Any, Any, Any]] = [
            ("a", "u", None),
            ([1], "u", None),
            (["a"], 42, None),
            (["a"], "u", ["not", "a", "mapping"]),
            (["a"], "u", {"x": object()}),
        ]
        for keys, user_id, attributes in bad:
            with pytest.raises(TypeError):
                client.evaluate_ab(keys, user_id, attributes)
        assert service.count("/v1/flags/evaluate-ab") == 0


class TestSecretWrites:
    def test_put_with_the_value_and_expected_version_path_encoded(
        self, service: FakeService, create: Create
    ) -> None:
        versions = iter([1, 2])

        def put(request: RecordedRequest) -> FakeResponse | None:
            if request.method != "PUT":
                return None
            version = next(versions)
            return FakeResponse(201 if version == 1 else 200, {"key": "k", "version": version})

        service.respond = put
        client = create()
        assert client.set_secret("vendor.token", "v1") == 1
        assert client.set_secret("we ird/key", "v2", expected_version=1) == 2
        first, second = [r for r in service.requests if r.method == "PUT"]
        assert first.path == "/v1/secrets/vendor.token"
        assert first.body is not None
        assert json.loads(first.body) == {"value": "v1"}
        assert second.path == "/v1/secrets/we%20ird%2Fkey"
        assert second.body is not None
        assert json.loads(second.body) == {"value": "v2", "expected_version": 1}

    def test_delete_the_secret_and_one_version(self, service: FakeService, create: Create) -> None:
        service.respond = lambda r: FakeResponse(204) if r.method == "DELETE" else None
        client = create()
        client.delete_secret("vendor.token")
        client.delete_secret_version("vendor.token", 3)
        paths = [r.path for r in service.requests if r.method == "DELETE"]
        assert paths == ["/v1/secrets/vendor.token", "/v1/secrets/vendor.token/versions/3"]

    def test_429_is_rate_limited_with_retry_after(
        self, service: FakeService, create: Create
    ) -> None:
        service.respond = answer(
            "/v1/secrets/", problem(429, "rate_limited", **{"Retry-After": "9"})
        )
        client = create()
        with pytest.raises(ServiceRateLimitedError) as raised:
            client.set_secret("k", "v")
        assert raised.value.retry_after == 9
        assert raised.value.status == 429

    def test_a_public_key_is_refused_before_any_request(
        self, service: FakeService, create: Create
    ) -> None:
        service.snapshot.update(key_type="pk", secrets=None)
        del service.snapshot["secrets"]
        client = create(api_key=PK)
        for call in (
            lambda: client.get_secret("k"),
            client.get_all_secrets,
            lambda: client.set_secret("k", "v"),
            lambda: client.delete_secret("k"),
            lambda: client.delete_secret_version("k", 1),
        ):
            with pytest.raises(ServicePublicKeyError):
                call()
        assert [r.path for r in service.requests] == ["/v1/sync"]

    def test_get_secret_of_an_absent_key_names_the_key(self, create: Create) -> None:
        client = create()
        with pytest.raises(ServiceSecretNotFoundError) as raised:
            client.get_secret("nope")
        assert raised.value.key == "nope"
        assert raised.value.code == "secret_not_found"

    def test_checks_its_argument_types_locally(self, service: FakeService, create: Create) -> None:
        client = create()
        calls: list[tuple[Any, type[Exception]]] = [
            (lambda: client.set_secret("", "v"), ValueError),
            (lambda: client.set_secret(1, "v"), TypeError),  # type: ignore[arg-type]
            (lambda: client.set_secret("k", 1), TypeError),  # type: ignore[arg-type]
            (lambda: client.set_secret("k", "v", expected_version=-1), ValueError),
            (lambda: client.set_secret("k", "v", expected_version=True), TypeError),
            (lambda: client.delete_secret_version("k", 0), ValueError),
            (lambda: client.delete_secret_version("k", 1.5), TypeError),  # type: ignore[arg-type]
        ]
        for call, error in calls:
            with pytest.raises(error):
                call()
        assert [r.path for r in service.requests] == ["/v1/sync"]


def test_every_client_error_is_a_service_error_with_its_own_name() -> None:
    names = [name for name in svc_client.__all__ if name.startswith("Service") and "Error" in name]
    assert len(names) == 10  # the spec's table, less IllegalArgument (ValueError)
    for name in names:
        error_type = getattr(svc_client, name)
        assert issubclass(error_type, ServiceError)
        assert issubclass(error_type, Exception)
    assert not issubclass(ServiceError, ValueError)
