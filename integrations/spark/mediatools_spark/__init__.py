"""MediaTools on Apache Spark: probe a DataFrame of paths or URLs with ``mediaprobe``.

>>> from mediatools_spark import probe
>>> probed = probe(spark.createDataFrame([("/data/a.mp4",)], "path string"))
>>> probed.select("path", "error.code", "media.container.format_name").show()

See :func:`probe` (one ``mediaprobe --ndjson --files-from -`` process per partition) and
:mod:`mediatools_spark.schema` (the Spark schema derived from ``schemas/mediaprobe.schema.json``).
"""

from .probe import MediaprobeFailed, probe, probe_schemas
from .schema import JsonSchemaConverter, SchemaConversionError, default_schema_dir

__all__ = [
    "JsonSchemaConverter",
    "MediaprobeFailed",
    "SchemaConversionError",
    "default_schema_dir",
    "probe",
    "probe_schemas",
]
