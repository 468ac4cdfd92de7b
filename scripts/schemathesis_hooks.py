"""Hooks for scripts/api-conformance's schemathesis runs.

The ingest route (POST /admin/apps/{appID}/data/{entitySet}/ingest/{batchID}) takes
application/x-ndjson, a media type schemathesis has no serializer for. Its document
declares the body as binary, so the body schemathesis generates is sent as its bytes,
as it sends application/octet-stream: the server answers any bytes, each line judged
alone.
"""

import schemathesis

schemathesis.serializer.alias("application/x-ndjson", "application/octet-stream")
