"""The JSON Schema → Spark StructType converter, on the project's schemas and on small ones."""

import json
import os

import pytest
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DoubleType,
    LongType,
    MapType,
    StringType,
    StructType,
)

from mediatools_spark import JsonSchemaConverter, SchemaConversionError, default_schema_dir
from mediatools_spark.probe import probe_schemas

SCHEMA = os.path.join(default_schema_dir(), "mediaprobe.schema.json")


def field(struct, dotted):
    """The StructField at ``a.b.c`` (through arrays' elements)."""
    current = None
    for name in dotted.split("."):
        while isinstance(struct, ArrayType):
            struct = struct.elementType
        current = struct[name]
        struct = current.dataType
    return current


def test_media_record_fields_follow_the_schema():
    media, error = probe_schemas()
    with open(SCHEMA, encoding="utf-8") as handle:
        document = json.load(handle)
    definition = document["$defs"]["media"]
    assert media.fieldNames() == list(definition["properties"])
    assert error.fieldNames() == ["code", "message"]
    assert field(media, "path").nullable is False  # required, never null
    assert field(media, "size_bytes").dataType == LongType() and field(media, "size_bytes").nullable
    assert field(media, "bytes_read").dataType == LongType()
    assert field(media, "duration").nullable  # oneOf [duration, null]
    assert field(media, "duration.value").dataType == LongType()
    assert field(media, "duration.seconds").dataType == DoubleType()
    assert field(media, "scanned").dataType == BooleanType()


def test_maps_for_free_form_objects():
    media, _ = probe_schemas()
    assert field(media, "container.tags").dataType == MapType(StringType(), StringType(), False)
    assert field(media, "streams.disposition").dataType == MapType(
        StringType(), BooleanType(), False
    )


def test_enums_keep_their_values_and_type():
    media, _ = probe_schemas()
    rotation = field(media, "streams.video.orientation.rotation")
    assert rotation.dataType == LongType() and rotation.metadata["enum"] == [0, 90, 180, 270]
    integrity = field(media, "integrity")
    assert integrity.dataType == StringType() and integrity.nullable
    assert integrity.metadata["enum"] == ["ok", "damaged", "truncated", "undecodable"]
    assert integrity.metadata["description"].startswith("With --verify")
    code = field(probe_schemas()[1], "code")
    assert "timeout" in code.metadata["enum"]


def test_cross_file_ref_brings_the_compat_verdicts():
    media, _ = probe_schemas()
    compat = field(media, "compat")
    assert compat.nullable and isinstance(compat.dataType, ArrayType)
    verdict = compat.dataType.elementType
    assert verdict.fieldNames() == ["platform", "verdict", "findings", "fixes", "suggestion"]
    assert field(media, "compat.findings.source_url").nullable
    assert field(media, "compat.suggestion.arguments").dataType == ArrayType(StringType(), False)


def test_streams_array_of_structs_with_nullable_parts():
    media, _ = probe_schemas()
    streams = field(media, "streams").dataType
    assert isinstance(streams, ArrayType) and isinstance(streams.elementType, StructType)
    assert field(media, "streams.video").nullable and field(media, "streams.audio").nullable
    assert field(media, "streams.time_base").nullable is False
    assert field(media, "streams.video.frame_rate.best.num").dataType == LongType()


def write(tmp_path, name, document):
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return str(path)


def test_union_of_objects_is_merged_and_null_branches_make_nullable(tmp_path):
    root = write(
        tmp_path,
        "root.json",
        {
            "$id": "https://example.invalid/s/root.json",
            "oneOf": [
                {"$ref": "#/$defs/a"},
                {"$ref": "other.json#/$defs/b"},
                {"type": "null"},
            ],
            "$defs": {
                "a": {
                    "type": "object",
                    "required": ["x"],
                    "properties": {"x": {"type": "integer"}, "k": {"const": "a"}},
                }
            },
        },
    )
    write(
        tmp_path,
        "other.json",
        {
            "$id": "https://example.invalid/s/other.json",
            "$defs": {
                "b": {
                    "type": "object",
                    "properties": {"y": {"type": ["number", "null"]}, "z": {"items": {}}},
                }
            },
        },
    )
    data_type, nullable = JsonSchemaConverter(root).to_spark()
    assert nullable
    assert [(f.name, f.dataType, f.nullable) for f in data_type.fields] == [
        ("x", LongType(), True),
        ("k", StringType(), True),
        ("y", DoubleType(), True),
        ("z", ArrayType(StringType(), True), True),
    ]


@pytest.mark.parametrize(
    "schema, message",
    [
        ({"$ref": "#"}, "recursive $ref"),
        ({"allOf": [{"type": "string"}]}, "unsupported keyword"),
        ({"type": ["string", "integer"]}, "a union"),
        ({"enum": ["a", 1]}, "enum values of types"),
        ({"oneOf": [{"type": "string"}, {"type": "integer"}]}, "branches of different types"),
        (
            {"type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "string"}},
            "both properties and typed additionalProperties",
        ),
        ({"$ref": "absent.json#/x"}, "cannot find the schema"),
        ({"$ref": "#/$defs/nothing"}, "does not exist"),
        ({"type": "null"}, "only null"),
    ],
)
def test_constructs_without_a_faithful_type_are_refused(tmp_path, schema, message):
    path = write(tmp_path, "s.json", schema)
    with pytest.raises(SchemaConversionError, match=message.replace("$", r"\$")):
        JsonSchemaConverter(path).to_spark()


def test_the_whole_output_schema_is_refused_as_a_union_of_record_and_array():
    # The root is "one record, or an array of them": no single Spark type; callers take $defs.
    with pytest.raises(SchemaConversionError, match="branches of different types"):
        JsonSchemaConverter(SCHEMA).to_spark()
