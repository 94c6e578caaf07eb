"""Spark SQL types derived from the project's JSON Schemas.

The Spark schema of a probe record is never written by hand: :class:`JsonSchemaConverter` reads
``schemas/mediaprobe.schema.json`` (and the files it refers to, such as
``mediacompat.schema.json`` for ``--compat`` verdicts) and maps each construct to a Spark type:

==============================================  =============================================
JSON Schema                                     Spark SQL
==============================================  =============================================
``"type": "string"``                            ``StringType``
``"type": "integer"``                           ``LongType`` (sizes and bit rates pass 2**31)
``"type": "number"``                            ``DoubleType``
``"type": "boolean"``                           ``BooleanType``
``"type": [T, "null"]``                         T, nullable
``enum`` / ``const``                            the values' common type (strings: ``StringType``,
                                                integers: ``LongType``, ...); nullable when
                                                ``null`` is a value; the values are kept in the
                                                field's metadata (``"enum"``)
``object`` with ``properties``                  ``StructType``, fields in schema order; a field is
                                                non-nullable when it is ``required`` and its
                                                schema does not admit ``null``
``object`` with ``additionalProperties: S``     ``MapType(StringType, S)`` (``tags``,
and no ``properties``                           ``disposition``)
``object`` with no properties and no typed      ``MapType(StringType, StringType)``; Spark's JSON
``additionalProperties``                        reader keeps a non-string value as its JSON text
``array`` with ``items: S``                     ``ArrayType(S)``
``$ref`` (``#/pointer`` or ``file#/pointer``)   the referenced schema, resolved against the
                                                document's ``$id``; another file is loaded from
                                                the referring file's folder
``oneOf`` / ``anyOf``                           ``null`` branches make the type nullable; the
                                                other branches must map to one type, or all to
                                                structs, which are merged field by field (every
                                                merged field nullable)
``description``                                 the field's metadata (``"description"``)
==============================================  =============================================

Validation-only keywords (``minimum``, ``maxLength``, ``uniqueItems``, ``additionalProperties:
false``, ...) do not change the type. Constructs with no faithful Spark type (recursive
``$ref``, ``allOf``, ``not``, ``if``, ``patternProperties``, ``prefixItems``, unions such as
string-or-integer, objects with both ``properties`` and typed ``additionalProperties``) raise
:class:`SchemaConversionError` instead of being guessed.
"""

import json
import os
import urllib.parse

from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DoubleType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
)

__all__ = ["JsonSchemaConverter", "SchemaConversionError", "default_schema_dir"]

# Keywords that only validate or annotate: they never change the Spark type.
_IGNORED = frozenset(
    {
        "$schema", "$id", "$defs", "definitions", "$comment", "title", "description",
        "default", "examples", "format", "required", "additionalProperties", "properties",
        "items", "type", "enum", "const", "oneOf", "anyOf", "$ref",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems",
        "minProperties", "maxProperties", "contentEncoding", "contentMediaType",
        "deprecated", "readOnly", "writeOnly",
    }
)

_PRIMITIVES = {
    "string": StringType(),
    "integer": LongType(),
    "number": DoubleType(),
    "boolean": BooleanType(),
}


class SchemaConversionError(ValueError):
    """A JSON Schema construct that has no faithful Spark SQL type (the message says where)."""


def default_schema_dir():
    """The folder holding ``mediaprobe.schema.json``.

    ``$MEDIATOOLS_SCHEMA_DIR`` when set, else the ``schemas/`` folder of the repository this
    package lives in (``integrations/spark/mediatools_spark`` → ``schemas``).
    """
    env = os.environ.get("MEDIATOOLS_SCHEMA_DIR")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "..", "schemas"))


class _Node:
    """A schema node with the document it lives in (to resolve relative ``$ref``)."""

    __slots__ = ("schema", "base_uri", "pointer")

    def __init__(self, schema, base_uri, pointer):
        self.schema = schema
        self.base_uri = base_uri
        self.pointer = pointer

    def where(self):
        return f"{self.base_uri}#{self.pointer}"


class JsonSchemaConverter:
    """Converts JSON Schema (draft 2020-12, the subset the project's schemas use) to Spark types.

    ``path`` is the root schema file; ``$ref`` to other files are resolved against the root's
    ``$id`` and loaded from the same folder as the file that refers to them.
    """

    def __init__(self, path):
        self._documents = {}  # base URI -> (document, file path)
        self.root_uri = self._load(os.path.abspath(path))

    # -- documents and references -------------------------------------------------------------

    def _load(self, path):
        """Loads a schema file; returns its base URI (its ``$id``, else its file URI)."""
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
        uri = document.get("$id") or "file://" + urllib.parse.quote(path)
        self._documents[uri] = (document, path)
        return uri

    def _document(self, uri, referrer_uri):
        """The document named by ``uri``, loading it beside the referrer's file if needed.

        :raises SchemaConversionError: when no such file exists.
        """
        if uri not in self._documents:
            referrer_path = self._documents[referrer_uri][1]
            name = os.path.basename(urllib.parse.urlparse(uri).path)
            candidate = os.path.join(os.path.dirname(referrer_path), name)
            if not os.path.isfile(candidate):
                raise SchemaConversionError(
                    f"cannot find the schema {uri} (looked for {candidate})"
                )
            loaded = self._load(candidate)
            if loaded != uri:
                self._documents[uri] = self._documents[loaded]
        return self._documents[uri][0]

    def node(self, pointer="", uri=None):
        """The schema at JSON pointer ``pointer`` (``"/$defs/media"``) of document ``uri``.

        :raises SchemaConversionError: when the pointer names nothing.
        """
        uri = uri or self.root_uri
        schema = self._document(uri, self.root_uri)
        for token in [t for t in pointer.split("/") if t != ""]:
            token = token.replace("~1", "/").replace("~0", "~")
            try:
                schema = schema[int(token)] if isinstance(schema, list) else schema[token]
            except (KeyError, IndexError, ValueError):
                raise SchemaConversionError(f"{uri}#{pointer} does not exist") from None
        return _Node(schema, uri, pointer)

    def _resolve(self, node):
        ref = node.schema["$ref"]
        target = urllib.parse.urljoin(node.base_uri, ref)
        uri, _, fragment = target.partition("#")
        self._document(uri, node.base_uri)
        return self.node(urllib.parse.unquote(fragment), uri)

    # -- conversion ---------------------------------------------------------------------------

    def to_spark(self, pointer="", uri=None):
        """The Spark type of the schema at ``pointer`` and whether it admits null.

        :returns: ``(DataType, nullable)``.
        :raises SchemaConversionError: on a construct with no faithful Spark type.
        """
        return self._typed(self.node(pointer, uri), ())

    def struct(self, pointer="", uri=None):
        """The :class:`StructType` of an object schema at ``pointer``.

        :raises SchemaConversionError: when that schema is not an object with properties.
        """
        data_type, _ = self.to_spark(pointer, uri)
        if not isinstance(data_type, StructType):
            raise SchemaConversionError(f"{pointer} is not an object with properties")
        return data_type

    def _convert(self, node, stack):
        schema = node.schema
        if schema is True or schema == {}:
            return StringType(), True  # anything: kept as its JSON text
        if not isinstance(schema, dict):
            raise SchemaConversionError(f"{node.where()}: not a schema")
        unknown = sorted(set(schema) - _IGNORED)
        if unknown:
            raise SchemaConversionError(f"{node.where()}: unsupported keyword(s) {unknown}")
        if "$ref" in schema:
            target = self._resolve(node)
            key = target.where()
            if key in stack:
                raise SchemaConversionError(f"{node.where()}: recursive $ref to {key}")
            return self._convert(target, stack + (key,))
        for keyword in ("oneOf", "anyOf"):
            if keyword in schema:
                branches = [
                    self._convert(_Node(b, node.base_uri, f"{node.pointer}/{keyword}/{i}"), stack)
                    for i, b in enumerate(schema[keyword])
                ]
                return self._union(branches, node)
        if "enum" in schema or "const" in schema:
            values = schema["enum"] if "enum" in schema else [schema["const"]]
            return self._enum_type(values, node), None in values
        types = schema.get("type")
        if types is None:
            if "properties" in schema or "additionalProperties" in schema:
                types = "object"
            elif "items" in schema:
                types = "array"
            else:
                raise SchemaConversionError(f"{node.where()}: no type")
        types = [types] if isinstance(types, str) else list(types)
        nullable = "null" in types
        types = [t for t in types if t != "null"]
        if not types:
            return None, True  # {"type": "null"}: only meaningful as a branch of a union
        if len(types) > 1:
            if sorted(types) == ["integer", "number"]:
                return DoubleType(), nullable
            raise SchemaConversionError(f"{node.where()}: a union of {types}")
        kind = types[0]
        if kind in _PRIMITIVES:
            return _PRIMITIVES[kind], nullable
        if kind == "array":
            items = schema.get("items", True)
            element, element_nullable = self._typed(
                _Node(items, node.base_uri, node.pointer + "/items"), stack
            )
            return ArrayType(element, element_nullable), nullable
        if kind == "object":
            return self._object(node, stack), nullable
        raise SchemaConversionError(f"{node.where()}: unknown type {kind!r}")

    def _typed(self, node, stack):
        """Like ``_convert``, for a place where a schema admitting only null has no type."""
        data_type, nullable = self._convert(node, stack)
        if data_type is None:
            raise SchemaConversionError(f"{node.where()}: only null")
        return data_type, nullable

    def _object(self, node, stack):
        schema = node.schema
        properties = schema.get("properties")
        extra = schema.get("additionalProperties", True)
        if properties is None:
            if extra is False:
                raise SchemaConversionError(f"{node.where()}: an object that admits no key")
            value, value_nullable = self._typed(
                _Node(extra, node.base_uri, node.pointer + "/additionalProperties"), stack
            )
            return MapType(StringType(), value, value_nullable)
        if isinstance(extra, dict) and extra != {}:
            raise SchemaConversionError(
                f"{node.where()}: both properties and typed additionalProperties"
            )
        required = set(schema.get("required", ()))
        fields = []
        for name, sub in properties.items():
            child = _Node(sub, node.base_uri, f"{node.pointer}/properties/{name}")
            data_type, nullable = self._typed(child, stack)
            fields.append(
                StructField(
                    name,
                    data_type,
                    nullable or name not in required,
                    self._metadata(child),
                )
            )
        return StructType(fields)

    def _metadata(self, node):
        """``description`` and ``enum`` values of a property (following a ``$ref``)."""
        seen = set()
        metadata = {}
        while isinstance(node.schema, dict):
            schema = node.schema
            if "description" in schema and "description" not in metadata:
                metadata["description"] = schema["description"]
            if "enum" in schema and "enum" not in metadata:
                metadata["enum"] = [v for v in schema["enum"] if v is not None]
            if "$ref" not in schema or node.where() in seen:
                break
            seen.add(node.where())
            node = self._resolve(node)
        return metadata

    @staticmethod
    def _enum_type(values, node):
        kinds = set()
        for value in values:
            if value is None:
                continue
            if isinstance(value, bool):
                kinds.add("boolean")
            elif isinstance(value, int):
                kinds.add("integer")
            elif isinstance(value, float):
                kinds.add("number")
            elif isinstance(value, str):
                kinds.add("string")
            else:
                raise SchemaConversionError(f"{node.where()}: an enum value {value!r}")
        if kinds == {"integer", "number"}:
            return DoubleType()
        if len(kinds) != 1:
            raise SchemaConversionError(f"{node.where()}: enum values of types {sorted(kinds)}")
        return _PRIMITIVES[kinds.pop()]

    @classmethod
    def _union(cls, branches, node):
        nullable = False
        types = []
        for data_type, branch_nullable in branches:
            if data_type is None:  # a bare {"type": "null"} branch
                nullable = True
                continue
            nullable = nullable or branch_nullable
            types.append(data_type)
        if not types:
            raise SchemaConversionError(f"{node.where()}: only null")
        if all(t == types[0] for t in types):
            return types[0], nullable
        if all(isinstance(t, StructType) for t in types):
            return cls._merge(types, node), nullable
        names = [t.simpleString()[:60] for t in types]
        raise SchemaConversionError(f"{node.where()}: branches of different types {names}")

    @staticmethod
    def _merge(structs, node):
        """One struct with every field of ``structs`` (all nullable: a row has one branch)."""
        merged = {}
        for struct in structs:
            for field in struct.fields:
                if field.name in merged and merged[field.name].dataType != field.dataType:
                    raise SchemaConversionError(
                        f"{node.where()}: field {field.name!r} has two types in the branches"
                    )
                merged.setdefault(field.name, StructField(field.name, field.dataType, True,
                                                          field.metadata))
        return StructType(list(merged.values()))

