#!/usr/bin/env python3
"""Fixture hook: reads its input and allows everything."""
import json, sys

json.load(sys.stdin)
print("{}")
