"""Runs the interop cases (JSON on stdin) with the OpenFeature Python SDK and its OFREP provider
(openfeature-provider-ofrep, from PyPI) and prints what each evaluation's details said."""

import json
import sys

from openfeature import api
from openfeature.contrib.provider.ofrep import OFREPProvider
from openfeature.evaluation_context import EvaluationContext


def header(case):
    if case["auth"] == "bearer":
        return {"Authorization": f"Bearer {case['apiKey']}"}
    return {"X-API-Key": case["apiKey"]}


def main():
    spec = json.load(sys.stdin)
    clients = {}
    outcomes = []
    for case in spec["cases"]:
        # One provider per key and way of sending it, each in a domain of its own.
        domain = f"{case['auth']}:{case['apiKey']}"
        if domain not in clients:
            headers = header(case)
            provider = OFREPProvider(spec["baseUrl"], headers_factory=lambda h=headers: h)
            api.set_provider(provider, domain)
            clients[domain] = api.get_client(domain)
        client = clients[domain]
        attributes = dict(case["context"])
        targeting_key = attributes.pop("targetingKey", None)
        context = EvaluationContext(targeting_key=targeting_key, attributes=attributes)
        evaluate = {
            "boolean": client.get_boolean_details,
            "string": client.get_string_details,
            "integer": client.get_integer_details,
            "float": client.get_float_details,
            "object": client.get_object_details,
        }[case["type"]]
        details = evaluate(case["key"], case["default"], context)
        outcomes.append(
            {
                "name": case["name"],
                "value": details.value,
                "reason": details.reason,
                "variant": details.variant,
                "errorCode": details.error_code,
                "providerStatus": client.get_provider_status().value,
            }
        )
    json.dump(outcomes, sys.stdout)


if __name__ == "__main__":
    main()
