"""Reads a Prometheus text exposition on standard input with prometheus_client's own
parser (not Gangway's code) and writes its samples as JSON: a list of
{"family", "type", "name", "labels", "value"}. A text the parser refuses ends with exit
status 1 and the parser's message on standard error.
"""

import json
import sys

from prometheus_client.parser import text_string_to_metric_families

try:
    samples = [
        {"family": family.name, "type": family.type, "name": sample.name, "labels": sample.labels,
         "value": sample.value}
        for family in text_string_to_metric_families(sys.stdin.read())
        for sample in family.samples
    ]
except Exception as error:  # the parser's refusal, said as such
    print("not an exposition: %s" % error, file=sys.stderr)
    sys.exit(1)
json.dump(samples, sys.stdout)
