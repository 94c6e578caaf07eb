"""MediaTools on Apache Spark: probe a DataFrame of paths or URLs with ``mediaprobe``, and
extract their audio to WAV files with ``media2wav``.

>>> from mediatools_spark import probe
>>> probed = probe(spark.createDataFrame([("/data/a.mp4",)], "path string"))
>>> probed.select("path", "error.code", "media.container.format_name").show()

See :func:`probe` (one ``mediaprobe --ndjson --files-from -`` process per partition),
:func:`extract` (one ``media2wav`` run per row, a typed row per input) and
:mod:`mediatools_spark.schema` (the Spark schema derived from ``schemas/mediaprobe.schema.json``).
"""

from .extract import WAV_TYPE, extract
from .probe import MediaprobeFailed, probe, probe_schemas
from .schema import JsonSchemaConverter, SchemaConversionError, default_schema_dir

__all__ = [
    "JsonSchemaConverter",
    "MediaprobeFailed",
    "WAV_TYPE",
    "SchemaConversionError",
    "default_schema_dir",
    "extract",
    "probe",
    "probe_schemas",
]
