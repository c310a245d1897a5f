"""Every model has exactly the fields its `openapi.yaml` schema has: a change
to the spec that the client does not follow fails here."""

import pathlib

import pytest
import yaml

from engram_client.models import SCHEMAS

SPEC = pathlib.Path(__file__).resolve().parents[3] / "openapi.yaml"


def properties(schemas: dict, name: str) -> set:
    s = schemas[name]
    props = set(s.get("properties", {}))
    for part in s.get("allOf", []):
        if "$ref" in part:
            props |= properties(schemas, part["$ref"].rsplit("/", 1)[-1])
        props |= set(part.get("properties", {}))
    return props


@pytest.mark.parametrize("model,schema", sorted(SCHEMAS.items(), key=lambda kv: kv[1]), ids=lambda x: getattr(x, "__name__", x))
def test_model_matches_the_spec(model, schema):
    schemas = yaml.safe_load(SPEC.read_text())["components"]["schemas"]
    assert schema in schemas, f"{schema} is no longer in openapi.yaml"
    fields = {f.alias or n for n, f in model.model_fields.items()}
    assert fields == properties(schemas, schema), (
        f"{model.__name__} and openapi.yaml's {schema} differ: "
        f"only in the model {sorted(fields - properties(schemas, schema))}, "
        f"only in the spec {sorted(properties(schemas, schema) - fields)}"
    )


def test_the_async_resources_are_generated_from_the_sync_ones():
    import importlib.util

    tools = pathlib.Path(__file__).resolve().parents[1] / "tools" / "gen_async.py"
    spec = importlib.util.spec_from_file_location("gen_async", tools)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    pkg = pathlib.Path(__file__).resolve().parents[1] / "src" / "engram_client"
    expected = gen.transform((pkg / "_resources.py").read_text())
    assert (pkg / "_resources_async.py").read_text() == expected, "run clients/python/tools/gen_async.py"
