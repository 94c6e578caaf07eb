"""pytest set-up: the package from this checkout on the driver, and one local[2] Spark session.

The executors (Python workers) do not get this folder on their path: the partition function
reaches them by value, as on a cluster where only the driver has the package.
"""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # integrations/spark: mediatools_spark
sys.path.insert(0, HERE)  # corpus
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
FIXTURES = os.path.join(REPO, "Tests", "Fixtures")


@pytest.fixture(scope="session")
def spark():
    """A small local[2] session (512 MB driver, no UI), stopped after the last test."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("mediatools-test-spark")
        .config("spark.driver.memory", "512m")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("FATAL")  # the policy tests fail tasks on purpose
    yield session
    session.stop()


@pytest.fixture
def range_server():
    """Scripts/range-server.py serving Tests/Fixtures on 127.0.0.1; yields its base URL."""
    server = subprocess.Popen(
        [sys.executable, os.path.join(REPO, "Scripts", "range-server.py"), FIXTURES],
        stdout=subprocess.PIPE,
    )
    try:
        port = int(server.stdout.readline())
        yield f"http://127.0.0.1:{port}"
    finally:
        server.kill()
        server.wait()
