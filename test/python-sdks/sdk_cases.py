"""What the SDK cases share: the gateway's URL, client options, and the run that prints the results.

Each script is one Python process for a group of cases: every case runs (an async one in its own
event loop), and what the SDK got, or the error it raised, is printed as one JSON object on stdout
for the vitest file to assert on.
"""

import asyncio
import inspect
import json
import sys

# The SDKs' own retries would hide what the gateway answered; the timeout bounds a hang.
CLIENT_OPTIONS = {"max_retries": 0, "timeout": 30.0}


def gateway_url():
    return sys.argv[1]


def run(cases):
    results = {}
    for name, case in cases.items():
        try:
            result = case()
            results[name] = asyncio.run(result) if inspect.isawaitable(result) else result
        except Exception as error:  # noqa: BLE001 - the test reports any failure with its case
            results[name] = {"error": f"{type(error).__name__}: {error}"}
    json.dump(results, sys.stdout)
