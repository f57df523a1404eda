"""``svc_client``: the Python client of the configuration, secrets and feature-flag service.

Start with :meth:`ServiceClient.create`.
"""

from ._api_key import KeyType
from ._client import ServiceClient
from ._config import ReconnectOptions, ServiceConfig
from ._errors import (
    ServiceAbAddonNotAvailableError,
    ServiceBillingError,
    ServiceError,
    ServiceInitError,
    ServiceNotFoundError,
    ServicePublicKeyError,
    ServiceQuarantinedError,
    ServiceRateLimitedError,
    ServiceSecretNotFoundError,
    ServiceUnauthorizedError,
)
from ._identity.settings import AwsCredentials, IdentityMethod, RetryOptions, WorkloadIdentity
from ._live_cache import ChangeListener, ChangeSet
from ._logger import ServiceLogger, StdlibLogger, default_logger, silent_logger
from ._snapshot import Change, ItemKind, JsonValue

__version__ = "0.5.0"

__all__ = [
    "AwsCredentials",
    "Change",
    "ChangeListener",
    "ChangeSet",
    "IdentityMethod",
    "ItemKind",
    "JsonValue",
    "KeyType",
    "ReconnectOptions",
    "RetryOptions",
    "ServiceAbAddonNotAvailableError",
    "ServiceBillingError",
    "ServiceClient",
    "ServiceConfig",
    "ServiceError",
    "ServiceInitError",
    "ServiceLogger",
    "ServiceNotFoundError",
    "ServicePublicKeyError",
    "ServiceQuarantinedError",
    "ServiceRateLimitedError",
    "ServiceSecretNotFoundError",
    "ServiceUnauthorizedError",
    "StdlibLogger",
    "WorkloadIdentity",
    "__version__",
    "default_logger",
    "silent_logger",
]
